/**
 * Copy every record and link from one store to another, keeping ids, songs' licensing details,
 * setlist positions, link order, password hashes and token versions; the target's id sequences end beyond the source's,
 * so ids are never reused. Idempotent: running it again changes nothing.
 *
 *   npm run migrate -- --from sqlite --to neo4j            # SQLITE_PATH -> NEO4J_URI
 *   npm run migrate -- --from neo4j --to sqlite --to-path ./data/from-neo4j.db
 *   npm run migrate -- --from sqlite --from-path a.db --to sqlite --to-path b.db
 *   npm run migrate -- --from sqlite --to json --to-path backup.json   # and --from json back
 *
 * Connection settings come from SQLITE_PATH, NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD and
 * NEO4J_DATABASE; --from-path/--to-path, --from-uri/--to-uri and --from-database/--to-database
 * override them per side. Passwords are read from the environment only (a command line is
 * visible to every user of the machine). Stop the API before migrating: Neo4j cannot export a
 * point-in-time copy while writes continue (the export then refuses rather than copy a torn state).
 */
import { loadEnvFile } from '../env-file';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createStore, type StoreLogger } from '../store';
import type { Snapshot, SnapshotCounts, Store } from '../store/types';
import { checkSnapshot, licensingBySong, licensingOf } from '../store/snapshot';
import { importInParts } from '../store/import-parts';
import { writePrivateFile } from '../private-file';

type Kind = 'sqlite' | 'neo4j' | 'json';
const KINDS: readonly Kind[] = ['sqlite', 'neo4j', 'json'];

export class UsageError extends Error {}

interface Side {
  kind: Kind;
  /** SQLite database file or JSON snapshot file. */
  path?: string;
  uri?: string;
  database?: string;
}

export interface MigrationReport {
  from: string;
  to: string;
  read: SnapshotCounts;
  /** What the target held before the import (json targets: nothing). */
  before: SnapshotCounts;
  written: SnapshotCounts;
}

export const USAGE = `usage: npm run migrate -- --from sqlite|neo4j|json --to sqlite|neo4j|json
  [--from-path FILE] [--to-path FILE]        SQLite file or JSON snapshot (default SQLITE_PATH for sqlite)
  [--from-uri URI] [--to-uri URI]            Neo4j (default NEO4J_URI)
  [--from-database DB] [--to-database DB]    Neo4j database (default NEO4J_DATABASE)
Neo4j credentials: NEO4J_USER, NEO4J_PASSWORD.`;

function side(prefix: 'from' | 'to', values: Record<string, string | undefined>, env: NodeJS.ProcessEnv): Side {
  const kind = values[prefix] as Kind | undefined;
  if (!kind || !KINDS.includes(kind)) throw new UsageError(`--${prefix} must be one of ${KINDS.join(', ')}`);
  const given = values[`${prefix}-path`];
  if (kind === 'sqlite') return { kind, path: given ?? env.SQLITE_PATH ?? './data/songs.db' };
  if (kind === 'json') {
    if (!given) throw new UsageError(`--${prefix} json needs --${prefix}-path FILE`);
    return { kind, path: given };
  }
  const uri = values[`${prefix}-uri`] ?? env.NEO4J_URI;
  if (!uri) throw new UsageError(`--${prefix} neo4j needs NEO4J_URI or --${prefix}-uri`);
  return { kind, uri, database: values[`${prefix}-database`] ?? env.NEO4J_DATABASE };
}

/**
 * The most songs and links one Neo4j import transaction carries (NEO4J_IMPORT_PART_RECORDS,
 * default 25,000): the 100y bench history (1,000 songs, 93,600 links) in one transaction ran out
 * of the 537 MiB transaction memory of a 768 MB heap; in parts of 25,000 it fits.
 */
function importPartRecords(env: NodeJS.ProcessEnv): number {
  const raw = env.NEO4J_IMPORT_PART_RECORDS ?? '25000';
  const n = Number(raw);
  if (!/^[0-9]+$/.test(raw) || n < 1) throw new UsageError(`NEO4J_IMPORT_PART_RECORDS must be a positive whole number, not ${JSON.stringify(raw)}`);
  return n;
}

const describe = (s: Side) =>
  s.kind === 'neo4j' ? `neo4j ${s.uri}${s.database ? ` (database ${s.database})` : ''}` : `${s.kind} ${s.path}`;

const sameSide = (a: Side, b: Side) =>
  a.kind === b.kind &&
  (a.kind === 'neo4j'
    ? a.uri === b.uri && (a.database ?? '') === (b.database ?? '')
    : path.resolve(a.path!) === path.resolve(b.path!));

function open(s: Side, env: NodeJS.ProcessEnv, log: StoreLogger): Promise<Store> {
  return createStore(
    {
      store: s.kind === 'neo4j' ? 'neo4j' : 'sqlite',
      sqlitePath: s.path ?? '',
      serviceTimeZone: env.SERVICE_TIME_ZONE,
      neo4j: { uri: s.uri, user: env.NEO4J_USER, password: env.NEO4J_PASSWORD, database: s.database },
    },
    log,
  );
}

const counts = (s: Pick<Snapshot, 'songs' | 'services' | 'links' | 'users'>): SnapshotCounts => ({
  songs: s.songs.length,
  services: s.services.length,
  links: s.links.length,
  users: s.users.length,
});
const NOTHING: SnapshotCounts = { songs: 0, services: 0, links: 0, users: 0 };

export const formatCounts = (c: SnapshotCounts) =>
  `${c.songs} songs, ${c.services} services, ${c.links} links, ${c.users} users`;

async function readSource(s: Side, env: NodeJS.ProcessEnv, log: StoreLogger): Promise<Snapshot> {
  if (s.kind !== 'neo4j' && !fs.existsSync(s.path!)) {
    // Opening a missing SQLite file would create an empty database and "migrate" nothing.
    throw new UsageError(`source ${describe(s)} does not exist`);
  }
  if (s.kind === 'json') {
    const snapshot = JSON.parse(fs.readFileSync(s.path!, 'utf8')) as Snapshot;
    checkSnapshot(snapshot);
    return snapshot;
  }
  const store = await open(s, env, log);
  try {
    return await store.exportSnapshot();
  } finally {
    await store.close();
  }
}

/** Everything the source had must now be in the target, unchanged. */
function verify(source: Snapshot, target: Snapshot): void {
  const kinds = ['songs', 'services', 'users'] as const;
  for (const kind of kinds) {
    const held = new Map<number, string>(target[kind].map((r) => [r.id, JSON.stringify(r)]));
    for (const r of source[kind]) {
      if (held.get(r.id) !== JSON.stringify(r)) throw new Error(`verification failed: ${kind} ${r.id} differs in the target`);
    }
  }
  // A song's licensing details are the source's, none included (a version 1 source has none).
  const [want, held] = [licensingBySong(source), licensingBySong(target)];
  for (const s of source.songs) {
    if (JSON.stringify(licensingOf(want, s.id)) !== JSON.stringify(licensingOf(held, s.id))) {
      throw new Error(`verification failed: the licensing details of song ${s.id} differ in the target`);
    }
  }
  const links = new Set(target.links.map((l) => JSON.stringify(l)));
  for (const l of source.links) {
    if (!links.has(JSON.stringify(l))) throw new Error(`verification failed: link ${l.seq} differs in the target`);
  }
  for (const [name, value] of Object.entries(source.sequences)) {
    if (target.sequences[name as keyof Snapshot['sequences']] < value) {
      throw new Error(`verification failed: the target's ${name} sequence is behind the source's`);
    }
  }
}

export async function migrate(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  log: StoreLogger = { info: (m) => console.error(m), warn: (m) => console.error(m) },
): Promise<MigrationReport> {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(
      ['from', 'to', 'from-path', 'to-path', 'from-uri', 'to-uri', 'from-database', 'to-database'].map((o) => [
        o,
        { type: 'string' as const },
      ]),
    ),
    strict: true,
  });
  const from = side('from', values, env);
  const to = side('to', values, env);
  if (sameSide(from, to)) throw new UsageError('the source and the target are the same store');

  const snapshot = await readSource(from, env, log);
  const report = { from: describe(from), to: describe(to), read: counts(snapshot) };

  if (to.kind === 'json') {
    // Owner-only (it holds password hashes), written then renamed so a crash leaves no half file.
    writePrivateFile(to.path!, JSON.stringify(snapshot, null, 2));
    return { ...report, before: NOTHING, written: counts(snapshot) };
  }

  const target = await open(to, env, log);
  try {
    const before = counts(await target.exportSnapshot());
    let written = NOTHING;
    if (to.kind === 'neo4j') {
      // In parts, one transaction each: a Neo4j transaction lives in the server's heap, and the
      // maintained aggregates (song pairs above all) make a large history's one transaction too
      // big for a small heap. A part that fails leaves the parts before it written; running the
      // migration again completes it (every record is upserted by id). The store replans as it
      // grows (importInParts says why).
      await importInParts(target, snapshot, importPartRecords(env), {
        replanFailed: (err) => log.warn(`warning: the target could not plan its statements again during the import (${err.message}); it goes on with the plans it has`),
      });
      written = counts(snapshot);
    } else {
      written = await target.importSnapshot(snapshot);
    }
    // Plans made while the import was under way fit a store still nearly empty (Store.replanAfterImport).
    try {
      await target.replanAfterImport();
    } catch (err) {
      log.warn(`warning: the target could not plan its statements again after the import (${(err as Error).message}); it will replan them as its statistics catch up`);
    }
    verify(snapshot, await target.exportSnapshot());
    return { ...report, before, written };
  } finally {
    await target.close();
  }
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  try {
    const r = await migrate(argv);
    console.log(`read    ${formatCounts(r.read)} from ${r.from}`);
    if (r.before.songs + r.before.services + r.before.links + r.before.users > 0) {
      console.log(`target  already held ${formatCounts(r.before)}; records sharing an id with the source now hold the source's values`);
    }
    console.log(`wrote   ${formatCounts(r.written)} to ${r.to}`);
    console.log('verified: every record and link of the source is in the target, id sequences included');
    return 0;
  } catch (err) {
    console.error(`migrate: ${err instanceof Error ? err.message : String(err)}`);
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(USAGE);
    }
    return 1;
  }
}

if (require.main === module) {
  loadEnvFile();
  void main().then((code) => process.exit(code));
}
