import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { isPublic } from '../../src/rest/openapi';
import { ROUTES } from '../../src/rest/routes';
import { startServer, type RunningServer } from '../../src/server';
import { SqliteStore } from '../../src/store/sqlite/store';
import type { Store } from '../../src/store/types';
import { JWT_SECRET, startTestServer, tempDbPath, type CallOptions, type Reply, type TestServer } from '../helpers/server';

/**
 * docs/API.md and §5 on the wire, for every kind of answer: content type, CORS, security headers,
 * body limits, malformed bodies, unknown paths, health endpoints, paging, and the OpenAPI document.
 */

const METHODS = 'GET, POST, PUT, DELETE, OPTIONS';
const JSON_TYPE = /^application\/json(; ?charset=utf-8)?$/i;
const LIMIT = 100 * 1024;

let s: TestServer;
let admin: string;
let userToken: string;
let songId: number;
let serviceId: number;

beforeAll(async () => {
  s = await startTestServer({ LOGIN_MAX_FAILURES: '2' });
  admin = await s.adminToken();
  userToken = (await s.createUser('protocol-user')).token;
  songId = (await s.api('POST', '/songs', { token: admin, body: { name: 'Protocol Song' } })).body.id;
  serviceId = (await s.api('POST', '/services', { token: admin, body: { date: Date.UTC(2024, 0, 7, 10), serviceType: 'SUN_AM' } })).body.id;
});
afterAll(() => s.close());

/** A JSON body of exactly `size` bytes: {"name":"xxx…"}. */
const bodyOfSize = (size: number) => `{"name":"${'x'.repeat(size - 11)}"}`;

/** Headers every answer carries (§5): nosniff, no X-Powered-By; JSON answers say so. */
function expectCommonHeaders(res: Reply): void {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('x-powered-by')).toBeNull();
  if (res.status !== 204 && res.text !== '') expect(res.headers.get('content-type')).toMatch(JSON_TYPE);
}

function expectError(res: Reply, status: number, code: string): void {
  expect(res.status).toBe(status);
  const details = code === 'VALIDATION_FAILED' ? { details: expect.any(Array) } : {};
  expect(res.body).toEqual({ error: { code, message: expect.any(String), ...details } });
  expect(res.body.error.message.length).toBeGreaterThan(0);
}

type Case = [label: string, status: number, code: string | null, call: () => Promise<Reply>];

describe('every /api/v1 answer: JSON, CORS and security headers', () => {
  const cases: Case[] = [
    ['GET list', 200, null, () => s.api('GET', '/songs')],
    ['GET record', 200, null, () => s.api('GET', `/songs/${songId}`)],
    ['POST create', 201, null, () => s.api('POST', '/songs', { token: admin, body: { name: 'Created' } })],
    ['PUT update', 200, null, () => s.api('PUT', `/services/${serviceId}`, { token: admin, body: { serviceType: 'SUN_PM' } })],
    ['PUT link', 200, null, () => s.api('PUT', `/services/${serviceId}/songs/${songId}`, { token: admin })],
    ['POST login', 200, null, () => s.api('POST', '/users/login', { body: { username: 'protocol-user', password: 'user-password-1' } })],
    ['GET openapi.json', 200, null, () => s.api('GET', '/openapi.json')],
    [
      'DELETE (204)',
      204,
      null,
      async () => {
        const id = (await s.api('POST', '/songs', { token: admin, body: { name: 'Doomed' } })).body.id;
        return s.api('DELETE', `/songs/${id}`, { token: admin });
      },
    ],
    [
      'OPTIONS preflight (204)',
      204,
      null,
      () => s.api('OPTIONS', '/songs', { headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' } }),
    ],
    ['400 bad path id', 400, 'BAD_REQUEST', () => s.api('GET', '/songs/abc')],
    ['400 malformed JSON', 400, 'BAD_REQUEST', () => s.api('POST', '/songs', { token: admin, body: '{"name": "x"' })],
    ['400 validation', 400, 'VALIDATION_FAILED', () => s.api('POST', '/songs', { token: admin, body: {} })],
    ['401 no token', 401, 'UNAUTHENTICATED', () => s.api('POST', '/songs', { body: { name: 'x' } })],
    ['403 not admin', 403, 'FORBIDDEN', () => s.api('POST', '/songs', { token: userToken, body: { name: 'x' } })],
    ['404 unknown record', 404, 'NOT_FOUND', () => s.api('GET', '/songs/987654')],
    ['404 unknown path', 404, 'NOT_FOUND', () => s.api('GET', '/no/such/thing')],
    ['405 wrong method', 405, 'METHOD_NOT_ALLOWED', () => s.api('PATCH', '/songs')],
    ['409 conflict', 409, 'CONFLICT', () => s.api('POST', '/users', { token: admin, body: { username: 'PROTOCOL-USER', password: 'another-pass-1' } })],
    ['413 too large', 413, 'PAYLOAD_TOO_LARGE', () => s.api('POST', '/songs', { token: admin, body: bodyOfSize(LIMIT + 1) })],
  ];

  test.each(cases)('%s', async (_label, status, code, call) => {
    const res = await call();
    expect(res.status).toBe(status);
    if (code) expectError(res, status, code);
    if (status === 204) expect(res.text).toBe('');
    expectCommonHeaders(res);
    expect(res.headers.get('access-control-allow-methods')).toBe(METHODS);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('429 after too many failed logins, with Retry-After', async () => {
    const attempt = () => s.api('POST', '/users/login', { body: { username: 'protocol-user', password: 'wrong-password' } });
    expectError(await attempt(), 401, 'UNAUTHENTICATED');
    expectError(await attempt(), 401, 'UNAUTHENTICATED');
    const limited = await attempt();
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expectCommonHeaders(limited);
    expect(limited.headers.get('access-control-allow-methods')).toBe(METHODS);
    expect(limited.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('TRUST_PROXY=1 (one load balancer in front): failed logins count per forwarded client address', async () => {
    const behindOne = await startTestServer({ TRUST_PROXY: '1', LOGIN_MAX_FAILURES: '1' });
    try {
      const attempt = (address: string) =>
        behindOne.api('POST', '/users/login', {
          body: { username: 'admin', password: 'wrong-password' },
          headers: { 'x-forwarded-for': address },
        });
      expectError(await attempt('192.0.2.10'), 401, 'UNAUTHENTICATED');
      expectError(await attempt('192.0.2.10'), 429, 'RATE_LIMITED');
      // Another client behind the same balancer is not locked out by the first one's failures.
      expectError(await attempt('192.0.2.11'), 401, 'UNAUTHENTICATED');
    } finally {
      await behindOne.close();
    }
  });

  test('a 401 asks for a Bearer token', async () => {
    const res = await s.api('GET', '/users/me');
    expectError(res, 401, 'UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  test('a 405 names the allowed methods', async () => {
    const res = await s.api('DELETE', '/songs');
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('GET, POST, OPTIONS');
  });

  test("a path's own methods decide, not a parameter path that also matches the URL", async () => {
    // /users/login and /users/me are paths of their own; PUT and DELETE exist on /users/:id only.
    for (const [method, path, allow] of [
      ['PUT', '/users/login', 'POST, OPTIONS'],
      ['GET', '/users/login', 'POST, OPTIONS'],
      ['PUT', '/users/me', 'GET, OPTIONS'],
      ['DELETE', '/users/me', 'GET, OPTIONS'],
    ] as const) {
      const res = await s.api(method, path, { token: await s.adminToken(), body: method === 'PUT' ? {} : undefined });
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect([method, path, res.headers.get('allow')]).toEqual([method, path, allow]);
    }
    // HEAD goes with GET.
    expect((await s.api('HEAD', '/users/me', { token: await s.adminToken() })).status).toBe(200);
  });

  test('headers a browser script needs to read are exposed', async () => {
    const res = await s.api('GET', '/songs', { headers: { origin: 'https://x.example' } });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['location', 'x-total-count', 'retry-after', 'www-authenticate']));
  });
});

describe('JSON and security headers outside /api/v1', () => {
  const cases: [string, number, () => Promise<Reply>][] = [
    ['GET /healthz', 200, () => s.raw('GET', '/healthz')],
    ['GET /readyz', 200, () => s.raw('GET', '/readyz')],
    ['POST /graphql', 200, () => s.gql('{ songs { id } }')],
    ['POST /graphql, a field error', 200, () => s.gql('mutation { deleteSong(id: 987654) }', undefined, admin)],
    ['POST /graphql, an invalid query', 400, () => s.gql('{ nope }')],
    ['GET /graphql?query=', 200, () => s.raw('GET', '/graphql?query={songs{id}}')],
    ['an unknown path', 404, () => s.raw('GET', '/nowhere')],
  ];
  test.each(cases)('%s', async (_label, status, call) => {
    const res = await call();
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(JSON_TYPE);
    expectCommonHeaders(res);
  });

  test('an unknown path outside the API is a JSON NOT_FOUND', async () => {
    expectError(await s.raw('POST', '/api/v2/songs', { body: {} }), 404, 'NOT_FOUND');
  });
});

describe('CORS', () => {
  test('OPTIONS preflight answers 204 allowing Authorization and Content-Type', async () => {
    for (const path of ['/songs', `/songs/${songId}`, `/services/${serviceId}/songs/${songId}`, '/users/login']) {
      const res = await s.api('OPTIONS', path, {
        headers: {
          origin: 'https://x.example',
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers.get('access-control-allow-methods')).toBe(METHODS);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type']));
    }
  });

  test('a preflight to /graphql allows Authorization and Content-Type', async () => {
    const res = await s.raw('OPTIONS', '/graphql', {
      headers: { origin: 'https://x.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(res.status).toBe(204);
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type']));
  });

  describe('with CORS_ORIGINS=https://a.example,https://b.example', () => {
    let c: TestServer;
    beforeAll(async () => {
      c = await startTestServer({ CORS_ORIGINS: 'https://a.example,https://b.example' });
    });
    afterAll(() => c.close());

    const calls: [string, (opts: CallOptions) => Promise<Reply>][] = [
      ['GET /songs (200)', (o) => c.api('GET', '/songs', o)],
      ['GET unknown path (404)', (o) => c.api('GET', '/nope', o)],
      ['POST /songs without a token (401)', (o) => c.api('POST', '/songs', { ...o, body: { name: 'x' } })],
      ['PATCH /songs (405)', (o) => c.api('PATCH', '/songs', o)],
      ['POST malformed (400)', (o) => c.api('POST', '/songs', { ...o, body: '{' })],
      ['POST too large (413)', (o) => c.api('POST', '/songs', { ...o, body: bodyOfSize(LIMIT + 1) })],
      [
        'OPTIONS preflight (204)',
        (o) => c.api('OPTIONS', '/songs', { headers: { ...o.headers, 'access-control-request-method': 'POST' } }),
      ],
    ];

    test.each(calls)('%s echoes an allowed Origin', async (_label, call) => {
      for (const origin of ['https://a.example', 'https://b.example']) {
        const res = await call({ headers: { origin } });
        expect(res.headers.get('access-control-allow-origin')).toBe(origin);
        expect(res.headers.get('access-control-allow-methods')).toBe(METHODS);
        expect(res.headers.get('vary') ?? '').toMatch(/origin/i);
      }
    });

    test.each(calls)('%s does not allow another Origin', async (_label, call) => {
      const res = await call({ headers: { origin: 'https://evil.example' } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toBe(METHODS);
    });

    test('an Origin that only starts like an allowed one is not allowed', async () => {
      const res = await c.api('GET', '/songs', { headers: { origin: 'https://a.example.evil.test' } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});

describe('request bodies', () => {
  test('a body of exactly 100 KiB is read; one byte more is 413 PAYLOAD_TOO_LARGE', async () => {
    const atLimit = await s.api('POST', '/songs', { token: admin, body: bodyOfSize(LIMIT) });
    // Read and judged on its content: the name is too long.
    expect(atLimit.status).toBe(400);
    expect(atLimit.body.error.code).toBe('VALIDATION_FAILED');
    expectError(await s.api('POST', '/songs', { token: admin, body: bodyOfSize(LIMIT + 1) }), 413, 'PAYLOAD_TOO_LARGE');
    expectError(await s.api('PUT', `/songs/${songId}`, { token: admin, body: bodyOfSize(LIMIT * 3) }), 413, 'PAYLOAD_TOO_LARGE');
  });

  test('/graphql: over 100 KiB is 413 PAYLOAD_TOO_LARGE, malformed JSON is 400 BAD_REQUEST', async () => {
    const big = await s.raw('POST', '/graphql', { body: { query: '{ songs { id } }', pad: 'x'.repeat(LIMIT) } });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toMatch(JSON_TYPE);
    expect(big.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
    const bad = await s.raw('POST', '/graphql', { body: '{"query": ' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(JSON_TYPE);
    expect(bad.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'BAD_REQUEST' } }] });
  });

  test.each([
    ['malformed JSON', '{"name": '],
    ['a trailing comma', '{"name": "x",}'],
    ['a JSON array', '[{"name": "x"}]'],
    ['an empty JSON array', '[]'],
    ['a JSON string', '"x"'],
    ['a JSON number', '42'],
    ['JSON null', 'null'],
  ])('%s is 400 BAD_REQUEST and writes nothing', async (_label, body) => {
    const before = (await s.api('GET', '/songs')).body;
    expectError(await s.api('POST', '/songs', { token: admin, body }), 400, 'BAD_REQUEST');
    expectError(await s.api('PUT', `/songs/${songId}`, { token: admin, body }), 400, 'BAD_REQUEST');
    expect((await s.api('GET', '/songs')).body).toEqual(before);
  });
});

describe('unknown paths under /api/v1', () => {
  test.each([
    // GET /api/v1 is the JSON index (test/e2e/explorers.e2e.test.ts).
    ['POST', ''],
    ['POST', '/'],
    ['GET', '/nope'],
    ['GET', '/song'],
    ['GET', '/songs/1/extra'],
    ['GET', '/services/byDate/sometime/2024-01-01'],
    ['PUT', '/services/1/songs/2/extra'],
    ['DELETE', '/users/me/now'],
  ])('%s /api/v1%s is 404 NOT_FOUND', async (method, path) => {
    const res = await s.api(method, path, { token: admin });
    expectError(res, 404, 'NOT_FOUND');
    expectCommonHeaders(res);
    expect(res.headers.get('access-control-allow-methods')).toBe(METHODS);
  });
});

describe('health', () => {
  test('GET /healthz is 200 {"status":"ok"}', async () => {
    const res = await s.raw('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  test('GET /readyz is 200 while the store answers and 503 when it does not', async () => {
    const real = new SqliteStore(tempDbPath());
    let down = false;
    const flaky: Store = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'ping' && down) return () => Promise.reject(new Error('database is locked'));
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', JWT_SECRET });
    const server: RunningServer = await startServer(config, createLogger(config.logLevel), flaky);
    const readyz = async () => {
      const res = await fetch(`${server.url}/readyz`);
      expect(res.headers.get('content-type')).toMatch(JSON_TYPE);
      return { status: res.status, body: await res.json() };
    };
    try {
      expect((await readyz()).status).toBe(200);
      down = true;
      const unavailable = await readyz();
      expect(unavailable.status).toBe(503);
      expect(unavailable.body.status).toBe('unavailable');
      // Liveness does not depend on the store.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      down = false;
      expect((await readyz()).status).toBe(200);
      // The database closed underneath the server.
      await real.close();
      expect((await readyz()).status).toBe(503);
      // ...and requests that need it answer 503 UNAVAILABLE rather than a 500.
      const api = await fetch(`${server.url}/api/v1/songs`);
      expect(api.status).toBe(503);
      expect(api.headers.get('retry-after')).toBe('5');
      expect((await api.json()).error.code).toBe('UNAVAILABLE');
      // GraphQL carries the same advice in the error's extensions.
      const gql = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ songs { id } }' }),
      });
      expect((await gql.json()).errors[0].extensions).toEqual({ code: 'UNAVAILABLE', retryAfter: 5 });
    } finally {
      await server.close();
    }
  });
});

describe('paging', () => {
  let songs: { id: number }[];
  let services: { id: number; date: number }[];

  beforeAll(async () => {
    for (let i = 0; i < 5; i++) await s.api('POST', '/songs', { token: admin, body: { name: `Paged ${i}`, artists: ['Pager'] } });
    // Out of date order, so that the service list's order (date, then id) differs from id order.
    for (const [day, serviceType] of [[20, 'WED'], [3, 'WED'], [11, 'WED'], [3, 'SUN_AM'], [28, 'WED']] as const) {
      const made = await s.api('POST', '/services', { token: admin, body: { date: Date.UTC(2025, 1, day, 10), serviceType } });
      expect(made.status).toBe(201);
    }
    songs = (await s.api('GET', '/songs')).body;
    services = (await s.api('GET', '/services')).body;
  });

  test('without paging a list is the whole collection, with X-Total-Count', async () => {
    const res = await s.api('GET', '/songs');
    expect(res.headers.get('x-total-count')).toBe(String(res.body.length));
    expect(songs.map((x) => x.id)).toEqual([...songs.map((x) => x.id)].sort((a, b) => a - b));
    const sorted = [...services].sort((a, b) => a.date - b.date || a.id - b.id);
    expect(services).toEqual(sorted);
  });

  test.each([
    ['/songs', 2, 1],
    ['/songs', 1, 0],
    ['/songs', 1000, 3],
    ['/services', 3, 2],
    ['/services', 2, 0],
  ])('GET %s?limit=%i&offset=%i is that slice, X-Total-Count the full count', async (path, limit, offset) => {
    const all = path === '/songs' ? songs : services;
    const res = await s.api('GET', `${path}?limit=${limit}&offset=${offset}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(all.slice(offset, offset + limit));
    expect(res.headers.get('x-total-count')).toBe(String(all.length));
  });

  test('offset alone, and an offset past the end', async () => {
    const rest = await s.api('GET', '/services?offset=2');
    expect(rest.body).toEqual(services.slice(2));
    expect(rest.headers.get('x-total-count')).toBe(String(services.length));
    const past = await s.api('GET', `/songs?offset=${songs.length + 10}`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
    expect(past.headers.get('x-total-count')).toBe(String(songs.length));
  });

  test('any list pages the same way', async () => {
    const byArtist = await s.api('GET', '/songs/byArtist/pager?limit=2&offset=1');
    expect(byArtist.body.map((x: { name: string }) => x.name)).toEqual(['Paged 1', 'Paged 2']);
    expect(byArtist.headers.get('x-total-count')).toBe('5');
    const after = await s.api('GET', '/services/byDate/after/2025-02-01?limit=1');
    expect(after.body).toHaveLength(1);
    expect(after.headers.get('x-total-count')).toBe('5');
  });

  test.each([
    ['limit=0'],
    ['limit=1001'],
    ['limit=-1'],
    ['limit=abc'],
    ['limit=1.5'],
    ['limit='],
    ['offset=-1'],
    ['offset=abc'],
    ['limit=2&limit=3'],
  ])('?%s is 400 BAD_REQUEST', async (query) => {
    for (const path of ['/songs', '/services']) {
      const res = await s.api('GET', `${path}?${query}`);
      expectError(res, 400, 'BAD_REQUEST');
      expect(res.headers.get('access-control-allow-methods')).toBe(METHODS);
    }
  });
});

describe('GET /api/v1/openapi.json', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await s.api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  const oasPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

  test('is an OpenAPI 3 document served at the API base', () => {
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: expect.any(String) }));
    expect(doc.servers).toEqual([{ url: '/api/v1' }]);
    expect(doc.components.securitySchemes.bearerAuth).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    );
  });

  test('lists exactly the routes of the route table', () => {
    const documented = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const expected = ROUTES.map((r) => `${r.method} ${oasPath(r.path)}`);
    expect(documented.sort()).toEqual([...expected].sort());
  });

  test.each(ROUTES.map((r) => [r.method, r.path, r.field] as const))('%s %s declares its security', (method, path, field) => {
    const op = doc.paths[oasPath(path)][method.toLowerCase()];
    expect(op).toBeDefined();
    if (isPublic(field)) {
      // `security: []` says so explicitly; only login answers 401 (wrong credentials).
      expect(op.security).toEqual([]);
      if (field !== 'Mutation.login') expect(op.responses['401']).toBeUndefined();
    } else {
      expect(op.security).toEqual([{ bearerAuth: [] }]);
      expect(op.responses['401']).toBeDefined();
    }
  });

  test('deletes answer 204 and creates 201, as served', () => {
    for (const route of ROUTES) {
      const responses = Object.keys(doc.paths[oasPath(route.path)][route.method.toLowerCase()].responses);
      const success = responses.filter((code) => code.startsWith('2'));
      expect([route.method, route.path, success]).toEqual([route.method, route.path, [String(route.status ?? 200)]]);
    }
  });

  test('Song and Service are the flat REST records, with no relation fields', () => {
    const { Song, Service, User } = doc.components.schemas;
    expect(Object.keys(Song.properties).sort()).toEqual(['artists', 'id', 'name']);
    expect(Object.keys(Service.properties).sort()).toEqual(['date', 'id', 'serviceType']);
    expect(Object.keys(User.properties).sort()).toEqual(['id', 'role', 'username']);
    expect(Song.properties).not.toHaveProperty('services');
    expect(Service.properties).not.toHaveProperty('songs');
    // §2: the date is epoch milliseconds, an integer.
    expect(Service.properties.date).toEqual(expect.objectContaining({ type: 'integer' }));
  });

  test('POST and PUT arguments are body fields only, and path parameters are not body fields', () => {
    for (const route of ROUTES.filter((r) => r.method === 'POST' || r.method === 'PUT')) {
      const op = doc.paths[oasPath(route.path)][route.method.toLowerCase()];
      expect([route.path, (op.parameters ?? []).filter((p: { in: string }) => p.in !== 'path')]).toEqual([route.path, []]);
      const schema = op.requestBody?.content['application/json'].schema;
      for (const param of route.path.match(/:(\w+)/g) ?? []) {
        expect([route.path, schema?.properties?.[param.slice(1)]]).toEqual([route.path, undefined]);
      }
    }
    const create = doc.paths['/songs'].post.requestBody;
    expect(create.required).toBe(true);
    expect(create.content['application/json'].schema.required).toEqual(['name']);
    expect(doc.paths['/services/{serviceId}/songs/{songId}'].put.requestBody.required).toBe(false);
  });

  test('every $ref points at a schema the document defines', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    for (const name of new Set(refs)) expect([name, doc.components.schemas[name] !== undefined]).toEqual([name, true]);
  });
});
