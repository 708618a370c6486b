/**
 * Which store the end-to-end suites run on: SQLite (the default: a new file per server), or, with
 * TEST_STORE=neo4j, the real Neo4j at NEO4J_URI (NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE), as
 * `npm run test:neo4j` runs them. The same tests run on both; only the helpers know the store.
 *
 * One Neo4j database holds the store of one test server at a time, so a Neo4j run is serial
 * (--runInBand) and the database is switched between the stores a suite has open:
 * - a server started without SQLITE_PATH gets an empty store, as a new SQLite file is: the
 *   database is wiped (every node and relationship, so the id sequences start again; the schema
 *   stays and the server's startup applies it);
 * - a server started with a SQLITE_PATH it named before (a restart on "the same file") gets that
 *   store back as it was left;
 * - while one server runs, a suite may start a second for a fresh store (a "fresh store" test): the
 *   first one's graph is saved as a snapshot and put back when the second one closes.
 * Each suite file starts from an empty database.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createNeo4jDriver, type Neo4jOptions } from '../../src/store/neo4j/driver';
import { migrateNeo4j } from '../../src/store/neo4j/migrations';
import { STATEMENT_LOG_ENV } from '../../src/store/neo4j/statement-log';
import { Neo4jStore } from '../../src/store/neo4j/store';
import { SqliteStore } from '../../src/store/sqlite/store';
import type { Snapshot, Store } from '../../src/store/types';
import { neo4jTarget, wipeNeo4j } from './neo4j';

export const TEST_STORE_ENV = 'TEST_STORE';
export type TestStoreKind = 'sqlite' | 'neo4j';

/** The store of this run; a TEST_STORE=neo4j run without NEO4J_URI fails rather than fall back. */
export function testStoreKind(env: NodeJS.ProcessEnv = process.env): TestStoreKind {
  const kind = env[TEST_STORE_ENV] || 'sqlite';
  if (kind !== 'sqlite' && kind !== 'neo4j') throw new Error(`${TEST_STORE_ENV} must be sqlite or neo4j, not ${JSON.stringify(kind)}`);
  if (kind === 'neo4j' && !env.NEO4J_URI) {
    throw new Error(`${TEST_STORE_ENV}=neo4j needs NEO4J_URI (npm run test:neo4j sets it, starting a Neo4j when needed)`);
  }
  return kind;
}

const neo4jOptions = (): Neo4jOptions => neo4jTarget()!;

/**
 * The configuration variables that point the service, or a CLI run as its own process, at the
 * store of `dbPath`: its SQLite file, or the run's Neo4j (which holds it while its server runs).
 */
export function storeEnv(dbPath: string): Record<string, string> {
  if (testStoreKind() === 'sqlite') return { SQLITE_PATH: dbPath };
  const o = neo4jOptions();
  const log = process.env[STATEMENT_LOG_ENV];
  return {
    STORE: 'neo4j',
    NEO4J_URI: o.uri,
    NEO4J_USER: o.user,
    NEO4J_PASSWORD: o.password,
    ...(o.database ? { NEO4J_DATABASE: o.database } : {}),
    // A CLI's statements count towards the statement coverage of the run too.
    ...(log ? { [STATEMENT_LOG_ENV]: log } : {}),
  };
}

/** Open a driver for one maintenance step; the database is the run's, the driver is not kept. */
async function withNeo4j<T>(work: (store: Neo4jStore, wipe: () => Promise<void>) => Promise<T>): Promise<T> {
  const o = neo4jOptions();
  const driver = createNeo4jDriver(o);
  const store = new Neo4jStore(driver, { database: o.database });
  try {
    return await work(store, () => wipeNeo4j(driver, o.database));
  } finally {
    await driver.close();
  }
}

/**
 * Which test store the Neo4j database holds, and the saved graphs of the others that may come back
 * (stores of servers still open, and stores named by a SQLITE_PATH). Per suite file: jest gives
 * each file its own copy of this module.
 */
const graphs = {
  /** The dbPath whose store the database holds now; null before this file's first server. */
  current: null as string | null,
  /** dbPaths of the servers open now, oldest first (one entry per server). */
  open: [] as string[],
  /** dbPaths given as SQLITE_PATH: a later server may reopen them. */
  named: new Set<string>(),
  saved: new Map<string, Snapshot>(),
};

/** Make the database hold the store of `dbPath`, saving the one it holds if it may come back. */
async function activate(dbPath: string): Promise<void> {
  if (graphs.current === dbPath) return;
  await withNeo4j(async (store, wipe) => {
    const from = graphs.current;
    if (from !== null && (graphs.open.includes(from) || graphs.named.has(from))) graphs.saved.set(from, await store.exportSnapshot());
    await wipe();
    const back = graphs.saved.get(dbPath);
    if (back) {
      await store.importSnapshot(back);
      graphs.saved.delete(dbPath);
    }
  });
  graphs.current = dbPath;
}

/** Before a server on `dbPath` starts (named: the suite gave it as SQLITE_PATH). */
export async function openNeo4jStore(dbPath: string, named: boolean): Promise<void> {
  if (named) graphs.named.add(dbPath);
  await activate(dbPath);
  graphs.open.push(dbPath);
}

/** After a server on `dbPath` closed: the database goes back to the newest server still open. */
export async function closeNeo4jStore(dbPath: string): Promise<void> {
  const at = graphs.open.lastIndexOf(dbPath);
  if (at < 0) return;
  graphs.open.splice(at, 1);
  if (!graphs.open.includes(dbPath) && !graphs.named.has(dbPath)) graphs.saved.delete(dbPath);
  const newest = graphs.open.at(-1);
  if (newest !== undefined) await activate(newest);
}

/**
 * Make `dbPath` name the store that storeEnv(dbPath) reaches, for a CLI run as its own process
 * while no server has it open (on SQLite the file is already that store; on Neo4j the database is
 * switched to it, empty the first time). A server started later with SQLITE_PATH=`dbPath` opens
 * the same store.
 */
export async function selectTestStore(dbPath: string): Promise<void> {
  if (testStoreKind() === 'sqlite') return;
  graphs.named.add(dbPath);
  await activate(dbPath);
}

/**
 * `npm run seed` (the demo data) as its own process into the store a server will open with
 * SQLITE_PATH=`dbPath`; `env` adds configuration (e.g. SERVICE_TIME_ZONE).
 */
export async function seedTestStore(dbPath: string, env: Record<string, string> = {}): Promise<void> {
  await selectTestStore(dbPath);
  const root = path.join(__dirname, '..', '..');
  execFileSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['src/cli/seed.ts'], {
    cwd: root,
    env: { ...process.env, STORE: 'sqlite', ...storeEnv(dbPath), LOG_LEVEL: 'silent', ...env },
    stdio: 'pipe',
  });
}

export interface OpenedStore {
  store: Store;
  /** Configuration variables for a CLI run as its own process on this store (see storeEnv). */
  env: Record<string, string>;
  /** A temporary directory for the test's files, removed by close(). */
  dir: string;
  close(): Promise<void>;
}

/**
 * An empty store of the run's kind, opened directly (no server): a new SQLite file, or the run's
 * Neo4j wiped, with its schema applied as at a server's start.
 */
export async function openTestStore(): Promise<OpenedStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-store-'));
  const dbPath = path.join(dir, 'songs.db');
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
  if (testStoreKind() === 'sqlite') {
    const store = new SqliteStore(dbPath);
    return { store, env: storeEnv(dbPath), dir, close: async () => (store.close(), removeDir()) };
  }
  await openNeo4jStore(dbPath, false);
  const o = neo4jOptions();
  const driver = createNeo4jDriver(o);
  await migrateNeo4j(driver, o.database);
  const store = new Neo4jStore(driver, { database: o.database });
  return {
    store,
    env: storeEnv(dbPath),
    dir,
    close: async () => {
      await store.close();
      await closeNeo4jStore(dbPath);
      removeDir();
    },
  };
}
