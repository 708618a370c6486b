/**
 * What to sing next (suggestSongs; docs/analytics.md, Suggestions): the rules in one place. A
 * candidate's score is the sum of four weighted parts, each from 0 to 1 before its weight:
 *
 * - `fit`: how often it was sung with the songs already chosen: for each chosen song, the share of
 *   that song's services that also held the candidate, averaged over the chosen songs. Only each
 *   chosen song's PARTNERS_PER_CHOSEN most frequent companions count (the maintained pairs, read
 *   by a bounded seek); a song sung with it less often counts 0.
 * - `due`: how far past its usual interval it is (Song.rotation with its defaults): 0 when not
 *   due, 1 at twice its interval or more.
 * - `serviceType`: the share of its services (all time) that were of the service's type.
 * - `new`: a lift for songs still being learnt: 1 for NEW, 1/2 for LEARNING.
 *
 * Left out: the chosen songs, the songs sung too often lately (the songsSungOften rule with its
 * defaults, over the last services of the service's type before its day), and the songs of the
 * other services of the service's week (Monday to Sunday in SERVICE_TIME_ZONE). The candidates are
 * the songs of the last POOL_SERVICES services before the service's day and the chosen songs'
 * companions, so a request reads what those hold, never the whole history.
 */
import { DateTime } from 'luxon';
import type { ServiceType } from '../../generated/graphql';
import { ROTATION_DEFAULTS, rhythmWindow, rotationOf, type SongRhythmData, type SongRotation } from './rotation';
import { SUNG_OFTEN_PARAMETERS } from './sung-often';
import { MAX_PAGE } from '../validation';

export const SUGGESTION_WEIGHTS = { fit: 0.4, due: 0.3, serviceType: 0.15, new: 0.15 } as const;
export type ScorePartName = keyof typeof SUGGESTION_WEIGHTS;

export const SUGGESTION_PARAMETERS = {
  /** The range every list's `limit` has (docs/API.md); the default, a screenful. */
  limit: { minimum: 1, maximum: MAX_PAGE, default: 10 },
  /** At most this many chosen songs: a setlist is rarely a tenth of it. */
  chosen: { maximum: 50 },
} as const;

/** Where candidates come from: the songs of the last this many services (every type) before the day... */
export const POOL_SERVICES = 156;
/** ...and each chosen song's this many most frequent companions. */
export const PARTNERS_PER_CHOSEN = 25;

/** The songsSungOften rule that leaves a song out: its defaults, over the service's type. */
export const TOO_OFTEN = {
  lastServices: SUNG_OFTEN_PARAMETERS.lastServices.default,
  moreThanPercent: SUNG_OFTEN_PARAMETERS.moreThanPercent.default,
};

const TYPE_WORDS: Record<ServiceType, string> = { SUN_AM: 'Sunday mornings', SUN_PM: 'Sunday evenings', WED: 'Wednesdays' };

/** The service suggestions are for: its day and week in the service time zone, and its type. */
export interface SuggestionTarget {
  /** The existing service, whose own songs are not "its week's"; null for a service not yet created. */
  serviceId: number | null;
  serviceType: ServiceType;
  /** Start of the service's local day: the history before it counts. */
  dayStart: number;
  /** Its ISO week (Monday to Sunday), inclusive epoch-ms bounds. */
  week: { min: number; max: number };
}

/** The day and week in `zone` of an instant, for a service of `serviceType`. */
export function targetOf(serviceId: number | null, at: number, serviceType: ServiceType, zone: string): SuggestionTarget {
  const local = DateTime.fromMillis(at, { zone });
  const week = local.startOf('week');
  return {
    serviceId,
    serviceType,
    dayStart: local.startOf('day').toMillis(),
    week: { min: week.toMillis(), max: week.plus({ weeks: 1 }).toMillis() - 1 },
  };
}

/** The history rotation reads for a target: the horizon before its day. */
export const rhythmRangeOf = (t: SuggestionTarget) => {
  const { min } = rhythmWindow(t.dayStart, ROTATION_DEFAULTS.horizonWeeks);
  return { min, max: t.dayStart - 1 };
};

/** A chosen song as a candidate's fit is told: its name and how often it was sung. */
export interface ChosenSong {
  id: number;
  name: string;
  timesSung: number;
}

/** Everything a candidate's score is made of, as the stores read it. */
export interface CandidateFacts {
  /** Per chosen song, in the chosen order: services holding both (0 beyond its companions read). */
  together: number[];
  /** All-time services holding it, and those of the target's type. */
  timesSung: number;
  timesOfType: number;
  rhythm: SongRhythmData;
}

export interface ScorePart {
  name: ScorePartName;
  value: number;
}

export interface Scored {
  score: number;
  parts: ScorePart[];
  reasons: string[];
  rotation: SongRotation;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

const weeks = (w: number) => {
  const n = Math.round(w);
  return n === 1 ? '1 week' : `${n} weeks`;
};

const times = (n: number) => (n === 1 ? '1 time' : `${n} times`);

/** A candidate's score and its parts (their values sum to it), without the words. */
export interface Scoring {
  score: number;
  parts: ScorePart[];
  rotation: SongRotation;
  /** Per chosen song, the share of its services that held the candidate. */
  shares: number[];
  /** The service type's share of the candidate's services. */
  typeShare: number;
}

/**
 * A candidate's score: every candidate is scored, and only those kept are put in words
 * (reasonsOf), so what a request spends on words follows its `limit`, not its candidates.
 */
export function scoreOf(target: SuggestionTarget, chosen: readonly ChosenSong[], f: CandidateFacts): Scoring {
  const rotation = rotationOf(f.rhythm, target.dayStart, ROTATION_DEFAULTS);
  const shares = chosen.map((c, i) => (c.timesSung > 0 ? f.together[i] / c.timesSung : 0));
  const typeShare = f.timesSung > 0 ? f.timesOfType / f.timesSung : 0;
  const raw: Record<ScorePartName, number> = {
    fit: chosen.length ? shares.reduce((a, b) => a + b, 0) / chosen.length : 0,
    due: dueness(rotation),
    serviceType: typeShare,
    new: rotation.state === 'NEW' ? 1 : rotation.state === 'LEARNING' ? 0.5 : 0,
  };
  const parts = (Object.keys(SUGGESTION_WEIGHTS) as ScorePartName[]).map((name) => ({ name, value: round4(SUGGESTION_WEIGHTS[name] * raw[name]) }));
  return { score: round4(parts.reduce((a, p) => a + p.value, 0)), parts, rotation, shares, typeShare };
}

/** The reasons in words for a scored candidate. */
export function reasonsOf(target: SuggestionTarget, chosen: readonly ChosenSong[], together: readonly number[], s: Scoring): string[] {
  const { rotation, shares } = s;
  const reasons: string[] = [];
  // The two chosen songs it fits best, best first (ties in the chosen order).
  const fits = chosen
    .map((c, i) => ({ c, together: together[i], share: shares[i], i }))
    .filter((x) => x.together > 0)
    .sort((a, b) => b.share - a.share || a.i - b.i)
    .slice(0, 2);
  for (const x of fits) reasons.push(`sung with ${x.c.name} in ${x.together} of its ${x.c.timesSung} services`);
  if (rotation.due) reasons.push(`last sung ${weeks(rotation.weeksSinceLastSung!)} ago; usually every ${rotation.usualIntervalWeeks! < 1.5 ? 'week' : weeks(rotation.usualIntervalWeeks!)}`);
  if (rotation.state === 'NEW') reasons.push(`new: sung ${times(rotation.timesInHorizon)}, keep it going`);
  if (rotation.state === 'LEARNING') reasons.push(`being learnt: sung ${times(rotation.timesInHorizon)} since it was introduced`);
  if (s.typeShare > 0) reasons.push(`${Math.round(s.typeShare * 100)}% of its services were ${TYPE_WORDS[target.serviceType]}`);
  return reasons;
}

/** A candidate's score, its parts (their values sum to it) and the reasons in words. */
export function scoreCandidate(target: SuggestionTarget, chosen: readonly ChosenSong[], f: CandidateFacts): Scored {
  const s = scoreOf(target, chosen, f);
  return { score: s.score, parts: s.parts, reasons: reasonsOf(target, chosen, f.together, s), rotation: s.rotation };
}

/** 0 when not due; from there up to 1 at twice its usual interval (an interval under a day counts as a day). */
function dueness(r: SongRotation): number {
  if (!r.due) return 0;
  const usual = Math.max(r.usualIntervalWeeks!, 1 / 7);
  return Math.min(1, (r.weeksSinceLastSung! - usual) / usual);
}

/** Best first: by score, then by song id. */
export const bySuggestionOrder = (a: { score: number; song: { id: number } }, b: { score: number; song: { id: number } }) =>
  b.score - a.score || a.song.id - b.song.id;
