import { LRUCache } from 'lru-cache';
import { bucketsBetween } from '../../domain/analytics/buckets';
import type { TimelineBucket } from '../../generated/graphql';
import type { SetlistState, WriteEffects } from './maintained';

/**
 * Maintained timeline periods of the Neo4j store (./statements.ts, "Timeline periods"): the pure
 * part. One (:Period) per calendar period (ISO week, month, quarter, year in SERVICE_TIME_ZONE,
 * made by the same code as the timeline's buckets) that holds a service, with per service type
 * its services and links, and for each non-empty set of types (mask: bit 0 SUN_AM, bit 1 SUN_PM,
 * bit 2 WED) the distinct songs sung there in a service of those types.
 *
 * A period is identified by its kind and its instants (key `KIND:start:end`): its counts depend
 * only on the instants, so a node made in another zone with the same key holds the same counts,
 * and one whose instants are no period of the store's zone is never read (periodAt).
 */
export const PERIOD_KINDS: readonly TimelineBucket[] = ['WEEK', 'MONTH', 'QUARTER', 'YEAR'];

/** The service types a period counts, each with its bit and its property prefix. */
export const PERIOD_TYPES = [
  { type: 'SUN_AM', bit: 1, prefix: 'sunAm' },
  { type: 'SUN_PM', bit: 2, prefix: 'sunPm' },
  { type: 'WED', bit: 4, prefix: 'wed' },
] as const;
export const MASKS = [1, 2, 3, 4, 5, 6, 7] as const;

export interface Period {
  key: string;
  kind: TimelineBucket;
  start: number;
  end: number;
}

const keyOf = (kind: TimelineBucket, start: number, end: number) => `${kind}:${start}:${end}`;

/** The four periods (one per kind) holding `date` in `zone`. */
export function periodsAt(date: number, zone: string): readonly Period[] {
  const cacheKey = `${zone}\u0000${date}`;
  const cached = PERIODS_AT.get(cacheKey);
  if (cached) return cached;
  const periods = Object.freeze(
    PERIOD_KINDS.map((kind) => {
      const { start, end } = bucketsBetween(date, date, kind, zone)[0];
      return Object.freeze({ key: keyOf(kind, start, end), kind, start, end });
    }),
  );
  PERIODS_AT.set(cacheKey, periods);
  return periods;
}

/**
 * periodsAt's answers by zone and instant: luxon's calendar work was about 1.5 ms of Node's time in
 * each batch of eight setlist writes (a CPU profile of bench:writes), and services come back to a
 * few dates. Bounded; frozen, as every caller shares them.
 */
const PERIODS_AT = new LRUCache<string, readonly Period[]>({ max: 4096 });

/**
 * The maintained period whose range is exactly [start, end] in `zone`, or null: a timeline bucket
 * cut to its window reads the Period node only then (an edge bucket or another zone's bucket
 * reads links).
 */
export function periodAt(start: number, end: number, zone: string): Period | null {
  // Only the kind whose length fits is worked out (a day may have 23 or 25 hours): a 10,000-week
  // timeline asks luxon 10,000 times, not 40,000.
  const days = (end + 1 - start) / DAY_MS;
  const kind = KIND_DAYS.find(([, min, max]) => days >= min && days <= max)?.[0];
  if (!kind) return null;
  const { start: s, end: e } = bucketsBetween(start, start, kind, zone)[0];
  return s === start && e === end ? { key: keyOf(kind, s, e), kind, start: s, end: e } : null;
}

const DAY_MS = 86_400_000;
/** Each kind's length in days, give or take the hour of a daylight-saving change. */
const KIND_DAYS: [TimelineBucket, number, number][] = [
  ['WEEK', 6.9, 7.1],
  ['MONTH', 27.9, 31.1],
  ['QUARTER', 88.9, 92.1],
  ['YEAR', 364.9, 366.1],
];

/** The distinct periods holding any of `dates`, sorted by key (the order their locks are taken in). */
export function periodsOfDates(dates: Iterable<number>, zone: string): Period[] {
  const out = new Map<string, Period>();
  // The instants every kind's period of the last date covers: dates come mostly in order, and a
  // date inside them adds no period (luxon is only asked about a date in a new week).
  let span: { start: number; end: number } | null = null;
  for (const date of dates) {
    if (span && date >= span.start && date <= span.end) continue;
    const periods = periodsAt(date, zone);
    for (const p of periods) out.set(p.key, p);
    span = { start: Math.max(...periods.map((p) => p.start)), end: Math.min(...periods.map((p) => p.end)) };
  }
  return byKey([...out.values()]);
}

const byKey = <T extends { key: string }>(rows: T[]) => rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

export const typeBit = (serviceType: string): number => PERIOD_TYPES.find((t) => t.type === serviceType)?.bit ?? 0;

/**
 * One period's change from a write: per type, the change in services and links; per song whose
 * types there change through the transitions' services, its types there before and after (bits)
 * through those services only. The songs' links in the period to other services (`others`) are
 * read by the statement that applies the row (movePeriods), since they come from the database.
 */
export interface PeriodDelta extends Period {
  services: [number, number, number];
  links: [number, number, number];
  songIds: number[];
  beforeBits: number[];
  afterBits: number[];
}

/**
 * What a write does to the periods, from its transitions (./maintained.ts): services leave the
 * periods of their state before (for its type) and enter those of their state after; so do
 * their links, counted per type. Distinct songs are worked out per (period, song) over ALL the
 * transitions of the write, never per link: a song with two links in one week that both go
 * (a song delete) leaves the week once. A song's types in the period through the transitions'
 * services are OR-ed before and after; with `others` (its types there through every other
 * service, unchanged by this write) the statement moves each mask's count by
 * [others | after meets M] - [others | before meets M].
 *
 * Transitions that change nothing for periods (same songs as a set, type and date) are skipped;
 * a period whose counts cannot change is left out. Sorted by key. `serviceIds` are the
 * transitions' services, whose links `others` must not count.
 */
export function periodDeltas(effects: WriteEffects, zone: string): { rows: PeriodDelta[]; serviceIds: number[] } {
  const rows = new Map<string, PeriodDelta & { bits: Map<number, [number, number]> }>();
  const serviceIds = new Set<number>();
  const touch = (state: SetlistState, sign: 1 | -1) => {
    const bit = typeBit(state.serviceType);
    const t = PERIOD_TYPES.findIndex((x) => x.bit === bit);
    for (const p of periodsAt(state.date, zone)) {
      let row = rows.get(p.key);
      if (!row) {
        row = { ...p, services: [0, 0, 0], links: [0, 0, 0], songIds: [], beforeBits: [], afterBits: [], bits: new Map() };
        rows.set(p.key, row);
      }
      if (t < 0) continue; // a type no period counts
      row.services[t] += sign;
      row.links[t] += sign * state.songIds.length;
      for (const songId of state.songIds) {
        const bits = row.bits.get(songId) ?? [0, 0];
        bits[sign < 0 ? 0 : 1] |= bit;
        row.bits.set(songId, bits);
      }
    }
  };
  for (const { serviceId, before, after } of effects.transitions) {
    if (before && after && unchanged(before, after)) continue;
    serviceIds.add(serviceId);
    if (before) touch(before, -1);
    if (after) touch(after, 1);
  }
  const out: PeriodDelta[] = [];
  for (const { bits, ...row } of rows.values()) {
    const songs = [...bits].filter(([, [b, a]]) => b !== a).sort(([x], [y]) => x - y);
    row.songIds = songs.map(([id]) => id);
    row.beforeBits = songs.map(([, [b]]) => b);
    row.afterBits = songs.map(([, [, a]]) => a);
    if (songs.length > 0 || row.services.some((n) => n !== 0) || row.links.some((n) => n !== 0)) out.push(row);
  }
  return { rows: byKey(out), serviceIds: [...serviceIds].sort((a, b) => a - b) };
}

function unchanged(before: SetlistState, after: SetlistState): boolean {
  if (before.date !== after.date || before.serviceType !== after.serviceType) return false;
  if (before.songIds.length !== after.songIds.length) return false;
  const was = new Set(before.songIds);
  return after.songIds.every((id) => was.has(id));
}
