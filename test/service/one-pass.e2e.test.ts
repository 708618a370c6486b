import v8 from 'node:v8';
import express from 'express';
import pino from 'pino';
import * as cost from '../../src/graphql/cost';
import * as loaders from '../../src/graphql/loaders';
import { TokenService } from '../../src/auth/tokens';
import { Viewer } from '../../src/auth/viewer';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * What one request costs in the steps that are easy to pay twice: the bearer token is verified
 * once however many layers ask who is calling (the access log, the viewer behind the access
 * decision and the resolvers), and access is decided once, on either facade. Over real HTTP, with
 * the access log on (it is what asks for the user id at the end of every request).
 */

let s: TestServer;
let token: string;
beforeAll(async () => {
  s = await startTestServer({ LOG_LEVEL: 'info' }, { write: () => undefined });
  token = await s.adminToken();
});
afterAll(() => s.close());
afterEach(() => jest.restoreAllMocks());

async function counting<T>(target: object, method: string, request: () => Promise<T>): Promise<{ reply: T; calls: number }> {
  const spy = jest.spyOn(target as Record<string, () => unknown>, method);
  const reply = await request();
  const calls = spy.mock.calls.length;
  spy.mockRestore();
  return { reply, calls };
}

describe('the token is verified once per request', () => {
  test.each([
    ['REST, a route that needs a login', () => s.api('GET', '/users/me', { token })],
    ['REST, a public route (only the access log asks)', () => s.api('GET', '/songs', { token })],
    ['REST, a write (access, resolver and audit ask)', () => s.api('POST', '/songs', { token, body: { name: 'Once', artists: [] } })],
    ['GraphQL, a field that needs a login', () => s.gql('{ me { id } }', {}, token)],
    ['GraphQL, a write', () => s.gql('mutation { createService(date: 1, serviceType: WED) { id } }', {}, token)],
    // The request rate limit keys its count by the caller: it asks too, on arrival and, for a
    // report, again when it charges the report's weight.
    ['REST, a report', () => s.api('GET', '/reports/artists', { token })],
    ['GraphQL, a report field', () => s.gql('{ artistUsage { artist } }', {}, token)],
  ])('%s', async (_name, request) => {
    const { reply, calls } = await counting(TokenService.prototype, 'verify', request);
    expect(reply.status).toBeLessThan(300);
    expect(reply.body.errors).toBeUndefined();
    expect(calls).toBe(1);
  });

  test('an invalid token too: refused once, and the refusal is the same', async () => {
    const { reply, calls } = await counting(TokenService.prototype, 'verify', () => s.api('GET', '/users/me', { token: `${token}x` }));
    expect(reply.status).toBe(401);
    expect(reply.body.error.message).toBe('The token is invalid or expired; log in again');
    expect(calls).toBe(1);
  });
});

describe('access is decided once per request', () => {
  // `users` needs an ADMIN and its resolver never asks who is calling: only the access decision does.
  test('REST: the route decides, and nothing decides again when its operation runs', async () => {
    const { reply, calls } = await counting(Viewer.prototype, 'user', () => s.api('GET', '/users', { token }));
    expect(reply.status).toBe(200);
    expect(calls).toBe(1);
  });

  test('GraphQL: graphql-shield decides', async () => {
    const { reply, calls } = await counting(Viewer.prototype, 'user', () => s.gql('{ users { id } }', {}, token));
    expect(reply.body).toEqual({ data: { users: expect.any(Array) } });
    expect(calls).toBe(1);
  });

  test('REST still refuses what it must, before reading the request', async () => {
    const user = await s.createUser('one-pass-user');
    expect((await s.api('GET', '/users', { token: user.token })).status).toBe(403);
    expect((await s.api('GET', '/users')).status).toBe(401);
    // No token and a bad body: who is asking comes first.
    expect((await s.api('POST', '/songs', { body: { name: 5 } })).status).toBe(401);
  });
});

describe('GraphQL execution', () => {
  test('compiles new operations without touching V8 flags, and answers them as before', async () => {
    const flags = jest.spyOn(v8, 'setFlagsFromString');
    for (let i = 1; i <= 3; i++) {
      const query = `query Fresh${i} { songs(limit: ${i}) { id } }`;
      for (let twice = 0; twice < 2; twice++) {
        const res = await s.gql(query);
        expect(res.body).toEqual({ data: { songs: expect.any(Array) } });
        expect(res.body.data.songs.length).toBeLessThanOrEqual(i);
      }
    }
    expect(flags).not.toHaveBeenCalled();
  });

  test('a compiled operation refuses bad variables as before: 400, naming the variable', async () => {
    const query = 'query One($id: Int!) { song(id: $id) { id } }';
    expect((await s.gql(query, { id: 1 })).status).toBe(200);
    const res = await s.gql(query, { id: 'one' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [expect.objectContaining({ message: expect.stringMatching(/^Variable "\$id" got invalid value "one"/), extensions: { code: 'BAD_REQUEST' } })],
    });
  });
});

describe('fixed costs paid once', () => {
  test('the access log writes its line with the logger it was given: no child logger per request', async () => {
    let text = '';
    const logged = await startTestServer({ LOG_LEVEL: 'info' }, { write: (chunk: string) => void (text += chunk) });
    try {
      const token = await logged.adminToken();
      // pino's loggers share `child` through their prototype chain: every logger's children count.
      let owner: object = pino();
      while (!Object.prototype.hasOwnProperty.call(owner, 'child')) owner = Object.getPrototypeOf(owner);
      const child = jest.spyOn(owner as { child: () => unknown }, 'child');
      const res = await logged.api('GET', '/users/me', { token, headers: { 'X-Request-Id': 'one-line' } });
      await logged.gql('query Named { songs(limit: 1) { id } }', {}, token);
      expect(child).not.toHaveBeenCalled();
      const line = text.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.reqId === 'one-line');
      // Every field, in the order the lines have always had.
      expect(Object.keys(line)).toEqual(['level', 'time', 'pid', 'hostname', 'reqId', 'req', 'route', 'userId', 'res', 'durationMs', 'msg']);
      expect(line).toMatchObject({ level: 30, req: { method: 'GET', path: '/api/v1/users/me' }, route: '/api/v1/users/me', userId: res.body.id, res: { status: 200 }, msg: 'request completed' });
      const gql = text.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.operation === 'Named');
      expect(Object.keys(gql)).toEqual(['level', 'time', 'pid', 'hostname', 'reqId', 'req', 'route', 'userId', 'operation', 'res', 'durationMs', 'msg']);
    } finally {
      await logged.close();
    }
  });

  test('a /graphql request works out neither the client address nor the loaders unless a resolver asks', async () => {
    const unlimited = await startTestServer({ RATE_LIMIT: 'off' });
    try {
      // Express's `req.ip` walks the proxy chain; the rate limit (off here) and login ask for it.
      const ip = jest.spyOn(express.request, 'ip', 'get');
      const made = jest.spyOn(loaders, 'createLoaders');
      const res = await unlimited.gql('{ songs(limit: 1) { id } }');
      expect(res.body).toEqual({ data: { songs: expect.any(Array) } });
      expect(ip).not.toHaveBeenCalled();
      expect(made).not.toHaveBeenCalled();
      // A record read by id goes through the loaders: made then, once.
      expect((await unlimited.gql('{ song(id: 1) { id } }')).status).toBe(200);
      expect(made).toHaveBeenCalledTimes(1);
    } finally {
      await unlimited.close();
    }
  });

  test('the Insights page is routed as before now that only its own paths enter its router', async () => {
    const page = await s.raw('GET', '/insights');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // Express matches paths case-insensitively.
    expect((await s.raw('GET', '/INSIGHTS')).status).toBe(200);
    const slash = await fetch(`${s.url}/insights/?x=1`, { redirect: 'manual' });
    expect([slash.status, slash.headers.get('location')]).toEqual([301, '/insights?x=1']);
    expect((await s.raw('GET', '/Insights/assets/insights.css')).status).toBe(200);
    expect((await s.raw('GET', '/insights/assets/nope.js')).status).toBe(404);
    expect((await s.raw('GET', '/insightsx')).status).toBe(404);
  });

  test('an operation without variables is costed once, and refused every time it is over the limit', async () => {
    const limited = await startTestServer({ GRAPHQL_MAX_COST: '100' });
    try {
      const spy = jest.spyOn(cost, 'operationCost');
      const cheap = '{ song(id: 1) { id name } }';
      for (let i = 0; i < 3; i++) expect((await limited.gql(cheap)).status).toBe(200);
      expect(spy).toHaveBeenCalledTimes(1);
      const dear = '{ songs { id name artists } }';
      for (let i = 0; i < 3; i++) {
        const res = await limited.gql(dear);
        expect(res.status).toBe(400);
        expect(res.body.errors[0].message).toBe('Query Cost limit of 100 exceeded, found 3001.');
      }
      expect(spy).toHaveBeenCalledTimes(2);
      // With variables the cost depends on them: costed on every request.
      const paged = 'query P($n: Int) { songs(limit: $n) { id } }';
      expect((await limited.gql(paged, { n: 5 })).status).toBe(200);
      expect((await limited.gql(paged, { n: 1000 })).status).toBe(400);
      expect(spy).toHaveBeenCalledTimes(4);
    } finally {
      await limited.close();
    }
  });
});
