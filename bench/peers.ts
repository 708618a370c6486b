/**
 * `npm run bench:peers`: this service's /graphql beside fastify + Mercurius and GraphQL Yoga +
 * graphql-jit serving the same schema, resolvers and store in one process (bench/peer-server.ts),
 * as throughput ratios (this / Mercurius, this / Yoga) with p50/p99 latency and server CPU per
 * request; and beside the floor of its own stack (Express 5 and graphql-jit alone), for reference.
 * The answers to each query are compared byte for byte before anything is measured.
 *
 *   npm run bench:peers                    3 rounds of 5 s per server and query, 2 s warm-up
 *   npm run bench:peers -- --quick         1 round of 3 s, 1 s warm-up
 *   npm run bench:peers -- --only single,nested --rounds 5
 *   npm run bench:peers -- --only single --profile single   also a CPU profile of this service on it
 *
 * Options: --duration <s> --rounds <n> --warmup <s> --connections <n> --out <file> --profile <id,...>
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { CpuMessage, PeersReady, ProfileMessage } from './peer-server';
import { readTimedOptions, type TimedOptions } from './options';
import { formatSummary, summarize, type CpuProfile } from './profile';

const SERVERS = ['service', 'mercurius', 'yoga', 'express'] as const;
type ServerName = (typeof SERVERS)[number];
const LABELS: Record<ServerName, string> = { service: 'this', mercurius: 'Mercurius', yoga: 'Yoga', express: 'floor' };

type Options = TimedOptions;

function parseArgs(argv: string[]): Options {
  return readTimedOptions(argv, { rounds: 3, warmup: 2, quickWarmup: 1, out: path.join(__dirname, 'peers-results.json') }).options;
}

interface Query {
  id: string;
  title: string;
  body: string;
}

const QUERIES: Query[] = [
  { id: 'single', title: 'single record', body: JSON.stringify({ query: '{ song(id: 7) { id name artists } }' }) },
  {
    id: 'list',
    title: 'small list with variables',
    body: JSON.stringify({
      query: 'query Songs($limit: Int, $offset: Int) { songs(limit: $limit, offset: $offset) { id name artists } }',
      variables: { limit: 10, offset: 100 },
    }),
  },
  {
    id: 'nested',
    title: 'nested 200 x 5',
    body: JSON.stringify({ query: '{ services { id date serviceType songs { id name artists } } }' }),
  },
];

// ---------------------------------------------------------------------------------------------
// The server process

interface Peers {
  child: ChildProcess;
  ready: PeersReady;
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
  /** The CPU profile of the server process over `during`. */
  profiled(during: () => Promise<unknown>): Promise<CpuProfile>;
}

async function startPeers(): Promise<Peers> {
  const child = fork(path.join(__dirname, 'peer-server.ts'), [], {
    execArgv: ['--require', require.resolve('tsx/cjs')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await new Promise<PeersReady>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the peer bench server did not start within 60 s')), 60_000);
    child.on('message', (msg: PeersReady) => {
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
    cpuMicros: () =>
      new Promise((resolve) => {
        const onMessage = (msg: CpuMessage) => {
          if (msg?.type !== 'cpu') return;
          child.off('message', onMessage);
          resolve(msg.usage.user + msg.usage.system);
        };
        child.on('message', onMessage);
        child.send({ type: 'cpu' });
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
// The check: the same bytes from all three

async function answer(url: string, body: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/**
 * Apollo Server ends every JSON body with a newline (its `prettyJSONStringify`); the peers do not.
 * That newline is the one difference allowed: every other byte must be equal.
 */
const withoutFinalNewline = (text: string) => (text.endsWith('\n') ? text.slice(0, -1) : text);

async function checkSame(ready: PeersReady, q: Query): Promise<number> {
  const answers = await Promise.all(SERVERS.map((s) => answer(ready.urls[s], q.body)));
  const [mine] = answers;
  if (mine.status !== 200 || !mine.text.startsWith('{"data":')) throw new Error(`${q.id}: this service answered ${mine.status} ${mine.text.slice(0, 300)}`);
  for (const [i, other] of answers.entries()) {
    const who = SERVERS[i];
    if (other.status !== 200) throw new Error(`${q.id}: ${who} answered ${other.status} ${other.text.slice(0, 300)}`);
    if (!other.type?.startsWith('application/json')) throw new Error(`${q.id}: ${who} answered Content-Type ${other.type}`);
    if (withoutFinalNewline(other.text) !== withoutFinalNewline(mine.text)) {
      throw new Error(`${q.id}: ${who}'s answer differs from this service's\n${other.text.slice(0, 300)}\n${mine.text.slice(0, 300)}`);
    }
  }
  return Buffer.byteLength(withoutFinalNewline(mine.text));
}

// ---------------------------------------------------------------------------------------------
// Load

interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Server process CPU (user + system) per answered request, ms. */
  cpuMs: number;
  failures: number;
  loadAvg: number;
}

function fire(url: string, body: string, seconds: number, connections: number): Promise<autocannon.Result> {
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

async function measure(peers: Peers, url: string, body: string, opts: Options): Promise<Run> {
  const before = await peers.cpuMicros();
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

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

function summary(runs: Run[]) {
  return {
    rps: Math.round(mean(runs.map((r) => r.rps))),
    p50: round(mean(runs.map((r) => r.p50)), 1),
    p99: round(mean(runs.map((r) => r.p99)), 1),
    cpuMsPerRequest: round(mean(runs.map((r) => r.cpuMs)), 3),
    failures: runs.reduce((a, r) => a + r.failures, 0),
  };
}

function printTable(rows: string[][]) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(rows[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows.slice(1)) console.log(line(r));
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const chosen = opts.only ? QUERIES.filter((q) => opts.only!.includes(q.id)) : QUERIES;
  if (opts.only && chosen.length !== opts.only.length) throw new Error(`--only: have ${QUERIES.map((q) => q.id).join(', ')}`);
  const loadBefore = os.loadavg().map((l) => round(l));
  const peers = await startPeers();
  let exitCode = 0;
  try {
    const bytes: Record<string, number> = {};
    for (const q of chosen) bytes[q.id] = await checkSame(peers.ready, q);
    console.log(`checked: the three servers answer each query with the same bytes (${chosen.map((q) => `${q.id} ${bytes[q.id]} B`).join(', ')})`);
    if (loadBefore[0] > 0.5 * os.cpus().length) console.log(`note: load average ${loadBefore[0]} before starting: rely on the ratios`);
    console.log(`bench:peers: ${opts.rounds} round(s) of ${opts.duration} s per server and query, ${opts.connections} connections, order ${SERVERS.join(' ')} per round`);

    type Summary = ReturnType<typeof summary>;
    type Result = Record<ServerName, Summary> & {
      id: string;
      title: string;
      answerBytes: number;
      /** This service's throughput over each other server's. */
      ratios: Record<ServerName, number>;
      perRoundRatios: Record<ServerName, number[]>;
      runs: Record<ServerName, Run[]>;
    };
    const results: Result[] = [];
    for (const q of chosen) {
      for (const s of SERVERS) await fire(peers.ready.urls[s], q.body, opts.warmup, opts.connections);
      const runs = Object.fromEntries(SERVERS.map((s) => [s, [] as Run[]])) as Record<ServerName, Run[]>;
      for (let i = 0; i < opts.rounds; i++) {
        for (const s of SERVERS) runs[s].push(await measure(peers, peers.ready.urls[s], q.body, opts));
      }
      const rps = (s: ServerName) => mean(runs[s].map((r) => r.rps));
      const others = SERVERS.filter((s) => s !== 'service');
      const result: Result = {
        id: q.id,
        title: q.title,
        answerBytes: bytes[q.id],
        ...(Object.fromEntries(SERVERS.map((s) => [s, summary(runs[s])])) as Record<ServerName, Summary>),
        ratios: Object.fromEntries(others.map((s) => [s, round(rps('service') / rps(s))])) as Record<ServerName, number>,
        perRoundRatios: Object.fromEntries(others.map((s) => [s, runs.service.map((r, i) => round(r.rps / runs[s][i].rps))])) as Record<ServerName, number[]>,
        runs,
      };
      results.push(result);
      console.log(`  ${q.id}: ${others.map((s) => `this/${LABELS[s]} ${result.ratios[s]} (rounds ${result.perRoundRatios[s].join(', ')})`).join('; ')}`);
      if (opts.profile?.includes(q.id)) {
        // One more run of this service alone, profiled (not counted in the figures above).
        const profile = await peers.profiled(() => fire(peers.ready.urls.service, q.body, opts.duration, opts.connections));
        const file = path.join(__dirname, 'profiles', `peers-${q.id}-service.cpuprofile`);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, JSON.stringify(profile));
        console.log(`  ${q.id}: CPU profile of this service written to ${path.relative(process.cwd(), file)}`);
        console.log(formatSummary(summarize(profile, 30)));
      }
    }

    console.log('');
    const all = (r: Result, f: (x: Summary) => number) => SERVERS.map((s) => f(r[s])).join(' | ');
    printTable([
      ['query', 'this/Mercurius', 'this/Yoga', 'this/floor', 'req/s this | Merc | Yoga | floor', 'CPU ms/req', 'p50 ms', 'p99 ms', 'failures'],
      ...results.map((r) => [
        r.title,
        r.ratios.mercurius.toFixed(2),
        r.ratios.yoga.toFixed(2),
        r.ratios.express.toFixed(2),
        all(r, (x) => x.rps),
        all(r, (x) => x.cpuMsPerRequest),
        all(r, (x) => x.p50),
        all(r, (x) => x.p99),
        String(SERVERS.reduce((a, s) => a + r[s].failures, 0)),
      ]),
    ]);
    console.log(
      '\nratio = this service req/s / the other server\'s (mean over rounds); CPU = server process user+system time per answered request;' +
        '\nCPU, p50 and p99 columns: this service | Mercurius | Yoga | floor. floor = Express 5 + its JSON parser + graphql-jit alone (no Apollo, no middleware): a reference, not a peer',
    );

    const failures = results.reduce((a, r) => a + SERVERS.reduce((b, s) => b + r[s].failures, 0), 0);
    if (failures) exitCode = 1;
    const cpus = os.cpus();
    fs.writeFileSync(
      opts.out,
      `${JSON.stringify(
        {
          mode: opts.quick ? 'quick' : 'full',
          date: new Date().toISOString(),
          machine: { cpus: cpus.length, cpuModel: cpus[0]?.model, node: process.version, loadAvgBefore: loadBefore, loadAvgAfter: os.loadavg().map((l) => round(l)) },
          settings: { connections: opts.connections, durationSec: opts.duration, rounds: opts.rounds, warmupSec: opts.warmup, order: SERVERS.join(' ') },
          seed: { ...peers.ready.seed, songIds: undefined },
          results,
          failures,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`wrote ${path.relative(process.cwd(), opts.out)}; ${failures} failed requests`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    exitCode = 1;
  } finally {
    await peers.stop();
  }
  process.exitCode = exitCode;
}

void main();
