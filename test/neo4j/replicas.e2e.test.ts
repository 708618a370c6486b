/**
 * Several API replicas behind one load balancer, for real: API processes (src/main.ts, as an
 * operator starts them) with one JWT_SECRET, one NEO4J_URI (neo4j://, routing) and one REDIS_URL,
 * on the run's Neo4j (`npm run test:neo4j`) and a redis-server of their own, driven through both
 * at once over HTTP. Then a Neo4j of this suite's own (the local launcher) is stopped under two
 * replicas and started again.
 *
 * What docs/operations.md ("Running several instances") promises, each checked here:
 * - the deployment step (`npm run migrate:neo4j`) and replicas that wait for it
 *   (MIGRATE_ON_START=false), or refuse to start without it;
 * - two replicas starting at the same moment on an empty database: both serve, the migration runs once;
 * - failed logins spread over both lock the account at LOGIN_MAX_FAILURES;
 * - a password change or a demotion through one is honoured by the other on the next request;
 * - Redis stopped mid-run: logins still work (insurance limiter), and it is logged;
 * - writes through both while one is killed with SIGKILL: every acknowledged write is there, the
 *   setlist stays numbered 1..n, and the survivor keeps serving;
 * - Neo4j going away: 503 UNAVAILABLE with Retry-After once the retry budget is spent, a request
 *   with a longer budget rides the outage out, and both serve again once it is back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import neo4j, { type Driver } from 'neo4j-driver';
import { localNeo4jMissing, startLocalNeo4j, type LocalNeo4j } from '../../scripts/neo4j-local';
import { createNeo4jDriver } from '../../src/store/neo4j/driver';
import { MIGRATION_CYPHER, MIGRATION_STEPS } from '../../src/store/neo4j/migrations';
import { STATEMENT_LOG_ENV } from '../../src/store/neo4j/statement-log';
import { dropSchema, neo4jTarget, wipeNeo4j } from '../helpers/neo4j';
import { freePort, listening, logRecords, run, runScript, type Run } from '../helpers/process';
import { startRedis, type LocalRedis } from '../helpers/redis';

const JWT_SECRET = 'replicas-test-secret-that-is-at-least-32-characters';
const ADMIN = { username: 'admin', password: 'admin-password-1' };
const MAX_FAILURES = 4;
const target = neo4jTarget();

/** neo4j:// (routing, as a cluster needs) for the server the run gives, whatever its scheme. */
const routing = (uri: string) => uri.replace(/^bolt(\+s|\+ssc)?:/, 'neo4j$1:');

interface Replica {
  process: Run;
  url: string;
  /** Log records so far, parsed. */
  logs(): Record<string, unknown>[];
}

async function started(p: Run, timeoutMs = 180_000): Promise<Replica> {
  await listening(p, timeoutMs);
  const logs = () => logRecords(p.output.stdout);
  const line = logs().find((l) => typeof l.msg === 'string' && l.msg.startsWith('listening on '))!;
  return { process: p, url: (line.msg as string).slice('listening on '.length), logs };
}

async function stopped(p: Run): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  await p.exit;
}

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

async function call(base: string, method: string, p: string, opts: { token?: string; body?: unknown } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${p}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const api = (r: Replica, method: string, p: string, opts?: { token?: string; body?: unknown }) => call(r.url, method, `/api/v1${p}`, opts);

async function login(r: Replica, username: string, password: string): Promise<string> {
  const res = await api(r, 'POST', '/users/login', { body: { username, password } });
  if (res.status !== 200) throw new Error(`login ${username} on ${r.url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const events = (r: Replica, event: string) => r.logs().filter((l) => l.event === event);

(target ? describe : describe.skip)('two API replicas on one Neo4j (NEO4J_URI) and one Redis', () => {
  let redis: LocalRedis;
  let driver: Driver;
  const database = target?.database;
  const running: Run[] = [];

  /** One replica's environment: everything shared but the port. */
  const replicaEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
    PORT: '0',
    HOST: '127.0.0.1',
    STORE: 'neo4j',
    NEO4J_URI: routing(target!.uri),
    NEO4J_USER: target!.user,
    NEO4J_PASSWORD: target!.password,
    ...(database ? { NEO4J_DATABASE: database } : {}),
    JWT_SECRET,
    REDIS_URL: redis.url,
    LOGIN_MAX_FAILURES: String(MAX_FAILURES),
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'replica-data-')),
    ...(process.env[STATEMENT_LOG_ENV] ? { [STATEMENT_LOG_ENV]: process.env[STATEMENT_LOG_ENV]! } : {}),
    ...extra,
  });
  const start = (extra?: Record<string, string>) => {
    const p = run(replicaEnv(extra));
    running.push(p);
    return p;
  };
  /** An empty database, as a new deployment meets it: no data, no constraints, no indexes. */
  async function empty() {
    await wipeNeo4j(driver, database);
    await dropSchema(driver, database);
  }
  const recordedSteps = async () =>
    (await driver.executeQuery(MIGRATION_CYPHER.finishedSteps, {}, { database })).records.map((r) => r.get('name') as string).sort();
  const ALL = MIGRATION_STEPS.map((s) => s.name).sort();

  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    redis = await startRedis();
    driver = createNeo4jDriver(target!);
  }, 60_000);

  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.exit));
    await redis?.close();
    await driver?.close();
  });

  it('MIGRATE_ON_START=false: a replica refuses to serve an unmigrated database, and waits for `npm run migrate:neo4j`', async () => {
    await empty();
    const refused = start({ MIGRATE_ON_START: 'false', MIGRATION_WAIT_SECONDS: '2' });
    expect((await refused.exit).code).toBe(1);
    expect(refused.output.stderr).toMatch(
      /^Startup failed: Cannot use Neo4j at neo4j:\/\/\S+: the database is not migrated to this release \(\d+ steps missing, first schema\.songId\) after \d+ s: run `npm run migrate:neo4j`, or start one instance with MIGRATE_ON_START=true\n$/,
    );

    const waiting = start({ MIGRATE_ON_START: 'false' });
    await waitFor(() => waiting.output.stdout.includes('MIGRATE_ON_START=false; waiting for'), 'the replica to wait', 120_000);
    const env = replicaEnv();
    const step = await runScript('src/cli/migrate-neo4j.ts', [], {
      NEO4J_URI: env.NEO4J_URI,
      NEO4J_USER: env.NEO4J_USER,
      NEO4J_PASSWORD: env.NEO4J_PASSWORD,
      ...(env.NEO4J_DATABASE ? { NEO4J_DATABASE: env.NEO4J_DATABASE } : {}),
      ...(env[STATEMENT_LOG_ENV] ? { [STATEMENT_LOG_ENV]: env[STATEMENT_LOG_ENV] } : {}),
    });
    expect({ code: step.code, stderr: step.stderr }).toEqual({ code: 0, stderr: '' });
    expect(step.stdout).toContain(`Neo4j migrations: ran ${ALL.length} steps (`);
    const replica = await started(waiting);
    expect((await call(replica.url, 'GET', '/readyz')).status).toBe(200);
    // It ran nothing itself.
    expect(replica.logs().some((l) => String(l.msg).startsWith('Neo4j migrations: ran'))).toBe(false);
    await stopped(waiting);
    // Run again, the step has nothing left to do.
    const again = await runScript('src/cli/migrate-neo4j.ts', [], { NEO4J_URI: env.NEO4J_URI, NEO4J_USER: env.NEO4J_USER, NEO4J_PASSWORD: env.NEO4J_PASSWORD });
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('Neo4j migrations: ran');
  }, 400_000);

  it('both start at the same moment on an empty database: both serve, the migration ran once', async () => {
    await empty();
    const [pa, pb] = [start(), start()];
    [a, b] = await Promise.all([started(pa), started(pb)]);
    for (const p of [pa, pb]) expect(p.output.stderr).toBe('');
    const ran = [a, b].map((r) =>
      r
        .logs()
        .map((l) => /^Neo4j migrations: ran (\d+) steps/.exec(String(l.msg)))
        .filter(Boolean)
        .map((m) => Number(m![1]))
        .reduce((x, y) => x + y, 0),
    );
    expect(ran.sort((x, y) => x - y)).toEqual([0, ALL.length]);
    expect(await recordedSteps()).toEqual(ALL);
    for (const r of [a, b]) {
      expect((await call(r.url, 'GET', '/readyz')).body).toEqual({ status: 'ready', store: 'neo4j' });
      // Redis connects beside the start (a replica serves without it), so this may come just after.
      await waitFor(() => events(r, 'limits_shared').length === 1, 'Redis to be ready');
    }
  }, 400_000);

  it('failed logins spread over both replicas lock the account at LOGIN_MAX_FAILURES, on both', async () => {
    const admin = await login(a, ADMIN.username, ADMIN.password);
    expect((await api(a, 'POST', '/users', { token: admin, body: { username: 'spread', password: 'right-password-1', role: 'USER' } })).status).toBe(201);
    const attempt = (r: Replica, password: string) => api(r, 'POST', '/users/login', { body: { username: 'spread', password } });
    const failures = await Promise.all([a, b, a, b].map((r) => attempt(r, 'wrong-password')));
    expect(failures.map((f) => f.status)).toEqual([401, 401, 401, 401]);
    for (const r of [a, b]) {
      const refused = await attempt(r, 'right-password-1');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('a password change or a demotion through one replica is honoured by the other on the next request', async () => {
    const admin = await login(a, ADMIN.username, ADMIN.password);
    for (let round = 0; round < 5; round++) {
      const [via, other] = round % 2 === 0 ? [a, b] : [b, a];
      const name = `carol${round}`;
      const created = await api(via, 'POST', '/users', { token: admin, body: { username: name, password: 'first-password-1', role: 'ADMIN' } });
      expect(created.status).toBe(201);
      const token = await login(other, name, 'first-password-1');
      expect((await api(other, 'GET', '/users', { token })).status).toBe(200);

      // Demoted through one: the other refuses the ADMIN route at once.
      expect((await api(via, 'PUT', `/users/${created.body.id}`, { token: admin, body: { role: 'USER' } })).status).toBe(200);
      expect((await api(other, 'GET', '/users', { token })).status).toBe(403);

      // The password changed through one: the other refuses the old token and the old password.
      expect((await api(via, 'PUT', `/users/${created.body.id}`, { token: admin, body: { password: 'second-password-2' } })).status).toBe(200);
      expect((await api(other, 'GET', '/users/me', { token })).status).toBe(401);
      expect((await api(other, 'POST', '/users/login', { body: { username: name, password: 'first-password-1' } })).status).toBe(401);
      expect((await api(other, 'POST', '/users/login', { body: { username: name, password: 'second-password-2' } })).status).toBe(200);
    }
  }, 120_000);

  it('Redis stopped mid-run: logins still work on both (insurance limiter), and each replica logs it', async () => {
    await redis.stop();
    try {
      for (const r of [a, b]) {
        await waitFor(() => events(r, 'limits_in_memory').length === 1, 'the switch to be logged');
        expect(events(r, 'limits_in_memory')[0]).toMatchObject({ level: 40, redis: redis.url });
        expect(await login(r, ADMIN.username, ADMIN.password)).toEqual(expect.any(String));
        expect((await api(r, 'POST', '/users/login', { body: { username: ADMIN.username, password: 'wrong' } })).status).toBe(401);
      }
    } finally {
      await redis.restart();
    }
    for (const r of [a, b]) await waitFor(() => events(r, 'limits_shared').length === 2, 'the way back to be logged');
  }, 120_000);

  it('writes through both while one is killed with SIGKILL: every acknowledged write is there; the survivor serves', async () => {
    const admin = await login(a, ADMIN.username, ADMIN.password);
    const service = await api(a, 'POST', '/services', { token: admin, body: { date: '2026-01-04T10:00:00Z', serviceType: 'SUN_AM' } });
    expect(service.status).toBe(201);
    const acknowledged = { songs: new Map<number, string>(), links: new Set<number>() };
    let killedAt: number | undefined;
    const afterKill = { attempted: 0, acknowledged: 0 };

    /** One writer: a song, then a link of it into the one setlist both replicas write to. */
    async function writer(r: Replica, worker: number, rounds: number) {
      for (let i = 0; i < rounds; i++) {
        const name = `w${worker}-${i}`;
        const onSurvivor = r === a && killedAt !== undefined;
        if (onSurvivor) afterKill.attempted++;
        try {
          const song = await api(r, 'POST', '/songs', { token: admin, body: { name, artists: ['Replica'] } });
          if (song.status !== 201) {
            expect(song.status).toBe(503); // never a 500
            continue;
          }
          acknowledged.songs.set(song.body.id, name);
          const link = await api(r, 'PUT', `/services/${service.body.id}/songs/${song.body.id}`, { token: admin });
          expect([200, 201, 503]).toContain(link.status);
          if (link.status < 300) {
            acknowledged.links.add(song.body.id);
            if (onSurvivor) afterKill.acknowledged++;
          }
        } catch (err) {
          // Only the killed replica may fail to answer.
          expect(r).toBe(b);
          expect(killedAt).toBeDefined();
          return;
        }
      }
    }
    const writers = [writer(a, 1, 30), writer(b, 2, 30), writer(a, 3, 30), writer(b, 4, 30)];
    await waitFor(() => acknowledged.links.size >= 12, 'writes through both');
    killedAt = Date.now();
    b.process.child.kill('SIGKILL');
    await Promise.all(writers);
    expect((await b.process.exit).signal).toBe('SIGKILL');
    expect(afterKill.attempted).toBeGreaterThan(0);
    expect(afterKill.acknowledged).toBe(afterKill.attempted);

    // Every acknowledged write is there, read through the survivor.
    for (const [id, name] of acknowledged.songs) {
      const song = await api(a, 'GET', `/songs/${id}`);
      expect([song.status, song.body?.name]).toEqual([200, name]);
    }
    const setlist = await call(a.url, 'POST', '/graphql', {
      body: { query: `{ service(id: ${service.body.id}) { setlist { position song { id } } } }` },
    });
    const entries: { position: number; song: { id: number } }[] = setlist.body.data.service.setlist;
    const linked = new Set(entries.map((e) => e.song.id));
    for (const id of acknowledged.links) expect(linked.has(id)).toBe(true);
    // Links are only ever made to acknowledged songs' ids or to songs whose answer was lost with B.
    expect(entries.map((e) => e.position)).toEqual(entries.map((_, i) => i + 1));
    // The survivor keeps serving.
    expect((await call(a.url, 'GET', '/readyz')).status).toBe(200);
    expect((await api(a, 'POST', '/songs', { token: admin, body: { name: 'after the kill', artists: [] } })).status).toBe(201);
  }, 300_000);
});

/**
 * A Neo4j of this suite's own, so it can be stopped and started again under two replicas: one
 * with a 2 s retry budget (answers 503 with Retry-After once it is spent), one with 240 s (rides
 * the outage out). The launcher gives its `neo4j` user a new password at each start, so the
 * replicas log in as a user of their own, which the database keeps across the restart.
 */
const noLauncher = localNeo4jMissing();
(noLauncher && process.env.CI !== 'true' ? describe.skip : describe)(
  `replicas while their Neo4j goes away and comes back${noLauncher ? ` (SKIPPED: ${noLauncher})` : ''}`,
  () => {
    let server: LocalNeo4j;
    let port: number;
    let home: string;
    const running: Run[] = [];
    const USER = { name: 'replica', password: 'replica-password-1' };

    beforeAll(async () => {
      port = await freePort();
      home = fs.mkdtempSync(path.join(os.tmpdir(), 'neo4j-outage-'));
      server = await startLocalNeo4j({ port, home });
      const d = neo4j.driver(server.uri, neo4j.auth.basic(server.user, server.password));
      try {
        await d.executeQuery('CREATE OR REPLACE USER replica SET PLAINTEXT PASSWORD $pw CHANGE NOT REQUIRED', { pw: USER.password }, { database: 'system' });
      } finally {
        await d.close();
      }
    }, 300_000);

    afterAll(async () => {
      for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await Promise.all(running.map((p) => p.exit));
      await server?.stop();
      if (home) fs.rmSync(home, { recursive: true, force: true });
    }, 120_000);

    it('503 UNAVAILABLE with Retry-After once the retry budget is spent, never a 500; a longer budget rides it out; both serve once it is back', async () => {
      const env = (retrySeconds: number): Record<string, string> => ({
        PORT: '0',
        HOST: '127.0.0.1',
        STORE: 'neo4j',
        NEO4J_URI: `neo4j://127.0.0.1:${port}`,
        NEO4J_USER: USER.name,
        NEO4J_PASSWORD: USER.password,
        NEO4J_RETRY_SECONDS: String(retrySeconds),
        JWT_SECRET,
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
        RATE_LIMIT: 'off',
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'replica-data-')),
        ...(process.env[STATEMENT_LOG_ENV] ? { [STATEMENT_LOG_ENV]: process.env[STATEMENT_LOG_ENV]! } : {}),
      });
      const [pShort, pLong] = [run(env(2)), run(env(240))];
      running.push(pShort, pLong);
      const [short, long] = await Promise.all([started(pShort), started(pLong)]);
      const admin = await login(short, ADMIN.username, ADMIN.password);

      // Writes in flight while the server stops: each is acknowledged or refused with 503.
      const inFlight = Array.from({ length: 6 }, (_, i) =>
        api(short, 'POST', '/songs', { token: admin, body: { name: `in flight ${i}`, artists: [] } }),
      );
      await server.stop();
      for (const res of await Promise.all(inFlight)) expect([201, 503]).toContain(res.status);

      const refused = await api(short, 'GET', '/songs');
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.body).toEqual({ error: { code: 'UNAVAILABLE', message: 'The database is unavailable; try again shortly' } });
      const gql = await call(short.url, 'POST', '/graphql', { body: { query: '{ songs { id } }' } });
      expect(gql.body.errors[0].extensions).toEqual({ code: 'UNAVAILABLE', retryAfter: 5 });
      expect((await call(short.url, 'GET', '/readyz')).status).toBe(503);
      expect((await api(short, 'POST', '/songs', { token: admin, body: { name: 'refused', artists: [] } })).status).toBe(503);

      // A request with the long budget, made while the server is down, is answered once it is back.
      let answered: Reply | undefined;
      const patient = api(long, 'GET', '/songs?limit=1').then((r) => (answered = r));
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(answered).toBeUndefined();

      server = await startLocalNeo4j({ port, home });
      expect((await patient).status).toBe(200);
      await waitFor(async () => (await call(short.url, 'GET', '/readyz')).status === 200, 'the short-budget replica to be ready again');
      expect((await api(short, 'POST', '/songs', { token: admin, body: { name: 'after the restart', artists: [] } })).status).toBe(201);
      expect((await api(long, 'GET', '/songs?q=restart')).body.map((s: { name: string }) => s.name)).toEqual(['after the restart']);
      for (const p of [pShort, pLong]) expect(p.output.stderr).toBe('');
    }, 600_000);
  },
);
