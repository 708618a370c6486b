import type { SetlistState, WriteEffects } from './maintained';
import { TYPE_PREFIXES } from './write-statements';

/**
 * Song usage moved by deltas: the pure part (the statement is moveUsage in ./write-statements.ts).
 * A write's setlist transitions (./maintained.ts) say everything a song's usage needs: each
 * service's songs before the write count out, in its type then, and its songs after it count in,
 * in its type now; the first song of a setlist opens it and the last closes it (positions are
 * 1..n). Dates count out and in the same way, and a date counted out and in again for the same
 * song and type (a move, a reorder) cancels. So a link, an unlink, a replaced setlist, a service's
 * new date or type and a delete are one computation, and what it costs follows the write.
 *
 * Songs deleted by the write are left out: their usage goes with their node.
 */
export interface UsageRow {
  id: number;
  /** Per type prefix: times, openers, closers deltas; the added and removed dates' extremes. */
  [field: string]: number | null;
}

type Prefix = (typeof TYPE_PREFIXES)[number][1];
const PREFIX = new Map<string, Prefix>(TYPE_PREFIXES.map(([type, p]) => [type, p]));

interface TypeDelta {
  times: number;
  openers: number;
  closers: number;
  /** Dates counted in (+1) and out (-1), by date. */
  dates: Map<number, number>;
}

const emptyDelta = (): TypeDelta => ({ times: 0, openers: 0, closers: 0, dates: new Map() });

/** Per song (ascending), per type, what the write changes; none for songs that come out even. */
export function usageDeltas(effects: WriteEffects): UsageRow[] {
  const gone = new Set(effects.deletedSongs ?? []);
  const songs = new Map<number, Map<Prefix, TypeDelta>>();
  const count = (state: SetlistState | null, sign: 1 | -1) => {
    if (!state) return;
    const prefix = PREFIX.get(state.serviceType);
    if (!prefix) throw new Error(`usageDeltas: unknown service type ${state.serviceType}`);
    const last = state.songIds.length - 1;
    state.songIds.forEach((id, i) => {
      if (gone.has(id)) return;
      const types = songs.get(id) ?? new Map<Prefix, TypeDelta>();
      songs.set(id, types);
      const d = types.get(prefix) ?? emptyDelta();
      types.set(prefix, d);
      d.times += sign;
      if (i === 0) d.openers += sign;
      if (i === last) d.closers += sign;
      d.dates.set(state.date, (d.dates.get(state.date) ?? 0) + sign);
    });
  };
  for (const t of effects.transitions) {
    count(t.before, -1);
    count(t.after, 1);
  }
  const rows: UsageRow[] = [];
  for (const [id, types] of [...songs].sort(([a], [b]) => a - b)) {
    const row: UsageRow = { id };
    let changed = false;
    for (const [, prefix] of TYPE_PREFIXES) {
      const d = types.get(prefix) ?? emptyDelta();
      const added = [...d.dates].filter(([, n]) => n > 0).map(([date]) => date);
      const removed = [...d.dates].filter(([, n]) => n < 0).map(([date]) => date);
      row[`${prefix}Times`] = d.times;
      row[`${prefix}Openers`] = d.openers;
      row[`${prefix}Closers`] = d.closers;
      row[`${prefix}AddedFirst`] = added.length ? Math.min(...added) : null;
      row[`${prefix}AddedLast`] = added.length ? Math.max(...added) : null;
      row[`${prefix}RemovedFirst`] = removed.length ? Math.min(...removed) : null;
      row[`${prefix}RemovedLast`] = removed.length ? Math.max(...removed) : null;
      if (d.times !== 0 || d.openers !== 0 || d.closers !== 0 || added.length > 0 || removed.length > 0) changed = true;
    }
    if (changed) rows.push(row);
  }
  return rows;
}

/** A moveArtists row (./write-statements.ts): a song's times deltas, and whether it counted before and after. */
export interface ArtistRow {
  id: number;
  sunAm: number;
  sunPm: number;
  wed: number;
  was: boolean;
  is: boolean;
}

/** The artist rows of songs whose usage moved by `rows`: their artists move by the same deltas. */
export function artistDeltas(rows: readonly UsageRow[]): ArtistRow[] {
  return rows
    .filter((r) => TYPE_PREFIXES.some(([, p]) => r[`${p}Times`] !== 0))
    .map((r) => ({ id: r.id, sunAm: r.sunAmTimes as number, sunPm: r.sunPmTimes as number, wed: r.wedTimes as number, was: true, is: true }));
}

/** Songs leaving (`was` true, `is` false) or joining (the reverse) their artists with all of their usage. */
export const artistsOut = (ids: readonly number[]): ArtistRow[] => ids.map((id) => ({ id, sunAm: 0, sunPm: 0, wed: 0, was: true, is: false }));
export const artistsIn = (ids: readonly number[]): ArtistRow[] => ids.map((id) => ({ id, sunAm: 0, sunPm: 0, wed: 0, was: false, is: true }));
