/**
 * A consistent copy of the SQLite database, taken while the service keeps running, then verified.
 *
 *   npm run backup -- --to backups/songs-2026-11-22.db [--from ./data/songs.db]
 *
 * SQLite's online backup API (better-sqlite3's `db.backup`) copies the database page by page and
 * restarts when a writer changes a page it already copied, so the copy is one committed state,
 * never a torn one; writers are not blocked meanwhile. The copy is then switched to the rollback
 * journal (one file at rest), opened on its own and checked with `PRAGMA integrity_check`. The
 * file is created readable by its owner only (0600): it holds password hashes.
 *
 * With STORE=neo4j it takes a logical backup instead: the store's JSON snapshot (what
 * `npm run migrate -- --from neo4j --to json` writes), read in one transaction, checked as an
 * import would check it (a read racing writes that sees a link without its service is read
 * again), written under a temporary name with mode 0600, read back and checked again, then
 * renamed into place. Restore it with `npm run migrate -- --from json --from-path FILE --to neo4j`.
 * `neo4j-admin database dump` remains the server's own (offline) backup.
 */
import { loadEnvFile } from '../env-file';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { loadConfig } from '../config';
import { createPrivateFile } from '../private-file';
import { createStore } from '../store';
import { checkSnapshot, SnapshotError } from '../store/snapshot';
import type { Snapshot } from '../store/types';

export const USAGE = 'usage: npm run backup -- --to FILE [--from SQLITE_FILE]   (default --from: SQLITE_PATH or ./data/songs.db)';

export class UsageError extends Error {}

export interface BackupReport {
  from: string;
  to: string;
  pages: number;
  bytes: number;
  counts: { songs: number; services: number; users: number; links: number };
}

function countRows(db: Database.Database): BackupReport['counts'] {
  const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  return { songs: count('songs'), services: count('services'), users: count('users'), links: count('performed_in') };
}

/** Check a copy on its own: SQLite's full integrity check, then that the tables read. */
export function verifyBackup(file: string): BackupReport['counts'] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const problems = db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
    const result = problems.map((p) => p.integrity_check);
    if (result.length !== 1 || result[0] !== 'ok') throw new Error(`integrity_check failed: ${result.slice(0, 5).join('; ')}`);
    return countRows(db);
  } finally {
    db.close();
  }
}

/** How often a logical backup reads the store again when a read racing writes was not whole. */
const NEO4J_READS = 3;

/** STORE=neo4j: the store's JSON snapshot, checked, written privately and atomically, checked again. */
async function neo4jBackup(to: string, env: NodeJS.ProcessEnv): Promise<BackupReport> {
  if (fs.existsSync(to)) throw new Error(`${to} already exists: choose a new file name (a backup never overwrites)`);
  const config = loadConfig(env);
  const store = await createStore(config);
  let snapshot: Snapshot | undefined;
  try {
    for (let attempt = 1; !snapshot; attempt++) {
      const read = await store.exportSnapshot();
      try {
        checkSnapshot(read);
        snapshot = read;
      } catch (err) {
        if (!(err instanceof SnapshotError) || attempt >= NEO4J_READS) throw err;
      }
    }
  } finally {
    await store.close();
  }
  const partial = `${to}.partial`;
  fs.rmSync(partial, { force: true });
  try {
    createPrivateFile(partial);
    fs.writeFileSync(partial, JSON.stringify(snapshot, null, 2));
    const back = JSON.parse(fs.readFileSync(partial, 'utf8')) as Snapshot;
    checkSnapshot(back);
    const counts = snapshotCounts(back);
    const expected = snapshotCounts(snapshot);
    if (JSON.stringify(counts) !== JSON.stringify(expected)) throw new Error('verification failed: the file read back holds other counts than the store gave');
    fs.renameSync(partial, to);
    return { from: `neo4j ${config.neo4j.uri ?? ''}`.trim(), to: path.resolve(to), pages: 0, bytes: fs.statSync(to).size, counts };
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw err;
  }
}

const snapshotCounts = (s: Snapshot): BackupReport['counts'] => ({
  songs: s.songs.length,
  services: s.services.length,
  users: s.users.length,
  links: s.links.length,
});

export async function backup(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<BackupReport> {
  const { values } = parseArgs({ args: argv, options: { to: { type: 'string' }, from: { type: 'string' } }, strict: true });
  if (!values.to) throw new UsageError('--to FILE is required');
  if (env.STORE === 'neo4j') {
    if (values.from) throw new UsageError('--from names a SQLite file; with STORE=neo4j the backup reads NEO4J_URI');
    return neo4jBackup(values.to, env);
  }
  const from = values.from ?? env.SQLITE_PATH ?? './data/songs.db';
  const to = values.to;
  if (from === ':memory:') throw new UsageError('an in-memory database cannot be backed up from another process');
  if (!fs.existsSync(from)) throw new Error(`no database at ${from} (set SQLITE_PATH or --from)`);
  if (fs.existsSync(to)) throw new Error(`${to} already exists: choose a new file name (a backup never overwrites)`);

  // Written under a temporary name and renamed once verified: a failed or interrupted backup never
  // leaves a file that looks like a good one.
  const partial = `${to}.partial`;
  const removePartial = () => {
    for (const suffix of ['', ...SIDE_FILES]) fs.rmSync(`${partial}${suffix}`, { force: true });
  };
  removePartial();
  createPrivateFile(partial);
  const source = new Database(from, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    const progress = await source.backup(partial);
    toRollbackJournal(partial);
    const counts = verifyBackup(partial);
    fs.renameSync(partial, to);
    return { from: path.resolve(from), to: path.resolve(to), pages: progress.totalPages, bytes: fs.statSync(to).size, counts };
  } catch (err) {
    removePartial();
    throw err;
  } finally {
    source.close();
  }
}

/** Files SQLite may keep beside a database while it is open. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];

/**
 * The copy carries the live database's WAL mode in its header, so every connection to it (the
 * check below included) would leave `-wal` and `-shm` files beside it, under the partial name
 * that is renamed away. A backup is one file at rest: switch it to the rollback journal, which
 * keeps nothing beside it once closed. The service turns WAL back on when it opens a restored copy.
 */
function toRollbackJournal(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  try {
    const r = await backup(argv);
    const c = r.counts;
    if (process.env.STORE === 'neo4j') {
      console.log(`backed up ${r.from} to ${r.to} (a JSON snapshot, ${r.bytes} bytes, mode 0600)`);
      console.log(`verified: read back whole; ${c.songs} songs, ${c.services} services, ${c.links} setlist links, ${c.users} users`);
      console.log(`restore: npm run migrate -- --from json --from-path ${r.to} --to neo4j`);
      return 0;
    }
    console.log(`backed up ${r.from} to ${r.to} (${r.pages} pages, ${r.bytes} bytes, mode 0600)`);
    console.log(`verified: integrity_check ok; ${c.songs} songs, ${c.services} services, ${c.links} setlist links, ${c.users} users`);
    return 0;
  } catch (err) {
    console.error(`backup: ${err instanceof Error ? err.message : String(err)}`);
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) console.error(USAGE);
    return 1;
  }
}

if (require.main === module) {
  loadEnvFile();
  void main().then((code) => process.exit(code));
}
