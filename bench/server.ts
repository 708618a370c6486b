/**
 * The server side of `npm run bench`, run as its own process so that the load generator does not
 * share its event loop: the REAL server (startServer, loadConfig) on a temporary SQLite file
 * seeded through the store, and beside it, in this same process and on the same store instance,
 * the bare Express comparator (bench/bare.ts) plus two bench-only endpoints:
 *   GET  /__bench/stats  store calls since the last reset, RSS and peak RSS of this process
 *   POST /__bench/reset  zero the store call counters
 *   POST /__bench/profile/start, /__bench/profile/stop  V8 CPU profile of this process (.cpuprofile JSON)
 * The comparator listens on its own port because startServer owns the real app's listener.
 *
 * With BENCH_STORE=neo4j the store is Neo4j instead (bench/neo4j.ts: a new local Neo4j of its own,
 * or NEO4J_URI, wiped), seeded the same way.
 *
 * Started by bench/run.ts with fork() and an IPC channel; run alone
 * (`node -r tsx/cjs bench/server.ts`) it prints its URLs as one JSON line and serves until killed.
 */
import fs from 'node:fs';
import type { Server } from 'node:http';
import { Session } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { TokenService } from '../src/auth/tokens';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startServer } from '../src/server';
import { SqliteStore } from '../src/store/sqlite/store';
import type { Store } from '../src/store/types';
import { benchNeo4j, openStore, wipe, type BenchNeo4j } from './neo4j';
import { createBareApp } from './bare';
import { countingStore } from './counting-store';
import { seed } from './seed';
import { BENCH_ADMIN, type BenchStats, type ReadyMessage } from './shared';

const JWT_SECRET = 'bench-secret-that-is-at-least-32-characters-long';

async function main() {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'songs-bench-'));
  const neo4j: BenchNeo4j | null = process.env.BENCH_STORE === 'neo4j' ? await benchNeo4j() : null;
  const config = loadConfig({
    ...(neo4j
      ? { STORE: 'neo4j', NEO4J_URI: neo4j.uri, NEO4J_USER: neo4j.user, NEO4J_PASSWORD: neo4j.password, ...(neo4j.database ? { NEO4J_DATABASE: neo4j.database } : {}) }
      : {}),
    PORT: '0',
    HOST: '127.0.0.1',
    SQLITE_PATH: path.join(dir, 'bench.db'),
    // BENCH_LOG_LEVEL=info measures the access log (one JSON line per request, to /dev/null).
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    // bench/run.ts starts this process with NODE_ENV=production: measure the deployed configuration.
    NODE_ENV: process.env.NODE_ENV,
    JWT_SECRET,
    // No webhook endpoints exist here; the worker's polls would count among the requests' store calls.
    WEBHOOKS_DELIVERY: 'off',
    ADMIN_USERNAME: BENCH_ADMIN.username,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    // The nested query reads every service's whole setlist, which the cost limit charges as
    // 1000 songs each: the bench measures the facades, not the limit.
    GRAPHQL_MAX_COST: '1000000000000',
    // Set by the process that starts this one: bench/run.ts turns the limits off for the layer
    // scenarios; bench/rate-limit.ts runs with them on and off, and with client addresses in
    // X-Forwarded-For.
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('RATE_LIMIT') || name === 'TRUST_PROXY')),
  });

  let db: Store;
  if (neo4j) {
    await wipe(neo4j);
    db = await openStore(neo4j);
  } else {
    db = new SqliteStore(config.sqlitePath);
  }
  const seeded = await seed(db);
  const counting = countingStore(db);
  const logTo = config.logLevel === 'silent' ? undefined : pino.destination({ dest: '/dev/null', sync: true });
  const server = await startServer(config, createLogger(config.logLevel, logTo), counting.store);

  const bare = createBareApp(counting.store, new TokenService(config.jwtSecret, config.jwtExpiresIn), config.serviceTimeZone);
  bare.get('/__bench/stats', (_req, res) => {
    const stats: BenchStats = {
      calls: counting.counts(),
      rss: process.memoryUsage().rss,
      maxRss: process.resourceUsage().maxRSS * 1024,
      cpuMicros: process.cpuUsage().user + process.cpuUsage().system,
    };
    res.json(stats);
  });
  bare.post('/__bench/reset', (_req, res) => {
    counting.reset();
    res.json({ ok: true });
  });
  // The V8 CPU profiler (what `node --cpu-prof` uses), started and stopped around one measured run
  // so that startup, seeding and warm-up stay out of the profile.
  const inspector = new Session();
  inspector.connect();
  const post = <T = unknown>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      inspector.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T))),
    );
  bare.post('/__bench/profile/start', async (req, res) => {
    const interval = Number(req.query.interval ?? 250);
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval });
    await post('Profiler.start');
    res.json({ ok: true, interval });
  });
  bare.post('/__bench/profile/stop', async (_req, res) => {
    const { profile } = await post<{ profile: unknown }>('Profiler.stop');
    await post('Profiler.disable');
    res.json(profile);
  });
  const bareHttp = await new Promise<Server>((resolve, reject) => {
    const s = bare.listen(0, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  // The same socket settings as the real listener (src/server.ts).
  bareHttp.keepAliveTimeout = 65_000;
  bareHttp.headersTimeout = 66_000;
  const bareUrl = `http://127.0.0.1:${(bareHttp.address() as AddressInfo).port}`;

  let closing = false;
  const shutdown = async (code = 0) => {
    if (closing) return;
    closing = true;
    bareHttp.closeAllConnections();
    await new Promise<void>((resolve) => bareHttp.close(() => resolve()));
    // Drop the load generator's keep-alive sockets rather than wait out the 65 s idle timeout.
    const closed = server.close();
    await closed;
    await neo4j?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    // A normal exit, so that --cpu-prof writes its profile.
    process.exit(code);
  };
  process.on('message', (msg) => {
    if (msg === 'shutdown') void shutdown();
  });
  process.on('disconnect', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());

  const ready: ReadyMessage = {
    type: 'ready',
    pid: process.pid,
    facadeUrl: server.url,
    bareUrl,
    seed: seeded,
    startupMs: Date.now() - started,
  };
  if (process.send) process.send(ready);
  else console.log(JSON.stringify({ ...ready, seed: { ...seeded, songIds: undefined } }));
}

main().catch((err) => {
  console.error('bench server failed:', err);
  process.exit(1);
});
