import jwt from 'jsonwebtoken';
import { loadConfig } from '../../src/config';
import { ADMIN, JWT_SECRET, startTestServer, type TestServer } from '../helpers/server';

let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await startTestServer({ LOGIN_MAX_FAILURES: '3', JWT_EXPIRES_IN: '2h' });
  admin = await s.adminToken();
});
afterAll(() => s.close());

const USER_KEYS = ['id', 'role', 'username'];

describe('user management', () => {
  test('an admin creates, lists, reads, updates and deletes users; bodies are exactly {id, username, role}', async () => {
    const created = await s.api('POST', '/users', { token: admin, body: { username: 'Grace.Lee', password: 'a-good-password' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), username: 'Grace.Lee', role: 'USER' });
    expect(created.headers.get('location')).toBe(`/api/v1/users/${created.body.id}`);

    const list = await s.api('GET', '/users', { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.map((u: { id: number }) => u.id)).toEqual([...list.body.map((u: { id: number }) => u.id)].sort((a, b) => a - b));
    for (const user of list.body) expect(Object.keys(user).sort()).toEqual(USER_KEYS);
    expect(list.headers.get('x-total-count')).toBe(String(list.body.length));

    const one = await s.api('GET', `/users/${created.body.id}`, { token: admin });
    expect(one.body).toEqual(created.body);

    const promoted = await s.api('PUT', `/users/${created.body.id}`, { token: admin, body: { role: 'ADMIN' } });
    expect(promoted.body).toEqual({ ...created.body, role: 'ADMIN' });

    const removed = await s.api('DELETE', `/users/${created.body.id}`, { token: admin });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    expect((await s.api('GET', `/users/${created.body.id}`, { token: admin })).status).toBe(404);
    expect((await s.api('DELETE', `/users/${created.body.id}`, { token: admin })).status).toBe(404);
  });

  test('usernames are unique ignoring case (409), and login ignores case too', async () => {
    await s.api('POST', '/users', { token: admin, body: { username: 'Mixed.Case', password: 'password-123' } });
    const dup = await s.api('POST', '/users', { token: admin, body: { username: 'mixed.case', password: 'password-123' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('CONFLICT');
    expect((await s.api('POST', '/users/login', { body: { username: 'MIXED.CASE', password: 'password-123' } })).status).toBe(200);
  });

  test.each([
    [{ username: 'ab', password: 'password-123' }, 'username'],
    [{ username: 'x'.repeat(65), password: 'password-123' }, 'username'],
    [{ username: 'has space', password: 'password-123' }, 'username'],
    [{ username: 'ok-name', password: 'short' }, 'password'],
    [{ username: 'ok-name', password: 'p'.repeat(257) }, 'password'],
    [{ password: 'password-123' }, 'username'],
    [{ username: 'ok-name' }, 'password'],
    [{ username: 'ok-name', password: 'password-123', role: 'OWNER' }, 'role'],
  ])('bad user input %j is a 400 naming %s', async (body, field) => {
    const res = await s.api('POST', '/users', { token: admin, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  test('a USER reads and renames itself but cannot change its role or touch others', async () => {
    const me = await s.createUser('self-service');
    const other = await s.createUser('someone-else');
    expect((await s.api('GET', '/users/me', { token: me.token })).body).toEqual({ id: me.id, username: 'self-service', role: 'USER' });
    const renamed = await s.api('PUT', `/users/${me.id}`, { token: me.token, body: { username: 'self-renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.username).toBe('self-renamed');

    const escalate = await s.api('PUT', `/users/${me.id}`, { token: me.token, body: { role: 'ADMIN' } });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error.code).toBe('FORBIDDEN');
    expect((await s.api('GET', '/users/me', { token: me.token })).body.role).toBe('USER');

    expect((await s.api('GET', `/users/${other.id}`, { token: me.token })).status).toBe(403);
    expect((await s.api('PUT', `/users/${other.id}`, { token: me.token, body: { username: 'hijack' } })).status).toBe(403);
    expect((await s.api('DELETE', `/users/${other.id}`, { token: me.token })).status).toBe(403);
    expect((await s.api('GET', '/users', { token: me.token })).status).toBe(403);
  });

  test('the last ADMIN can be neither demoted nor deleted (409); with a second admin it can', async () => {
    const adminId = (await s.api('GET', '/users/me', { token: admin })).body.id;
    const admins = (await s.api('GET', '/users', { token: admin })).body.filter((u: { role: string }) => u.role === 'ADMIN');
    for (const other of admins.filter((u: { id: number }) => u.id !== adminId)) {
      await s.api('DELETE', `/users/${other.id}`, { token: admin });
    }
    const demote = await s.api('PUT', `/users/${adminId}`, { token: admin, body: { role: 'USER' } });
    expect(demote.status).toBe(409);
    expect(demote.body.error.code).toBe('CONFLICT');
    const del = await s.api('DELETE', `/users/${adminId}`, { token: admin });
    expect(del.status).toBe(409);

    const second = await s.createUser('second-admin', 'ADMIN');
    const demoteSecond = await s.api('PUT', `/users/${second.id}`, { token: admin, body: { role: 'USER' } });
    expect(demoteSecond.status).toBe(200);
    expect(demoteSecond.body.role).toBe('USER');
  });
});

describe('tokens follow the account', () => {
  test('login answers a Bearer JWT (HS256) with sub, role, iat and exp, and expiresIn in seconds', async () => {
    const res = await s.api('POST', '/users/login', { body: ADMIN });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expiresIn', 'token', 'tokenType', 'user']);
    expect(res.body.tokenType).toBe('Bearer');
    expect(res.body.expiresIn).toBe(7200);
    const decoded = jwt.verify(res.body.token, JWT_SECRET, { algorithms: ['HS256'], complete: true });
    expect(decoded.header.alg).toBe('HS256');
    const claims = decoded.payload as jwt.JwtPayload;
    expect(claims.sub).toBe(String(res.body.user.id));
    expect(claims.role).toBe('ADMIN');
    expect(claims.exp! - claims.iat!).toBe(7200);
  });

  test('a promotion, a demotion and a deletion take effect on existing tokens at once', async () => {
    const u = await s.createUser('rising');
    const song = { name: 'Token Song' };
    expect((await s.api('POST', '/songs', { token: u.token, body: song })).status).toBe(403);
    await s.api('PUT', `/users/${u.id}`, { token: admin, body: { role: 'ADMIN' } });
    expect((await s.api('POST', '/songs', { token: u.token, body: song })).status).toBe(201);
    await s.api('PUT', `/users/${u.id}`, { token: admin, body: { role: 'USER' } });
    expect((await s.api('POST', '/songs', { token: u.token, body: song })).status).toBe(403);
    await s.api('DELETE', `/users/${u.id}`, { token: admin });
    const gone = await s.api('PUT', '/songs/1', { token: u.token, body: song });
    expect(gone.status).toBe(401);
    expect(gone.body.error.code).toBe('UNAUTHENTICATED');
  });

  test('a password change retires the older tokens; the new password logs in', async () => {
    const u = await s.createUser('rotating', 'USER', 'first-password');
    expect((await s.api('GET', '/users/me', { token: u.token })).status).toBe(200);
    const changed = await s.api('PUT', `/users/${u.id}`, { token: u.token, body: { password: 'second-password' } });
    expect(changed.status).toBe(200);
    expect((await s.api('GET', '/users/me', { token: u.token })).status).toBe(401);
    expect((await s.api('POST', '/users/login', { body: { username: 'rotating', password: 'first-password' } })).status).toBe(401);
    const fresh = await s.login('rotating', 'second-password');
    expect((await s.api('GET', '/users/me', { token: fresh })).status).toBe(200);
  });
});

describe('login', () => {
  test('a wrong password and an unknown user get the same 401 and message', async () => {
    const wrong = await s.api('POST', '/users/login', { body: { username: ADMIN.username, password: 'nope-nope-nope' } });
    const unknown = await s.api('POST', '/users/login', { body: { username: 'nobody-here', password: 'nope-nope-nope' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe('UNAUTHENTICATED');
  });

  test('after the configured number of failures, further attempts get 429 with Retry-After, on both facades', async () => {
    await s.createUser('target', 'USER', 'right-password');
    for (let i = 0; i < 3; i++) {
      const res = await s.api('POST', '/users/login', { body: { username: 'target', password: `wrong-${i}-password` } });
      expect(res.status).toBe(401);
    }
    const limited = await s.api('POST', '/users/login', { body: { username: 'target', password: 'right-password' } });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);

    const gql = await s.gql('mutation { login(username: "target", password: "right-password") { token } }');
    expect(gql.body.errors[0].extensions.code).toBe('RATE_LIMITED');

    // Another username from the same address is not affected.
    expect((await s.api('POST', '/users/login', { body: ADMIN })).status).toBe(200);
  });

  test('a successful login clears the failure count', async () => {
    await s.createUser('forgetful', 'USER', 'right-password');
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2; i++) {
        expect((await s.api('POST', '/users/login', { body: { username: 'forgetful', password: 'wrong-password' } })).status).toBe(401);
      }
      expect((await s.api('POST', '/users/login', { body: { username: 'forgetful', password: 'right-password' } })).status).toBe(200);
    }
  });
});

describe('no secret leaves the server', () => {
  test('GraphQL User and AuthPayload expose no password, hash or version field', async () => {
    const res = await s.gql(`{
      user: __type(name: "User") { fields { name } }
      payload: __type(name: "AuthPayload") { fields { name } }
    }`);
    expect(res.body.data.user.fields.map((f: { name: string }) => f.name).sort()).toEqual(USER_KEYS.sort());
    expect(res.body.data.payload.fields.map((f: { name: string }) => f.name).sort()).toEqual(['expiresIn', 'token', 'tokenType', 'user']);
  });

  test('no REST answer about users carries a password or hash', async () => {
    const u = await s.createUser('quiet-one', 'USER', 'hush-hush-password');
    const answers = [
      await s.api('GET', '/users', { token: admin }),
      await s.api('GET', `/users/${u.id}`, { token: admin }),
      await s.api('GET', '/users/me', { token: u.token }),
      await s.api('PUT', `/users/${u.id}`, { token: u.token, body: { password: 'new-hush-password' } }),
      await s.api('POST', '/users/login', { body: { username: 'quiet-one', password: 'new-hush-password' } }),
    ];
    for (const a of answers) {
      expect(a.text).not.toMatch(/hush-hush|new-hush|scrypt|password|hash/i);
    }
  });
});

describe('production settings', () => {
  test('NODE_ENV=production refuses to start without a 32-character JWT_SECRET', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'too-short' })).toThrow(/JWT_SECRET must be at least 32 characters/);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET }).production).toBe(true);
  });

  test('production turns introspection and the Sandbox page off, unless explicitly enabled', async () => {
    const prod = await startTestServer({ NODE_ENV: 'production' });
    try {
      const intro = await prod.gql('{ __schema { queryType { name } } }');
      expect(intro.body.errors?.[0]?.message).toMatch(/introspection/i);
      const page = await prod.raw('GET', '/graphql', { headers: { accept: 'text/html' } });
      expect(page.text).not.toMatch(/sandbox/i);
      expect((await prod.gql('{ songs { id } }')).body.data).toEqual({ songs: [] });
    } finally {
      await prod.close();
    }
    const open = await startTestServer({ NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' });
    try {
      expect((await open.gql('{ __schema { queryType { name } } }')).body.data.__schema.queryType.name).toBe('Query');
    } finally {
      await open.close();
    }
  });
});

describe('one request cannot do unbounded work', () => {
  test('batched GraphQL operations (an array of queries in one POST) are refused', async () => {
    const res = await s.raw('POST', '/graphql', { body: [{ query: '{ songs { id } }' }, { query: '{ services { id } }' }] });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/batch/i);
  });
});
