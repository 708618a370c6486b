/**
 * The real Neo4j the suites run against, and what they share about it.
 *
 * A suite reads its server from NEO4J_URI (NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE), as set by
 * `npm run test:neo4j` or by hand. `NEO4J_LOCAL=1 npx jest ...` starts one local Neo4j 5.26
 * (scripts/neo4j-local.ts) for the whole jest run in globalSetup instead, and stops it in
 * globalTeardown: the workers inherit its NEO4J_* variables.
 */
import neo4j, { type Driver } from 'neo4j-driver';
import { startLocalNeo4j, type LocalNeo4j } from '../../scripts/neo4j-local';
import { createNeo4jDriver, type Neo4jOptions } from '../../src/store/neo4j/driver';
import { migrateNeo4j } from '../../src/store/neo4j/migrations';
import { Neo4jStore } from '../../src/store/neo4j/store';
import { MAINTENANCE_CYPHER } from '../../src/store/neo4j/statements';

/** The server of this run, or null when no NEO4J_URI is set (the Neo4j blocks then skip). */
export function neo4jTarget(): Neo4jOptions | null {
  const uri = process.env.NEO4J_URI;
  if (!uri) return null;
  return {
    uri,
    user: process.env.NEO4J_USER ?? 'neo4j',
    password: process.env.NEO4J_PASSWORD ?? '',
    database: process.env.NEO4J_DATABASE || undefined,
  };
}

/** Delete every node and relationship: the suites share one server and each starts from nothing. */
export async function wipeNeo4j(driver: Driver, database?: string): Promise<void> {
  const session = driver.session({ database, defaultAccessMode: neo4j.session.WRITE });
  try {
    await session.executeWrite((tx) => tx.run(MAINTENANCE_CYPHER.deleteEverything));
  } finally {
    await session.close();
  }
}

/**
 * One migrated driver for a suite's tests on the real server, opened in beforeAll and closed (the
 * database emptied) in afterAll, as the service holds one driver. `fresh` empties the database and
 * opens a store on it (over `over`, a wrapper of the driver, if given) whose close leaves the
 * shared driver open.
 */
export function suiteNeo4j(target: Neo4jOptions) {
  let opened: Driver | undefined;
  beforeAll(async () => {
    opened = createNeo4jDriver(target);
    await migrateNeo4j(opened, target.database);
  }, 120_000);
  afterAll(async () => {
    if (!opened) return;
    await wipeNeo4j(opened, target.database);
    await opened.close();
  });
  const driver = (): Driver => {
    if (!opened) throw new Error("the suite's Neo4j driver opens in beforeAll");
    return opened;
  };
  const fresh = async (over: Driver = driver()): Promise<Neo4jStore> => {
    await wipeNeo4j(driver(), target.database);
    return Object.assign(new Neo4jStore(over, { database: target.database }), { close: async () => undefined });
  };
  return { driver, fresh };
}

// globalSetup and globalTeardown share only globals (jest may load their modules apart).
const KEY = Symbol.for('worship-records.localNeo4j');
const holder = globalThis as { [KEY]?: LocalNeo4j };

/** With NEO4J_LOCAL=1 and no NEO4J_URI, start a local Neo4j for the run and export its address. */
export async function startLocalNeo4jForRun(): Promise<void> {
  if (process.env.NEO4J_LOCAL !== '1' || process.env.NEO4J_URI) return;
  const server = await startLocalNeo4j();
  holder[KEY] = server;
  process.env.NEO4J_URI = server.uri;
  process.env.NEO4J_USER = server.user;
  process.env.NEO4J_PASSWORD = server.password;
}

export async function stopLocalNeo4jForRun(): Promise<void> {
  const server = holder[KEY];
  delete holder[KEY];
  await server?.stop();
}

/**
 * Drop every constraint and index (but the token lookup indexes every database has), so the next
 * start meets the database a new deployment meets: empty, without schema.
 */
export async function dropSchema(driver: Driver, database?: string): Promise<void> {
  const q = (text: string) => driver.executeQuery(text, {}, { database });
  for (const r of (await q('SHOW CONSTRAINTS YIELD name')).records) await q(`DROP CONSTRAINT \`${r.get('name')}\` IF EXISTS`);
  for (const r of (await q("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP'")).records) {
    await q(`DROP INDEX \`${r.get('name')}\` IF EXISTS`);
  }
}
