/**
 * Processes opening one SQLite file at the same moment: two instances of the service, or the
 * service and a command-line tool. The migrations run once, under one `BEGIN IMMEDIATE` around
 * the check and the migration; whoever comes second waits for the write lock (bounded by
 * MIGRATION_WAIT_SECONDS), then finds them applied. Before, the second re-ran DDL the first had
 * committed and failed ("no such trigger: performed_in_copied", "duplicate column name").
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/store/sqlite/migrations';
import { listening, run, runScript } from '../helpers/process';
import { JWT_SECRET } from '../helpers/server';

const OPENER = 'test/helpers/open-store.ts';
const BARRIER = './test/helpers/start-barrier.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-open-race-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const fresh = (name: string) => path.join(dir, `${name}-${Date.now()}-${Math.random().toString(36).slice(2)}.db`);
/** What makes `count` processes open their database at the same moment (test/helpers/start-barrier.ts). */
const barrier = (count: number) => ({ START_DIR: fs.mkdtempSync(path.join(dir, 'barrier-')), START_COUNT: String(count) });

function versions(file: string): number[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all() as number[];
  } finally {
    db.close();
  }
}

test('three processes opening one new file at the same moment all open it, and it is migrated once', async () => {
  for (let round = 0; round < 4; round++) {
    const file = fresh('three');
    const env = barrier(3);
    const results = await Promise.all([1, 2, 3].map(() => runScript(OPENER, ['open', file], env, [BARRIER])));
    for (const r of results) {
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      // The whole answer, so that a refusal shows its error message.
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, ms: expect.any(Number), at: expect.any(Number) });
    }
    expect(versions(file)).toEqual(MIGRATIONS.map((m) => m.version));
  }
}, 120_000);

test('the service and a command-line tool starting on one new file at the same moment both succeed', async () => {
  for (let round = 0; round < 3; round++) {
    const file = fresh('service-and-tool');
    const env = { SQLITE_PATH: file, JWT_SECRET, ...barrier(2) };
    const service = run({ ...env, PORT: '0', HOST: '127.0.0.1', ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'admin-password-1' }, [BARRIER]);
    try {
      const tool = await runScript('src/cli/user.ts', ['create', '--username', 'carol', '--role', 'USER'], { ...env, USER_PASSWORD: 'carol-password-1' }, [BARRIER]);
      expect({ code: tool.code, stderr: tool.stderr }).toEqual({ code: 0, stderr: '' });
      expect(tool.stdout).toMatch(/^created user \d+ 'carol' \(USER\)$/m);
      await listening(service, 30_000);
    } finally {
      service.child.kill('SIGTERM');
      await service.exit;
    }
    expect(service.output.stderr).toBe('');
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT username FROM users ORDER BY username').pluck().all()).toEqual(['admin', 'carol']);
    db.close();
  }
}, 180_000);

/** A process holding the file's write lock for `ms` (as a long migration would); resolves once it holds it. */
async function holdWriteLock(file: string, ms: number): Promise<{ released: Promise<number> }> {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', OPENER, 'hold', file, String(ms)], { cwd: path.resolve(__dirname, '..', '..') });
  let out = '';
  const released = new Promise<number>((resolve) => child.once('exit', () => resolve(Number(/released (\d+)/.exec(out)?.[1]))));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('held')) resolve();
    });
    child.once('exit', () => reject(new Error('the lock holder exited before holding the lock')));
  });
  return { released };
}

test('opening waits for another process holding the write lock (a migration), up to MIGRATION_WAIT_SECONDS', async () => {
  const file = fresh('held');
  const first = await runScript(OPENER, ['open', file], {});
  expect(JSON.parse(first.stdout)).toMatchObject({ ok: true });

  const holder = await holdWriteLock(file, 3_000);
  const waited = JSON.parse((await runScript(OPENER, ['open', file, '30'], {})).stdout);
  expect(waited).toMatchObject({ ok: true });
  // It opened only once the holder had committed.
  expect(waited.at).toBeGreaterThanOrEqual(await holder.released);

  // Past the wait it gives up with SQLite's own answer rather than hang.
  const again = await holdWriteLock(file, 8_000);
  const refused = JSON.parse((await runScript(OPENER, ['open', file, '1'], {})).stdout);
  expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/database is locked/) });
  expect(refused.ms).toBeGreaterThanOrEqual(900);
  expect(refused.ms).toBeLessThan(4_000);
  await again.released;
}, 60_000);
