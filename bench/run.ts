/**
 * `npm run bench`: how much the GraphQL / SOFA / graphql-shield layers cost, as a ratio to a bare
 * Express route over the same store. See bench/README.md.
 *
 *   npm run bench                      full run: 5 s per measurement, 4 rounds (A B A B A B A B)
 *   npm run bench -- --quick           3 s per measurement, 1 round (under a minute)
 *   npm run bench -- --only songs-by-id,graphql-nested
 *   npm run bench -- --profile graphql-nested     CPU profile of the server during one facade run
 *
 * Options: --duration <s> --rounds <n> --warmup <s> --connections <n> --out <file>
 *          --profile <id,...> [--profile-bare] [--profile-interval <µs>]
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { analyticsBench } from './analytics';
import { benchStores } from './neo4j';
import { positive, readTimedOptions, type TimedOptions } from './options';
import { formatSummary, summarize, type CpuProfile, type ProfileSummary } from './profile';
import { rateLimitBench } from './rate-limit';
import { startServerProcess, type ServerProcess } from './server-process';
import { BENCH_ADMIN, type BenchStats, type ReadyMessage } from './shared';

// ---------------------------------------------------------------------------------------------
// Options

interface Options extends TimedOptions {
  profileBare: boolean;
  profileInterval: number;
}

function parseArgs(argv: string[]): Options {
  // Full: 4 rounds of 5 s rather than 2 of 10 s: the same measured time, but twice the A/B
  // alternations, which cancels bursts of other load on a shared 2-core machine better.
  const { options, values } = readTimedOptions(
    argv,
    { rounds: 4, warmup: 2, quickWarmup: 0.5, out: path.join(__dirname, 'results.json') },
    { 'profile-bare': { type: 'boolean' }, 'profile-interval': { type: 'string' } },
  );
  return { ...options, profileBare: values['profile-bare'] === true, profileInterval: positive(values, 'profile-interval', 250) };
}

// ---------------------------------------------------------------------------------------------
// Scenarios

interface Target {
  method: 'GET' | 'POST';
  /** A fixed path, or a generator (rotating ids). */
  path: string | (() => string);
  headers?: Record<string, string>;
  body?: string;
}

interface Scenario {
  id: string;
  title: string;
  facade: Target;
  bare: Target;
  /** Ratio to bare that the issue asks for (minimum, aim). */
  target?: { min: number; aim?: number };
  /** Response headers that must agree between facade and comparator. */
  sameHeaders: string[];
  /** Requests compared in the check before measuring (rotating targets: several). */
  checks: number;
  /** Turn a body into what must be equal (the write: ids differ by construction). */
  normalize?: (body: unknown) => unknown;
}

const NESTED_QUERY = '{ services { id date serviceType songs { id name artists } } }';

function scenarios(ready: ReadyMessage, token: string): Scenario[] {
  const ids = ready.seed.songIds;
  const rotating = (prefix: string) => {
    let i = 0;
    return () => `${prefix}/${ids[i++ % ids.length]}`;
  };
  const { from, to } = ready.seed.range;
  const json = { 'content-type': 'application/json' };
  const songBody = JSON.stringify({ name: 'Benchmark Song', artists: ['Bench Artist', 'Second Voice'] });
  const withoutId = (b: unknown) => {
    const { id, ...rest } = b as { id: number };
    return { ...rest, idIsPositiveInt: Number.isInteger(id) && id > 0 };
  };
  return [
    {
      id: 'songs-by-id',
      title: 'REST GET /api/v1/songs/:id',
      facade: { method: 'GET', path: rotating('/api/v1/songs') },
      bare: { method: 'GET', path: rotating('/bare/songs') },
      target: { min: 0.5, aim: 0.8 },
      sameHeaders: ['content-type'],
      checks: 5,
    },
    {
      id: 'songs-list',
      title: 'REST GET /api/v1/songs (1,000)',
      facade: { method: 'GET', path: '/api/v1/songs' },
      bare: { method: 'GET', path: '/bare/songs' },
      target: { min: 0.7 },
      sameHeaders: ['content-type', 'x-total-count'],
      checks: 1,
    },
    {
      id: 'services-between',
      title: `REST GET /api/v1/services/byDate/between (${ready.seed.range.expected})`,
      facade: { method: 'GET', path: `/api/v1/services/byDate/between/${from}/${to}` },
      bare: { method: 'GET', path: `/bare/services/byDate/between/${from}/${to}` },
      sameHeaders: ['content-type', 'x-total-count'],
      checks: 1,
    },
    {
      id: 'graphql-nested',
      title: `GraphQL services { songs } (${ready.seed.services}x${ready.seed.links / ready.seed.services})`,
      facade: { method: 'POST', path: '/graphql', headers: json, body: JSON.stringify({ query: NESTED_QUERY }) },
      bare: { method: 'POST', path: '/bare/graphql/services', headers: json, body: JSON.stringify({ query: NESTED_QUERY }) },
      target: { min: 0.5 },
      sameHeaders: ['content-type'],
      checks: 1,
    },
    {
      id: 'songs-create',
      title: 'REST POST /api/v1/songs (admin)',
      facade: { method: 'POST', path: '/api/v1/songs', headers: { ...json, authorization: `Bearer ${token}` }, body: songBody },
      bare: { method: 'POST', path: '/bare/songs', headers: { ...json, authorization: `Bearer ${token}` }, body: songBody },
      sameHeaders: ['content-type'],
      checks: 1,
      normalize: withoutId,
    },
  ];
}

const pathOf = (t: Target) => (typeof t.path === 'string' ? t.path : t.path());
const describe = (t: Target) => `${t.method} ${typeof t.path === 'string' ? t.path : `${t.path().replace(/\/\d+$/, '')}/:id`}`;

// ---------------------------------------------------------------------------------------------
// HTTP helpers

interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

async function call(base: string, t: Target, p = pathOf(t)): Promise<Reply> {
  const res = await fetch(base + p, { method: t.method, headers: t.headers, body: t.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: compared as text */
  }
  return { status: res.status, headers: res.headers, body };
}

async function stats(ready: ReadyMessage): Promise<BenchStats> {
  return (await (await fetch(`${ready.bareUrl}/__bench/stats`)).json()) as BenchStats;
}
async function resetCalls(ready: ReadyMessage): Promise<void> {
  await fetch(`${ready.bareUrl}/__bench/reset`, { method: 'POST' });
}

const sum = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);

/** Store calls made by `n` sequential requests, per request. */
async function callsPerRequest(ready: ReadyMessage, base: string, t: Target, n: number) {
  await resetCalls(ready);
  for (let i = 0; i < n; i++) {
    const r = await call(base, t);
    if (r.status >= 300) throw new Error(`${describe(t)} answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
  const { calls } = await stats(ready);
  const perMethod = Object.fromEntries(Object.entries(calls).map(([k, v]) => [k, v / n]));
  return { total: sum(calls) / n, perMethod };
}

// ---------------------------------------------------------------------------------------------
// Load

interface RunStat {
  rps: number;
  /** Server process CPU (user + system) per answered request, ms: steadier than req/s on a busy machine. */
  cpuMs?: number;
  p50: number;
  p99: number;
  requests: number;
  durationSec: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  /** 1-minute load average of the machine when the run ended (the server and this process add ~2). */
  loadAvg: number;
}

function fire(base: string, t: Target, seconds: number, connections: number): Promise<RunStat> {
  const rotating = typeof t.path !== 'string';
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base + (rotating ? '/' : t.path),
        connections,
        pipelining: 1,
        duration: seconds,
        method: t.method,
        headers: t.headers,
        body: t.body,
        requests: rotating ? [{ setupRequest: (req) => ({ ...req, path: pathOf(t) }) }] : undefined,
      },
      (err, r) => {
        if (err) return reject(err);
        resolve({
          rps: r.requests.total / r.duration,
          p50: r.latency.p50,
          p99: r.latency.p99,
          requests: r.requests.total,
          durationSec: r.duration,
          errors: r.errors,
          timeouts: r.timeouts,
          non2xx: r.non2xx,
          loadAvg: Math.round(os.loadavg()[0] * 100) / 100,
        });
      },
    );
  });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A run with the server's CPU time per answered request (one side is loaded at a time). */
async function withCpu(ready: ReadyMessage, run: () => Promise<RunStat>): Promise<RunStat> {
  const before = (await stats(ready)).cpuMicros;
  const r = await run();
  const used = (await stats(ready)).cpuMicros - before;
  return { ...r, cpuMs: r.requests ? Math.round((used / 1000 / r.requests) * 1000) / 1000 : undefined };
}

function meanOf(runs: RunStat[]) {
  return {
    rps: Math.round(mean(runs.map((r) => r.rps))),
    cpuMs: Math.round(mean(runs.map((r) => r.cpuMs ?? NaN)) * 1000) / 1000,
    p50: Math.round(mean(runs.map((r) => r.p50)) * 10) / 10,
    p99: Math.round(mean(runs.map((r) => r.p99)) * 10) / 10,
  };
}

const failures = (runs: RunStat[]) => ({
  errors: runs.reduce((a, r) => a + r.errors, 0),
  timeouts: runs.reduce((a, r) => a + r.timeouts, 0),
  non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
});

// ---------------------------------------------------------------------------------------------
// Memory of the server process

/** Reset the kernel's peak-RSS mark (VmHWM) of the process; false where that is not permitted. */
function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

function procStatus(pid: number): { rss?: number; hwm?: number } {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => {
      const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
      return m ? Number(m[1]) * 1024 : undefined;
    };
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return {};
  }
}

const mb = (bytes?: number) => (bytes === undefined ? undefined : Math.round(bytes / 1048576));

// ---------------------------------------------------------------------------------------------
// Checks before measuring

function normalizeReply(r: Reply, s: Scenario) {
  return s.normalize && r.status < 300 ? s.normalize(r.body) : r.body;
}

async function checkEqual(ready: ReadyMessage, s: Scenario): Promise<void> {
  for (let i = 0; i < s.checks; i++) {
    const a = await call(ready.facadeUrl, s.facade);
    const b = await call(ready.bareUrl, s.bare);
    const where = `${s.id}: facade ${describe(s.facade)} vs bare ${describe(s.bare)}`;
    if (a.status !== b.status || a.status >= 300) {
      throw new Error(`${where}: status ${a.status} vs ${b.status}\n${JSON.stringify(a.body).slice(0, 500)}`);
    }
    if (!isDeepStrictEqual(normalizeReply(a, s), normalizeReply(b, s))) {
      throw new Error(
        `${where}: bodies differ\nfacade: ${JSON.stringify(a.body).slice(0, 500)}\nbare:   ${JSON.stringify(b.body).slice(0, 500)}`,
      );
    }
    for (const h of s.sameHeaders) {
      if (a.headers.get(h) !== b.headers.get(h)) throw new Error(`${where}: header ${h}: '${a.headers.get(h)}' vs '${b.headers.get(h)}'`);
    }
    if (s.id === 'songs-create') {
      for (const r of [a, b]) {
        const id = (r.body as { id: number }).id;
        if (r.status !== 201 || r.headers.get('location') !== `/api/v1/songs/${id}`) {
          throw new Error(`${where}: expected 201 with Location /api/v1/songs/${id}, got ${r.status} ${r.headers.get('location')}`);
        }
      }
    }
    if (s.id === 'services-between' && (a.body as unknown[]).length !== ready.seed.range.expected) {
      throw new Error(`${where}: expected ${ready.seed.range.expected} services, got ${(a.body as unknown[]).length}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Output

function pad(cells: string[], widths: number[], right: boolean[]) {
  return cells.map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
}

function printTable(rows: string[][], right: boolean[]) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log(pad(rows[0], widths, right));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows.slice(1)) console.log(pad(r, widths, right));
}

// ---------------------------------------------------------------------------------------------
// Main

async function profileRun(opts: Options, server: ServerProcess, all: Scenario[]) {
  const dir = path.join(__dirname, 'profiles');
  fs.mkdirSync(dir, { recursive: true });
  const out: Record<string, { file: string; summary: ProfileSummary; rps: number }> = {};
  for (const id of opts.profile!) {
    const s = all.find((x) => x.id === id);
    if (!s) throw new Error(`--profile: no scenario '${id}' (have ${all.map((x) => x.id).join(', ')})`);
    const sides: Array<['facade' | 'bare', string, Target]> = [['facade', server.ready.facadeUrl, s.facade]];
    if (opts.profileBare) sides.push(['bare', server.ready.bareUrl, s.bare]);
    for (const [side, base, t] of sides) {
      await fire(base, t, opts.warmup, opts.connections);
      await fetch(`${server.ready.bareUrl}/__bench/profile/start?interval=${opts.profileInterval}`, { method: 'POST' });
      const run = await fire(base, t, opts.duration, opts.connections);
      const profile = (await (await fetch(`${server.ready.bareUrl}/__bench/profile/stop`, { method: 'POST' })).json()) as CpuProfile;
      const file = path.join(dir, `${s.id}-${side}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(profile));
      const summary = summarize(profile, 25);
      out[`${s.id}-${side}`] = { file: path.relative(process.cwd(), file), summary, rps: Math.round(run.rps) };
      console.log(`\n=== CPU profile of the server: ${s.id} (${side}), ${Math.round(run.rps)} req/s while profiled`);
      console.log(`  ${path.relative(process.cwd(), file)} (open in Chrome DevTools > Performance, or speedscope)`);
      console.log(formatSummary(summary));
      const f = failures([run]);
      if (f.errors + f.timeouts + f.non2xx) console.log(`  !! failures during profiling: ${JSON.stringify(f)}`);
    }
  }
  fs.writeFileSync(path.join(dir, 'summary.json'), `${JSON.stringify(out, null, 2)}\n`);
}

async function main() {
  // The scale scenario (bench/scale.ts) is its own run: two servers of different sizes.
  if (process.argv.includes('--scale')) {
    const child = fork(path.join(__dirname, 'scale.ts'), process.argv.slice(2).filter((a) => a !== '--scale'), {
      execArgv: ['--require', require.resolve('tsx/cjs')],
    });
    await new Promise<void>((resolve, reject) => child.once('exit', (code) => (code ? reject(new Error(`scale exited ${code}`)) : resolve())));
    return;
  }
  const opts = parseArgs(process.argv.slice(2));
  let exitCode = 0;
  // `analytics` and `rate-limit` name bench/analytics.ts and bench/rate-limit.ts, run after the layer scenarios.
  const separate = ['analytics', 'rate-limit'];
  if (!opts.only || opts.only.some((id) => !separate.includes(id))) {
    // STORE=neo4j: the same scenarios on a Neo4j store too, after SQLite's, in one results file.
    const reports: Record<string, object> = {};
    for (const store of benchStores()) {
      const { code, report } = await layerScenarios(opts, store);
      if (code !== 0) exitCode = 1;
      if (report) reports[store] = report;
    }
    if (reports.sqlite) {
      fs.writeFileSync(opts.out, `${JSON.stringify({ ...reports.sqlite, ...(reports.neo4j ? { neo4j: reports.neo4j } : {}) }, null, 2)}\n`);
      console.log(`\nwrote ${path.relative(process.cwd(), opts.out)}`);
    }
  }
  if (opts.profile) return;
  // Light requests under a heavy load, with the rate limits on and off (bench/rate-limit.ts).
  if (!opts.only || opts.only.includes('rate-limit')) {
    if ((await rateLimitBench(opts.quick ? ['--duration', '5'] : [])) !== 0) exitCode = 1;
  }
  // Analytics latencies (bench/analytics.ts); `npm run bench:analytics` runs them alone.
  if (!opts.only || opts.only.includes('analytics')) {
    if ((await analyticsBench(opts.quick ? ['--runs', '3'] : [])) !== 0) exitCode = 1;
  }
  process.exitCode = exitCode;
}

/**
 * The layer scenarios on one store: each facade request against its bare comparator. The exit
 * code and the report (none when profiling).
 */
async function layerScenarios(opts: Options, store: 'sqlite' | 'neo4j'): Promise<{ code: number; report?: object }> {
  const t0 = Date.now();
  const loadBefore = os.loadavg().map((l) => Math.round(l * 100) / 100);
  // One address drives these scenarios at 32 connections: the rate limits would refuse most of it.
  // They measure the layers; the limits have their own scenario (bench/rate-limit.ts).
  const server = await startServerProcess({ RATE_LIMIT: 'off', BENCH_STORE: store });
  const { ready } = server;
  let exitCode = 0;
  let report: object | undefined;
  try {
    const login = await call(ready.facadeUrl, {
      method: 'POST',
      path: '/api/v1/users/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BENCH_ADMIN),
    });
    if (login.status !== 200) throw new Error(`admin login failed: ${login.status} ${JSON.stringify(login.body)}`);
    const token = (login.body as { token: string }).token;

    const all = scenarios(ready, token);
    if (opts.profile) {
      await profileRun(opts, server, all);
      return { code: exitCode };
    }
    const only = opts.only?.filter((id) => id !== 'analytics' && id !== 'rate-limit');
    const chosen = only ? all.filter((s) => only.includes(s.id)) : all;
    if (only && chosen.length !== only.length) {
      throw new Error(`--only: unknown scenario; have ${all.map((s) => s.id).join(', ')}`);
    }

    if (loadBefore[0] > 0.5 * os.cpus().length) {
      console.log(`note: load average ${loadBefore[0]} before starting: other processes compete for the CPUs; rely on the ratios`);
    }
    console.log(
      `bench on ${store}: ${opts.quick ? 'quick' : 'full'} run, ${opts.connections} connections, ${opts.duration} s per run, ` +
        `${opts.rounds} round(s) A/B interleaved, ${opts.warmup} s warm-up; server pid ${ready.pid} ` +
        `(${ready.seed.songs} songs, ${ready.seed.services} services, ${ready.seed.links} links, seeded in ${ready.seed.ms} ms)`,
    );

    // Every comparator must answer what its facade answers, and how many store calls each makes.
    const storeCalls: Record<string, { facade: Awaited<ReturnType<typeof callsPerRequest>>; bare: Awaited<ReturnType<typeof callsPerRequest>> }> = {};
    for (const s of chosen) {
      await checkEqual(ready, s);
      storeCalls[s.id] = {
        facade: await callsPerRequest(ready, ready.facadeUrl, s.facade, 5),
        bare: await callsPerRequest(ready, ready.bareUrl, s.bare, 5),
      };
    }
    console.log(`checked: every comparator's response equals its facade's (${chosen.map((s) => s.id).join(', ')})`);

    // Store calls of the nested query must not grow with the number of services.
    const nestedGrowth: Array<{ services: number; storeCalls: number; perMethod: Record<string, number> }> = [];
    for (const limit of [1, 10, 50, ready.seed.services]) {
      const t: Target = {
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ services(limit: ${limit}) { id date serviceType songs { id name artists } } }` }),
      };
      const c = await callsPerRequest(ready, ready.facadeUrl, t, 5);
      nestedGrowth.push({ services: limit, storeCalls: c.total, perMethod: c.perMethod });
    }
    console.log(`nested GraphQL store calls per request by number of services: ${nestedGrowth.map((g) => `${g.services}: ${g.storeCalls}`).join(', ')}`);

    const peakResettable = resetPeak(ready.pid);
    const results = [];
    for (const s of chosen) {
      resetPeak(ready.pid);
      const warm = [await fire(ready.facadeUrl, s.facade, opts.warmup, opts.connections), await fire(ready.bareUrl, s.bare, opts.warmup, opts.connections)];
      const facadeRuns: RunStat[] = [];
      const bareRuns: RunStat[] = [];
      for (let round = 0; round < opts.rounds; round++) {
        facadeRuns.push(await withCpu(ready, () => fire(ready.facadeUrl, s.facade, opts.duration, opts.connections)));
        bareRuns.push(await withCpu(ready, () => fire(ready.bareUrl, s.bare, opts.duration, opts.connections)));
      }
      const facade = meanOf(facadeRuns);
      const bare = meanOf(bareRuns);
      const ratio = Math.round((facade.rps / bare.rps) * 100) / 100;
      const perRoundRatios = facadeRuns.map((f, i) => Math.round((f.rps / bareRuns[i].rps) * 100) / 100);
      const mem = procStatus(ready.pid);
      const fails = { facade: failures(facadeRuns), bare: failures(bareRuns), warmup: failures(warm) };
      const errorCount = [fails.facade, fails.bare, fails.warmup].reduce((a, f) => a + f.errors + f.timeouts + f.non2xx, 0);
      const verdict = s.target ? (ratio >= (s.target.aim ?? s.target.min) ? 'aim met' : ratio >= s.target.min ? 'met' : 'MISSED') : '';
      results.push({
        id: s.id,
        title: s.title,
        facadeRequest: describe(s.facade),
        bareRequest: describe(s.bare),
        facade,
        bare,
        ratio,
        perRoundRatios,
        target: s.target ? { ...s.target, verdict } : undefined,
        errors: errorCount,
        failures: fails,
        storeCallsPerRequest: { facade: storeCalls[s.id].facade, bare: storeCalls[s.id].bare },
        serverPeakRssMB: mb(mem.hwm),
        runs: { facade: facadeRuns, bare: bareRuns },
      });
      console.log(
        `  ${s.id}: facade ${facade.rps} req/s, bare ${bare.rps} req/s, ratio ${ratio} (rounds ${perRoundRatios.join(', ')}), errors ${errorCount}`,
      );
    }
    const finalMem = await stats(ready);

    console.log('');
    const rows = [
      ['scenario', 'facade req/s', 'bare req/s', 'ratio', 'rounds min-max', 'target', 'CPU ms/req f/b', 'facade p50/p99 ms', 'bare p50/p99 ms', 'errors', 'store calls/req f/b', 'peak RSS MB'],
      ...results.map((r) => [
        r.title,
        String(r.facade.rps),
        String(r.bare.rps),
        r.ratio.toFixed(2),
        `${Math.min(...r.perRoundRatios).toFixed(2)}-${Math.max(...r.perRoundRatios).toFixed(2)}`,
        r.target ? `>=${r.target.min}${r.target.aim ? ` (${r.target.aim})` : ''} ${r.target.verdict}` : '-',
        `${r.facade.cpuMs}/${r.bare.cpuMs}`,
        `${r.facade.p50}/${r.facade.p99}`,
        `${r.bare.p50}/${r.bare.p99}`,
        String(r.errors),
        `${r.storeCallsPerRequest.facade.total}/${r.storeCallsPerRequest.bare.total}`,
        String(r.serverPeakRssMB ?? '?'),
      ]),
    ];
    printTable(rows, [false, true, true, true, true, false, true, true, true, true, true, true]);
    console.log(
      `\nratio = facade req/s / bare req/s (mean of ${opts.rounds} interleaved round(s)); higher is better, 1.0 = the layers cost nothing.` +
        `\nCPU ms/req = the server process's user + system time per answered request, facade / bare: less moved by other load than req/s.` +
        `\nnested GraphQL store calls/request by services returned: ${nestedGrowth.map((g) => `${g.services} -> ${g.storeCalls}`).join(', ')}` +
        `\nserver peak RSS: ${mb(finalMem.maxRss)} MB over the whole run (peak RSS MB column: per scenario${peakResettable ? '' : ', cumulative: VmHWM could not be reset'})`,
    );

    const totalErrors = results.reduce((a, r) => a + r.errors, 0);
    const cpus = os.cpus();
    report = {
      store,
      mode: opts.quick ? 'quick' : 'full',
      date: new Date().toISOString(),
      machine: {
        cpus: cpus.length,
        cpuModel: cpus[0]?.model,
        totalMemMB: mb(os.totalmem()),
        platform: `${os.platform()} ${os.release()} ${os.arch()}`,
        node: process.version,
        /** 1/5/15-minute load averages before the bench started: anything else competing for the CPUs. */
        loadAvgBefore: loadBefore,
        loadAvgAfter: os.loadavg().map((l) => Math.round(l * 100) / 100),
      },
      settings: {
        connections: opts.connections,
        durationSec: opts.duration,
        rounds: opts.rounds,
        warmupSec: opts.warmup,
        order: 'A B A B (facade, bare, per round)',
        loadGenerator: 'autocannon (this process); server in a child process',
      },
      seed: { ...ready.seed, songIds: undefined },
      serverStartupMs: ready.startupMs,
      scenarios: results,
      nestedGraphQLStoreCalls: nestedGrowth,
      server: { peakRssMB: mb(finalMem.maxRss), rssAtEndMB: mb(finalMem.rss), perScenarioPeak: peakResettable },
      totalErrors,
      totalSec: Math.round((Date.now() - t0) / 100) / 10,
    };
    console.log(`\n${store}: ${Math.round((Date.now() - t0) / 100) / 10} s total; ${totalErrors} errors`);
    if (totalErrors > 0) exitCode = 1;
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    exitCode = 1;
  } finally {
    const code = await server.stop();
    if (code !== 0 && code !== null) console.error(`bench server exited with code ${code}`);
  }
  return { code: exitCode, report };
}

void main();
