/**
 * The Neo4j store's maintained aggregates (src/store/neo4j/statements.ts header: song usage, song
 * pairs, artist totals, timeline periods) against recomputations from the store's own snapshot,
 * with none of the store's machinery: the usage through the all-time analytics (which read only
 * the maintained properties) against test/helpers/analytics-reference.ts, the pairs, the artist
 * totals and the periods as stored (plain Cypher reads) against counts made here in TypeScript.
 *
 * Each export reads the store's snapshot itself, so call them with no write in flight (a Neo4j
 * export is read-committed: under concurrent writes it is refused as torn). `database` defaults
 * to the suites' NEO4J_DATABASE (test/helpers/neo4j.ts).
 */
import neo4j, { type Driver } from 'neo4j-driver';
import { artistKey } from '../../src/domain/artists';
import { SERVICE_TYPES } from '../../src/domain/analytics/window';
import type { ServiceType } from '../../src/generated/graphql';
import type { AnalyticsWindow, SongUsageQuery } from '../../src/store/analytics-types';
import { PERIOD_COUNTS } from '../../src/store/neo4j/period-statements';
import { MASKS, PERIOD_TYPES, periodsAt, typeBit } from '../../src/store/neo4j/periods';
import type { Snapshot, Store } from '../../src/store/types';
import { Reference } from './analytics-reference';
import { neo4jTarget } from './neo4j';

const suiteDatabase = () => neo4jTarget()?.database;

const ALL_TIME_FILTERS: ServiceType[][] = [[...SERVICE_TYPES], ['SUN_AM'], ['SUN_PM', 'WED']];
const SORTS: SongUsageQuery['sort'][] = ['TIMES_SUNG', 'LAST_SUNG', 'LEAST_RECENTLY_SUNG', 'FIRST_SUNG', 'NAME'];

/** The all-time analytics (maintained usage) against the reference over the store's snapshot. */
export async function expectUsageExact(store: Store, context: string): Promise<void> {
  const snapshot = await store.exportSnapshot();
  const ref = new Reference(snapshot);
  const ids = [...snapshot.songs.map((s) => s.id), 999];
  for (const serviceTypes of ALL_TIME_FILTERS) {
    const window: AnalyticsWindow = { from: null, to: null, serviceTypes };
    expect({ context, serviceTypes, usage: await store.usageOfSongs(ids, window) }).toEqual({
      context,
      serviceTypes,
      usage: ids.map((id) => ref.stats(id, window)),
    });
    for (const sort of SORTS) {
      const q: SongUsageQuery = { window, sort, includeUnsung: true };
      expect({ context, q, answer: await store.songUsage(q) }).toEqual({ context, q, answer: ref.songUsage(q) });
    }
    expect({ context, artists: await store.artistUsage(window, {}) }).toEqual({ context, artists: ref.artistUsage(window, {}) });
    for (const id of ids) {
      expect({ context, serviceTypes, id, sungWith: await store.songsSungWith(id, window, 20) }).toEqual({
        context,
        serviceTypes,
        id,
        sungWith: ref.songsSungWith(id, window, 20),
      });
    }
  }
}

/**
 * The maintained song pairs (src/store/neo4j/pairs.ts) as stored, against the pairs counted from
 * the snapshot's setlists: exactly one SUNG_WITH per two songs sharing a service, from the lower id, with
 * its per-type counts, and none left over at zero (which the reports, filtering on counts, would
 * not show). A pair stored twice counts as a fault too (two relationships for one key).
 */
export async function expectPairsExact(driver: Driver, store: Store, context: string, database = suiteDatabase()): Promise<void> {
  const snapshot = await store.exportSnapshot();
  const typeOf = new Map(snapshot.services.map((v) => [v.id, v.serviceType]));
  const songsOf = new Map<number, number[]>();
  for (const l of snapshot.links) songsOf.set(l.serviceId, [...(songsOf.get(l.serviceId) ?? []), l.songId]);
  const expected = new Map<string, Record<string, number>>();
  for (const [serviceId, songs] of songsOf) {
    const t = typeOf.get(serviceId)!;
    for (const a of songs) {
      for (const b of songs) {
        if (a >= b) continue;
        const row = expected.get(`${a}>${b}`) ?? { SUN_AM: 0, SUN_PM: 0, WED: 0, together: 0 };
        row[t] += 1;
        row.together += 1;
        expected.set(`${a}>${b}`, row);
      }
    }
  }
  const { records } = await driver.executeQuery(
    'MATCH (s:Song)-[p:SUNG_WITH]->(o:Song) RETURN s.id AS s, o.id AS o, p.songId AS songId, p.otherId AS otherId, p.sunAm AS sunAm, p.sunPm AS sunPm, p.wed AS wed, p.together AS together',
    {},
    { database },
  );
  const rows = records.map((r) => {
    const n = (k: string) => Number(r.get(k));
    if (n('songId') !== n('s') || n('otherId') !== n('o')) throw new Error(`${context}: pair ${n('s')}>${n('o')} carries ${n('songId')}>${n('otherId')}`);
    return [`${n('s')}>${n('o')}`, { SUN_AM: n('sunAm'), SUN_PM: n('sunPm'), WED: n('wed'), together: n('together') }] as const;
  });
  const keys = rows.map(([key]) => key);
  expect({ context, pairsStoredTwice: keys.filter((k, i) => keys.indexOf(k) !== i) }).toEqual({ context, pairsStoredTwice: [] });
  const stored = new Map(rows);
  const sorted = (m: Map<string, unknown>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  expect({ context, pairs: sorted(stored) }).toEqual({ context, pairs: sorted(expected) });
}

const TYPE_BITS: ServiceType[] = ['SUN_AM', 'SUN_PM', 'WED'];
const PREFIX: Record<ServiceType, string> = { SUN_AM: 'sunAm', SUN_PM: 'sunPm', WED: 'wed' };

/**
 * Every artist's totals recomputed from scratch from a snapshot (statements.ts header): per key,
 * the spelling most used among its songs' entries of that key (ties by spelling), the per-type
 * and total times of its songs, and per mask of types the songs sung in any of them; the uses of
 * each entry of that key (what the spelling is read from). Artists whose songs are all gone are
 * zeros without a spelling.
 */
export function artistTotals(snapshot: Snapshot, keys: string[]): Record<string, Record<string, unknown>> {
  const typeOf = new Map(snapshot.services.map((v) => [v.id, v.serviceType]));
  const times = new Map<number, Record<ServiceType, number>>();
  for (const l of snapshot.links) {
    const t = times.get(l.songId) ?? { SUN_AM: 0, SUN_PM: 0, WED: 0 };
    t[typeOf.get(l.serviceId)!]++;
    times.set(l.songId, t);
  }
  const out: Record<string, Record<string, unknown>> = {};
  for (const key of keys) {
    const songs = snapshot.songs.filter((s) => s.artists.some((a) => artistKey(a) === key));
    const uses = new Map<string, number>();
    for (const entry of songs.flatMap((s) => s.artists).filter((a) => artistKey(a) === key)) uses.set(entry, (uses.get(entry) ?? 0) + 1);
    const [spelling] = [...uses].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] ?? [];
    const mine = songs.map((s) => times.get(s.id) ?? { SUN_AM: 0, SUN_PM: 0, WED: 0 });
    const totals: Record<string, unknown> = spelling === undefined ? {} : { spelling };
    // The counts the spelling is read from: each entry that folds to the key, and its uses.
    totals.spellings = Object.fromEntries([...uses].sort(([a], [b]) => (a < b ? -1 : 1)));
    for (const t of TYPE_BITS) totals[`${PREFIX[t]}Times`] = mine.reduce((sum, m) => sum + m[t], 0);
    totals.usageTimes = mine.reduce((sum, m) => sum + m.SUN_AM + m.SUN_PM + m.WED, 0);
    for (let mask = 1; mask <= 7; mask++) {
      totals[`songs${mask}`] = mine.filter((m) => TYPE_BITS.some((t, bit) => mask & (1 << bit) && m[t] > 0)).length;
    }
    out[key] = totals;
  }
  return out;
}

/** Every Artist's maintained totals as stored equal artistTotals over the store's own snapshot. */
export async function expectArtistTotalsExact(store: Store, driver: Driver, context: string, database = suiteDatabase()): Promise<void> {
  const snapshot = await store.exportSnapshot();
  const { records } = await driver.executeQuery('MATCH (a:Artist) RETURN a.key AS key, properties(a) AS props ORDER BY key', {}, { database });
  const stored = Object.fromEntries(
    records.map((r) => {
      const { key: _key, spellings, spellingUses, ...props } = r.get('props') as Record<string, unknown>;
      const uses = (spellingUses as unknown[] | undefined)?.map(Number) ?? [];
      // Two lists side by side, in no particular order: compared as one map.
      const counts = (spellings as string[] | undefined)?.map((name, i) => [name, uses[i]] as const).sort(([a], [b]) => (a < b ? -1 : 1));
      const plain = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, neo4j.isInt(v) ? v.toNumber() : v]));
      return [r.get('key') as string, counts ? { ...plain, spellings: Object.fromEntries(counts) } : plain];
    }),
  );
  // Every key of a song has its node (and nodes outlive their songs).
  const keys = [...new Set([...Object.keys(stored), ...snapshot.songs.flatMap((s) => s.artists.map(artistKey))])].sort();
  expect({ context, artists: stored }).toEqual({ context, artists: artistTotals(snapshot, keys) });
}

/**
 * Every (:Period) against the periods recomputed here from the store's snapshot (UTC, the
 * store's default zone): per type services and links, distinct songs per mask. A period no
 * service is in any more may stay, with zeros.
 */
export async function expectPeriodsExact(store: Store, driver: Driver, context: string, database = suiteDatabase()): Promise<void> {
  const snapshot = await store.exportSnapshot();
  const expected = new Map<string, Record<string, number>>();
  const songTypes = new Map<string, Map<number, number>>();
  const serviceOf = new Map(snapshot.services.map((v) => [v.id, v]));
  const at = (key: string) => {
    if (!expected.has(key)) expected.set(key, Object.fromEntries(PERIOD_COUNTS.map((c) => [c, 0])));
    return expected.get(key)!;
  };
  const prefix = (type: string) => PERIOD_TYPES.find((t) => t.type === type)!.prefix;
  for (const v of snapshot.services) for (const p of periodsAt(v.date, 'UTC')) at(p.key)[`${prefix(v.serviceType)}Services`]++;
  for (const l of snapshot.links) {
    const v = serviceOf.get(l.serviceId)!;
    for (const p of periodsAt(v.date, 'UTC')) {
      at(p.key)[`${prefix(v.serviceType)}Links`]++;
      const songs = songTypes.get(p.key) ?? new Map<number, number>();
      songs.set(l.songId, (songs.get(l.songId) ?? 0) | typeBit(v.serviceType));
      songTypes.set(p.key, songs);
    }
  }
  for (const [key, songs] of songTypes) for (const m of MASKS) at(key)[`songs${m}`] = [...songs.values()].filter((b) => b & m).length;
  const { records } = await driver.executeQuery(
    `MATCH (p:Period) RETURN p.key AS key, p {${PERIOD_COUNTS.map((c) => `.${c}`).join(', ')}} AS counts`,
    {},
    { database },
  );
  const actual = new Map(
    records
      .map((r) => [r.get('key') as string, Object.fromEntries(Object.entries(r.get('counts') as object).map(([k, v]) => [k, Number(v)]))] as const)
      .filter(([, counts]) => Object.values(counts).some((n) => n !== 0)),
  );
  const sorted = (m: Map<string, Record<string, number>>) => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)));
  expect({ context, periods: sorted(actual) }).toEqual({ context, periods: sorted(expected) });
}

/** All four: song usage, song pairs, artist totals and timeline periods, each exact. */
export async function expectAllAggregatesExact(store: Store, driver: Driver, database: string | undefined, context: string): Promise<void> {
  await expectUsageExact(store, context);
  await expectPairsExact(driver, store, context, database);
  await expectArtistTotalsExact(store, driver, context, database);
  await expectPeriodsExact(store, driver, context, database);
}
