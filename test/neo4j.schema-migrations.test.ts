/**
 * How migrateNeo4j drives its statements (src/store/neo4j/migrations.ts), with a fake driver that
 * records them: schema first, then the data changes, then each batched data change repeated, one
 * managed transaction per batch, until a batch changes fewer than DATA_BATCH rows. What the
 * statements do on a server is checked against a real Neo4j only: below, on a graph written the
 * old way, and in test/analytics.contract.test.ts (the usage fill on songs whose usage was removed).
 */
import neo4j, { Record as Neo4jRecord, type Driver } from 'neo4j-driver';
import { createNeo4jDriver } from '../src/store/neo4j/driver';
import { BATCHED_DATA_CYPHER, DATA_BATCH, DATA_CYPHER, SCHEMA_CYPHER, migrateNeo4j } from '../src/store/neo4j/migrations';
import { CYPHER } from '../src/store/neo4j/statements';
import { Neo4jStore } from '../src/store/neo4j/store';
import { neo4jTarget, wipeNeo4j } from './helpers/neo4j';

function fakeDriver(changedPerRun: number[]) {
  const ran: string[] = [];
  let transactions = 0;
  const tx = {
    run: async (query: string) => {
      ran.push(query);
      if (query !== BATCHED_DATA_CYPHER.songUsage) return { records: [] };
      const changed = changedPerRun.shift();
      if (changed === undefined) throw new Error('the usage fill ran again after a short batch');
      return { records: [new Neo4jRecord(['changed'], [neo4j.int(changed)])] };
    },
  };
  const driver = {
    session: () => ({
      executeWrite: async (work: (t: typeof tx) => unknown) => {
        transactions++;
        return work(tx);
      },
      close: async () => undefined,
    }),
  } as unknown as Driver;
  return { driver, ran, transactions: () => transactions };
}

test('the usage fill runs in batches, each its own transaction, until one changes fewer than a batch', async () => {
  const { driver, ran, transactions } = fakeDriver([DATA_BATCH, DATA_BATCH, 3]);
  await migrateNeo4j(driver);
  const schema = Object.values(SCHEMA_CYPHER);
  const data = Object.values(DATA_CYPHER);
  expect(ran).toEqual([...schema, ...data, ...Array(3).fill(BATCHED_DATA_CYPHER.songUsage)]);
  expect(transactions()).toBe(schema.length + data.length + 3);
  expect(BATCHED_DATA_CYPHER.songUsage).toContain(`LIMIT ${DATA_BATCH}\n`);
});

test('on a graph already filled, the usage fill runs once and changes nothing', async () => {
  const { driver, ran } = fakeDriver([0]);
  await migrateNeo4j(driver);
  expect(ran.filter((q) => q === BATCHED_DATA_CYPHER.songUsage)).toHaveLength(1);
});

test('the search index with CCLI numbers is created, waited for, and only then replaces the old one', async () => {
  const { driver, ran } = fakeDriver([0]);
  await migrateNeo4j(driver);
  const at = (pattern: RegExp) => ran.findIndex((q) => pattern.test(q));
  const created = at(/CREATE FULLTEXT INDEX song_search_ccli IF NOT EXISTS FOR \(s:Song\) ON EACH \[s\.name, s\.artists, s\.ccliNumber\]/);
  const online = at(/CALL db\.awaitIndex\('song_search_ccli', \d+\)/);
  const dropped = at(/DROP INDEX song_search IF EXISTS/);
  expect(created).toBeGreaterThanOrEqual(0);
  expect(online).toBeGreaterThan(created);
  expect(dropped).toBeGreaterThan(online);
  // Nothing creates the old index again at the next start.
  expect(ran.some((q) => /CREATE FULLTEXT INDEX song_search IF/.test(q))).toBe(false);
  // The searches read the new index.
  expect(CYPHER.searchSongs).toContain("queryNodes('song_search_ccli'");
  expect(CYPHER.countSearch).toContain("queryNodes('song_search_ccli'");
});

/**
 * On a real Neo4j (NEO4J_URI, e.g. under `npm run test:neo4j`): a graph as an older version wrote
 * it (setlist positions with gaps and ties, links without their service's date and type, songs
 * without maintained usage) reads as this version's after migrateNeo4j, and a second run writes
 * nothing.
 */
const target = neo4jTarget();
const OLD_GRAPH = `
CREATE (a:Song {id: 1, name: 'A', artists: []}), (b:Song {id: 2, name: 'B', artists: []}),
  (c:Song {id: 3, name: 'C', artists: []}),
  (v:Service {id: 1, date: 1000, serviceType: 'SUN_AM'}), (w:Service {id: 2, date: 2000, serviceType: 'WED'}),
  (:Sequence {name: 'Song', value: 3}), (:Sequence {name: 'Service', value: 2}),
  (:Sequence {name: 'PERFORMED_IN', value: 4}),
  (a)-[:PERFORMED_IN {position: 5, seq: 1}]->(v), (b)-[:PERFORMED_IN {position: 2, seq: 3}]->(v),
  (c)-[:PERFORMED_IN {position: 2, seq: 2}]->(v), (c)-[:PERFORMED_IN {position: 0, seq: 4}]->(w)`;

(target ? describe : describe.skip)('the data migrations on a real Neo4j (NEO4J_URI)', () => {
  let driver: Driver;
  beforeAll(() => {
    driver = createNeo4jDriver(target!);
  });
  afterAll(() => driver?.close());

  it('renumber old setlists 1..n in (position, seq) order, copy service dates and types to links, fill usage', async () => {
    const { database } = target!;
    await migrateNeo4j(driver, database); // the schema first, as at any start
    await wipeNeo4j(driver, database);
    await driver.executeQuery(OLD_GRAPH, {}, { database });
    await migrateNeo4j(driver, database);

    const store = new Neo4jStore(driver, { database });
    const links = (await store.exportSnapshot()).links.map((l) => [l.serviceId, l.songId, l.position, l.seq]);
    // Service 1: C and B tie at 2 (C's link is older), then A at 5; service 2: C alone at 0.
    expect(links).toEqual([
      [1, 1, 3, 1],
      [1, 3, 1, 2],
      [1, 2, 2, 3],
      [2, 3, 1, 4],
    ]);
    expect((await store.setlistsForServices([1, 2])).map((p) => p.items.map((s) => s.name))).toEqual([['C', 'B', 'A'], ['C']]);
    // A window reads the links' own copies of their service's date and type.
    const wed = { from: 1500, to: 2500, serviceTypes: ['WED' as const] };
    const usage = await store.songUsage({ window: wed, sort: 'TIMES_SUNG', includeUnsung: false });
    expect(usage.items.map((u) => [u.song.name, u.timesSung])).toEqual([['C', 1]]);
    // All time reads the maintained usage the migration filled: C opened both services.
    const allTime = { from: null, to: null, serviceTypes: ['SUN_AM' as const, 'SUN_PM' as const, 'WED' as const] };
    const all = await store.songUsage({ window: allTime, sort: 'TIMES_SUNG', includeUnsung: true });
    expect(all.items.map((u) => [u.song.name, u.timesSung, u.asOpener, u.asCloser])).toEqual([
      ['C', 2, 2, 1],
      ['A', 1, 0, 1],
      ['B', 1, 0, 0],
    ]);

    const before = await store.exportSnapshot();
    const again = await driver.executeQuery(DATA_CYPHER.renumberSetlists, {}, { database });
    expect(again.summary.counters.updates().propertiesSet).toBe(0);
    await migrateNeo4j(driver, database);
    expect(await store.exportSnapshot()).toEqual(before);
  }, 60_000);
});
