/**
 * The rate-limit scenario of `npm run bench` (alone: `npm run bench -- --only rate-limit`): eight
 * clients from one address loop on the heaviest report a client may ask for, a weekly timeline over
 * 190 years (9,900 buckets), while a light client from another address asks `GET /healthz` and
 * `GET /api/v1/songs/1` at a steady rate. Reported: the light requests' latency (p50, p99, max),
 * once with the rate limits on (the defaults of src/config.ts) and once with RATE_LIMIT=off.
 *
 * The light client is open-loop: it sends on a fixed schedule whether or not earlier answers have
 * come, so a stalled server shows in the latencies instead of thinning out the samples. Addresses
 * travel in X-Forwarded-For, which the server trusts from loopback (TRUST_PROXY=loopback).
 *
 * Options: --duration <s> (default 20) --rate <light requests/s> (default 5) --out <file>
 * Exit code 1 when a light request failed or the bound (BOUND_FACTOR) did not hold.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess } from './server-process';

export const HEAVY_PATH = '/api/v1/reports/timeline?bucket=WEEK&from=1900-01-01&to=2090-01-01';
const LIGHT_PATHS = ['/healthz', '/api/v1/songs/1'];
const HEAVY_ADDRESS = '203.0.113.8';
const LIGHT_ADDRESS = '198.51.100.7';
const HEAVY_CONNECTIONS = 8;
const LIGHT_CONNECTIONS = 16;
/**
 * The bound the limits must hold (docs/performance.md): under this load, the light requests' p99
 * at most this many times one heavy request's own latency (measured alone, median of
 * HEAVY_ALONE_RUNS, just before), a figure that scales with the machine. With the limits a light
 * request waits for the one heavy request running, whose own time varies (up to about twice its
 * median on a shared machine); without them it waits behind all eight, and then some.
 */
export const BOUND_FACTOR = 3;
const HEAVY_ALONE_RUNS = 5;

interface LightSample {
  path: string;
  status: number;
  ms: number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (n: number) => Math.round(n * 10) / 10;

function summary(samples: LightSample[]) {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  return { requests: samples.length, p50: round(percentile(ms, 50)), p99: round(percentile(ms, 99)), max: round(ms[ms.length - 1] ?? NaN) };
}

/**
 * The light client's keep-alive connections, opened before the heavy load starts. Node accepts one
 * new connection per turn of its event loop, and under this load each turn runs a heavy request,
 * so a client opening connections during the run would measure the accept queue; and with too few
 * connections, requests would wait in the client for a free one.
 */
async function lightAgent(base: string): Promise<http.Agent> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: LIGHT_CONNECTIONS });
  await Promise.all(
    Array.from(
      { length: LIGHT_CONNECTIONS },
      () => new Promise<void>((resolve) => http.get(`${base}/healthz`, { agent }, (res) => res.resume().on('end', resolve))),
    ),
  );
  return agent;
}

/** Light requests on a fixed schedule for `seconds`, each timed from send to the end of its answer. */
async function lightClient(agent: http.Agent, base: string, perSecond: number, seconds: number): Promise<LightSample[]> {
  const samples: Promise<LightSample>[] = [];
  const one = (p: string) =>
    new Promise<LightSample>((resolve) => {
      const start = performance.now();
      const req = http.get(`${base}${p}`, { agent, headers: { 'x-forwarded-for': LIGHT_ADDRESS } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ path: p, status: res.statusCode ?? 0, ms: performance.now() - start }));
      });
      req.on('error', () => resolve({ path: p, status: 0, ms: performance.now() - start }));
    });
  const total = Math.round(perSecond * seconds);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    samples.push(one(LIGHT_PATHS[i % LIGHT_PATHS.length]));
  }
  const out = await Promise.all(samples);
  agent.destroy();
  return out;
}

interface HeavyResult {
  requests: number;
  statuses: Record<string, number>;
  errors: number;
}

/**
 * The heavy clients, run in a child process (this file with --heavy-child) so that reading their
 * large answers never delays the light client's clock. Node's own HTTP client, one keep-alive
 * connection each, a new request as soon as an answer has been read, from when the child says
 * it has started until it is told to stop.
 */
async function startHeavyLoad(base: string): Promise<{ stop(): Promise<HeavyResult> }> {
  const child = fork(__filename, ['--heavy-child', base], { execArgv: ['--require', require.resolve('tsx/cjs')] });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the heavy clients exited with code ${code} before reporting`))),
  );
  const message = <T>() => Promise.race([new Promise<T>((resolve) => child.once('message', (m: T) => resolve(m))), exited]);
  await message<'started'>();
  return {
    async stop() {
      child.send('stop');
      return message<HeavyResult>();
    },
  };
}

async function heavyChild(base: string): Promise<void> {
  let stopping = false;
  process.once('message', () => (stopping = true));
  const result: HeavyResult = { requests: 0, statuses: {}, errors: 0 };
  const clients = Array.from({ length: HEAVY_CONNECTIONS }, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (!stopping) {
      const status = await new Promise<number>((resolve) => {
        const req = http.get(base + HEAVY_PATH, { agent, headers: { 'x-forwarded-for': HEAVY_ADDRESS } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', () => resolve(0));
      });
      result.requests++;
      if (status) result.statuses[status] = (result.statuses[status] ?? 0) + 1;
      else result.errors++;
    }
    agent.destroy();
  });
  // The first eight requests are on their way.
  process.send!('started');
  await Promise.all(clients);
  process.send!(result);
  process.disconnect();
}

async function run(mode: 'on' | 'off', seconds: number, perSecond: number) {
  const server = await startServerProcess({ RATE_LIMIT: mode, TRUST_PROXY: 'loopback' });
  try {
    const base = server.ready.facadeUrl;
    // The heavy request alone, from a third address: what one costs on this machine now.
    const alone: number[] = [];
    let buckets = 0;
    for (let i = 0; i < HEAVY_ALONE_RUNS; i++) {
      const t = performance.now();
      const check = await fetch(base + HEAVY_PATH, { headers: { 'x-forwarded-for': '192.0.2.1' } });
      buckets = ((await check.json()) as unknown[]).length;
      alone.push(performance.now() - t);
      if (check.status !== 200) throw new Error(`the heavy request answered ${check.status}`);
    }
    const heavyAloneMs = round(percentile(alone.sort((a, b) => a - b), 50));
    const agent = await lightAgent(base);
    const load = await startHeavyLoad(base);
    const light = await lightClient(agent, base, perSecond, seconds);
    const heavy = await load.stop();
    const failed = light.filter((s) => s.status !== 200);
    return {
      mode,
      buckets,
      heavyAloneMs,
      heavy,
      light: { ...summary(light), byPath: Object.fromEntries(LIGHT_PATHS.map((p) => [p, summary(light.filter((s) => s.path === p))])) },
      lightFailures: failed.length,
      lightFailureStatuses: [...new Set(failed.map((s) => s.status))],
      loadAvg: round(os.loadavg()[0]),
    };
  } finally {
    await server.stop();
  }
}

export async function rateLimitBench(argv: string[] = []): Promise<number> {
  const arg = (name: string, d: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : d;
  };
  const seconds = Number(arg('duration', '20'));
  const perSecond = Number(arg('rate', '5'));
  const out = path.resolve(arg('out', path.join(__dirname, 'rate-limit-results.json')));
  if (!(seconds > 0) || !(perSecond > 0)) throw new Error('--duration and --rate need positive numbers');

  console.log(
    `\nrate limits: ${HEAVY_CONNECTIONS} clients from ${HEAVY_ADDRESS} loop on GET ${HEAVY_PATH}; ` +
      `one client from ${LIGHT_ADDRESS} sends ${perSecond}/s of ${LIGHT_PATHS.join(' and ')}; ${seconds} s with limits off, then on`,
  );
  const loadBefore = round(os.loadavg()[0]);
  const results = [await run('off', seconds, perSecond), await run('on', seconds, perSecond)];
  for (const r of results) {
    console.log(
      `  limits ${r.mode.padEnd(3)}: light p50 ${r.light.p50} ms, p99 ${r.light.p99} ms, max ${r.light.max} ms ` +
        `(${r.light.requests} requests, ${r.lightFailures} failed); one heavy request alone ${r.heavyAloneMs} ms ` +
        `(${r.buckets} buckets); heavy answers under load ${JSON.stringify(r.heavy.statuses)}`,
    );
  }
  const on = results.find((r) => r.mode === 'on')!;
  const boundMs = round(BOUND_FACTOR * on.heavyAloneMs);
  const held = on.light.p99 <= boundMs && results.every((r) => r.lightFailures === 0);
  console.log(
    `  bound: with the limits on, light p99 <= ${BOUND_FACTOR} x one heavy request alone (${boundMs} ms): ` +
      `${on.light.p99} ms, ${held ? 'held' : 'NOT HELD'}`,
  );
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, loadAvgBefore: loadBefore, loadAvgAfter: round(os.loadavg()[0]) },
    settings: { seconds, lightPerSecond: perSecond, heavyConnections: HEAVY_CONNECTIONS, heavyPath: HEAVY_PATH, lightPaths: LIGHT_PATHS },
    bound: { factor: BOUND_FACTOR, ms: boundMs, of: 'light p99 with the limits on, as a multiple of one heavy request alone' },
    held,
    results,
  };
  fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`  wrote ${path.relative(process.cwd(), out)}`);
  return held ? 0 : 1;
}

if (require.main === module) {
  if (process.argv[2] === '--heavy-child') void heavyChild(process.argv[3]);
  else void rateLimitBench(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
