import { ADMIN, startTestServer, type TestServer } from '../helpers/server';
import { parsePrometheus, sampleValue } from '../helpers/prometheus';

/**
 * What an operator sees of a running server: the access log, the audit trail, login failures and
 * lockouts, over real HTTP on a real SQLite file, with the real logger writing JSON lines.
 */

type Line = Record<string, any>;

function logSink() {
  let text = '';
  return {
    stream: { write: (chunk: string) => void (text += chunk) },
    lines: (): Line[] => text.split('\n').filter(Boolean).map((l) => JSON.parse(l)),
    text: () => text,
  };
}

const USER_PASSWORD = 'user-password-secret-77';

let s: TestServer;
const sink = logSink();
beforeAll(async () => {
  s = await startTestServer({ LOG_LEVEL: 'info', LOGIN_MAX_FAILURES: '2' }, sink.stream);
});
afterAll(() => s.close());

const accessLines = () => sink.lines().filter((l) => l.msg === 'request completed' || l.msg === 'request failed');
const byRequestId = (id: string) => sink.lines().filter((l) => l.reqId === id);

describe('access log', () => {
  it('writes one line per request with the request id it was given, and returns that id', async () => {
    const token = await s.adminToken();
    const song = await s.api('POST', '/songs', { token, body: { name: 'Logged', artists: ['A'] } });
    const res = await s.api('GET', `/songs/${song.body.id}?limit=5`, { token, headers: { 'X-Request-Id': 'trace-abc.123' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('trace-abc.123');
    const lines = byRequestId('trace-abc.123');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      req: { method: 'GET', path: `/api/v1/songs/${song.body.id}` },
      route: '/api/v1/songs/:id',
      res: { status: 200 },
      userId: 1,
      msg: 'request completed',
    });
    expect(typeof lines[0].durationMs).toBe('number');
  });

  it('lets browser scripts on other origins send and read the id, on both facades', async () => {
    for (const p of ['/api/v1/songs', '/graphql']) {
      const preflight = await s.raw('OPTIONS', p, {
        headers: { origin: 'https://x.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-request-id' },
      });
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-request-id');
      const res = await s.raw('POST', p, { body: { query: '{ songs { id } }' }, headers: { origin: 'https://x.example' } });
      expect(res.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('x-request-id');
    }
  });

  it('makes up an id when none or an unusable one is sent', async () => {
    const plain = await s.raw('GET', '/healthz');
    const odd = await s.raw('GET', '/healthz', { headers: { 'X-Request-Id': 'no spaces "or quotes"' } });
    for (const res of [plain, odd]) expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(plain.headers.get('x-request-id')).not.toBe(odd.headers.get('x-request-id'));
    expect(byRequestId(odd.headers.get('x-request-id')!)[0]).toMatchObject({ route: '/healthz', res: { status: 200 } });
  });

  it('names the GraphQL operation, and logs anonymous requests without a user', async () => {
    await s.raw('POST', '/graphql', { body: { query: 'query ListThem { songs { id } }' }, headers: { 'X-Request-Id': 'gql-1' } });
    expect(byRequestId('gql-1')[0]).toMatchObject({ route: '/graphql', operation: 'ListThem', res: { status: 200 } });
    expect(byRequestId('gql-1')[0]).not.toHaveProperty('userId');
  });

  it('labels unknown paths by no route of their own', async () => {
    await s.raw('GET', '/nothing/here/42', { headers: { 'X-Request-Id': 'lost-1' } });
    expect(byRequestId('lost-1')[0]).toMatchObject({ route: 'unmatched', res: { status: 404 } });
  });

  it('never writes a password, a token or an Authorization header', async () => {
    const { token } = await s.createUser('logged-user', 'USER', USER_PASSWORD);
    await s.api('POST', '/users/login', { body: { username: 'logged-user', password: 'wrong-' + USER_PASSWORD } });
    await s.gql('mutation { login(username: "logged-user", password: "' + USER_PASSWORD + '") { token } }');
    await s.api('PUT', '/users/me', { token });
    const text = sink.text();
    expect(text).not.toContain(USER_PASSWORD);
    expect(text).not.toContain(ADMIN.password);
    expect(text).not.toContain(token);
    expect(text.toLowerCase()).not.toContain('authorization');
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/); // no JWT at all
  });
});

describe('login failures and lockouts', () => {
  it('logs each failure and the lockout with username and address, never the password', async () => {
    const body = { username: 'Mallory', password: 'guess-guess-guess' };
    for (let i = 0; i < 2; i++) expect((await s.api('POST', '/users/login', { body })).status).toBe(401);
    expect((await s.api('POST', '/users/login', { body })).status).toBe(429);
    const events = sink.lines().filter((l) => l.username === 'Mallory');
    expect(events.map((l) => l.event)).toEqual(['login_failed', 'login_failed', 'login_locked_out', 'login_refused']);
    for (const e of events) expect(e).toMatchObject({ address: '127.0.0.1', level: 40 });
    expect(sink.text()).not.toContain('guess-guess-guess');
  });
});

describe('audit log', () => {
  const audits = () => sink.lines().filter((l) => l.event === 'audit');

  it('records who wrote what on both facades, with the record id', async () => {
    const token = await s.adminToken();
    const created = await s.api('POST', '/songs', { token, body: { name: 'Audited', artists: [] }, headers: { 'X-Request-Id': 'w-1' } });
    await s.gql(`mutation { updateSong(id: ${created.body.id}, name: "Audited 2") { id } }`, undefined, token);
    await s.api('DELETE', `/songs/${created.body.id}`, { token });
    const service = await s.api('POST', '/services', { token, body: { date: 1_700_000_000_000, serviceType: 'WED' } });
    await s.api('PUT', `/services/${service.body.id}/songs`, { token, body: { songIds: [] } });
    await s.api('DELETE', '/songs/999999', { token });

    const mine = audits().filter(
      (a) =>
        (a.record.type === 'Song' && [created.body.id, 999999].includes(a.record.id)) ||
        (a.record.type === 'Setlist' && a.record.serviceId === service.body.id),
    );
    expect(mine.map((a) => [a.operation, a.userId, a.username, a.outcome])).toEqual([
      ['createSong', 1, 'admin', 'ok'],
      ['updateSong', 1, 'admin', 'ok'],
      ['deleteSong', 1, 'admin', 'ok'],
      ['setServiceSongs', 1, 'admin', 'ok'],
      ['deleteSong', 1, 'admin', 'NOT_FOUND'],
    ]);
    expect(mine[0]).toMatchObject({ reqId: 'w-1', record: { type: 'Song', id: created.body.id }, fields: ['name', 'artists'] });
    expect(mine[3].record).toEqual({ type: 'Setlist', serviceId: service.body.id });
  });

  it('names changed fields of a user, never their values, and skips writes refused by access rules', async () => {
    const { id, token } = await s.createUser('auditee', 'USER', 'auditee-password-1');
    const before = audits().length;
    await s.api('PUT', `/users/${id}`, { token, body: { password: 'a-new-password-99' } });
    await s.api('DELETE', '/songs/1', {}); // no token: refused before it runs
    const after = audits().slice(before);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ operation: 'updateUser', userId: id, record: { type: 'User', id }, fields: ['password'], outcome: 'ok' });
    expect(sink.text()).not.toContain('a-new-password-99');
  });
});

describe('GET /metrics', () => {
  it('answers the Prometheus text format with requests, operations, store calls, logins and process metrics', async () => {
    const token = await s.adminToken();
    const song = await s.api('POST', '/songs', { token, body: { name: 'Counted', artists: [] } });
    const before = parsePrometheus((await s.raw('GET', '/metrics')).text).samples;
    const labels = { method: 'GET', route: '/api/v1/songs/:id', status: '200' };
    for (let i = 0; i < 3; i++) await s.api('GET', `/songs/${song.body.id}`);
    await s.api('GET', '/songs/abc');
    await s.raw('POST', '/graphql', { body: { query: 'query Counted { songs { id } }' } });
    await s.raw('POST', '/graphql', { body: { query: 'query Broken { nope }' } });
    await s.raw('GET', '/');
    await s.raw('GET', '/api/v1');

    const res = await s.raw('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const { samples, types } = parsePrometheus(res.text);
    const delta = (name: string, l: Record<string, string> = {}) => sampleValue(samples, name, l) - sampleValue(before, name, l);

    expect(delta('http_requests_total', labels)).toBe(3);
    expect(delta('http_request_duration_seconds_count', labels)).toBe(3);
    expect(sampleValue(samples, 'http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(
      sampleValue(samples, 'http_request_duration_seconds_count', labels),
    );
    expect(delta('http_requests_total', { ...labels, status: '400' })).toBe(1);
    // One handler serves both index paths; each is its own route label.
    expect(delta('http_requests_total', { method: 'GET', route: '/', status: '200' })).toBe(1);
    expect(delta('http_requests_total', { method: 'GET', route: '/api/v1', status: '200' })).toBe(1);
    expect(types.get('http_request_duration_seconds')).toBe('histogram');

    expect(delta('graphql_operations_total', { operation: 'Counted', type: 'query', outcome: 'success' })).toBe(1);
    expect(delta('graphql_operations_total', { operation: 'anonymous', outcome: 'error' })).toBe(1);

    expect(delta('store_call_duration_seconds_count', { operation: 'songsByIds', outcome: 'ok' })).toBeGreaterThanOrEqual(3);
    expect(sampleValue(samples, 'store_call_duration_seconds_count', { operation: 'createSong', outcome: 'ok' })).toBeGreaterThanOrEqual(1);

    expect(sampleValue(samples, 'login_failures_total')).toBeGreaterThanOrEqual(2);
    expect(sampleValue(samples, 'login_lockouts_total')).toBeGreaterThanOrEqual(1);
    expect(types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(sampleValue(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
  });

  it('labels the pages and their files by their route: only paths that exist nowhere are unmatched', async () => {
    const before = parsePrometheus((await s.raw('GET', '/metrics')).text).samples;
    const served: [path: string, route: string][] = [
      ['/insights', '/insights'],
      ['/insights/assets/echarts-first.js', '/insights/assets/*'],
      ['/insights/assets/js/main.js', '/insights/assets/*'],
      ['/insights/assets/insights.css', '/insights/assets/*'],
      ['/api/v1/docs', '/api/v1/docs/'],
      ['/api/v1/docs/swagger-ui-bundle.js', '/api/v1/docs/swagger-ui-bundle.js'],
      ['/graphiql', '/graphiql/'],
      ['/graphiql/graphiql.min.js', '/graphiql/graphiql.min.js'],
    ];
    for (const [path] of served) expect([path, (await s.raw('GET', path)).status]).toEqual([path, 200]);
    // A missing file in the assets folder is that folder's 404, not a new label per name.
    expect((await s.raw('GET', '/insights/assets/made-up-1.js')).status).toBe(404);
    expect((await s.raw('GET', '/insights/assets/made-up-2.js')).status).toBe(404);
    expect((await s.raw('GET', '/no/such/page')).status).toBe(404);

    const { samples } = parsePrometheus((await s.raw('GET', '/metrics')).text);
    const delta = (l: Record<string, string>) => sampleValue(samples, 'http_requests_total', l) - sampleValue(before, 'http_requests_total', l);
    expect(delta({ method: 'GET', route: 'unmatched', status: '200' })).toBe(0);
    expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(delta({ method: 'GET', route: '/insights/assets/*', status: '200' })).toBe(3);
    expect(delta({ method: 'GET', route: '/insights/assets/*', status: '404' })).toBe(2);
    for (const [path, route] of served.filter(([, r]) => r !== '/insights/assets/*')) {
      expect([path, delta({ method: 'GET', route, status: '200' })]).toEqual([path, 1]);
    }
    expect(samples.filter((x) => x.name === 'http_requests_total' && x.labels.route.includes('made-up'))).toEqual([]);
  });

  it('never sends X-Powered-By: not on /metrics, the pages, the API or a 404', async () => {
    for (const path of ['/metrics', '/', '/healthz', '/insights', '/insights/assets/insights.css', '/graphiql', '/api/v1/songs', '/no/such/page']) {
      const res = await s.raw('GET', path);
      expect([path, res.headers.get('x-powered-by')]).toEqual([path, null]);
    }
    const graphql = await s.raw('POST', '/graphql', { body: { query: '{ __typename }' } });
    expect(graphql.headers.get('x-powered-by')).toBeNull();
  });
});

describe('METRICS_TOKEN', () => {
  const METRICS_TOKEN = 'metrics-token-0123456789';
  let guarded: TestServer;
  beforeAll(async () => {
    guarded = await startTestServer({ METRICS_TOKEN });
  });
  afterAll(() => guarded.close());

  it('refuses a scrape without the bearer token, in the error shape, and serves it with one', async () => {
    const none = await guarded.raw('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHENTICATED');
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.headers.get('x-powered-by')).toBeNull();
    expect((await guarded.raw('GET', '/metrics', { token: METRICS_TOKEN + 'x' })).status).toBe(401);
    expect((await guarded.raw('GET', '/metrics', { token: await guarded.adminToken() })).status).toBe(401);
    const ok = await guarded.raw('GET', '/metrics', { token: METRICS_TOKEN });
    expect(ok.status).toBe(200);
    expect(parsePrometheus(ok.text).types.get('http_requests_total')).toBe('counter');
  });
});
