/**
 * How migrateNeo4j drives its statements (src/store/neo4j/migrations.ts), with a fake driver that
 * records them: under the migration lock, each step not yet recorded runs once and is recorded;
 * batched data changes run one managed transaction per batch, each from the last id of the one
 * before, until a batch handles fewer than DATA_BATCH rows; a database already migrated costs one
 * read and no lock; an instance that finds the lock held waits (bounded). What the statements do
 * on a server (the lock's exclusion, the lease, the renumbering's service locks, two instances at
 * once on an empty database) is checked against a real Neo4j below, and in
 * test/contract/analytics.contract.test.ts (the usage fill on songs whose usage was removed).
 */
import neo4j, { Record as Neo4jRecord, type Driver } from 'neo4j-driver';
import { createNeo4jDriver } from '../../src/store/neo4j/driver';
import {
  BATCHED_DATA_CYPHER,
  DATA_BATCH,
  MIGRATION_CYPHER,
  MIGRATION_STEPS,
  MigrationWaitError,
  ONE_STATEMENT_DATA_CYPHER,
  SCHEMA_AFTER_DATA_CYPHER,
  SCHEMA_CYPHER,
  awaitMigrated,
  migrateNeo4j,
} from '../../src/store/neo4j/migrations';
import { CYPHER, MAINTENANCE_CYPHER } from '../../src/store/neo4j/statements';
import { Neo4jStore } from '../../src/store/neo4j/store';
import { dropSchema, neo4jTarget, wipeNeo4j } from '../helpers/neo4j';

const M = MIGRATION_CYPHER;
const row = (fields: Record<string, unknown>) => new Neo4jRecord(Object.keys(fields), Object.values(fields));

/**
 * A driver answering migrateNeo4j's statements as a database would: `done` holds the recorded
 * steps, `lockFree` says per takeLock call whether the lock is free (then true), `batches` how
 * many rows each run of a batched statement handles (then 0). `executeQuery` (the lease renewal)
 * answers the same way.
 */
interface Fake {
  done?: string[];
  lockFree?: boolean[];
  batches?: Partial<Record<keyof typeof BATCHED_DATA_CYPHER, number[]>>;
  onWait?: () => void;
  /** This statement fails ('the server fell over') after this long. */
  fail?: { query: string; afterMs: number };
}

function fakeDriver(opts: Fake = {}) {
  const done = new Set(opts.done ?? []);
  const lockFree = [...(opts.lockFree ?? [])];
  const batches = Object.fromEntries(Object.entries(opts.batches ?? {}).map(([k, v]) => [k, [...v!]]));
  const ran: { query: string; params: Record<string, unknown>; tx: number }[] = [];
  let transactions = 0;
  const run = async (query: string, params: Record<string, unknown> = {}) => {
    ran.push({ query, params, tx: transactions });
    if (query === opts.fail?.query) {
      await new Promise((resolve) => setTimeout(resolve, opts.fail!.afterMs));
      throw new Error('the server fell over');
    }
    if (query === M.finishedSteps) return { records: [...done].map((name) => row({ name })) };
    if (query === M.takeLock) {
      const free = lockFree.length ? lockFree.shift()! : true;
      if (!free) opts.onWait?.();
      return { records: [row({ taken: free, owner: free ? params.owner : 'other-host:7:abc' })] };
    }
    if (query === M.recordStep) done.add(params.name as string);
    for (const [name, text] of Object.entries(BATCHED_DATA_CYPHER)) {
      if (query !== text) continue;
      const rows = batches[name]?.shift() ?? 0;
      const after = neo4j.integer.toNumber(params.after as never);
      return { records: [row({ rows: neo4j.int(rows), last: rows ? neo4j.int(after + rows) : null })] };
    }
    return { records: [] };
  };
  const driver = {
    session: () => ({
      executeWrite: async (work: (t: { run: typeof run }) => unknown) => {
        transactions++;
        return work({ run });
      },
      close: async () => undefined,
    }),
    executeQuery: (query: string, params: Record<string, unknown>) => run(query, params),
  } as unknown as Driver;
  return { driver, ran, done, queries: () => ran.map((r) => r.query) };
}

const schema = Object.values(SCHEMA_CYPHER);
const ALL = MIGRATION_STEPS.map((s) => s.name);

test('on a fresh database every step runs once, in order, under the lock, and is recorded', async () => {
  const { driver, queries, done } = fakeDriver();
  const report = await migrateNeo4j(driver, undefined, { owner: 'me' });
  expect(report.ran).toEqual(ALL);
  expect([...done]).toEqual(ALL);
  const q = queries();
  // The lock's and the records' constraints first, a look at the records, the lock, a second look.
  expect(q.slice(0, 5)).toEqual([M.lockConstraint, M.stepConstraint, M.finishedSteps, M.takeLock, M.finishedSteps]);
  const inOrder = [...schema, ...Object.values(BATCHED_DATA_CYPHER), ...Object.values(SCHEMA_AFTER_DATA_CYPHER)];
  const steps = q.filter((text) => inOrder.includes(text as never));
  expect(steps).toEqual(inOrder);
  expect(q.filter((text) => text === M.recordStep)).toHaveLength(ALL.length);
  expect(q.at(-1)).toBe(M.releaseLock);
  expect(q.indexOf(M.takeLock)).toBeLessThan(q.indexOf(schema[0]));
});

test('the search index with CCLI numbers is created, waited for, and only then replaces the old one', async () => {
  const { driver, queries } = fakeDriver();
  await migrateNeo4j(driver);
  const ran = queries();
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

test("a song's page index is created and waited for, and every link's song and service ids are filled after it", async () => {
  const { driver, queries } = fakeDriver();
  await migrateNeo4j(driver);
  const ran = queries();
  const at = (pattern: RegExp) => ran.findIndex((q) => pattern.test(q));
  const created = at(/CREATE RANGE INDEX performed_in_song IF NOT EXISTS FOR \(\)-\[r:PERFORMED_IN\]-\(\) ON \(r\.songId, r\.date, r\.serviceId\)/);
  const online = at(/CALL db\.awaitIndex\('performed_in_song', \d+\)/);
  const filled = ran.indexOf(BATCHED_DATA_CYPHER.linkIds);
  expect(created).toBeGreaterThanOrEqual(0);
  expect(online).toBeGreaterThan(created);
  expect(filled).toBeGreaterThan(online);
});

test('a batched step runs one transaction per batch, each from the last id before it, until one handles fewer', async () => {
  const { driver, ran } = fakeDriver({ batches: { songUsage: [DATA_BATCH, DATA_BATCH, 3] } });
  await migrateNeo4j(driver);
  const runs = ran.filter((r) => r.query === BATCHED_DATA_CYPHER.songUsage);
  expect(runs.map((r) => neo4j.integer.toNumber(r.params.after as never))).toEqual([-1, DATA_BATCH - 1, 2 * DATA_BATCH - 1]);
  expect(new Set(runs.map((r) => r.tx)).size).toBe(3);
  // Recorded only after its last batch.
  const record = ran.findIndex((r) => r.query === M.recordStep && r.params.name === 'data.songUsage');
  expect(record).toBeGreaterThan(ran.indexOf(runs[2]));
  expect(BATCHED_DATA_CYPHER.songUsage).toContain(`LIMIT ${DATA_BATCH}\n`);
  for (const text of Object.values(BATCHED_DATA_CYPHER)) expect(text).toContain(`LIMIT ${DATA_BATCH}\n`);
});

test('the timeline periods step is one statement, after every batched step, recorded after it ran', async () => {
  const { driver, ran } = fakeDriver();
  await migrateNeo4j(driver);
  const step = ran.findIndex((r) => r.query === ONE_STATEMENT_DATA_CYPHER.timelinePeriods);
  const lastBatch = ran.map((r) => r.query).lastIndexOf(BATCHED_DATA_CYPHER.linkIds);
  const record = ran.findIndex((r) => r.query === M.recordStep && r.params.name === 'data.timelinePeriods');
  expect(ran.filter((r) => r.query === ONE_STATEMENT_DATA_CYPHER.timelinePeriods)).toHaveLength(1);
  expect(step).toBeGreaterThan(lastBatch);
  expect(record).toBeGreaterThan(step);
  expect(ran[record].tx).toBeGreaterThan(ran[step].tx);
  expect(MIGRATION_STEPS.filter((s) => s.kind !== 'schema').at(-1)).toMatchObject({ name: 'data.timelinePeriods', kind: 'statement' });
  // The schema that needs data steps first comes after all of them.
  expect(MIGRATION_STEPS.at(-1)).toMatchObject({ name: 'schema.serviceSlot', kind: 'schema' });
  // It only makes the zone record (zone-less: the store fills it on opening), never a period.
  expect(ONE_STATEMENT_DATA_CYPHER.timelinePeriods).toMatch(/MERGE \(z:TimelineZone \{name: 'timeline'\}\)\s+RETURN/);
});

test('on a database already migrated it reads the records once and takes no lock', async () => {
  const { driver, queries } = fakeDriver({ done: ALL });
  expect(await migrateNeo4j(driver)).toEqual({ ran: [], waitedMs: 0 });
  expect(queries()).toEqual([M.lockConstraint, M.stepConstraint, M.finishedSteps]);
});

test('only the steps not yet recorded run', async () => {
  const { driver } = fakeDriver({ done: ALL.filter((n) => n !== 'data.renumberSetlists') });
  expect((await migrateNeo4j(driver)).ran).toEqual(['data.renumberSetlists']);
});

test('while another instance holds the lock it waits, says so once, then finds its work done', async () => {
  let fake: ReturnType<typeof fakeDriver>;
  let waits = 0;
  // The other instance finishes while we wait.
  fake = fakeDriver({ lockFree: [false, false, true], onWait: () => ++waits === 2 && ALL.forEach((n) => fake.done.add(n)) });
  const lines: string[] = [];
  const report = await migrateNeo4j(fake.driver, undefined, { pollMs: 50, log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) } });
  expect(report.ran).toEqual([]);
  expect(report.waitedMs).toBeGreaterThanOrEqual(90);
  expect(lines).toEqual(['Neo4j migrations: waiting for other-host:7:abc to finish migrating']);
  expect(fake.queries().filter((q) => q === M.takeLock)).toHaveLength(3);
  expect(fake.queries().at(-1)).toBe(M.releaseLock);
});

test('it waits at most waitMs for the lock, then fails naming the holder and the setting', async () => {
  const { driver, queries } = fakeDriver({ lockFree: Array(1000).fill(false) });
  const started = Date.now();
  const error = await migrateNeo4j(driver, undefined, { waitMs: 300, pollMs: 50 }).catch((e) => e);
  expect(error).toBeInstanceOf(MigrationWaitError);
  expect(error.message).toMatch(/^another instance \(other-host:7:abc\) is still migrating the database after \d+ s \(MIGRATION_WAIT_SECONDS\)/);
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(queries()).not.toContain(M.releaseLock);
  expect(queries()).not.toContain(schema[0]);
});

test('the lock is renewed while a step runs, and released when a step fails', async () => {
  const { driver, ran } = fakeDriver({ fail: { query: BATCHED_DATA_CYPHER.linkCopies, afterMs: 200 } });
  await expect(migrateNeo4j(driver, undefined, { owner: 'me', leaseMs: 90 })).rejects.toThrow('the server fell over');
  const renewals = ran.filter((r) => r.query === M.renewLock);
  expect(renewals.length).toBeGreaterThanOrEqual(2);
  expect(renewals.every((r) => r.params.owner === 'me')).toBe(true);
  expect(ran.at(-1)).toMatchObject({ query: M.releaseLock, params: { owner: 'me' } });
});

test('awaitMigrated (MIGRATE_ON_START=false) waits for the steps, then returns; or fails saying what to run', async () => {
  const ready = fakeDriver({ done: ALL });
  await awaitMigrated(ready.driver);
  const missing = fakeDriver({ done: ALL.slice(0, 3) });
  const error = await awaitMigrated(missing.driver, undefined, { waitMs: 200, pollMs: 50 }).catch((e) => e);
  expect(error).toBeInstanceOf(MigrationWaitError);
  expect(error.message).toContain(`(${ALL.length - 3} steps missing, first ${ALL[3]})`);
  expect(error.message).toContain('run `npm run migrate:neo4j`, or start one instance with MIGRATE_ON_START=true');
  expect(missing.queries()).not.toContain(M.takeLock);
});

/**
 * On a real Neo4j (NEO4J_URI, e.g. under `npm run test:neo4j`): a graph as an older version wrote
 * it (setlist positions with gaps and ties, links without their service's date and type, songs
 * without maintained usage) reads as this version's after migrateNeo4j, and a second run writes
 * nothing; the lock keeps two instances from migrating at once and lets a dead one's lease run
 * out; the renumbering waits for a writer holding a service's lock.
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

(target ? describe : describe.skip)('the migrations on a real Neo4j (NEO4J_URI)', () => {
  let driver: Driver;
  let database: string | undefined;
  beforeAll(() => {
    driver = createNeo4jDriver(target!);
    database = target!.database;
  });
  afterAll(() => driver?.close());
  const q = (text: string, params: Record<string, unknown> = {}) => driver.executeQuery(text, params, { database });
  const steps = async () => (await q(M.finishedSteps)).records.map((r) => r.get('name') as string).sort();
  /** An empty database, as a new deployment meets it: no data, no constraints, no indexes. */
  async function empty() {
    await wipeNeo4j(driver, database);
    await dropSchema(driver, database);
  }

  it('renumber old setlists 1..n in (position, seq) order, copy service dates and types to links, fill usage', async () => {
    await migrateNeo4j(driver, database); // the schema first, as at any start
    await wipeNeo4j(driver, database); // forgets the records too: every data step runs again
    await q(OLD_GRAPH);
    const { ran } = await migrateNeo4j(driver, database);
    expect(ran).toEqual(ALL);

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
    const again = await q(BATCHED_DATA_CYPHER.renumberSetlists, { after: neo4j.int(-1) });
    // The lock idiom's SET and REMOVE on each of the two services; no position.
    expect(again.summary.counters.updates().propertiesSet).toBe(2 * 2);
    expect(await migrateNeo4j(driver, database)).toEqual({ ran: [], waitedMs: 0 });
    expect(await store.exportSnapshot()).toEqual(before);
  }, 60_000);

  it('a database written before one service per date and type keeps its twins; the lowest id of each holds the slot', async () => {
    const NEW = ['data.serviceSlots', 'schema.serviceSlot'];
    await migrateNeo4j(driver, database);
    await wipeNeo4j(driver, database);
    await q('DROP CONSTRAINT service_slot IF EXISTS');
    await q(`CREATE (:Service {id: 1, date: 5, serviceType: 'WED'}), (:Service {id: 2, date: 5, serviceType: 'SUN_AM'}),
      (:Service {id: 3, date: 5, serviceType: 'WED'}), (:Service {id: 4, date: 9, serviceType: 'WED'}),
      (:Service {id: 5, date: 5, serviceType: 'WED'}), (:Sequence {name: 'Service', value: 5})`);
    for (const name of ALL.filter((n) => !NEW.includes(n))) await q(M.recordStep, { name });
    const { ran } = await migrateNeo4j(driver, database);
    expect(ran).toEqual(NEW);
    const guarded = await q('MATCH (v:Service) RETURN v.id AS id, v.guarded AS guarded ORDER BY id');
    expect(guarded.records.map((r) => [neo4j.integer.toNumber(r.get('id')), r.get('guarded')])).toEqual([
      [1, true],
      [2, true],
      [3, null],
      [4, true],
      [5, null],
    ]);
    const store = new Neo4jStore(driver, { database });
    expect(await store.createService({ date: 5, serviceType: 'WED' })).toEqual({ slotTakenBy: 1 });
    expect(await store.createService({ date: 5, serviceType: 'SUN_AM' })).toEqual({ slotTakenBy: 2 });
    expect(await store.updateService(3, { date: 9 })).toEqual({ slotTakenBy: 4 });
    expect(await store.updateService(5, { serviceType: 'WED' })).toEqual({ id: 5, date: 5, serviceType: 'WED' });
    expect((await store.listServices({}, {})).totalCount).toBe(5);
    // A second run of the data step writes nothing but its locks.
    const again = await q(BATCHED_DATA_CYPHER.serviceSlots, { after: neo4j.int(-1) });
    expect(again.summary.counters.updates().propertiesSet).toBe(5 * 2);
  }, 60_000);

  it("a database written before the song page index gains its links' song and service ids and the index", async () => {
    const NEW = ['schema.performedInSong', 'schema.performedInSongOnline', 'data.linkIds'];
    await migrateNeo4j(driver, database);
    await wipeNeo4j(driver, database);
    await q('DROP INDEX performed_in_song IF EXISTS');
    await q(OLD_GRAPH);
    // The links as the previous release left them: with their service's date and type copied.
    await q(BATCHED_DATA_CYPHER.linkCopies, { after: neo4j.int(-1) });
    // Every other step as the previous release recorded it: only the new ones are left.
    for (const name of ALL.filter((n) => !NEW.includes(n))) await q(M.recordStep, { name });
    const { ran } = await migrateNeo4j(driver, database);
    expect(ran).toEqual(NEW);

    const links = await q(`MATCH (s:Song)-[r:PERFORMED_IN]->(v:Service)
      RETURN s.id = r.songId AND v.id = r.serviceId AS copied ORDER BY r.seq`);
    expect(links.records.map((r) => r.get('copied'))).toEqual([true, true, true, true]);
    const index = await q(`SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state
      WHERE name = 'performed_in_song' RETURN type, entityType, labelsOrTypes, properties, state`);
    expect(index.records.map((r) => r.toObject())).toEqual([
      { type: 'RANGE', entityType: 'RELATIONSHIP', labelsOrTypes: ['PERFORMED_IN'], properties: ['songId', 'date', 'serviceId'], state: 'ONLINE' },
    ]);
    // The page reads the copies: song C's services in date order, song B's only one.
    const page = await q(CYPHER.servicesForSongs, {
      ids: [3, 2, 1].map((n) => neo4j.int(n)),
      serviceTypes: ['SUN_AM', 'SUN_PM', 'WED'],
      offset: neo4j.int(0),
      limit: neo4j.int(20),
    });
    expect(page.records.map((r) => [r.get('i'), r.get('id')].map((n) => neo4j.integer.toNumber(n)))).toEqual([
      [0, 1],
      [0, 2],
      [1, 1],
      [2, 1],
    ]);
    // A second run writes nothing.
    const again = await q(BATCHED_DATA_CYPHER.linkIds, { after: neo4j.int(-1) });
    expect(again.summary.counters.updates().propertiesSet).toBe(2 * 2);
  }, 60_000);

  it('a database written before song pairs gains them (once per pair, per type) and their indexes', async () => {
    const NEW = [
      'schema.sungWithTogether',
      'schema.sungWithPair',
      'schema.sungWithOtherTogether',
      'schema.sungWithOtherTogetherOnline',
      'data.songPairs',
      'data.pairsOnce',
    ];
    await migrateNeo4j(driver, database);
    await wipeNeo4j(driver, database);
    await q('DROP INDEX sung_with_together IF EXISTS');
    await q('DROP INDEX sung_with_pair IF EXISTS');
    await q('DROP INDEX sung_with_other_together IF EXISTS');
    await q(OLD_GRAPH);
    // The graph as the previous release left it: every earlier data step done and recorded.
    for (const [name, text] of Object.entries(BATCHED_DATA_CYPHER)) {
      if (!NEW.includes(`data.${name}`)) await q(text, { after: neo4j.int(-1) });
    }
    for (const name of ALL.filter((n) => !NEW.includes(n))) await q(M.recordStep, { name });
    expect((await q('MATCH ()-[p:SUNG_WITH]->() RETURN count(p) AS n')).records[0].get('n').toNumber()).toBe(0);
    const { ran } = await migrateNeo4j(driver, database);
    expect(ran).toEqual(NEW);

    const pairs = await q(`MATCH (s:Song)-[p:SUNG_WITH]->(o:Song)
      RETURN s.id = p.songId AND o.id = p.otherId AS keyed, s.name + o.name AS pair, [p.sunAm, p.sunPm, p.wed, p.together] AS counts ORDER BY pair`);
    // Service 1 (SUN_AM) holds A, B and C; service 2 (WED) holds C alone: no pair.
    expect(pairs.records.map((r) => [r.get('pair'), r.get('keyed'), (r.get('counts') as { toNumber(): number }[]).map((n) => n.toNumber())])).toEqual(
      ['AB', 'AC', 'BC'].map((pair) => [pair, true, [1, 0, 0, 1]]),
    );
    const store = new Neo4jStore(driver, { database });
    const allTime = { from: null, to: null, serviceTypes: ['SUN_AM' as const, 'SUN_PM' as const, 'WED' as const] };
    // C was sung twice (its Jaccard with A or B is 1/2), so B (1/1) comes before it with A.
    expect((await store.songsSungWith(1, allTime, 20)).map((p) => [p.song.name, p.together, p.jaccard])).toEqual([
      ['B', 1, 1],
      ['C', 1, 0.5],
    ]);
    // A second run recounts the same pairs.
    await q(BATCHED_DATA_CYPHER.songPairs, { after: neo4j.int(-1) });
    const recounted = await q('MATCH ()-[p:SUNG_WITH]->() RETURN count(p) AS n, sum(p.together) AS together');
    expect([recounted.records[0].get('n').toNumber(), recounted.records[0].get('together').toNumber()]).toEqual([3, 3]);
  }, 60_000);

  it('a database that stored each song pair both ways round keeps one, from the lower id, and its reports', async () => {
    const NEW = ['schema.sungWithOtherTogether', 'schema.sungWithOtherTogetherOnline', 'data.pairsOnce'];
    await migrateNeo4j(driver, database);
    await wipeNeo4j(driver, database);
    await q('DROP INDEX sung_with_other_together IF EXISTS');
    await q(OLD_GRAPH);
    for (const [name, text] of Object.entries(BATCHED_DATA_CYPHER)) {
      if (!NEW.includes(`data.${name}`)) await q(text, { after: neo4j.int(-1) });
    }
    // The previous release's second copy of each pair: the same counts, from the higher id.
    await q(`MATCH (s:Song)-[p:SUNG_WITH]->(o:Song)
      CREATE (o)-[:SUNG_WITH {songId: o.id, otherId: s.id, sunAm: p.sunAm, sunPm: p.sunPm, wed: p.wed, together: p.together}]->(s)`);
    for (const name of ALL.filter((n) => !NEW.includes(n))) await q(M.recordStep, { name });
    expect((await q('MATCH ()-[p:SUNG_WITH]->() RETURN count(p) AS n')).records[0].get('n').toNumber()).toBe(6);
    const { ran } = await migrateNeo4j(driver, database);
    expect(ran).toEqual(NEW);
    const pairs = await q(`MATCH (s:Song)-[p:SUNG_WITH]->(o:Song) RETURN s.name + o.name AS pair ORDER BY pair`);
    expect(pairs.records.map((r) => r.get('pair'))).toEqual(['AB', 'AC', 'BC']);
    const store = new Neo4jStore(driver, { database });
    const allTime = { from: null, to: null, serviceTypes: ['SUN_AM' as const, 'SUN_PM' as const, 'WED' as const] };
    // Song 3 ends both of its pairs: the report reads the pairs a song ends as well as those it starts.
    expect((await store.songsSungWith(3, allTime, 20)).map((p) => [p.song.name, p.together, p.jaccard])).toEqual([
      ['A', 1, 0.5],
      ['B', 1, 0.5],
    ]);
    expect((await store.songsSungWith(3, { ...allTime, serviceTypes: ['SUN_AM' as const] }, 20)).map((p) => [p.song.name, p.together])).toEqual([
      ['A', 1],
      ['B', 1],
    ]);
  }, 60_000);

  it('a database written before the artist totals gains them, in batches, and the artist_usage_times index', async () => {
    const NEW = ['schema.artistUsageTimes', 'data.artistTotals'];
    await migrateNeo4j(driver, database);
    await wipeNeo4j(driver, database);
    await q('DROP INDEX artist_usage_times IF EXISTS');
    const store = new Neo4jStore(driver, { database });
    await store.createSong({ name: 'A', artists: ['Amy'] });
    await store.createSong({ name: 'B', artists: ['amy ', 'Bea'] });
    await store.createSong({ name: 'C', artists: ['amy '] });
    await store.createService({ date: 1000, serviceType: 'SUN_AM' });
    await store.createService({ date: 2000, serviceType: 'WED' });
    await store.replaceSetlist(1, [1, 2]);
    await store.replaceSetlist(2, [2]);
    // More artists than one batch holds, whose songs are gone: they get zeros, in a second batch.
    await q(`UNWIND range(1, ${DATA_BATCH + 200}) AS i CREATE (:Artist {key: 'old ' + toString(i)})`);
    // The artists as the previous release left them: no totals; every other step recorded.
    await q(MAINTENANCE_CYPHER.forgetArtistTotals);
    for (const name of ALL.filter((n) => !NEW.includes(n))) await q(M.recordStep, { name });
    const allTypes = { from: null, to: null, serviceTypes: ['SUN_AM' as const, 'SUN_PM' as const, 'WED' as const] };
    expect(await store.artistUsage(allTypes, {})).toEqual({ items: [], total: 0 });

    const { ran } = await migrateNeo4j(driver, database);
    expect(ran).toEqual(NEW);
    const totals = await q(`MATCH (a:Artist) WHERE NOT a.key STARTS WITH 'old '
      RETURN a.key AS key, properties(a) AS props ORDER BY key`);
    const num = (v: unknown): unknown => (neo4j.isInt(v) ? neo4j.integer.toNumber(v) : Array.isArray(v) ? v.map(num) : v);
    const plain = (props: Record<string, unknown>) => Object.fromEntries(Object.entries(props).map(([k, v]) => [k, num(v)]));
    // amy: A (SUN_AM), B (SUN_AM and WED), C (never sung); 'amy ' is two of its three entries.
    expect(totals.records.map((r) => plain(r.get('props')))).toEqual([
      { key: 'amy', spelling: 'amy ', spellings: ['amy ', 'Amy'], spellingUses: [2, 1], sunAmTimes: 2, sunPmTimes: 0, wedTimes: 1, usageTimes: 3, songs1: 2, songs2: 0, songs3: 2, songs4: 1, songs5: 2, songs6: 1, songs7: 2 },
      { key: 'bea', spelling: 'Bea', spellings: ['Bea'], spellingUses: [1], sunAmTimes: 1, sunPmTimes: 0, wedTimes: 1, usageTimes: 2, songs1: 1, songs2: 0, songs3: 1, songs4: 1, songs5: 1, songs6: 1, songs7: 1 },
    ]);
    const old = await q(`MATCH (a:Artist) WHERE a.key STARTS WITH 'old '
      RETURN count(a) AS n, count(a.usageTimes) AS filled, sum(a.usageTimes) AS times, sum(a.songs7) AS songs, count(a.spelling) AS spelt`);
    expect(plain(old.records[0].toObject())).toEqual({ n: DATA_BATCH + 200, filled: DATA_BATCH + 200, times: 0, songs: 0, spelt: 0 });
    const index = await q(`SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state
      WHERE name = 'artist_usage_times' RETURN type, entityType, labelsOrTypes, properties, state`);
    expect(index.records.map((r) => r.toObject())).toEqual([
      { type: 'RANGE', entityType: 'NODE', labelsOrTypes: ['Artist'], properties: ['usageTimes'], state: 'ONLINE' },
    ]);
    // The reports read them: every type off the index, some types off the per-type totals.
    expect(await store.artistUsage(allTypes, {})).toEqual({
      items: [
        { artist: 'amy ', timesSung: 3, songs: 2 },
        { artist: 'Bea', timesSung: 2, songs: 1 },
      ],
      total: 2,
    });
    // A tie on times: by the spelling shown ('B' sorts before 'a').
    expect(await store.artistUsage({ ...allTypes, serviceTypes: ['WED', 'SUN_PM'] }, {})).toEqual({
      items: [
        { artist: 'Bea', timesSung: 1, songs: 1 },
        { artist: 'amy ', timesSung: 1, songs: 1 },
      ],
      total: 2,
    });
    // A second run writes nothing.
    const again = await q(BATCHED_DATA_CYPHER.artistTotals, { after: neo4j.int(-1) });
    expect(again.summary.counters.updates().propertiesSet).toBe(0);
  }, 60_000);

  it('two instances migrating an empty database at the same moment: each step runs once, both succeed', async () => {
    await empty();
    const [a, b] = await Promise.all([
      migrateNeo4j(driver, database, { owner: 'a', pollMs: 100 }),
      migrateNeo4j(driver, database, { owner: 'b', pollMs: 100 }),
    ]);
    expect([...a.ran, ...b.ran].sort()).toEqual([...ALL].sort());
    // One of them did it all; the other waited for the lock and found nothing left.
    expect([a.ran.length, b.ran.length].sort((x, y) => x - y)).toEqual([0, ALL.length]);
    expect(await steps()).toEqual([...ALL].sort());
    const lock = (await q("MATCH (l:MigrationLock) RETURN l.owner AS owner")).records;
    expect(lock.map((r) => r.get('owner'))).toEqual([null]);
  }, 120_000);

  it('waits while another instance holds the lock, and serves once it is released', async () => {
    await empty();
    await migrateNeo4j(driver, database, { owner: 'x' }); // the lock's constraints
    await wipeNeo4j(driver, database);
    const held = await q(M.takeLock, { owner: 'other', leaseMs: neo4j.int(60_000) });
    expect(held.records[0].get('taken')).toBe(true);

    const refused = await migrateNeo4j(driver, database, { owner: 'me', waitMs: 1_500, pollMs: 100 }).catch((e) => e);
    expect(refused).toBeInstanceOf(MigrationWaitError);
    expect(refused.message).toContain('another instance (other) is still migrating');
    expect(await steps()).toEqual([]);

    const lines: string[] = [];
    const waiting = migrateNeo4j(driver, database, { owner: 'me', pollMs: 100, log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) } });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await steps()).toEqual([]);
    await q(M.releaseLock, { owner: 'other' });
    const report = await waiting;
    expect(report.ran).toEqual(ALL);
    expect(report.waitedMs).toBeGreaterThanOrEqual(900);
    expect(lines[0]).toBe('Neo4j migrations: waiting for other to finish migrating');
  }, 120_000);

  it("takes over the lock of an instance that died holding it once its lease runs out", async () => {
    await wipeNeo4j(driver, database);
    await q(M.takeLock, { owner: 'killed', leaseMs: neo4j.int(1_500) });
    const started = Date.now();
    const report = await migrateNeo4j(driver, database, { owner: 'me', pollMs: 100, waitMs: 10_000 });
    expect(report.ran).toEqual(ALL);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  }, 60_000);

  it.each(['data.linkCopies', 'data.renumberSetlists', 'data.linkIds'])('%s takes the service lock a setlist writer holds, and waits for it', async (step) => {
    await wipeNeo4j(driver, database);
    await q(OLD_GRAPH);
    // Only this step is left to run.
    for (const name of ALL.filter((n) => n !== step)) await q(M.recordStep, { name });
    // A writer has locked service 1 and not committed yet.
    const session = driver.session({ database, defaultAccessMode: neo4j.session.WRITE });
    const writer = await session.beginTransaction();
    await writer.run('MATCH (v:Service {id: 1}) SET v._lock = true REMOVE v._lock');
    let finished = false;
    // A short lease, so that it is renewed (every 500 ms) while the migration waits.
    const migrating = migrateNeo4j(driver, database, { leaseMs: 1_500 }).then((r) => ((finished = true), r));
    const until = async () => (await q('MATCH (l:MigrationLock) RETURN l.until AS until')).records[0]?.get('until');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const first = await until();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(finished).toBe(false);
    expect(neo4j.integer.toNumber(await until())).toBeGreaterThan(neo4j.integer.toNumber(first));
    // The writer goes on (no deadlock with the migration) and moves B last; what it commits is
    // migrated with the rest.
    await writer.run('MATCH (:Song {id: 2})-[r:PERFORMED_IN]->(:Service {id: 1}) SET r.position = 9');
    await writer.commit();
    await session.close();
    expect((await migrating).ran).toEqual([step]);
    const links = await q(`MATCH (s:Song)-[r:PERFORMED_IN]->(:Service {id: 1})
      RETURN s.id AS song, r.position AS place, r.date AS date, r.songId AS songId ORDER BY place`);
    const rows = links.records.map((r) => [neo4j.integer.toNumber(r.get('song')), neo4j.integer.toNumber(r.get('place')), r.get('date')]);
    if (step === 'data.renumberSetlists') expect(rows.map(([song, place]) => [song, place])).toEqual([[3, 1], [1, 2], [2, 3]]);
    else if (step === 'data.linkIds') {
      const copies = links.records.map((r) => [neo4j.integer.toNumber(r.get('song')), neo4j.integer.toNumber(r.get('place')), r.get('songId')]);
      expect(copies.map(([song, place, songId]) => [song, place, songId && neo4j.integer.toNumber(songId)])).toEqual([[3, 2, 3], [1, 5, 1], [2, 9, 2]]);
    } else expect(rows.map(([song, place, date]) => [song, place, date && neo4j.integer.toNumber(date)])).toEqual([[3, 2], [1, 5], [2, 9]].map(([song, place]) => [song, place, 1000]));
  }, 60_000);

  it('awaitMigrated (MIGRATE_ON_START=false) returns once another instance has migrated', async () => {
    await empty();
    await migrateNeo4j(driver, database);
    await wipeNeo4j(driver, database);
    let ready = false;
    const waiting = awaitMigrated(driver, database, { pollMs: 100 }).then(() => (ready = true));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ready).toBe(false);
    await migrateNeo4j(driver, database);
    await waiting;
    expect(ready).toBe(true);
  }, 60_000);
});
