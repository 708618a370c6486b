import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildSchema as fromSdl } from 'graphql';
import OpenAPIClientAxios from 'openapi-client-axios';
import { z } from 'zod';
import { BOUND_PATTERN, SERVICE_DATE_TEXT_PATTERN } from '../../src/domain/date-patterns';
import { MAX_MS, MIN_MS } from '../../src/domain/dates';
import { ERROR_STATUS } from '../../src/errors';
import { SETLIST_MAX_SONGS } from '../../src/domain/setlist';
import { INT_MAX, rules } from '../../src/domain/validation';
import { accessOf } from '../../src/graphql/permissions';
import { openApiPath } from '../../src/rest/openapi';
import { markNullableFields, type SchemaObject } from '../../src/rest/openapi-nullable';
import { ROUTES } from '../../src/rest/routes';
import type { ApiCall } from '../helpers/api-calls';
import { invalidBodies, undocumentedStatuses, verdictOf } from '../helpers/openapi-coverage';
import { ADMIN, startTestServer, type TestServer } from '../helpers/server';

/**
 * The served OpenAPI document as tools nobody here wrote see it: an independent OpenAPI 3.0
 * schema validator, Redocly's recommended lint rules, and a client generated from it at run time.
 */

let s: TestServer;
let doc: any;

beforeAll(async () => {
  s = await startTestServer({ LOGIN_MAX_FAILURES: '1' });
  const res = await s.api('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => s.close());

const opOf = (method: string, p: string) => doc.paths[openApiPath(p)][method.toLowerCase()];

describe('independent checks', () => {
  test('valid OpenAPI 3.0 by its JSON Schema, and no Redocly "recommended" problem at all', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    // Both tools are ESM-only, which jest's CommonJS runtime cannot load: run them as a process.
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(__dirname, '../../scripts/openapi-check.mjs'), file]);
    const report = JSON.parse(stdout);
    expect(report.version).toBe('3.0');
    expect(report.schemaErrors).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.problems).toEqual([]);
  });

  test('no empty `required` list anywhere', () => {
    expect(JSON.stringify(doc)).not.toMatch(/"required":\[\]/);
  });
});

describe('operations', () => {
  test('every route has a unique operationId: its GraphQL field name', () => {
    const ids = ROUTES.map((r) => opOf(r.method, r.path).operationId);
    // A binding's second path (alsoAt) names its path parameters after the field's name.
    expect(ids).toEqual(ROUTES.map((r) => r.field.split('.')[1] + (r.path === '/services/:serviceId/suggestions' ? 'ByServiceId' : '')));
    expect(new Set(ids).size).toBe(ROUTES.length);
  });

  test.each(ROUTES.map((r) => [r.method, r.path, r.field] as const))('%s %s: summary, tag, security, errors', (method, p, field) => {
    const op = opOf(method, p);
    expect(op.summary).toEqual(expect.any(String));
    expect(op.tags).toHaveLength(1);
    expect(doc.tags.map((t: { name: string }) => t.name)).toContain(op.tags[0]);
    expect(op.security).toEqual(accessOf(field) === 'public' ? [] : [{ bearerAuth: [] }]);
    for (const status of ['400', '413', '500', '503']) expect([status, op.responses[status]]).toEqual([status, expect.any(Object)]);
    const namesRecord = /:(id|\w+Id)\b/.test(p) || (op.parameters ?? []).some((q: { name: string }) => /^(id|\w+Id)$/.test(q.name));
    if (namesRecord) expect(op.responses['404']).toBeDefined();
    else expect(op.responses['404']).toBeUndefined();
  });

  test('401 carries WWW-Authenticate; every operation documents 429 with Retry-After (the rate limits; login also counts failures)', () => {
    const login = opOf('POST', '/users/login');
    expect(Object.keys(login.responses)).toEqual(expect.arrayContaining(['200', '401', '429']));
    for (const route of ROUTES) expect([route.method, route.path, opOf(route.method, route.path).responses['429']]).toEqual([route.method, route.path, { $ref: '#/components/responses/RateLimited' }]);
    expect(doc.components.responses.RateLimited.headers['Retry-After']).toBeDefined();
    expect(Object.keys(doc.components.responses.RateLimited.headers)).toEqual(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);
    expect(doc.components.responses.Unauthenticated.headers['WWW-Authenticate']).toBeDefined();
  });

  test('each error status shows examples of its own codes, each a body the Error schema allows', () => {
    const seen = new Set<string>();
    for (const [name, response] of Object.entries<any>(doc.components.responses)) {
      const { examples } = response.content['application/json'];
      const codes = Object.values<any>(examples).map((e) => e.value.error.code);
      expect([name, codes.length]).toEqual([name, expect.any(Number)]);
      expect(codes.length).toBeGreaterThan(0);
      // Every example of one response has that response's status, and no two responses share one.
      const statuses = new Set(codes.map((c) => ERROR_STATUS[c as keyof typeof ERROR_STATUS]));
      expect([name, statuses.size]).toEqual([name, 1]);
      const key = JSON.stringify(Object.values(examples));
      expect(seen.has(key)).toBe(false);
      seen.add(key);
      for (const e of Object.values<any>(examples)) {
        expect(Object.keys(e.value)).toEqual(['error']);
        expect(Object.keys(e.value.error).every((k) => ['code', 'message', 'details'].includes(k))).toBe(true);
        expect(doc.components.schemas.Error.properties.error.properties.code.enum).toContain(e.value.error.code);
      }
    }
    // Each operation's 429 and 503 point at those responses, not at a shared 404 example.
    expect(Object.values<any>(doc.components.responses.RateLimited.content['application/json'].examples)[0].value.error.code).toBe('RATE_LIMITED');
    expect(Object.values<any>(doc.components.responses.Unavailable.content['application/json'].examples)[0].value.error.code).toBe('UNAVAILABLE');
  });

  test('users document 409; creates document Location; lists document X-Total-Count', () => {
    for (const [method, p] of [['POST', '/users'], ['PUT', '/users/:id'], ['DELETE', '/users/:id']]) {
      expect(opOf(method, p).responses['409']).toBeDefined();
    }
    for (const route of ROUTES.filter((r) => r.status === 201)) {
      expect(opOf(route.method, route.path).responses['201'].headers.Location).toBeDefined();
    }
    for (const route of ROUTES.filter((r) => r.method === 'GET')) {
      const op = opOf(route.method, route.path);
      const isList = op.responses['200'].content['application/json'].schema.type === 'array';
      expect([route.path, Boolean(op.responses['200'].headers?.['X-Total-Count'])]).toEqual([route.path, isList]);
    }
  });

  test('a body date is documented as the service reads it: epoch ms or an ISO-8601 date-time', async () => {
    for (const [method, p] of [['POST', '/services'], ['PUT', '/services/:id']] as const) {
      const date = opOf(method, p).requestBody.content['application/json'].schema.properties.date;
      expect([method, date.oneOf]).toEqual([
        method,
        [
          { type: 'integer', format: 'int64', minimum: MIN_MS, maximum: MAX_MS },
          { type: 'string', pattern: SERVICE_DATE_TEXT_PATTERN },
        ],
      ]);
    }
    // Both forms are taken, and the answer is epoch ms, as the document's Service says.
    const token = await s.adminToken();
    for (const date of [1_704_621_600_000, '2024-01-07T10:00:00Z', '2024-01-07T11:00:00+01:00']) {
      const res = await s.api('POST', '/services', { token, body: { date, serviceType: 'SUN_AM' } });
      expect([date, res.status, res.body.date]).toEqual([date, 201, 1_704_621_600_000]);
      // One service per date and type: each form makes the same service, so it goes again.
      expect((await s.api('DELETE', `/services/${res.body.id}`, { token })).status).toBe(204);
    }
    expect(doc.components.schemas.Service.properties.date).toEqual(expect.objectContaining({ type: 'integer', format: 'int64' }));
  });

  test('paging parameters state their bounds', () => {
    const limit = opOf('GET', '/songs').parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toEqual(expect.objectContaining({ minimum: 1, maximum: 1000 }));
  });

  test('each value rule is stated as the resolver checks it: the rule itself, turned into JSON Schema', () => {
    const body = (method: string, p: string) => opOf(method, p).requestBody.content['application/json'].schema.properties;
    const stated = (rule: (typeof rules)[keyof typeof rules]) =>
      (z.toJSONSchema(rule, { io: 'input', unrepresentable: 'any', target: 'openapi-3.0' }) as { properties: Record<string, object> }).properties;
    expect(body('POST', '/songs').name).toEqual(expect.objectContaining(stated(rules.createSong).name));
    expect(body('POST', '/songs').name).toEqual(
      expect.objectContaining({
        maxLength: 300,
        allOf: [expect.objectContaining({ pattern: '[^\\s\\ufeff]' }), expect.objectContaining({ pattern: '^[^\\u0000-\\u0008\\u000A-\\u001F\\u007F]*$' })],
      }),
    );
    expect(body('PUT', '/services/:serviceId/songs').songIds).toEqual(
      expect.objectContaining({ maxItems: SETLIST_MAX_SONGS, uniqueItems: true, items: expect.objectContaining({ minimum: 1, maximum: INT_MAX }) }),
    );
    expect(body('POST', '/users').username).toEqual(expect.objectContaining(stated(rules.createUser).username));
    const q = opOf('GET', '/songs').parameters.find((p: { name: string }) => p.name === 'q');
    expect(q.schema).toEqual(expect.objectContaining({ maxLength: 200, pattern: '[^\\s\\ufeff]' }));
  });

  test('date parameters state the exact forms the service reads, in paths and queries', () => {
    const dates = ROUTES.flatMap((r) =>
      (opOf(r.method, r.path).parameters ?? []).filter((p: { name: string }) => ['date', 'from', 'to'].includes(p.name)).map((p: any) => [r.path, p.name, p.schema.pattern]),
    );
    expect(dates.length).toBeGreaterThanOrEqual(10);
    for (const [route, name, pattern] of dates) expect([route, name, pattern]).toEqual([route, name, BOUND_PATTERN]);
  });
});

describe('observed statuses are documented (the check test/global-teardown.ts runs on every call)', () => {
  test('maps calls to operations as Express routes them', () => {
    expect(verdictOf(doc, { method: 'GET', path: '/users/me', status: 401 })?.operation).toBe('me');
    expect(verdictOf(doc, { method: 'HEAD', path: '/songs/7', status: 200 })?.operation).toBe('song');
    expect(verdictOf(doc, { method: 'GET', path: '/songs/forService/3', status: 200 })?.operation).toBe('songsForService');
    expect(verdictOf(doc, { method: 'PATCH', path: '/songs/1', status: 405 })?.documented).toEqual(['405', '400', '429']);
    // A literal path's own methods decide, not a parameter path that also matches (as the router).
    expect(verdictOf(doc, { method: 'PUT', path: '/users/me', status: 405 })?.operation).toBe('(other method)');
    expect(verdictOf(doc, { method: 'PUT', path: '/users/7', status: 200 })?.operation).toBe('updateUser');
    expect(verdictOf(doc, { method: 'OPTIONS', path: '/songs', status: 204 })?.documented).toEqual(['204', '400', '429']);
    expect(verdictOf(doc, { method: 'GET', path: '/nope', status: 404 })?.documented).toEqual(['404', '400', '429']);
    expect(verdictOf(doc, { method: 'GET', path: '/openapi.json', status: 200 })).toBeUndefined();
  });

  test('an operation the document has beyond the route table is found too', () => {
    const extra = { paths: { ...doc.paths, '/reports/{year}': { get: { operationId: 'report', responses: { 200: {} } } } } };
    expect(verdictOf(extra, { method: 'GET', path: '/reports/2024', status: 200 })).toEqual(
      expect.objectContaining({ operation: 'report', documented: ['200'] }),
    );
    expect(verdictOf(extra, { method: 'GET', path: '/songs/7', status: 200 })?.operation).toBe('song');
  });

  test('an undocumented status is reported, a documented one is not', () => {
    const calls = [
      { method: 'GET', path: '/songs', status: 200 },
      { method: 'POST', path: '/users', status: 409 },
      { method: 'GET', path: '/songs', status: 409 },
      { method: 'PATCH', path: '/songs', status: 404 },
    ];
    expect(undocumentedStatuses(doc, calls)).toEqual([
      'GET /api/v1/songs answered 409; songs documents 200, 400, 413, 429, 500, 503',
      'PATCH /api/v1/songs answered 404; (other method) documents 405, 400, 429',
    ]);
  });

  test('the statuses login really answers, with their headers', async () => {
    const wrong = await s.api('POST', '/users/login', { body: { username: 'nobody', password: 'wrong-password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer');
    const limited = await s.api('POST', '/users/login', { body: { username: 'nobody', password: 'wrong-password' } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    const big = await s.api('POST', '/users/login', { body: { username: 'x'.repeat(110_000), password: 'p' } });
    expect(big.status).toBe(413);
    expect(undocumentedStatuses(doc, [wrong, limited, big].map((r) => ({ method: 'POST', path: '/users/login', status: r.status })))).toEqual([]);
  });
});

describe('success bodies match their documented schema (the check test/global-teardown.ts runs on every call)', () => {
  const asCall = (method: string, p: string, res: { status: number; headers: Headers; text: string }): ApiCall => ({
    method,
    path: p.split('?')[0],
    status: res.status,
    contentType: res.headers.get('content-type') ?? undefined,
    body: res.text,
  });

  test('fields that can be null are nullable (and always present); the others are not', () => {
    const { SongUsage, ServiceTypeUsage, Song } = doc.components.schemas;
    expect(SongUsage.properties.firstSung).toEqual(expect.objectContaining({ type: 'integer', nullable: true }));
    expect(SongUsage.properties.lastSung).toEqual(expect.objectContaining({ type: 'integer', nullable: true }));
    expect(ServiceTypeUsage.properties.lastSung).toEqual(expect.objectContaining({ type: 'integer', nullable: true }));
    expect(SongUsage.required).toEqual(expect.arrayContaining(['firstSung', 'lastSung']));
    expect(ServiceTypeUsage.required).toEqual(expect.arrayContaining(['lastSung']));
    expect(SongUsage.properties.timesSung.nullable).toBeUndefined();
    expect(Song.properties.id.nullable).toBeUndefined();
  });

  test('the answers of a song never sung carry null dates, and the document allows them', async () => {
    const token = await s.adminToken();
    const song = await s.api('POST', '/songs', { token, body: { name: 'Never Sung', artists: [] } });
    const service = await s.api('POST', '/services', { token, body: { date: '2024-01-07T10:00:00Z', serviceType: 'WED' } });
    const other = await s.api('POST', '/songs', { token, body: { name: 'Sung Once', artists: [] } });
    await s.api('PUT', `/services/${service.body.id}/songs/${other.body.id}`, { token });
    const paths = [
      `/songs/${song.body.id}/usage`,
      '/reports/songUsage?includeUnsung=true',
      '/reports/newSongs?from=2024-01-01',
      `/songs/${other.body.id}/usage`,
    ];
    const calls: ApiCall[] = [];
    for (const p of paths) calls.push(asCall('GET', p, await s.api('GET', p)));
    expect(calls.map((c) => c.status)).toEqual([200, 200, 200, 200]);
    // What the check is about: nulls on the wire (a date of a type never sung, a song never sung).
    expect(calls[0].body).toContain('"lastSung":null');
    expect(calls[2].body).toContain('"lastSung":null');
    expect(invalidBodies(doc, calls)).toEqual([]);
  });

  test('a body its schema refuses, and a Content-Type the operation does not list, are reported', async () => {
    const song = await s.api('POST', '/songs', { token: await s.adminToken(), body: { name: 'Checked', artists: [] } });
    const p = `/songs/${song.body.id}/usage`;
    const ok = asCall('GET', p, await s.api('GET', p));
    expect(invalidBodies(doc, [ok])).toEqual([]);
    const body = JSON.parse(ok.body!);
    const wrong = [
      { ...ok, body: JSON.stringify({ ...body, lastSung: 'yesterday' }) },
      { ...ok, body: JSON.stringify({ ...body, timesSung: null }) },
      { ...ok, body: JSON.stringify({ song: body.song }) },
      { ...ok, contentType: 'text/csv' },
    ];
    expect(invalidBodies(doc, wrong)).toEqual([
      `GET /api/v1${p} answered 200 with a body the songUsageById 200 schema refuses: /lastSung must be integer`,
      `GET /api/v1${p} answered 200 with a body the songUsageById 200 schema refuses: /timesSung must be integer`,
      expect.stringMatching(/refuses: \(root\) must have required property 'timesSung'/),
      `GET /api/v1${p} answered 200 with text/csv, but songUsageById documents application/json`,
    ]);
  });

  test('nullable records, enums and list items: null exactly where GraphQL allows it', () => {
    const graphql = fromSdl(`
      type Query { r: R }
      type R { id: Int!, rec: S, recs: [S!]!, kind: Kind, ints: [Int]! }
      type S { n: Int! }
      enum Kind { A B }`);
    const schemas: Record<string, SchemaObject> = {
      R: {
        type: 'object',
        required: ['id', 'recs', 'ints'],
        properties: {
          id: { type: 'integer' },
          rec: { $ref: '#/components/schemas/S' },
          recs: { type: 'array', items: { $ref: '#/components/schemas/S' } },
          kind: { type: 'string', enum: ['A', 'B'] },
          ints: { type: 'array', items: { type: 'integer' } },
        },
      },
      S: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
    };
    markNullableFields(schemas, graphql);
    const synthetic = {
      paths: { '/nullables': { get: { operationId: 'nullables', responses: { 200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/R' } } } } } } } },
      components: { schemas },
    };
    const check = (body: unknown) =>
      invalidBodies(synthetic, [{ method: 'GET', path: '/nullables', status: 200, contentType: 'application/json', body: JSON.stringify(body) }]);
    const full = { id: 1, rec: { n: 1 }, recs: [{ n: 2 }], kind: 'A', ints: [3] };
    expect(check(full)).toEqual([]);
    expect(check({ ...full, rec: null, kind: null, ints: [null, 4] })).toEqual([]);
    for (const bad of [{ ...full, id: null }, { ...full, recs: [null] }, { ...full, ints: null }, { ...full, kind: 'C' }, { ...full, rec: { n: null } }]) {
      expect([bad, check(bad)]).toEqual([bad, [expect.stringContaining('schema refuses')]]);
    }
    const { rec: _rec, ...missing } = full;
    expect(check(missing)).toEqual([expect.stringContaining("must have required property 'rec'")]);
  });
});

describe('a client generated at run time from the served document', () => {
  test('logs in, creates, reads, lists, links, and sees a 404 as an error, by operationId', async () => {
    const api = new OpenAPIClientAxios({
      definition: `${s.url}/api/v1/openapi.json`,
      axiosConfigDefaults: { baseURL: `${s.url}/api/v1` },
    });
    const client: any = await api.init();

    const login = await client.login(null, { username: ADMIN.username, password: ADMIN.password });
    expect(login.status).toBe(200);
    const auth = { headers: { Authorization: `Bearer ${login.data.token}` } };

    const created = await client.createSong(null, { name: 'Generated Client Song', artists: ['Axios'] }, auth);
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/api/v1/songs/${created.data.id}`);

    const read = await client.song({ id: created.data.id });
    expect(read.data).toEqual({ id: created.data.id, name: 'Generated Client Song', artists: ['Axios'] });

    const page = await client.songs({ limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(Number(page.headers['x-total-count'])).toBeGreaterThanOrEqual(1);

    const service = await client.createService(null, { date: '2024-01-14T10:00:00Z', serviceType: 'SUN_AM' }, auth);
    const setlist = await client.addSongToService({ serviceId: service.data.id, songId: created.data.id }, {}, auth);
    expect(setlist.status).toBe(200);
    expect(JSON.stringify(setlist.data)).toContain('Generated Client Song');

    await expect(client.song({ id: 999_999 })).rejects.toMatchObject({
      response: { status: 404, data: { error: { code: 'NOT_FOUND' } } },
    });
  });
});
