/**
 * How migrateNeo4j drives its statements (src/store/neo4j/migrations.ts), with a fake driver that
 * records them: schema first, then the data changes, then each batched data change repeated, one
 * managed transaction per batch, until a batch changes fewer than DATA_BATCH rows. What the
 * statements do on a server is checked against a real Neo4j only (test/analytics.contract.test.ts
 * with NEO4J_URI runs the usage fill on songs whose usage was removed).
 */
import neo4j, { Record as Neo4jRecord, type Driver } from 'neo4j-driver';
import { BATCHED_DATA_CYPHER, DATA_BATCH, DATA_CYPHER, SCHEMA_CYPHER, migrateNeo4j } from '../src/store/neo4j/migrations';
import { CYPHER } from '../src/store/neo4j/statements';

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
