/**
 * The operators' account tool (`npm run user`), run as a real process on a real store: a SQLite
 * file, or with TEST_STORE=neo4j the run's Neo4j.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ADMIN, startTestServer, tempDbPath } from '../helpers/server';
import { selectTestStore, storeEnv } from '../helpers/test-store';

const ROOT = path.resolve(__dirname, '..', '..');

function user(dbPath: string, args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) {
  const run = spawnSync(process.execPath, ['-r', 'tsx/cjs', 'src/cli/user.ts', ...args], {
    cwd: ROOT,
    input: opts.stdin ?? '',
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...storeEnv(dbPath), LOG_LEVEL: 'silent', ...opts.env },
  });
  return { code: run.status, stdout: run.stdout.trim(), stderr: run.stderr.trim() };
}

test('creates an ADMIN from a piped password, lists it, and the account logs in over HTTP', async () => {
  const db = tempDbPath();
  await selectTestStore(db);
  const created = user(db, ['create', '--username', 'operator', '--role', 'ADMIN'], { stdin: 'piped-password-1\n' });
  expect(created).toEqual({ code: 0, stdout: "created user 1 'operator' (ADMIN)", stderr: '' });
  expect(user(db, ['list']).stdout).toBe('1\toperator\tADMIN');

  const s = await startTestServer({ SQLITE_PATH: db, ADMIN_USERNAME: '', ADMIN_PASSWORD: '' });
  try {
    const token = await s.login('operator', 'piped-password-1');
    expect((await s.api('GET', '/users/me', { token })).body).toEqual({ id: 1, username: 'operator', role: 'ADMIN' });
  } finally {
    await s.close();
  }
});

test('reset-password takes USER_PASSWORD, retires old tokens, and never echoes the password', async () => {
  const s = await startTestServer();
  const old = await s.adminToken();
  await s.close();

  await selectTestStore(s.dbPath);
  const reset = user(s.dbPath, ['reset-password', '--username', ADMIN.username], { env: { USER_PASSWORD: 'brand-new-password' } });
  expect(reset.code).toBe(0);
  expect(reset.stdout + reset.stderr).not.toContain('brand-new-password');

  const again = await startTestServer({ SQLITE_PATH: s.dbPath });
  try {
    expect((await again.api('GET', '/users/me', { token: old })).status).toBe(401);
    expect((await again.api('POST', '/users/login', { body: { username: ADMIN.username, password: 'brand-new-password' } })).status).toBe(200);
  } finally {
    await again.close();
  }
});

test('refuses what would break the rules, with one clear line and a non-zero exit', async () => {
  const db = tempDbPath();
  await selectTestStore(db);
  expect(user(db, ['create', '--username', 'solo', '--role', 'ADMIN'], { stdin: 'solo-password-1' }).code).toBe(0);

  const demote = user(db, ['set-role', '--username', 'solo', '--role', 'USER']);
  expect(demote).toEqual({ code: 1, stdout: '', stderr: 'the last ADMIN cannot be demoted' });
  expect(user(db, ['delete', '--username', 'solo']).stderr).toBe('the last ADMIN cannot be deleted');

  const short = user(db, ['create', '--username', 'tiny'], { stdin: 'short' });
  expect(short.code).toBe(1);
  expect(short.stderr).toBe('password must be 8 to 256 characters');

  const taken = user(db, ['create', '--username', 'SOLO'], { stdin: 'another-password' });
  expect(taken.stderr).toBe("the username 'SOLO' is taken");

  // There is no way to pass a password as an argument.
  const argv = user(db, ['create', '--username', 'argv-user', '--password', 'in-argv-123']);
  expect(argv.code).not.toBe(0);
  expect(user(db, ['list']).stdout).not.toContain('argv-user');

  expect(user(db, ['unknown-command']).code).toBe(2);
});
