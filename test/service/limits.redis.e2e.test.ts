/**
 * Login limits shared by several instances through a real Redis (REDIS_URL): two API servers on
 * one store and one redis-server (test/helpers/redis.ts, started on a free loopback port, never a
 * mock), driven over HTTP. When Redis stops, hangs or comes back, logins keep working on the
 * in-memory insurance limiter, and each switch is logged. Against real replicas on Neo4j:
 * test/neo4j/replicas.e2e.test.ts.
 */
import { Writable } from 'node:stream';
import Redis from 'ioredis';
import { ConfigError, loadConfig } from '../../src/config';
import { KEY_NAMESPACE, safeRedisUrl } from '../../src/limits/limiter-store';
import { ADMIN, startTestServer, tempDbPath, type TestServer } from '../helpers/server';
import { describeWithRedis, startRedis, type LocalRedis } from '../helpers/redis';

const MAX = 4;

/** Log lines of a server, parsed. */
function logSink() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream, events: (event: string) => lines.filter((l) => l.event === event) };
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const login = (s: TestServer, password: string, username = ADMIN.username) =>
  s.api('POST', '/users/login', { body: { username, password } });

test('REDIS_URL must be a redis:// or rediss:// URL, and a bad one is never echoed', () => {
  expect(loadConfig({ REDIS_URL: 'rediss://:secret@cache.example:6380/2' }).redisUrl).toBe('rediss://:secret@cache.example:6380/2');
  expect(() => loadConfig({ REDIS_URL: 'http://:hunter2@cache' })).toThrow(
    new ConfigError('Invalid configuration: REDIS_URL must be a redis:// or rediss:// URL'),
  );
  expect(safeRedisUrl('redis://:hunter2@cache.example:6379/0')).toBe('redis://:***@cache.example:6379/0');
});

describeWithRedis('login limits shared through Redis by two instances', () => {
  let redis: LocalRedis;
  let a: TestServer;
  let b: TestServer;
  const logA = logSink();
  const logB = logSink();

  beforeAll(async () => {
    redis = await startRedis();
    const env = { SQLITE_PATH: tempDbPath(), REDIS_URL: redis.url, LOGIN_MAX_FAILURES: String(MAX), LOG_LEVEL: 'info' };
    a = await startTestServer(env, logA.stream);
    b = await startTestServer(env, logB.stream);
    await waitFor(() => logA.events('limits_shared').length > 0 && logB.events('limits_shared').length > 0, 'both to reach Redis');
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.close();
  });

  it('says at startup that limits are shared', () => {
    expect(logA.events('limits_shared')[0]).toMatchObject({
      level: 30,
      redis: redis.url,
      msg: `Redis at ${redis.url} is ready: login and request limits are shared by every instance`,
    });
  });

  it('failures spread over both instances lock the account at LOGIN_MAX_FAILURES, on both', async () => {
    const user = 'spread';
    await a.createUser(user, 'USER', 'right-password-1');
    for (const s of [a, b, a, b]) expect((await login(s, 'wrong-password', user)).status).toBe(401);
    for (const s of [a, b]) {
      const refused = await login(s, 'right-password-1', user);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Each instance alone saw only two failures: the count is Redis's.
    const client = new Redis(redis.url);
    try {
      expect(await client.keys(`${KEY_NAMESPACE}:login:*`)).toContain(`${KEY_NAMESPACE}:login:${user}|127.0.0.1`);
    } finally {
      client.disconnect();
    }
  });

  it('a successful login on one instance clears the count for both', async () => {
    const user = 'cleared';
    await a.createUser(user, 'USER', 'right-password-1');
    for (let i = 0; i < MAX - 1; i++) expect((await login(a, 'wrong-password', user)).status).toBe(401);
    expect((await login(b, 'right-password-1', user)).status).toBe(200);
    for (let i = 0; i < MAX - 1; i++) expect((await login(a, 'wrong-password', user)).status).toBe(401);
    expect((await login(b, 'right-password-1', user)).status).toBe(200);
  });

  it('Redis stopped: logins still work on the insurance limiter, the switch is logged; back: shared again', async () => {
    await redis.stop();
    await waitFor(() => logA.events('limits_in_memory').length > 0, 'the switch to be logged');
    const line = logA.events('limits_in_memory')[0];
    expect(line).toMatchObject({ level: 40, redis: redis.url });
    expect(line.reason).toEqual(expect.any(String));
    expect(line.msg).toBe(
      `Redis at ${redis.url} is unavailable (${line.reason}): login and request limits are counted in this process's memory (insurance limiter) until it is back`,
    );
    // Logins keep working, and the insurance limiter still locks out (per instance now).
    expect((await login(a, ADMIN.password)).status).toBe(200);
    const user = 'outage';
    // The user is created while Redis is down: the store does not need it.
    await b.createUser(user, 'USER', 'right-password-1');
    for (let i = 0; i < MAX; i++) expect((await login(b, 'wrong-password', user)).status).toBe(401);
    expect((await login(b, 'right-password-1', user)).status).toBe(429);
    // One line per outage, however many requests and reconnection attempts it lasted.
    expect(logA.events('limits_in_memory')).toHaveLength(1);

    await redis.restart();
    await waitFor(() => logA.events('limits_shared').length === 2 && logB.events('limits_shared').length === 2, 'both to be back');
    expect(logA.events('limits_shared')[1].msg).toBe(`Redis at ${redis.url} is back: login and request limits are shared by every instance again`);
    const user2 = 'after';
    await a.createUser(user2, 'USER', 'right-password-1');
    for (const s of [a, b, a, b]) expect((await login(s, 'wrong-password', user2)).status).toBe(401);
    expect((await login(a, 'right-password-1', user2)).status).toBe(429);
  }, 60_000);

  it('closing an instance is no outage: it logs nothing about Redis', async () => {
    const before = logB.lines.length;
    await b.close();
    // The client reports its closed connection a moment later.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(logB.lines.slice(before).filter((l) => String(l.event).startsWith('limits_'))).toEqual([]);
  });

  it('Redis hanging (SIGSTOP): a login waits at most a moment, then counts in memory, and it is logged', async () => {
    const before = logA.events('limits_in_memory').length;
    process.kill(redis.pid, 'SIGSTOP');
    try {
      const started = Date.now();
      expect((await login(a, ADMIN.password)).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(logA.events('limits_in_memory').length).toBe(before + 1);
      expect(logA.events('limits_in_memory').at(-1)!.reason).toBe('not connected, or no answer in time');
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
  }, 30_000);
});

describeWithRedis('request rate limits shared through Redis by two instances', () => {
  let redis: LocalRedis;
  let a: TestServer;
  let b: TestServer;
  const POINTS = 6;

  beforeAll(async () => {
    redis = await startRedis();
    const log = logSink();
    const env = {
      SQLITE_PATH: tempDbPath(),
      REDIS_URL: redis.url,
      RATE_LIMIT_POINTS: String(POINTS),
      RATE_LIMIT_ANALYTICS_WEIGHT: '1',
      RATE_LIMIT_CSV_WEIGHT: '1',
      LOG_LEVEL: 'info',
    };
    a = await startTestServer(env, log.stream);
    b = await startTestServer(env, log.stream);
    await waitFor(() => log.events('limits_shared').length === 2, 'both to reach Redis');
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.close();
  });

  it("a client's requests spread over both instances spend one budget", async () => {
    const budgets: string[] = [];
    for (const s of [a, b, a, b, a, b]) {
      const res = await s.api('GET', '/songs/1');
      expect(res.status).toBe(404);
      budgets.push(res.headers.get('ratelimit-remaining')!);
    }
    expect(budgets).toEqual(['5', '4', '3', '2', '1', '0']);
    for (const s of [a, b]) {
      const refused = await s.api('GET', '/songs/1');
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
    }
  });
});
