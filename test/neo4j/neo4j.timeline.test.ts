/**
 * The Neo4j store's maintained timeline periods on a real Neo4j (NEO4J_URI; `npm run test:neo4j`
 * starts one; without it these skip, saying why): whole buckets read their (:Period), edge
 * buckets their range; a database written before the periods is marked by the migration and
 * filled when a store opens; a store opened with another SERVICE_TIME_ZONE rebuilds them in
 * its zone, in batches. The deltas under random writes are test/neo4j/neo4j.usage.test.ts.
 */
import { DateTime } from 'luxon';
import { bucketsBetween } from '../../src/domain/analytics/buckets';
import { SERVICE_TYPES } from '../../src/domain/analytics/window';
import type { ServiceType, TimelineBucket } from '../../src/generated/graphql';
import type { AnalyticsWindow } from '../../src/store/analytics-types';
import { migrateNeo4j, MIGRATION_STEPS } from '../../src/store/neo4j/migrations';
import { PERIOD_COUNTS } from '../../src/store/neo4j/period-statements';
import { Neo4jStore } from '../../src/store/neo4j/store';
import { PERIOD_BATCH } from '../../src/store/neo4j/timeline';
import { generateHistory } from '../helpers/analytics-history';
import { Reference } from '../helpers/analytics-reference';
import { neo4jTarget, suiteNeo4j } from '../helpers/neo4j';

const ZONE = 'America/New_York';
const local = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toMillis();
const BUCKETS: TimelineBucket[] = ['WEEK', 'MONTH', 'QUARTER', 'YEAR'];
const TYPE_FILTERS: ServiceType[][] = [[...SERVICE_TYPES], ['SUN_AM'], ['SUN_PM', 'WED']];

const target = neo4jTarget();
const SKIPPED = 'Neo4j timeline period tests SKIPPED: NEO4J_URI is not set (npm run test:neo4j starts one)';
if (!target) console.warn(SKIPPED);

(target ? describe : describe.skip)(target ? 'Neo4j timeline periods' : SKIPPED, () => {
  const server = suiteNeo4j(target!);
  const options = (serviceTimeZone: string) => ({ database: target!.database, serviceTimeZone });
  const query = async (text: string, params: Record<string, unknown> = {}) =>
    (await server.driver().executeQuery(text, params, { database: target!.database })).records;
  /** Add 1000 to every period's SUN_AM services: a bucket answered from its node shows it. */
  const markPeriods = () => query('MATCH (p:Period) SET p.sunAmServices = p.sunAmServices + 1000');
  const periodCount = async () => Number((await query('MATCH (p:Period) RETURN count(p) AS n'))[0].get('n'));

  /** Every bucket size over the history, in each zone, for all songs and one song, against the reference. */
  async function expectTimelines(store: Neo4jStore, zones: string[]) {
    const ref = new Reference(await store.exportSnapshot());
    for (const zone of zones) {
      for (const serviceTypes of TYPE_FILTERS) {
        const span = ref.serviceSpan(serviceTypes)!;
        const all = { from: null, to: null, serviceTypes };
        for (const bucket of BUCKETS) {
          const buckets = bucketsBetween(span.first, span.last, bucket, zone);
          for (const songId of [null, 2]) {
            expect({ zone, bucket, serviceTypes, songId, got: await store.usageTimeline(buckets, all, songId) }).toEqual({
              zone,
              bucket,
              serviceTypes,
              songId,
              got: ref.usageTimeline(buckets, all, songId),
            });
          }
        }
      }
    }
  }

  it('in a window, whole buckets read their maintained period; the two edge buckets and a song read links', async () => {
    await server.fresh();
    const store = new Neo4jStore(server.driver(), options(ZONE));
    await generateHistory(store, { seed: 4, zone: ZONE, songs: 8, start: '2024-01-07', weeks: 6, unsung: 1 });
    await expectTimelines(store, [ZONE, 'UTC']);
    await markPeriods();
    const window: AnalyticsWindow = { from: local('2024-01-10T00:00'), to: local('2024-02-08T12:00'), serviceTypes: ['SUN_AM'] };
    const weeks = bucketsBetween(window.from!, window.to!, 'WEEK', ZONE);
    expect(weeks).toHaveLength(5);
    const marked = async (w: AnalyticsWindow, songId: number | null = null) =>
      (await store.usageTimeline(weeks, w, songId)).map((b) => b.services >= 1000);
    expect(await marked(window)).toEqual([false, true, true, true, false]);
    // The edge buckets are their ranges' counts (not a period's, nor a missing period's zeros).
    const expected = new Reference(await store.exportSnapshot()).usageTimeline(weeks, window, null);
    const got = await store.usageTimeline(weeks, window, null);
    expect([got[0], got[4]]).toEqual([expected[0], expected[4]]);
    expect(got[0].services + got[4].services).toBeGreaterThan(0);
    expect(await marked({ ...window, from: weeks[0].start, to: weeks[4].end })).toEqual([true, true, true, true, true]);
    expect(await marked(window, 2)).toEqual([false, false, false, false, false]);
    // Another zone's buckets are no periods of the store's zone: all read links.
    const utcWeeks = bucketsBetween(window.from!, window.to!, 'WEEK', 'UTC');
    expect((await store.usageTimeline(utcWeeks, { ...window, from: null, to: null }, null)).some((b) => b.services >= 1000)).toBe(false);
  }, 120_000);

  it('a write touching more periods than one statement takes moves them all (key-ordered slices)', async () => {
    await server.fresh();
    const store = new Neo4jStore(server.driver(), options(ZONE));
    const songs = await Promise.all([1, 2, 3].map((i) => store.createSong({ name: `s${i}`, artists: [] })));
    // 250 weekly services in one catalogue import: 250 weeks, ~58 months, ~20 quarters, 5 years.
    const first = local('2020-01-05T10:00');
    await store.importCatalogue({
      songs: [],
      services: Array.from({ length: 250 }, (_, i) => ({
        service: { date: DateTime.fromMillis(first, { zone: ZONE }).plus({ weeks: i }).toMillis(), serviceType: SERVICE_TYPES[i % 3] },
        songIds: [songs[i % 3].id, songs[(i + 1) % 3].id],
      })),
    });
    expect(await periodCount()).toBeGreaterThan(PERIOD_BATCH);
    await expectTimelines(store, [ZONE]);
  }, 120_000);

  it('a snapshot imported over services the store holds recomputes the periods they leave and enter', async () => {
    await server.fresh();
    const store = new Neo4jStore(server.driver(), options(ZONE));
    await generateHistory(store, { seed: 5, zone: ZONE, songs: 8, start: '2024-01-07', weeks: 8, unsung: 1 });
    const snapshot = await store.exportSnapshot();
    // Every other service a month later, as another type; the services of two weeks inside the
    // history a year later (their weeks keep no service: only the import's reading of the dates
    // it overwrites finds them); the first service's setlist gains a song.
    const moved = structuredClone(snapshot);
    const [from, to] = [local('2024-01-22T00:00'), local('2024-02-05T00:00')];
    moved.services = moved.services.map((v, i) =>
      v.date >= from && v.date < to
        ? { ...v, date: v.date + 365 * 86_400_000 }
        : i % 2
          ? v
          : { ...v, date: v.date + 30 * 86_400_000, serviceType: v.serviceType === 'WED' ? 'SUN_AM' : 'WED' },
    );
    const first = moved.services[0].id;
    const missing = moved.songs.find((s) => !moved.links.some((l) => l.serviceId === first && l.songId === s.id))!;
    moved.links.push({ serviceId: first, songId: missing.id, position: 99, seq: 10_000 });
    await store.importSnapshot(moved);
    const weeks = bucketsBetween(from, to - 1, 'WEEK', ZONE);
    expect(weeks).toHaveLength(2);
    const all = { from: null, to: null, serviceTypes: [...SERVICE_TYPES] };
    expect(await store.usageTimeline(weeks, all, null)).toEqual(weeks.map((w) => ({ start: w.start, services: 0, performances: 0, distinctSongs: 0 })));
    await expectTimelines(store, [ZONE]);
  }, 120_000);

  it('a store opened with another zone rebuilds the periods in it, batched; the old zone\'s nodes go', async () => {
    await server.fresh();
    const first = new Neo4jStore(server.driver(), options(ZONE));
    // More periods than one batch of the rebuild (weekly services over four years: ~300 periods per zone).
    await generateHistory(first, { seed: 8, zone: ZONE, songs: 10, start: '2021-12-26', weeks: 210, unsung: 1 });
    expect(await periodCount()).toBeGreaterThan(PERIOD_BATCH);
    expect(await first.openTimeline()).toBe(false); // recorded by its first write: kept from empty by the writes
    for (const zone of ['Asia/Kolkata', ZONE]) {
      const store = new Neo4jStore(server.driver(), options(zone));
      await markPeriods();
      const started = Date.now();
      expect(await store.openTimeline()).toBe(true);
      const rebuildMs = Date.now() - started;
      expect(await store.openTimeline()).toBe(false); // recorded: nothing to do
      // Every node is a period of the zone, recomputed (the mark is gone).
      const rows = await query('MATCH (p:Period) RETURN p.kind AS kind, p.start AS start, p.end AS end, p.sunAmServices AS am');
      for (const r of rows) {
        const [b] = bucketsBetween(Number(r.get('start')), Number(r.get('start')), r.get('kind'), zone);
        expect({ zone, start: b.start, end: b.end, marked: Number(r.get('am')) >= 1000 }).toEqual({
          zone,
          start: Number(r.get('start')),
          end: Number(r.get('end')),
          marked: false,
        });
      }
      await expectTimelines(store, [zone, 'UTC']);
      // And the deltas keep them from there.
      await store.replaceSetlist(1, [5, 6, 7]);
      await store.updateService(2, { date: local('2022-02-02T23:30'), serviceType: 'WED' });
      await expectTimelines(store, [zone]);
      console.log(`timeline rebuild in ${zone}: ${rows.length} periods, ${rebuildMs} ms`);
    }
  }, 300_000);

  it('a database written before the periods: the migration marks it, the timeline reads links until a store fills it', async () => {
    await server.fresh();
    const store = new Neo4jStore(server.driver(), options(ZONE));
    await generateHistory(store, { seed: 9, zone: ZONE, songs: 8, start: '2023-12-31', weeks: 12, unsung: 1 });
    // As a database of the release before: no periods, no zone record, the step not recorded.
    await query('MATCH (p:Period) DETACH DELETE p');
    await query("MATCH (z:TimelineZone) DELETE z");
    await query("MATCH (m:MigrationStep {name: 'data.timelinePeriods'}) DELETE m");
    // The last data step (only schema that needs data first comes after it).
    expect(MIGRATION_STEPS.filter((s) => s.kind !== 'schema').at(-1)!.name).toBe('data.timelinePeriods');
    const { ran } = await migrateNeo4j(server.driver(), target!.database);
    expect(ran).toContain('data.timelinePeriods');
    expect((await query('MATCH (z:TimelineZone) RETURN z.zone AS zone')).map((r) => r.get('zone'))).toEqual([null]);
    // Not trusted yet: whole buckets read links (exact, with no period at all).
    await expectTimelines(store, [ZONE]);
    expect(await store.openTimeline()).toBe(true);
    expect((await query('MATCH (z:TimelineZone) RETURN z.zone AS zone')).map((r) => r.get('zone'))).toEqual([ZONE]);
    expect(await periodCount()).toBeGreaterThan(0);
    await expectTimelines(store, [ZONE, 'UTC']);
    await markPeriods();
    const weeks = bucketsBetween(local('2024-01-08T00:00'), local('2024-01-21T00:00'), 'WEEK', ZONE);
    const all = { from: null, to: null, serviceTypes: [...SERVICE_TYPES] };
    expect((await store.usageTimeline(weeks, all, null)).map((b) => b.services >= 1000)).toEqual([true, true]);
    // Every Period carries every count.
    const missing = await query(`MATCH (p:Period) WHERE ${PERIOD_COUNTS.map((c) => `p.${c} IS NULL`).join(' OR ')} RETURN count(p) AS n`);
    expect(Number(missing[0].get('n'))).toBe(0);
  }, 120_000);
});
