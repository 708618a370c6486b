/**
 * The Neo4j side of the benches (STORE=neo4j): a server to measure on, an emptied database, a
 * snapshot loaded through the store's own import, and what that cost in time and disk.
 *
 * The server is NEO4J_URI (NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE) when set: its database is
 * WIPED (every node and relationship) before each load. Otherwise a local Neo4j 5.26
 * (scripts/neo4j-local.ts) with its data in a temporary directory, removed when it stops. The
 * local one gets a larger heap and page cache than the launcher's test default: an import part
 * holds its transaction in the heap, and the 1m history's store (about 1.05 GB on disk) should fit
 * the page cache, as it would on a production server sized by Neo4j's guidance:
 * BENCH_NEO4J_HEAP_MB (default 3072) and BENCH_NEO4J_PAGE_CACHE_MB (default 2048; with 1024 the
 * last parts of the 1m import ran 20% slower than the first as the store outgrew it).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import neo4j, { type Driver } from 'neo4j-driver';
import { startLocalNeo4j, type LocalNeo4j } from '../scripts/neo4j-local';
import { connectNeo4j } from '../src/store/neo4j/connect';
import type { Neo4jStore } from '../src/store/neo4j/store';
import type { Snapshot } from '../src/store/types';
import { snapshotParts } from '../src/store/snapshot';
import { importInParts } from '../src/store/import-parts';

/** Which stores a bench measures: STORE=sqlite (default), neo4j (Neo4j beside SQLite in the same run). */
export function benchStores(): ('sqlite' | 'neo4j')[] {
  const store = process.env.STORE ?? 'sqlite';
  if (store === 'sqlite') return ['sqlite'];
  if (store === 'neo4j') return ['sqlite', 'neo4j'];
  throw new Error(`STORE must be sqlite or neo4j (neo4j measures SQLite beside it), not ${JSON.stringify(store)}`);
}

const envMb = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number of MB, not ${JSON.stringify(raw)}`);
  return Number(raw);
};

export interface BenchNeo4j {
  uri: string;
  user: string;
  password: string;
  database?: string;
  /** The local server's data directory (for its size on disk); null for NEO4J_URI. */
  home: string | null;
  /** Where it came from, for the report. */
  source: string;
  heapMb?: number;
  pageCacheMb?: number;
  /** Stop it (a local one checkpoints and closes its store), and its data directory's size then. */
  stop(): Promise<{ diskBytes: number | null }>;
  /**
   * A local server stopped (its store checkpointed and closed) and started again on the same data,
   * with new credentials in this object; false for NEO4J_URI, which is not ours to restart.
   */
  restart(): Promise<boolean>;
}

/** NEO4J_URI if set, else a new local Neo4j in a temporary directory. */
export async function benchNeo4j(): Promise<BenchNeo4j> {
  if (process.env.NEO4J_URI) {
    return {
      uri: process.env.NEO4J_URI,
      user: process.env.NEO4J_USER ?? 'neo4j',
      password: process.env.NEO4J_PASSWORD ?? '',
      database: process.env.NEO4J_DATABASE || undefined,
      home: null,
      source: 'NEO4J_URI (wiped)',
      stop: async () => ({ diskBytes: null }),
      restart: async () => false,
    };
  }
  const heapMb = envMb('BENCH_NEO4J_HEAP_MB', 3072);
  const pageCacheMb = envMb('BENCH_NEO4J_PAGE_CACHE_MB', 2048);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-neo4j-'));
  const start = () => startLocalNeo4j({ home, heapMb, pageCacheMb, log: (l) => console.log(`  ${l}`) });
  let server: LocalNeo4j;
  try {
    server = await start();
  } catch (err) {
    fs.rmSync(home, { recursive: true, force: true });
    throw err;
  }
  const out: BenchNeo4j = {
    uri: server.uri,
    user: server.user,
    password: server.password,
    home,
    source: `local Neo4j 5.26 (scripts/neo4j-local.ts, heap ${heapMb} MB, page cache ${pageCacheMb} MB)`,
    heapMb,
    pageCacheMb,
    stop: async () => {
      await server.stop();
      try {
        return { diskBytes: diskBytes(home) };
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    },
    restart: async () => {
      await server.stop();
      server = await start();
      Object.assign(out, { uri: server.uri, user: server.user, password: server.password });
      return true;
    },
  };
  return out;
}

export function driverOf(n: BenchNeo4j): Driver {
  return neo4j.driver(n.uri, neo4j.auth.basic(n.user, n.password), { disableLosslessIntegers: true });
}

/**
 * Delete every node and relationship, in batches (one transaction for a million relationships
 * would need their whole undo state in the heap). The schema stays.
 */
export async function wipe(n: BenchNeo4j): Promise<void> {
  const driver = driverOf(n);
  const session = driver.session({ database: n.database });
  try {
    await session.run('MATCH (x) CALL (x) { DETACH DELETE x } IN TRANSACTIONS OF 5000 ROWS');
  } finally {
    await session.close();
    await driver.close();
  }
}

const quiet = { info: () => undefined, warn: (m: string) => console.log(`  neo4j: ${m}`) };

/** The store on this server, migrated (as a server's start does). */
export function openStore(n: BenchNeo4j): Promise<Neo4jStore> {
  return connectNeo4j({ uri: n.uri, user: n.user, password: n.password, database: n.database, transactionTimeoutMs: 30 * 60_000 }, quiet);
}

/** Bytes under a directory (du), or null when it is not ours to measure. */
function diskBytes(dir: string | null): number | null {
  if (!dir) return null;
  return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
}

/**
 * The most records (songs and links) one importSnapshot transaction carries here. A
 * transaction's uncommitted state lives in the heap, and Neo4j refuses a commit past
 * dbms.memory.transaction.total.max (70% of the heap): the 1m history's 1,000,002 links in one
 * transaction stopped at the 2.1 GiB limit of a 3 GB heap after seven minutes, and the scale
 * bench's large store (100,000 songs and 120,000 links) at the 1 GiB of a 1.5 GB heap. The 100y
 * history (1,000 songs, 93,600 links) fits a 1 GB heap.
 */
export const RECORDS_PER_IMPORT = 125_000;

/** The snapshot in parts of at most about RECORDS_PER_IMPORT songs and links (src/store/snapshot.ts). */
export const importParts = (snapshot: Snapshot, maxRecords = RECORDS_PER_IMPORT) => snapshotParts(snapshot, maxRecords);

/**
 * Wipe, migrate, and load the snapshot through the store's own importSnapshot (every usage
 * aggregate maintained as a write would), in parts of at most about RECORDS_PER_IMPORT records, one
 * transaction each. Reports the import's wall time. (Its size on disk is read once the server has
 * stopped and checkpointed: see stop().)
 */
export async function loadNeo4j(n: BenchNeo4j, snapshot: Snapshot): Promise<{ importMs: number; parts: number; replanMs: number }> {
  await wipe(n);
  const store = await openStore(n);
  try {
    const started = Date.now();
    let parts = 0;
    // As `npm run migrate` imports: in parts, replanning as the store doubles (src/store/import-parts.ts).
    await importInParts(store, snapshot, RECORDS_PER_IMPORT, {
      partDone: (n, part, replanned) => {
        parts = n;
        if (snapshot.songs.length + snapshot.links.length > RECORDS_PER_IMPORT) {
          console.log(`    part ${n}: ${part.links.length} links, ${((Date.now() - started) / 1000).toFixed(0)} s so far${replanned ? ' (replanned)' : ''}`);
        }
      },
    });
    const importMs = Date.now() - started;
    // As `npm run migrate` does after its parts (Store.replanAfterImport); not part of the import's time.
    const replanStarted = Date.now();
    await store.replanAfterImport();
    return { importMs, parts, replanMs: Date.now() - replanStarted };
  } finally {
    await store.close();
  }
}
