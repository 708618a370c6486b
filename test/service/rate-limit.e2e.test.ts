import { parsePrometheus } from '../helpers/prometheus';
import { startTestServer, type Reply, type TestServer } from '../helpers/server';

/**
 * Request rate limits (docs/API.md, Rate limits) over real HTTP on a real SQLite file. Client
 * addresses travel in X-Forwarded-For, which the server trusts from loopback here; each test
 * uses addresses of its own, so each starts with a full budget.
 */

const POINTS = 30;
const ANALYTICS = 5;
const CSV = 12;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({
    TRUST_PROXY: 'loopback',
    RATE_LIMIT_POINTS: String(POINTS),
    RATE_LIMIT_WINDOW_SECONDS: '60',
    RATE_LIMIT_ANALYTICS_WEIGHT: String(ANALYTICS),
    RATE_LIMIT_CSV_WEIGHT: String(CSV),
    // The webhook worker asks the store for due deliveries every 200 ms: its calls would be
    // counted by storeCalls() below as if a refused request had made them.
    WEBHOOKS_DELIVERY: 'off',
  });
  // Something to report on: a song sung in a service.
  const token = await s.adminToken();
  const song = await s.api('POST', '/songs', { token, body: { name: 'Counted', artists: ['A'] } });
  const service = await s.api('POST', '/services', { token, body: { date: '2024-01-07T10:00:00Z', serviceType: 'SUN_AM' } });
  await s.api('PUT', `/services/${service.body.id}/songs/${song.body.id}`, { token });
});
afterAll(() => s.close());

const from = (address: string, token?: string) => ({ headers: { 'x-forwarded-for': address }, token });
const gqlFrom = (address: string, query: string, token?: string) =>
  s.raw('POST', '/graphql', { ...from(address, token), body: { query } });
const remaining = (r: Reply) => Number(r.headers.get('ratelimit-remaining'));

/** Store calls the server has made so far (its own metrics), to see that a refused request ran nothing. */
async function storeCalls(): Promise<number> {
  // Only the store's lines: prom-client writes the event-loop lag before its first sample as `Nan`.
  const text = (await s.raw('GET', '/metrics')).text;
  const lines = text.split('\n').filter((l) => l.startsWith('store_call_duration_seconds_count'));
  return parsePrometheus(lines.join('\n')).samples.reduce((n, x) => n + x.value, 0);
}

/** Spend an address's (or token's) budget down to `left` points with plain reads. */
async function spendTo(address: string, left: number, token?: string) {
  let r = await s.api('GET', '/songs/1', from(address, token));
  while (remaining(r) > left) r = await s.api('GET', '/songs/1', from(address, token));
  expect(remaining(r)).toBe(left);
}

function expectRestLimited(r: Reply) {
  expect(r.status).toBe(429);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body).toEqual({ error: { code: 'RATE_LIMITED', message: expect.stringMatching(/^Too many requests from this client; try again in \d+ s$/) } });
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  expect(r.headers.get('ratelimit-remaining')).toBe('0');
}

function expectGraphQLLimited(r: Reply) {
  expect(r.status).toBe(429);
  expect(r.body.data).toBeUndefined();
  expect(r.body.errors).toEqual([
    expect.objectContaining({ message: expect.stringMatching(/^Too many requests/), extensions: { code: 'RATE_LIMITED', retryAfter: expect.any(Number) } }),
  ]);
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  expect(r.body.errors[0].extensions.retryAfter).toBe(retryAfter);
}

describe('a budget per client', () => {
  test('every answer says the budget; once it is spent: 429 RATE_LIMITED with Retry-After, on both facades', async () => {
    const first = await s.api('GET', '/songs/1', from('203.0.113.1'));
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe(String(POINTS));
    expect(remaining(first)).toBe(POINTS - 1);
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    await spendTo('203.0.113.1', 0);

    expectRestLimited(await s.api('GET', '/songs/1', from('203.0.113.1')));
    expectRestLimited(await s.api('POST', '/songs', { ...from('203.0.113.1'), body: { name: 'x' } }));
    expectRestLimited(await s.api('GET', '/nothing-here', from('203.0.113.1')));
    expectGraphQLLimited(await gqlFrom('203.0.113.1', '{ songs(limit: 1) { id } }'));
    const viaGet = await s.raw('GET', `/graphql?query=${encodeURIComponent('{ songs(limit: 1) { id } }')}`, from('203.0.113.1'));
    expectGraphQLLimited(viaGet);
  });

  test('a refusal carries the CORS headers of its facade, so browser scripts can read it; preflights still pass', async () => {
    await spendTo('203.0.113.10', 0);
    const origin = { 'x-forwarded-for': '203.0.113.10', origin: 'https://app.example' };
    const rest = await s.api('GET', '/songs/1', { headers: origin });
    expectRestLimited(rest);
    expect(rest.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, DELETE, OPTIONS');
    expect(rest.headers.get('access-control-allow-origin')).toBe('*');
    expect(rest.headers.get('access-control-expose-headers')).toMatch(/Retry-After.*RateLimit-Remaining/);
    const gql = await s.raw('POST', '/graphql', { headers: origin, body: { query: '{ songs(limit: 1) { id } }' } });
    expectGraphQLLimited(gql);
    expect(gql.headers.get('access-control-allow-origin')).toBe('*');
    expect(gql.headers.get('access-control-expose-headers')).toMatch(/Retry-After.*RateLimit-Remaining/);
    for (const p of ['/api/v1/songs', '/graphql']) {
      const preflight = await s.raw('OPTIONS', p, { headers: { ...origin, 'access-control-request-method': 'POST' } });
      expect([p, preflight.status]).toEqual([p, 204]);
      // Answered by the facade's CORS before its rate limit: a preflight is not charged.
      expect([p, preflight.headers.get('ratelimit-remaining')]).toEqual([p, null]);
    }
  });

  test('the pages and explorers are charged too, and refused in REST\'s error shape', async () => {
    await spendTo('203.0.113.11', 0);
    for (const p of ['/', '/api/v1', '/api/v1/docs/', '/graphiql/', '/insights', '/insights/songs']) {
      const r = await s.api('GET', p, from('203.0.113.11'));
      expect([p, r.status]).toEqual([p, 429]);
      expectRestLimited(r);
    }
    const fresh = await s.raw('GET', '/api/v1/docs/', from('203.0.113.12'));
    expect(fresh.status).toBe(200);
    expect(remaining(fresh)).toBe(POINTS - 1);
  });

  test('/healthz, /readyz and /metrics are never limited', async () => {
    await spendTo('203.0.113.2', 0);
    expectRestLimited(await s.api('GET', '/songs/1', from('203.0.113.2')));
    for (let i = 0; i < POINTS + 5; i++) {
      for (const p of ['/healthz', '/readyz', '/metrics']) {
        const r = await s.raw('GET', p, from('203.0.113.2'));
        expect([p, r.status]).toEqual([p, 200]);
        expect(r.headers.get('ratelimit-remaining')).toBeNull();
      }
    }
  });

  test('each address has its own budget', async () => {
    await spendTo('203.0.113.3', 0);
    expectRestLimited(await s.api('GET', '/songs/1', from('203.0.113.3')));
    const other = await s.api('GET', '/songs/1', from('203.0.113.4'));
    expect(other.status).toBe(200);
    expect(remaining(other)).toBe(POINTS - 1);
  });

  test('a signed-in client is counted by user, wherever it asks from; a bad token counts as its address', async () => {
    const { token } = await s.createUser('counted-user');
    await spendTo('203.0.113.5', 0);
    // The same address, signed in: the user's budget, not the address's.
    const signedIn = await s.api('GET', '/songs/1', from('203.0.113.5', token));
    expect(signedIn.status).toBe(200);
    expect(remaining(signedIn)).toBe(POINTS - 1);
    // The same user from elsewhere shares that budget.
    expect(remaining(await s.api('GET', '/songs/1', from('203.0.113.6', token)))).toBe(POINTS - 2);
    await spendTo('203.0.113.7', 0, token);
    expectRestLimited(await s.api('GET', '/users/me', from('203.0.113.8', token)));
    expectGraphQLLimited(await gqlFrom('203.0.113.8', '{ me { id } }', token));
    // Another user is not affected, nor is the address without the token.
    const { token: other } = await s.createUser('other-user');
    expect((await s.api('GET', '/users/me', from('203.0.113.8', other))).status).toBe(200);
    expect(remaining(await s.api('GET', '/songs/1', from('203.0.113.8')))).toBe(POINTS - 1);
    // A token that does not verify is no user: the address pays (here one already spent).
    expectRestLimited(await s.api('GET', '/songs/1', from('203.0.113.5', `${token}x`)));
    expect(remaining(await s.api('GET', '/songs/1', from('203.0.113.9', 'not-a-jwt')))).toBe(POINTS - 1);
    expect(remaining(await s.api('GET', '/songs/1', from('203.0.113.9')))).toBe(POINTS - 2);
  });
});

describe('weights', () => {
  test('REST: a report costs the analytics weight, a CSV report the CSV weight, anything else 1', async () => {
    const a = '198.51.100.1';
    let r = await s.api('GET', '/reports/timeline?bucket=YEAR', from(a));
    expect([r.status, remaining(r)]).toEqual([200, POINTS - ANALYTICS]);
    r = await s.api('GET', '/reports/songUsage?format=csv', from(a));
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect([r.status, remaining(r)]).toEqual([200, POINTS - ANALYTICS - CSV]);
    r = await s.api('GET', '/reports/songUsage?format=json', from(a));
    expect([r.status, remaining(r)]).toEqual([200, POINTS - 2 * ANALYTICS - CSV]);
    r = await s.api('GET', '/songs/1', from(a));
    expect([r.status, remaining(r)]).toEqual([200, POINTS - 2 * ANALYTICS - CSV - 1]);
    // Accept: text/csv asks for CSV as format=csv does.
    const b = '198.51.100.2';
    r = await s.api('GET', '/reports/songUsage', { ...from(b), headers: { ...from(b).headers, accept: 'text/csv' } });
    expect([r.status, remaining(r)]).toEqual([200, POINTS - CSV]);
    // Every other report route, each from an address of its own.
    const others = ['/songs/1/usage', '/songs/1/sungWith', '/songs/notSungSince/2024-06-01', '/reports/newSongs', '/reports/artists', '/reports/sungOften'];
    for (const [i, p] of others.entries()) {
      r = await s.api('GET', p, from(`198.51.100.${30 + i}`));
      expect([p, r.status, remaining(r)]).toEqual([p, 200, POINTS - ANALYTICS]);
    }
  });

  test('GraphQL: the analytics weight for each analytics field the operation selects, 1 otherwise', async () => {
    const a = '198.51.100.4';
    let r = await gqlFrom(a, '{ songs(limit: 1) { id } }');
    expect([r.status, remaining(r)]).toEqual([200, POINTS - 1]);
    r = await gqlFrom(a, '{ a: newSongs { timesSung } b: usageTimeline(bucket: YEAR) { start } }');
    expect([r.status, r.body.errors, remaining(r)]).toEqual([200, undefined, POINTS - 1 - 2 * ANALYTICS]);
    r = await gqlFrom(a, 'query Story { song(id: 1) { ...U } } fragment U on Song { usage { timesSung } }');
    expect([r.status, r.body.errors, remaining(r)]).toEqual([200, undefined, POINTS - 1 - 3 * ANALYTICS]);
    r = await gqlFrom(a, '{ songsSungOften { services } }');
    expect([r.status, r.body.errors, remaining(r)]).toEqual([200, undefined, POINTS - 1 - 4 * ANALYTICS]);
    // A document refused before it runs (here: not valid) costs its one point only.
    r = await gqlFrom(a, '{ newSongs { nope } }');
    expect([r.status, remaining(r)]).toEqual([400, POINTS - 2 - 4 * ANALYTICS]);
  });

  test('a heavy request the budget cannot pay is refused before it runs, on both facades; its points count', async () => {
    const a = '198.51.100.5';
    await spendTo(a, ANALYTICS - 1);
    let calls = await storeCalls();
    expectRestLimited(await s.api('GET', '/reports/timeline?bucket=YEAR', from(a)));
    expect(await storeCalls()).toBe(calls);
    expectRestLimited(await s.api('GET', '/songs/1', from(a)));

    const b = '198.51.100.6';
    await spendTo(b, ANALYTICS - 1);
    // Parsed and checked, then refused: 429 with no data, and nothing read.
    calls = await storeCalls();
    expectGraphQLLimited(await gqlFrom(b, '{ songs(limit: 1) { id usage { timesSung } } }'));
    expect(await storeCalls()).toBe(calls);
    // The same requests from a client with points to spare do read the store.
    expect((await gqlFrom('198.51.100.8', '{ songs(limit: 1) { id usage { timesSung } } }')).status).toBe(200);
    expect((await s.api('GET', '/reports/timeline?bucket=YEAR', from('198.51.100.8'))).status).toBe(200);
    expect(await storeCalls()).toBeGreaterThan(calls);
  });

  test("a client's concurrent heavy requests are all answered, one after another, bad ones included", async () => {
    const a = '198.51.100.7';
    const answers = await Promise.all([
      s.api('GET', '/reports/timeline?bucket=MONTH', from(a)),
      s.api('GET', '/reports/timeline?bucket=DAY', from(a)),
      gqlFrom(a, '{ usageTimeline(bucket: QUARTER) { start services } }'),
      s.api('GET', '/reports/artists', from(a)),
      gqlFrom(a, '{ newSongs { timesSung } }'),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 400, 200, 200, 200]);
    // Five heavy requests were charged (the bad one too: it was charged before it was read).
    const after = await s.api('GET', '/songs/1', from(a));
    expect(remaining(after)).toBe(POINTS - 5 * ANALYTICS - 1);
    expectRestLimited(await s.api('GET', '/reports/newSongs', from(a)));
  });
});

describe('switches', () => {
  test('RATE_LIMIT=off: no budget, no headers, never 429', async () => {
    const off = await startTestServer({ RATE_LIMIT: 'off', RATE_LIMIT_POINTS: '1', RATE_LIMIT_CSV_WEIGHT: '5' });
    try {
      for (let i = 0; i < 5; i++) {
        for (const r of [
          await off.api('GET', '/songs'),
          await off.api('GET', '/reports/songUsage?format=csv'),
          await off.gql('{ newSongs { timesSung } }'),
        ]) {
          expect(r.status).toBe(200);
          expect(r.headers.get('ratelimit-limit')).toBeNull();
        }
      }
    } finally {
      await off.close();
    }
  });

  test('TRUST_PROXY=1 (one proxy in front): each forwarded client address has its own budget', async () => {
    const behindOne = await startTestServer({
      TRUST_PROXY: '1',
      RATE_LIMIT_POINTS: '2',
      RATE_LIMIT_ANALYTICS_WEIGHT: '2',
      RATE_LIMIT_CSV_WEIGHT: '2',
    });
    try {
      const as = (address: string) => ({ headers: { 'x-forwarded-for': address } });
      expect((await behindOne.api('GET', '/songs', as('192.0.2.10'))).status).toBe(200);
      expect((await behindOne.api('GET', '/songs', as('192.0.2.10'))).status).toBe(200);
      expect((await behindOne.api('GET', '/songs', as('192.0.2.10'))).status).toBe(429);
      expect((await behindOne.api('GET', '/songs', as('192.0.2.11'))).status).toBe(200);
    } finally {
      await behindOne.close();
    }
  });
});
