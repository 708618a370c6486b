/**
 * The data migrations that build a maintained aggregate for a database written before it existed
 * (src/store/neo4j/migrations.ts: data.songUsage, data.songPairs, data.artistTotals, and
 * data.timelinePeriods with the timeline rebuild the store's opening runs, ./timeline.ts), on a
 * real Neo4j (NEO4J_URI; `npm run test:neo4j` starts one; without it they skip, saying why).
 *
 * Each test writes a store through the Store API (setlists of every type over weeks crossing a
 * month and a quarter, moves, unlinks, type and date changes, deletes, artist spellings that
 * differ in case), lets the store opening path record every migration step, then makes the
 * database look as an older release left it: the aggregate forgotten (MAINTENANCE_CYPHER, or its
 * relationships or nodes deleted) and its step's (:MigrationStep) record gone. Opening the store
 * again (connectNeo4j: migrateNeo4j, then the timeline) must rebuild the aggregate EXACTLY as the
 * writers would have kept it: test/helpers/neo4j-aggregates.ts compares each stored aggregate
 * with a recomputation from the store's own snapshot. The same holds when a step ran but was not
 * recorded (an instance stopped before recording it) and so runs again over aggregates that are
 * there, and for a database larger than one migration batch (DATA_BATCH songs and artists).
 */
import type { Driver } from 'neo4j-driver';
import type { ServiceType } from '../../src/generated/graphql';
import { connectNeo4j, STARTUP_RETRY } from '../../src/store/neo4j/connect';
import { DATA_BATCH, MIGRATION_CYPHER, MIGRATION_STEPS } from '../../src/store/neo4j/migrations';
import type { Neo4jStore } from '../../src/store/neo4j/store';
import { MAINTENANCE_CYPHER } from '../../src/store/neo4j/statements';
import type { Snapshot, Store } from '../../src/store/types';
import { neo4jTarget, suiteNeo4j } from '../helpers/neo4j';
import { expectAllAggregatesExact } from '../helpers/neo4j-aggregates';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** A Sunday; the weeks after it cross a month and a quarter. */
const SUNDAY = Date.UTC(2024, 2, 24);

/**
 * Each aggregate: how an older database lacks it, the step that builds it, and how to see that it
 * is gone (so that a test cannot pass on an aggregate it never removed).
 */
const AGGREGATES: Record<string, { step: string; forget: string[]; missing: string }> = {
  'song usage': {
    step: 'data.songUsage',
    forget: [MAINTENANCE_CYPHER.forgetSongUsage],
    missing: 'MATCH (s:Song) WHERE s.usageTimes IS NOT NULL RETURN count(s) AS n',
  },
  'song pairs': {
    step: 'data.songPairs',
    forget: ['MATCH ()-[p:SUNG_WITH]->() DELETE p'],
    missing: 'MATCH ()-[p:SUNG_WITH]->() RETURN count(p) AS n',
  },
  'artist totals': {
    step: 'data.artistTotals',
    forget: [MAINTENANCE_CYPHER.forgetArtistTotals],
    missing: 'MATCH (a:Artist) WHERE a.usageTimes IS NOT NULL RETURN count(a) AS n',
  },
  'timeline periods': {
    step: 'data.timelinePeriods',
    forget: ['MATCH (n) WHERE n:Period OR n:TimelineZone DETACH DELETE n'],
    missing: 'MATCH (n) WHERE n:Period OR n:TimelineZone RETURN count(n) AS n',
  },
};
const NAMES = Object.keys(AGGREGATES);

/** Every kind of write that moves an aggregate, through the Store API only. */
async function populate(store: Store): Promise<void> {
  const artists = [['Amy'], ['AMY', 'Bea'], ['amy '], ['Bea'], ['bea', 'Cy'], ['Cy'], [], ['Amy']];
  for (const [i, a] of artists.entries()) await store.createSong({ name: `song ${i + 1}`, artists: a });
  const services: { date: number; serviceType: ServiceType }[] = [
    { date: SUNDAY + 10 * HOUR, serviceType: 'SUN_AM' },
    { date: SUNDAY + 18 * HOUR, serviceType: 'SUN_PM' },
    { date: SUNDAY + 3 * DAY + 19 * HOUR, serviceType: 'WED' },
    { date: SUNDAY + 7 * DAY + 10 * HOUR, serviceType: 'SUN_AM' },
    { date: SUNDAY + 10 * DAY + 19 * HOUR, serviceType: 'WED' },
    { date: SUNDAY + 35 * DAY + 18 * HOUR, serviceType: 'SUN_PM' },
    { date: SUNDAY + 42 * DAY + 10 * HOUR, serviceType: 'SUN_AM' },
  ];
  for (const v of services) await store.createService(v);
  const setlists: [number, number[]][] = [
    [1, [1, 2, 3, 4]],
    [2, [2, 3, 5]],
    [3, [1, 3, 6, 8]],
    [4, [3, 1, 2]],
    [5, [5, 6]],
    [6, [1, 2, 7]],
    [7, [4, 8]],
  ];
  for (const [serviceId, songIds] of setlists) expect(await store.replaceSetlist(serviceId, songIds)).toBe('ok');
  expect(await store.linkSong(5, 1, 1)).toBe('ok'); // a new opener
  expect(await store.linkSong(1, 4, 2)).toBe('ok'); // a move
  expect(await store.unlinkSong(2, 3)).toBe('ok');
  expect(await store.updateService(4, { serviceType: 'WED' })).not.toBeNull();
  expect(await store.updateService(3, { date: SUNDAY + 8 * DAY + 19 * HOUR })).not.toBeNull(); // into the next week
  expect(await store.deleteSong(4)).toBe(true);
  expect(await store.deleteService(7)).toBe(true);
  expect(await store.updateSong(8, { artists: ['AMY'] })).not.toBeNull();
  await store.importCatalogue({
    songs: [{ name: 'imported', artists: ['Bea'] }],
    services: [{ service: { date: SUNDAY + 14 * DAY + 10 * HOUR, serviceType: 'SUN_AM' }, songIds: [1, 3, 5] }],
  });
}

/**
 * A store larger than one batch of every batched step: DATA_BATCH + 10 songs, each by its own
 * artist (some by spellings of a shared one too), sung in weekly services whose setlists mix the
 * songs on either side of the batch boundary with a few popular ones; a few songs never sung.
 */
function largeSnapshot(): Snapshot {
  const songCount = DATA_BATCH + 10;
  const songs = Array.from({ length: songCount }, (_, i) => ({
    id: i + 1,
    name: `song ${i + 1}`,
    artists: [`Artist ${i + 1}`, ...(i % 7 === 0 ? ['Amy'] : i % 11 === 0 ? ['AMY '] : [])],
  }));
  const types: ServiceType[] = ['SUN_AM', 'SUN_PM', 'WED'];
  const services = Array.from({ length: 24 }, (_, i) => ({
    id: i + 1,
    date: SUNDAY + Math.floor(i / 3) * 7 * DAY + [10 * HOUR, 18 * HOUR, 3 * DAY + 19 * HOUR][i % 3],
    serviceType: types[i % 3],
  }));
  const links: Snapshot['links'] = [];
  for (const v of services) {
    const k = v.id;
    // Around the boundary (DATA_BATCH - 3 .. DATA_BATCH + 7), the popular songs 1-3, and some spread.
    const setlist = [...new Set([DATA_BATCH - 3 + (k % 8), 1 + (k % 3), DATA_BATCH + 1 + ((k * 5) % 7), (k * 37) % (songCount - 5) + 1])];
    setlist.forEach((songId, i) => links.push({ serviceId: v.id, songId, position: i + 1, seq: links.length + 1 }));
  }
  return {
    format: 'worship-records-snapshot',
    version: 2,
    songs,
    licensing: [],
    services,
    links,
    users: [],
    sequences: { song: songCount, service: services.length, user: 0, link: links.length },
  };
}

const target = neo4jTarget();
const SKIPPED = 'Neo4j data migration tests on a server SKIPPED: NEO4J_URI is not set (npm run test:neo4j starts one)';
if (!target) console.warn(SKIPPED);
const onServer = target ? it : it.skip;

describe('the data migrations rebuild the maintained aggregates exactly', () => {
  const server = target ? suiteNeo4j(target) : undefined;
  const quiet = { info: () => undefined, warn: () => undefined };
  const database = target?.database;
  const q = (driver: Driver, text: string, params: Record<string, unknown> = {}) => driver.executeQuery(text, params, { database });
  const count = async (driver: Driver, text: string) => Number((await q(driver, text)).records[0].get('n'));
  const recorded = async (driver: Driver) => (await q(driver, MIGRATION_CYPHER.finishedSteps)).records.map((r) => r.get('name') as string).sort();
  const ALL_STEPS = MIGRATION_STEPS.map((s) => s.name).sort();

  /** The store as a starting instance opens it (connectNeo4j: migrations, then the timeline in UTC), on its own driver. */
  const open = (): Promise<Neo4jStore> => connectNeo4j(target!, quiet, STARTUP_RETRY, { migrate: true }, 'UTC');

  /**
   * Open the store once (every step recorded: fresh() emptied the records too), check the
   * aggregates as written (unless `checkFirst` is false: a large store's check is slow), make the database look as an older release left it (the aggregates of
   * `names` forgotten when `forget`, their steps' records gone), open it again and check them.
   */
  async function rebuild(store: Store, names: string[], forget: boolean, context: string, checkFirst = true) {
    const driver = server!.driver();
    await (await open()).close();
    expect(await recorded(driver)).toEqual(ALL_STEPS);
    if (checkFirst) await expectAllAggregatesExact(store, driver, database, `${context}: as written`);

    for (const name of names) {
      const { step, forget: statements, missing } = AGGREGATES[name];
      if (forget) {
        for (const text of statements) await q(driver, text);
        expect({ name, leftOver: await count(driver, missing) }).toEqual({ name, leftOver: 0 });
      }
      await q(driver, 'MATCH (m:MigrationStep {name: $step}) DELETE m', { step });
    }
    expect(await recorded(driver)).toEqual(ALL_STEPS.filter((s) => !names.some((n) => AGGREGATES[n].step === s)));

    const reopened = await open();
    try {
      expect(await recorded(driver)).toEqual(ALL_STEPS);
      await expectAllAggregatesExact(reopened, driver, database, `${context}: reopened`);
    } finally {
      await reopened.close();
    }
  }

  for (const name of NAMES) {
    onServer(`${AGGREGATES[name].step} rebuilds the ${name} of a database written without them`, async () => {
      const store = await server!.fresh();
      await populate(store);
      await rebuild(store, [name], true, `${name} forgotten`);
    });
  }

  onServer('every aggregate at once, as a database from before any of them', async () => {
    const store = await server!.fresh();
    await populate(store);
    await rebuild(store, NAMES, true, 'all forgotten');
  });

  onServer('a step that ran but was not recorded runs again over the aggregates and leaves them exact', async () => {
    const store = await server!.fresh();
    await populate(store);
    await rebuild(store, NAMES, false, 'steps run again');
  });

  onServer(`more songs and artists than one batch (DATA_BATCH = ${DATA_BATCH}): every batch is rebuilt`, async () => {
    const store = await server!.fresh();
    await store.importSnapshot(largeSnapshot());
    // A few writes through the API on top of the import, across the boundary.
    expect(await store.linkSong(2, DATA_BATCH + 9, 1)).toBe('ok');
    expect(await store.deleteSong(DATA_BATCH - 1)).toBe(true);
    expect(await store.updateService(5, { serviceType: 'WED' })).not.toBeNull();
    await rebuild(store, NAMES, true, 'a large store, all forgotten', false);
  }, 240_000);
});
