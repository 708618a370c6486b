/**
 * A song's rhythm in the church's rotation (Song.rotation; docs/analytics.md, Rotation): how often
 * it usually comes round, how long since it last did, and where it stands. Worked out from what a
 * store reads for it in one bounded seek per song (Store.songRhythms): the dates of the services
 * that hold it within the horizon before `asOf`, and the last one before the horizon. Never the
 * whole history, so it costs the same at any size.
 */

const WEEK_MS = 7 * 86_400_000;

/** The thresholds, each a documented default a query may override (docs/API.md). */
export interface RotationThresholds {
  /** How far back the usual interval and the counts look. */
  horizonWeeks: number;
  /** A song first sung within the horizon is NEW below this many services, LEARNING from it. */
  learningTimes: number;
  /** A song sung in at least this many services within the horizon is a STAPLE. */
  stapleTimes: number;
  /** A song not sung for this long is RETIRED. */
  retiredAfterWeeks: number;
}

export const ROTATION_DEFAULTS: RotationThresholds = {
  horizonWeeks: 52,
  learningTimes: 4,
  stapleTimes: 8,
  retiredAfterWeeks: 104,
};

/** The bounds a query's overrides must keep (a 400 otherwise). */
export const ROTATION_BOUNDS: Record<keyof RotationThresholds, { minimum: number; maximum: number }> = {
  horizonWeeks: { minimum: 1, maximum: 520 },
  learningTimes: { minimum: 1, maximum: 1000 },
  stapleTimes: { minimum: 1, maximum: 1000 },
  retiredAfterWeeks: { minimum: 1, maximum: 5200 },
};

export type RotationState = 'NEW' | 'LEARNING' | 'STAPLE' | 'RESTING' | 'RETIRED' | 'NEVER_SUNG';

/** What a store reads for one song (Store.songRhythms). */
export interface SongRhythmData {
  /** Dates of the services holding the song within [asOf - horizon, asOf], ascending. */
  dates: number[];
  /** The last such date before the horizon; null when there is none. */
  lastBefore: number | null;
}

export interface SongRotation {
  state: RotationState;
  /** Median weeks between consecutive services holding it within the horizon; null with fewer than two. */
  usualIntervalWeeks: number | null;
  /** Weeks from its last service (up to asOf) to asOf; null when never sung by then. */
  weeksSinceLastSung: number | null;
  /** Past its usual interval. */
  due: boolean;
  /** Services holding it within the horizon. */
  timesInHorizon: number;
  asOf: number;
  horizonWeeks: number;
}

/** The window a store reads for `asOf` and a horizon: inclusive epoch-ms bounds. */
export const rhythmWindow = (asOf: number, horizonWeeks: number) => ({ min: asOf - horizonWeeks * WEEK_MS, max: asOf });

/** Median of a typed array, sorted in place (numerically, natively: no comparator to call). */
function median(xs: Float64Array): number {
  xs.sort();
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/**
 * The rotation of one song. The states, first that applies: NEVER_SUNG (no service by asOf);
 * RETIRED (not sung for retiredAfterWeeks); NEW (first sung within the horizon, fewer than
 * learningTimes services); LEARNING (first sung within the horizon, more); STAPLE (stapleTimes
 * services or more within the horizon); RESTING (in the repertoire, not in regular rotation).
 */
export function rotationOf(data: SongRhythmData, asOf: number, t: RotationThresholds): SongRotation {
  const { dates, lastBefore } = data;
  const last = dates.length > 0 ? dates[dates.length - 1] : lastBefore;
  const weeksSinceLastSung = last === null ? null : (asOf - last) / WEEK_MS;
  // A popular song's horizon holds hundreds of dates: the gaps go in a typed array.
  const gaps = new Float64Array(Math.max(dates.length - 1, 0));
  for (let i = 1; i < dates.length; i++) gaps[i - 1] = (dates[i] - dates[i - 1]) / WEEK_MS;
  const usualIntervalWeeks = gaps.length > 0 ? median(gaps) : null;
  const state: RotationState =
    weeksSinceLastSung === null ? 'NEVER_SUNG'
    : weeksSinceLastSung >= t.retiredAfterWeeks ? 'RETIRED'
    : lastBefore === null ? (dates.length < t.learningTimes ? 'NEW' : 'LEARNING')
    : dates.length >= t.stapleTimes ? 'STAPLE'
    : 'RESTING';
  return {
    state,
    usualIntervalWeeks,
    weeksSinceLastSung,
    due: usualIntervalWeeks !== null && weeksSinceLastSung !== null && weeksSinceLastSung > usualIntervalWeeks,
    timesInHorizon: dates.length,
    asOf,
    horizonWeeks: t.horizonWeeks,
  };
}
