import fs from 'node:fs';
import path from 'node:path';
import { freePort, listening, logRecords, run, type Run } from '../helpers/process';
import { tempDbPath } from '../helpers/server';

/**
 * The real process (src/main.ts) as an operator runs it (docs/API.md): configuration from the
 * environment, a clear one-line refusal of bad configuration, no secret in any output, the
 * idempotent ADMIN bootstrap, and a clean exit on SIGTERM.
 */

const JWT = 'process-test-jwt-secret-0123456789-abcdef';
const PASSWORD_A = 'first-admin-password-A1';
const PASSWORD_B = 'second-admin-password-B2';

async function stop(r: Run) {
  r.child.kill('SIGTERM');
  return r.exit;
}

async function login(base: string, username: string, password: string) {
  const res = await fetch(`${base}/api/v1/users/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return { status: res.status, body: (await res.json()) as any };
}


describe('a server process on one database, started twice', () => {
  const dbPath = tempDbPath();
  const outputs: string[] = [];
  afterAll(() => {
    // Whatever was logged or printed across both runs, no secret appears in it.
    const all = outputs.join('\n');
    expect(all).not.toContain(JWT);
    expect(all).not.toContain(PASSWORD_A);
    expect(all).not.toContain(PASSWORD_B);
  });

  test('first start: serves /healthz and /readyz, creates the ADMIN, exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const r = run({
      PORT: String(port),
      SQLITE_PATH: dbPath,
      LOG_LEVEL: 'info',
      JWT_SECRET: JWT,
      ADMIN_USERNAME: 'root-admin',
      ADMIN_PASSWORD: PASSWORD_A,
    });
    try {
      await listening(r);
      const base = `http://127.0.0.1:${port}`;
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      expect((await fetch(`${base}/readyz`)).status).toBe(200);

      const ok = await login(base, 'root-admin', PASSWORD_A);
      expect(ok.status).toBe(200);
      expect(ok.body.user).toEqual({ id: expect.any(Number), username: 'root-admin', role: 'ADMIN' });
      expect((await login(base, 'root-admin', 'not-the-password')).status).toBe(401);
      // Requests that carry the secrets in odd places are not echoed into the log either.
      await fetch(`${base}/api/v1/songs`, { method: 'POST', headers: { authorization: `Bearer ${JWT}` }, body: `{"name": "${PASSWORD_A}"` });
      await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `mutation { login(username: "root-admin", password: "${PASSWORD_A}") { token } }` }),
      });
    } finally {
      const { code, signal } = await stop(r);
      outputs.push(r.output.stdout, r.output.stderr);
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    }

    const records = logRecords(r.output.stdout);
    const messages = records.map((rec) => rec.msg);
    expect(messages).toContain(`listening on http://127.0.0.1:${port}`);
    // Where to point a browser is in the startup line.
    expect(records.find((rec) => rec.msg === `listening on http://127.0.0.1:${port}`)).toMatchObject({
      insights: `http://127.0.0.1:${port}/insights`,
      rest: `http://127.0.0.1:${port}/api/v1`,
      graphql: `http://127.0.0.1:${port}/graphql`,
    });
    expect(messages).toContain('created the ADMIN user from ADMIN_USERNAME');
    expect(messages).toContain('shutting down');
    expect(r.output.stderr).toBe('');
  });

  test('second start: the bootstrap is idempotent and never overwrites the existing password', async () => {
    const port = await freePort();
    const r = run({
      PORT: String(port),
      SQLITE_PATH: dbPath,
      LOG_LEVEL: 'trace',
      JWT_SECRET: JWT,
      ADMIN_USERNAME: 'root-admin',
      ADMIN_PASSWORD: PASSWORD_B,
    });
    try {
      await listening(r);
      const base = `http://127.0.0.1:${port}`;
      const a = await login(base, 'root-admin', PASSWORD_A);
      expect(a.status).toBe(200);
      const b = await login(base, 'root-admin', PASSWORD_B);
      expect(b.status).toBe(401);
      expect(b.body.error.code).toBe('UNAUTHENTICATED');

      const users = await fetch(`${base}/api/v1/users`, { headers: { authorization: `Bearer ${a.body.token}` } });
      expect(await users.json()).toEqual([{ id: a.body.user.id, username: 'root-admin', role: 'ADMIN' }]);
    } finally {
      const { code, signal } = await stop(r);
      outputs.push(r.output.stdout, r.output.stderr);
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    }
    expect(logRecords(r.output.stdout).map((rec) => rec.msg)).not.toContain('created the ADMIN user from ADMIN_USERNAME');
  });
});

describe('without JWT_SECRET, a restart keeps every token', () => {
  test('the generated secret is kept beside the database (0600), named in the log, and signs across restarts', async () => {
    const dbPath = tempDbPath();
    const kept = path.join(path.dirname(dbPath), 'jwt-secret');
    const env = { SQLITE_PATH: dbPath, LOG_LEVEL: 'info', ADMIN_USERNAME: 'root-admin', ADMIN_PASSWORD: PASSWORD_A };
    const start = async () => {
      const port = await freePort();
      const r = run({ ...env, PORT: String(port) });
      await listening(r);
      return { r, base: `http://127.0.0.1:${port}` };
    };
    const me = (base: string, token: string) => fetch(`${base}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });

    const old = process.umask(0o022);
    let first;
    try {
      first = await start();
    } finally {
      process.umask(old);
    }
    const token = (await login(first.base, 'root-admin', PASSWORD_A)).body.token as string;
    expect((await me(first.base, token)).status).toBe(200);
    expect(await stop(first.r)).toEqual({ code: 0, signal: null });
    expect(fs.statSync(kept).mode & 0o777).toBe(0o600);
    const secret = fs.readFileSync(kept, 'utf8');
    expect(secret.length).toBeGreaterThanOrEqual(32);

    const second = await start();
    try {
      const res = await me(second.base, token);
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).username).toBe('root-admin');
    } finally {
      expect(await stop(second.r)).toEqual({ code: 0, signal: null });
    }

    const [made, reused] = [first.r, second.r].map((r) => logRecords(r.output.stdout).find((rec) => 'created' in rec));
    expect(made).toMatchObject({ level: 40, file: kept, created: true });
    expect(made!.msg).toContain(kept);
    expect(reused).toMatchObject({ level: 40, file: kept, created: false, msg: `JWT_SECRET is not set: using the secret kept in ${kept}` });
    for (const r of [first.r, second.r]) {
      expect(r.output.stdout).not.toContain(secret);
      expect(r.output.stderr).not.toContain(secret);
    }
  }, 60_000);
});

describe('startup refuses bad configuration with one clear line', () => {
  const SHORT_SECRET = 'short-secret-x9';
  // Every row has all four entries: a shorter row would make jest pass `done` as `secret`.
  const cases: [label: string, env: Record<string, string>, names: RegExp, secret: string | null][] = [
    ['an unknown STORE', { STORE: 'mongo' }, /\bSTORE\b/, null],
    ['a PORT that is not a number', { PORT: 'abc' }, /\bPORT\b/, null],
    ['a JWT_SECRET under 32 characters', { JWT_SECRET: SHORT_SECRET }, /\bJWT_SECRET\b.*32/, SHORT_SECRET],
    ['NODE_ENV=production without JWT_SECRET', { NODE_ENV: 'production' }, /\bJWT_SECRET\b.*NODE_ENV=production/, null],
    ['an ADMIN_PASSWORD that is too short', { ADMIN_USERNAME: 'root-admin', ADMIN_PASSWORD: 'tiny7' }, /ADMIN_PASSWORD/, 'tiny7'],
    ['a SERVICE_TIMES entry that is no time of day', { SERVICE_TIMES: 'SUN_AM=25:00' }, /\bSERVICE_TIMES\b.*TYPE=HH:mm/, null],
    ['an ADMIN_PASSWORD for no ADMIN_USERNAME', { ADMIN_PASSWORD: 'long-enough-password' }, /ADMIN_PASSWORD needs ADMIN_USERNAME/, 'long-enough-password'],
  ];

  test.each(cases)('%s', async (_label, env, names, secret) => {
    const r = run({ PORT: String(await freePort()), SQLITE_PATH: tempDbPath(), LOG_LEVEL: 'info', ...env });
    const { code } = await r.exit;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    const lines = r.output.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(names);
    if (secret) {
      expect(r.output.stderr).not.toContain(secret);
      expect(r.output.stdout).not.toContain(secret);
    }
  });
});
