/**
 * What bench:peers' two comparisons share (bench/peers.ts on SQLite, bench/peers-neo4j.ts on
 * Neo4j): a bench server in a child process, answering its CPU time over IPC, and autocannon runs
 * against a /graphql with their throughput, latency and CPU per request.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { CpuMessage, ProfileMessage } from './peer-server';
import type { TimedOptions } from './options';
import type { CpuProfile } from './profile';

// ---------------------------------------------------------------------------------------------
// The server process

export interface Peers<R> {
  child: ChildProcess;
  ready: R;
  /** The server process's CPU time; with `collect`, after a full garbage collection there. */
  cpuMicros(collect?: boolean): Promise<number>;
  stop(): Promise<void>;
  /** The CPU profile of the server process over `during`. */
  profiled(during: () => Promise<unknown>): Promise<CpuProfile>;
}

/** dist/ compiled from the src/ of now, as `npm start` does (scripts/build-if-stale.mjs). */
function buildIfStale(): void {
  const built = spawnSync(process.execPath, [path.join(__dirname, '..', 'scripts', 'build-if-stale.mjs')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build failed: the bench runs the compiled service');
}

/**
 * `script` (a bench server) in a child process that posts `{ type: 'ready', ... }` once it serves.
 * The bench server itself runs under tsx; everything it loads from src/ is the compiled dist/, as
 * in production (bench/compiled-src.cjs).
 */
export async function startPeers<R extends { type: 'ready' }>(script: string, env: Record<string, string> = {}, startLimitS = 60): Promise<Peers<R>> {
  buildIfStale();
  const child = fork(path.join(__dirname, script), [], {
    // --expose-gc: each measured run starts from a collected heap (measure below).
    execArgv: ['--expose-gc', '--require', require.resolve('tsx/cjs'), '--require', path.join(__dirname, 'compiled-src.cjs')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_ENV: 'production', ...env },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await new Promise<R>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the peer bench server did not start within ${startLimitS} s`)), startLimitS * 1000);
    child.on('message', (msg: R) => {
      if (msg?.type === 'ready') {
        clearTimeout(timer);
        resolve(msg);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the peer bench server exited with code ${code} before it was ready`));
    });
  });
  return {
    child,
    ready,
    cpuMicros: (collect = false) =>
      new Promise((resolve) => {
        const onMessage = (msg: CpuMessage) => {
          if (msg?.type !== 'cpu') return;
          child.off('message', onMessage);
          resolve(msg.usage.user + msg.usage.system);
        };
        child.on('message', onMessage);
        child.send({ type: 'cpu', collect });
      }),
    async profiled(during) {
      const profile = new Promise<CpuProfile>((resolve) => {
        const onMessage = (msg: ProfileMessage) => {
          if (msg?.type !== 'profile') return;
          child.off('message', onMessage);
          resolve(msg.profile as CpuProfile);
        };
        child.on('message', onMessage);
      });
      child.send({ type: 'profile-start' });
      // The profiler starts on the server's next turn; a moment's wait keeps the run inside it.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await during();
      child.send({ type: 'profile-stop' });
      return profile;
    },
    async stop() {
      if (child.exitCode === null && child.connected) child.send('shutdown');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Load

export interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Server process CPU (user + system) per answered request, ms. */
  cpuMs: number;
  failures: number;
  loadAvg: number;
}

export function fire(url: string, body: string, seconds: number, connections: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        connections,
        pipelining: 1,
        duration: seconds,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

export async function measure(peers: Peers<{ type: 'ready' }>, url: string, body: string, opts: Pick<TimedOptions, 'duration' | 'connections'>): Promise<Run> {
  // Collected first, outside the measured CPU time: the run before (another server's) leaves its
  // garbage, which would otherwise be collected on this run's time.
  const before = await peers.cpuMicros(true);
  const r = await fire(url, body, opts.duration, opts.connections);
  const cpu = (await peers.cpuMicros()) - before;
  return {
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    cpuMs: r.requests.total ? cpu / 1000 / r.requests.total : NaN,
    failures: r.errors + r.timeouts + r.non2xx,
    loadAvg: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export function summary(runs: Run[]) {
  return {
    rps: Math.round(mean(runs.map((r) => r.rps))),
    p50: round(mean(runs.map((r) => r.p50)), 1),
    p99: round(mean(runs.map((r) => r.p99)), 1),
    cpuMsPerRequest: round(mean(runs.map((r) => r.cpuMs)), 3),
    failures: runs.reduce((a, r) => a + r.failures, 0),
  };
}

export function printTable(rows: string[][]) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(rows[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows.slice(1)) console.log(line(r));
}

