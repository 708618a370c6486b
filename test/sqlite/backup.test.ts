import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { main as migrate } from '../../src/cli/migrate';
import { runScript } from '../helpers/process';
import { startTestServer, tempDbPath, type TestServer } from '../helpers/server';

/**
 * `npm run backup` against the database of a running server that keeps writing, and the mode of
 * every file holding password hashes.
 */

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

/** The CLI as a separate process, as an operator runs it beside the service. */
const runBackup = (args: string[], env: Record<string, string>) => runScript('src/cli/backup.ts', args, env);

let s: TestServer;
let token: string;
beforeAll(async () => {
  s = await startTestServer();
  token = await s.adminToken();
  for (let i = 0; i < 40; i++) await s.api('POST', '/songs', { token, body: { name: `Before ${i}`, artists: ['A'] } });
});
afterAll(() => s.close());

test('copies the live database while writes go on, verifies it, and makes it owner-only', async () => {
  const dir = path.dirname(tempDbPath());
  const target = path.join(dir, 'nested', 'backup.db');
  let writing = true;
  let written = 0;
  const writer = (async () => {
    while (writing) {
      const res = await s.api('POST', '/songs', { token, body: { name: `During ${written}`, artists: ['B'] } });
      expect(res.status).toBe(201);
      written++;
    }
  })();
  const old = process.umask(0o022); // the usual umask would leave a plain file world-readable
  let result;
  try {
    result = await runBackup(['--to', target], { SQLITE_PATH: s.dbPath });
  } finally {
    process.umask(old);
    writing = false;
    await writer;
  }
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/verified: integrity_check ok; (\d+) songs/);
  expect(written).toBeGreaterThan(0); // the service kept answering writes during the backup
  expect(modeOf(target)).toBe(0o600);
  // Nothing beside the backup: no partial file, and no WAL or shared-memory file of one.
  expect(fs.readdirSync(path.dirname(target))).toEqual(['backup.db']);

  // The copy stands on its own: a complete, consistent database with every song of before.
  const copy = new Database(target, { readonly: true });
  const names = copy.prepare('SELECT name FROM songs ORDER BY id').pluck().all() as string[];
  expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
  // A file at rest in the rollback-journal mode: opening it leaves nothing beside it.
  expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
  copy.close();
  expect(fs.readdirSync(path.dirname(target))).toEqual(['backup.db']);
  expect(names.slice(0, 40)).toEqual(Array.from({ length: 40 }, (_, i) => `Before ${i}`));
  expect(Number(/(\d+) songs/.exec(result.stdout)![1])).toBe(names.length);

  // A server started on the copy serves it (the restore procedure).
  const restored = await startTestServer({ SQLITE_PATH: target });
  try {
    expect((await restored.api('GET', '/songs/1')).body).toEqual({ id: 1, name: 'Before 0', artists: ['A'] });
  } finally {
    await restored.close();
  }
}, 30_000);

test('never overwrites an existing file, and refuses a missing source', async () => {
  const dir = path.dirname(tempDbPath());
  const existing = path.join(dir, 'taken.db');
  fs.writeFileSync(existing, 'precious');
  const { backup } = await import('../../src/cli/backup');
  await expect(backup(['--to', existing], { SQLITE_PATH: s.dbPath })).rejects.toThrow(/already exists/);
  expect(fs.readFileSync(existing, 'utf8')).toBe('precious');
  await expect(backup(['--to', path.join(dir, 'x.db')], { SQLITE_PATH: path.join(dir, 'none.db') })).rejects.toThrow(/no database at/);
  await expect(backup([], { SQLITE_PATH: s.dbPath })).rejects.toThrow(/--to FILE is required/);
  expect(fs.existsSync(path.join(dir, 'x.db'))).toBe(false);
});

test('a database the server creates is owner-only, its WAL files too', async () => {
  const old = process.umask(0o022);
  let server: TestServer | undefined;
  try {
    server = await startTestServer();
    await server.api('POST', '/songs', { token: await server.adminToken(), body: { name: 'x', artists: [] } });
    for (const f of [server.dbPath, `${server.dbPath}-wal`, `${server.dbPath}-shm`]) expect([f, modeOf(f)]).toEqual([f, 0o600]);
  } finally {
    process.umask(old);
    await server?.close();
  }
});

test('JSON snapshots from npm run migrate are owner-only too', async () => {
  const out = path.join(path.dirname(tempDbPath()), 'snapshot.json');
  const old = process.umask(0o022);
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    expect(await migrate(['--from', 'sqlite', '--from-path', s.dbPath, '--to', 'json', '--to-path', out])).toBe(0);
  } finally {
    log.mockRestore();
    process.umask(old);
  }
  expect(modeOf(out)).toBe(0o600);
  expect(JSON.parse(fs.readFileSync(out, 'utf8')).users[0].passwordHash).toMatch(/^scrypt/);
});
