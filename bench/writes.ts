/**
 * `npm run bench:writes`: what a setlist write costs through the Store API, on SQLite and on Neo4j,
 * as the history grows, and under concurrent writers; then whether the maintained aggregates still
 * equal a recount.
 *
 * The histories are bench:analytics's (bench/analytics.ts, HISTORIES and snapshotOf):
 *
 *   10y   1,000 songs, 1,560 services       (~9,400 links)
 *   100y  1,000 songs, 15,600 services      (~94,000 links)
 *   1m    20,000 songs, 166,667 services    (1,000,000 links)
 *
 * SQLite: a copy of bench:analytics's cached file (generated through importSnapshot once, in
 * $BENCH_ANALYTICS_DIR or the OS temp dir), opened with the adapter. Neo4j: a new local Neo4j 5.26
 * per history (or NEO4J_URI, wiped), the snapshot loaded in parts through importSnapshot
 * (bench/neo4j.ts, loadNeo4j), then the adapter opened with connectNeo4j at the service's defaults.
 * SQLite's histories are open side by side (sideBySide): their single writes are taken in turns,
 * so a growth ratio compares histories in the same minutes, not two minutes of a drifting machine.
 * Neo4j's servers run one at a time (neo4jHistories says why), each restarted after its import.
 *
 * Per store and history, in one process:
 *  1. single-writer latencies, each on a new service (SUN_AM, dated in the history's last year),
 *     after the warm-up (warmUp, below) and a few more runs: linkSong of the most sung song;
 *     replaceSetlist with the 6 most sung; replaceSetlist([]) of that setlist; linkSong of a rarely sung song (one of the least sung,
 *     a different one each time, so each stays rare). Median, p90, max; the growth of each median
 *     from 10y to 100y and to 1m.
 *  2. on 10y: `--writers` writers, each on its own new service, for `--seconds`, each replacing its
 *     setlist with 6 songs drawn (seeded) from the 30 most sung: writes/s, p50, p99, errors. Then
 *     the all-time usage, artist and sung-with analytics and the last year's YEAR and MONTH
 *     timelines against the reference recount (test/helpers/analytics-reference.ts) of the store's
 *     own snapshot.
 *  3. each history's import: Neo4j's time and size on disk, the SQLite file's size.
 *
 * Exit code 1 when a write failed (a rejected promise or a result other than 'ok'), a store did
 * not run, or an aggregate differs from the recount. The targets are printed, not enforced.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { localNeo4jMissing } from '../scripts/neo4j-local';
import { bucketsBetween } from '../src/domain/analytics/buckets';
import { SERVICE_TYPES } from '../src/domain/analytics/window';
import type { ServiceType, TimelineBucket } from '../src/generated/graphql';
import type { AnalyticsWindow } from '../src/store/analytics-types';
import { connectNeo4j } from '../src/store/neo4j/connect';
import { SqliteStore } from '../src/store/sqlite/store';
import type { Snapshot, Store } from '../src/store/types';
import { Reference } from '../test/helpers/analytics-reference';
import { HISTORIES, boundsOf, database, generatedMs, snapshotOf, type History } from './analytics';
import { benchNeo4j, loadNeo4j, type BenchNeo4j } from './neo4j';
import { positive } from './options';
import { prng } from './seed';
import { expectSlotFree } from '../src/store/types';

type StoreName = 'sqlite' | 'neo4j';
type OpId = 'linkTop' | 'replace6' | 'clear' | 'linkRare';

const OPS: { id: OpId; label: string }[] = [
  { id: 'linkTop', label: 'linkSong(most sung)' },
  { id: 'replace6', label: 'replaceSetlist(6 most sung)' },
  { id: 'clear', label: 'replaceSetlist([]) (clear those 6)' },
  { id: 'linkRare', label: 'linkSong(rarely sung)' },
];

const TARGETS = {
  neo4jSingleMedianMs: 25,
  growth1m: 1.3,
  writesPerSecond: 150,
  p99Ms: 300,
  neo4jImport1mS: 240,
};

const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------
// Options

export interface WritesOptions {
  runs: number;
  /** SQLite's single-writer runs: its medians are under a millisecond, where 30 runs are noise. */
  sqliteRuns: number;
  warmup: number;
  /** Seconds of the writers' workload, untimed, before anything is measured on a store. */
  warmupSeconds: number;
  writers: number;
  seconds: number;
  quick: boolean;
  no1m: boolean;
  sqliteOnly: boolean;
  out: string;
}

export function readWritesOptions(argv: string[]): WritesOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      runs: { type: 'string' },
      'sqlite-runs': { type: 'string' },
      warmup: { type: 'string' },
      'warmup-seconds': { type: 'string' },
      writers: { type: 'string' },
      seconds: { type: 'string' },
      quick: { type: 'boolean' },
      'no-1m': { type: 'boolean' },
      'sqlite-only': { type: 'boolean' },
      out: { type: 'string' },
    },
  });
  const quick = values.quick === true;
  const whole = (name: string, fallback: number) => {
    const n = positive(values, name, fallback);
    if (!Number.isInteger(n)) throw new Error(`--${name} needs a whole number`);
    return n;
  };
  return {
    runs: whole('runs', quick ? 10 : 30),
    sqliteRuns: whole('sqlite-runs', quick ? 100 : 300),
    warmup: whole('warmup', quick ? 2 : 3),
    warmupSeconds: positive(values, 'warmup-seconds', quick ? 3 : WARMUP_SECONDS),
    writers: whole('writers', 8),
    seconds: positive(values, 'seconds', quick ? 5 : 15),
    quick,
    no1m: values['no-1m'] === true,
    sqliteOnly: values['sqlite-only'] === true,
    out: path.resolve(typeof values.out === 'string' ? values.out : path.join(__dirname, 'writes-results.json')),
  };
}

// ---------------------------------------------------------------------------------------------
// Figures

const round1 = (x: number) => Math.round(x * 10) / 10;
/** Latencies keep hundredths: SQLite's are fractions of a millisecond. */
const round2 = (x: number) => Math.round(x * 100) / 100;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile. */
function percentile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

interface Latency {
  runs: number;
  medianMs: number | null;
  p90Ms: number | null;
  maxMs: number | null;
  /** Every timed run, in order, ms. */
  samplesMs: number[];
}

const summarise = (xs: number[]): Latency => ({
  runs: xs.length,
  medianMs: xs.length ? round2(median(xs)) : null,
  p90Ms: xs.length ? round2(percentile(xs, 0.9)) : null,
  maxMs: xs.length ? round2(Math.max(...xs)) : null,
  samplesMs: xs.map(round2),
});

/** Failed writes: how many, and each distinct message with its count. */
class Errors {
  count = 0;
  readonly messages = new Map<string, number>();
  add(what: string, err: unknown) {
    this.count++;
    const m = `${what}: ${err instanceof Error ? err.message : String(err)}`.replace(/\s+/g, ' ').slice(0, 300);
    this.messages.set(m, (this.messages.get(m) ?? 0) + 1);
  }
  toJSON() {
    return { count: this.count, messages: [...this.messages].map(([message, count]) => ({ message, count })) };
  }
}

/** A write's result: 'ok', or anything else is a failed write. */
async function write(what: string, errors: Errors, fn: () => Promise<unknown>): Promise<number | null> {
  const t = performance.now();
  try {
    const result = await fn();
    const ms = performance.now() - t;
    if (result !== 'ok') {
      errors.add(what, new Error(`answered ${JSON.stringify(result)}`));
      return null;
    }
    return ms;
  } catch (err) {
    errors.add(what, err);
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// What each history is asked

interface Picks {
  /** Songs by links, most first (ties by id). */
  top: number[];
  topLinks: number[];
  /** Least sung songs with at least one link, least first: one per rare-song run. */
  rare: number[];
  rareLinks: number[];
  links: number;
  /** The history's last year, where the new services go. */
  yearFromMs: number;
  yearToMs: number;
}

export function picksOf(h: History, snapshot: Snapshot, wanted: number): Picks {
  const counts = new Map<number, number>();
  for (const l of snapshot.links) counts.set(l.songId, (counts.get(l.songId) ?? 0) + 1);
  const sung = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const rare = [...counts].sort((a, b) => a[1] - b[1] || a[0] - b[0]).slice(0, wanted);
  const w = boundsOf(h);
  return {
    top: sung.slice(0, 30).map(([id]) => id),
    topLinks: sung.slice(0, 30).map(([, n]) => n),
    rare: rare.map(([id]) => id),
    rareLinks: rare.map(([, n]) => n),
    links: snapshot.links.length,
    yearFromMs: w.fromMs,
    yearToMs: w.toMs,
  };
}

/** New services' dates: spread over the history's last year, a week apart, 10:00 UTC. */
/**
 * Dates for new services in the year after the history, a week apart, never one twice in a run:
 * every dater draws from one sequence (after 52 weeks, a minute later), since a store holds one
 * service per date and type and the warm-ups, single writes and writers all make new services.
 */
let servicesDated = 0;
function dater(p: Picks) {
  return () => {
    const i = servicesDated++;
    return p.yearFromMs + ((i * 7 + 3) % 364) * DAY_MS + 10 * 3_600_000 + Math.floor(i / 52) * 60_000;
  };
}

// ---------------------------------------------------------------------------------------------
// 1. Single-writer latencies

type Kind = 'linkTop' | 'replaceClear' | 'linkRare';
const KINDS: Kind[] = ['linkTop', 'replaceClear', 'linkRare'];

/** One store's single-writer runs, one at a time (run), and their summary (result). */
function singleWriter(store: Store, p: Picks, o: WritesOptions, errors: Errors) {
  const nextDate = dater(p);
  const newService = async () => (expectSlotFree(await store.createService({ date: nextDate(), serviceType: 'SUN_AM' }))).id;
  const top6 = p.top.slice(0, 6);
  const times: Record<OpId, number[]> = { linkTop: [], replace6: [], clear: [], linkRare: [] };
  const keep = (op: OpId, i: number, ms: number | null) => {
    if (ms !== null && i >= o.warmup) times[op].push(ms);
  };
  const runs: Record<Kind, (id: number, i: number) => Promise<void>> = {
    linkTop: async (id, i) => keep('linkTop', i, await write('linkSong(most sung)', errors, () => store.linkSong(id, p.top[0]))),
    replaceClear: async (id, i) => {
      keep('replace6', i, await write('replaceSetlist(6)', errors, () => store.replaceSetlist(id, top6)));
      keep('clear', i, await write('replaceSetlist([])', errors, () => store.replaceSetlist(id, [])));
    },
    linkRare: async (id, i) => {
      const song = p.rare[i % p.rare.length];
      keep('linkRare', i, await write('linkSong(rarely sung)', errors, () => store.linkSong(id, song)));
    },
  };
  return {
    /** Run `i` of one kind, on a new service. */
    async run(kind: Kind, i: number) {
      try {
        await runs[kind](await newService(), i);
      } catch (err) {
        errors.add('createService', err); // the write itself reports its own failures
      }
    },
    result: (): Record<OpId, Latency> => ({
      linkTop: summarise(times.linkTop),
      replace6: summarise(times.replace6),
      clear: summarise(times.clear),
      linkRare: summarise(times.linkRare),
    }),
  };
}

/**
 * Single-writer runs on several stores, taken in turns: run i of a kind on each store before run
 * i + 1 on any. SQLite's writes take about a millisecond, and this machine's speed drifts by
 * 30-40% between minutes (the same 1m file measured 1.19 and 1.68 ms a run apart): histories
 * measured one after the other compared those minutes, not the histories.
 */
async function singleWriters(writers: ReturnType<typeof singleWriter>[], total: number) {
  for (const kind of KINDS) {
    for (let i = 0; i < total; i++) for (const w of writers) await w.run(kind, i);
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Concurrent writers

interface Storm {
  writers: number;
  seconds: number;
  writes: number;
  elapsedS: number;
  writesPerSecond: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  errors: ReturnType<Errors['toJSON']>;
}

async function storm(store: Store, p: Picks, o: WritesOptions, errors: Errors): Promise<Storm> {
  const nextDate = dater(p);
  const services: number[] = [];
  for (let w = 0; w < o.writers; w++) services.push((expectSlotFree(await store.createService({ date: nextDate(), serviceType: 'SUN_AM' }))).id);
  const pool = p.top.slice(0, 30);
  const mine = new Errors();
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + o.seconds * 1000;
  await Promise.all(
    services.map(async (serviceId, w) => {
      const rand = prng(4242 + w);
      while (performance.now() < deadline) {
        const songs = [...pool];
        for (let i = 0; i < 6; i++) {
          const j = i + Math.floor(rand() * (songs.length - i));
          [songs[i], songs[j]] = [songs[j], songs[i]];
        }
        const ms = await write('replaceSetlist (8 writers)', mine, () => store.replaceSetlist(serviceId, songs.slice(0, 6)));
        if (ms !== null) latencies.push(ms);
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  errors.count += mine.count;
  for (const [m, n] of mine.messages) errors.messages.set(m, (errors.messages.get(m) ?? 0) + n);
  return {
    writers: o.writers,
    seconds: o.seconds,
    writes: latencies.length,
    elapsedS: Math.round(elapsedS * 100) / 100,
    writesPerSecond: round1(latencies.length / elapsedS),
    p50Ms: latencies.length ? round1(percentile(latencies, 0.5)) : null,
    p99Ms: latencies.length ? round1(percentile(latencies, 0.99)) : null,
    maxMs: latencies.length ? round1(Math.max(...latencies)) : null,
    errors: mine.toJSON(),
  };
}

// ---------------------------------------------------------------------------------------------
// The maintained aggregates against a recount

/** The first difference between two answers (undefined properties count as absent), or null. */
export function firstDifference(got: unknown, want: unknown, at = ''): string | null {
  const show = (x: unknown) => (JSON.stringify(x) ?? 'undefined').slice(0, 300);
  const differ = () => `${at || '(answer)'}: store ${show(got)}, recount ${show(want)}`;
  if (typeof got === 'number' && typeof want === 'number') {
    if (got === want) return null;
    // A ratio (jaccard) computed in another order may differ in its last bit.
    const tolerance = 1e-12 * Math.max(Math.abs(got), Math.abs(want));
    return Number.isInteger(want) || Math.abs(got - want) > tolerance ? differ() : null;
  }
  if (got === null || want === null || typeof got !== 'object' || typeof want !== 'object') return Object.is(got, want) ? null : differ();
  if (Array.isArray(got) !== Array.isArray(want)) return differ();
  if (Array.isArray(got) && Array.isArray(want)) {
    for (let i = 0; i < Math.min(got.length, want.length); i++) {
      const d = firstDifference(got[i], want[i], `${at}[${i}]`);
      if (d) return d;
    }
    return got.length === want.length ? null : `${at || '(answer)'}: store has ${got.length} rows, recount ${want.length}`;
  }
  const g = got as Record<string, unknown>;
  const w = want as Record<string, unknown>;
  const keys = new Set([...Object.keys(g), ...Object.keys(w)].filter((k) => g[k] !== undefined || w[k] !== undefined));
  for (const k of keys) {
    const d = firstDifference(g[k], w[k], `${at}.${k}`);
    if (d) return d;
  }
  return null;
}

interface Recount {
  equal: boolean;
  /** Each answer compared. */
  compared: number;
  firstDifference: string | null;
  ms: number;
}

const TYPE_SETS: ServiceType[][] = [[...SERVICE_TYPES], ['SUN_AM'], ['SUN_PM', 'WED']];

export async function recount(store: Store, p: Picks): Promise<Recount> {
  const started = Date.now();
  const ref = new Reference(await store.exportSnapshot());
  let compared = 0;
  let first: string | null = null;
  const compare = (what: string, got: unknown, want: unknown) => {
    compared++;
    if (first) return;
    const d = firstDifference(got, want);
    if (d) first = `${what}: ${d}`;
  };
  for (const serviceTypes of TYPE_SETS) {
    const all: AnalyticsWindow = { from: null, to: null, serviceTypes };
    const types = `[${serviceTypes.join(',')}]`;
    const q = { window: all, sort: 'TIMES_SUNG' as const, includeUnsung: true };
    compare(`songUsage all-time ${types}`, await store.songUsage(q), ref.songUsage(q));
    compare(`artistUsage all-time ${types}`, await store.artistUsage(all, {}), ref.artistUsage(all, {}));
    for (const id of p.top) {
      compare(`songsSungWith(${id}) all-time ${types}`, await store.songsSungWith(id, all, 20), ref.songsSungWith(id, all, 20));
    }
    const lastYear: AnalyticsWindow = { from: p.yearFromMs, to: p.yearToMs, serviceTypes };
    for (const bucket of ['YEAR', 'MONTH'] as TimelineBucket[]) {
      const buckets = bucketsBetween(p.yearFromMs, p.yearToMs, bucket, 'UTC');
      for (const songId of [null, p.top[0]]) {
        compare(
          `usageTimeline ${bucket} last year ${types} song ${songId ?? 'all'}`,
          await store.usageTimeline(buckets, lastYear, songId),
          ref.usageTimeline(buckets, lastYear, songId),
        );
      }
    }
  }
  return { equal: first === null, compared, firstDifference: first, ms: Date.now() - started };
}

// ---------------------------------------------------------------------------------------------
// Per store and history

interface HistoryResult {
  history: History['id'];
  loadAvgAtStart: number[];
  latency?: Record<OpId, Latency>;
  storm?: Storm;
  recount?: Recount;
  /** SQLite: the file as imported (importMs when generated in this run). Neo4j: import wall time, parts, du at stop. */
  load: { importMs: number | null; parts?: number; diskBytes: number | null };
  errors: ReturnType<Errors['toJSON']>;
  /** Why this store did not run this history, when it did not. */
  failed?: string;
}

/** The 10y history's concurrent writers, then the aggregates against a recount. */
async function stormAndRecount(store: Store, h: History, p: Picks, o: WritesOptions, out: HistoryResult, errors: Errors, label: string) {
  console.log(`  ${label} ${h.id}: ${o.writers} writers for ${o.seconds} s`);
  out.storm = await storm(store, p, o, errors);
  console.log(`  ${label} ${h.id}: ${out.storm.writes} writes, ${out.storm.writesPerSecond}/s, ${out.storm.errors.count} errors; recounting`);
  out.recount = await recount(store, p);
  console.log(`  ${label} ${h.id}: aggregates equal a recount: ${out.recount.equal ? 'yes' : `NO (${out.recount.firstDifference})`}`);
}

/**
 * Each warm-up workload's length in a full run. A Neo4j restarted on its data (neo4jHistories)
 * starts with an empty JIT: after 10 s of each it answered the 10y replaceSetlist(6) in 28.3 ms
 * (median) and 8 writers at 132.6/s; after 40 s of each, in 19.2 ms and at 156.2/s (two runs on
 * 28 November 2026, bench/writes-results.json has the latest).
 */
const WARMUP_SECONDS = 40;

/**
 * A server runs for days: what is measured is its steady state, after its JIT compiled the write
 * path and its plan cache holds the statements. Both workloads are warmed: the writers' batches
 * for `--warmup-seconds`, then single writes (each kind in turn, untimed) for as long again. A
 * Neo4j warmed by the writers alone answered a single replaceSetlist(6) in 29.7 ms (median of 60)
 * after 10 single writes, 15.5 ms after 400: its per-transaction path had not been compiled yet.
 */
async function warmUp(store: Store, h: History, p: Picks, o: WritesOptions, errors: Errors, label: string) {
  console.log(`  ${label} ${h.id}: warming up (${o.writers} writers, then single writes, ${o.warmupSeconds} s each, untimed)`);
  await storm(store, p, { ...o, seconds: o.warmupSeconds }, errors);
  const untimed = singleWriter(store, p, { ...o, warmup: Number.MAX_SAFE_INTEGER }, errors);
  const deadline = performance.now() + o.warmupSeconds * 1000;
  for (let i = 0; performance.now() < deadline; i++) await untimed.run(KINDS[i % KINDS.length], i);
}

/** A history open on a store, while it is measured. */
interface Open {
  h: History;
  p: Picks;
  out: HistoryResult;
  errors: Errors;
  store?: Store;
}

const newResult = (h: History): HistoryResult => ({ history: h.id, loadAvgAtStart: os.loadavg(), load: { importMs: null, diskBytes: null }, errors: { count: 0, messages: [] } });

/**
 * Histories open side by side on one kind of store: each warmed up, then their single-writer runs
 * taken in turns (singleWriters), then the 10y history's writers and recount.
 */
async function sideBySide(open: Open[], o: WritesOptions, runs: number, label: string) {
  for (const x of open) await warmUp(x.store!, x.h, x.p, o, x.errors, label);
  console.log(`  ${label} ${open.map((x) => x.h.id).join(', ')}: single-writer latencies, in turns (${o.warmup} warm-ups + ${runs} runs of each)`);
  const writers = open.map((x) => singleWriter(x.store!, x.p, o, x.errors));
  await singleWriters(writers, o.warmup + runs);
  open.forEach((x, k) => (x.out.latency = writers[k].result()));
  for (const x of open) if (x.h.id === '10y') await stormAndRecount(x.store!, x.h, x.p, o, x.out, x.errors, label);
}

const resultsOf = (open: Open[]) => {
  const results: Partial<Record<History['id'], HistoryResult>> = {};
  for (const x of open) {
    x.out.errors = x.errors.toJSON();
    results[x.h.id] = x.out;
  }
  return results;
};

/** SQLite: a copy of each history's cached file, all open at once. */
async function sqliteHistories(histories: History[], picks: Record<string, Picks>, o: WritesOptions, work: string) {
  const open: (Open & { file: string })[] = [];
  try {
    for (const h of histories) {
      const out = newResult(h);
      const cached = await database(h, process.env.BENCH_ANALYTICS_DIR ?? os.tmpdir());
      out.load = { importMs: generatedMs[h.id] ?? null, diskBytes: fs.statSync(cached).size };
      // A copy: the writes must not change bench:analytics's cached history.
      const file = path.join(work, `writes-${h.id}.db`);
      fs.copyFileSync(cached, file);
      const x: (typeof open)[number] = { h, p: picks[h.id], out, errors: new Errors(), file };
      open.push(x);
      x.store = new SqliteStore(file);
    }
    // The copies written back before anything is measured.
    execFileSync('sync');
    await sideBySide(open, o, o.sqliteRuns, 'SQLite');
  } finally {
    for (const x of open) {
      await x.store?.close();
      for (const ext of ['', '-wal', '-shm']) fs.rmSync(`${x.file}${ext}`, { force: true });
    }
  }
  return resultsOf(open);
}

/**
 * Neo4j: a local server per history (or NEO4J_URI, wiped for each), one after the other, each
 * alone on the machine. Three servers side by side, measured in turns as SQLite's files are, answered
 * the 10y history's writes in 31 ms (median) where it alone answered them in 10-13: two idle JVMs
 * (their collectors, a checkpoint after a bulk load) take the CPU of a 2-core machine. A local
 * server is restarted after its import and before it is measured: what is measured is a server in
 * its steady state, not one whose heap and page cache still hold the bulk load's transactions.
 */
async function neo4jHistories(histories: History[], picks: Record<string, Picks>, o: WritesOptions) {
  const results: Partial<Record<History['id'], HistoryResult>> = {};
  for (const h of histories) {
    const x: Open & { server?: BenchNeo4j } = { h, p: picks[h.id], out: newResult(h), errors: new Errors() };
    try {
      x.server = await benchNeo4j();
      console.log(`  Neo4j ${h.id}: ${x.server.source}; importing...`);
      const loaded = await loadNeo4j(x.server, snapshotOf(h));
      x.out.load = { importMs: loaded.importMs, parts: loaded.parts, diskBytes: null };
      console.log(`  Neo4j ${h.id}: imported in ${(loaded.importMs / 1000).toFixed(1)} s (${loaded.parts} parts)`);
      if (await x.server.restart()) console.log(`  Neo4j ${h.id}: restarted on its data`);
      // As the service opens it (src/store/index.ts): its default timeouts and pool.
      x.store = await connectNeo4j(
        { uri: x.server.uri, user: x.server.user, password: x.server.password, database: x.server.database },
        { info: () => undefined, warn: (m) => console.log(`  neo4j: ${m}`) },
      );
      await sideBySide([x], o, o.runs, 'Neo4j');
    } catch (err) {
      x.out.failed = (err as Error).message.slice(0, 500);
      console.log(`  Neo4j ${h.id}: FAILED ${x.out.failed}`);
    } finally {
      await x.store?.close();
      if (x.server) x.out.load.diskBytes = (await x.server.stop()).diskBytes;
    }
    Object.assign(results, resultsOf([x]));
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Report

const pad = (table: string[][]) => {
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  for (const row of table) console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
};

const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || b === null || b === undefined || b === 0 ? null : Math.round((a / b) * 100) / 100;

type Results = Partial<Record<StoreName, Partial<Record<History['id'], HistoryResult>>>>;

function growthOf(r: Partial<Record<History['id'], HistoryResult>>) {
  const g: Record<string, { '100y/10y': number | null; '1m/10y': number | null }> = {};
  for (const { id } of OPS) {
    const m = (h: History['id']) => r[h]?.latency?.[id].medianMs;
    g[id] = { '100y/10y': ratio(m('100y'), m('10y')), '1m/10y': ratio(m('1m'), m('10y')) };
  }
  return g;
}

function printTables(results: Results, histories: History[], o: WritesOptions) {
  console.log(`\nSingle writer, ms: median / p90 / max of ${o.sqliteRuns} (SQLite) and ${o.runs} (Neo4j) runs after ${o.warmup} warm-ups, each on a new service`);
  const head = ['store  operation', ...histories.map((h) => h.id), 'growth 100y/10y', 'growth 1m/10y'];
  const rows = [head];
  for (const [store, r] of Object.entries(results) as [StoreName, Partial<Record<History['id'], HistoryResult>>][]) {
    const g = growthOf(r);
    for (const { id, label } of OPS) {
      rows.push([
        `${store.padEnd(6)} ${label}`,
        ...histories.map((h) => {
          const l = r[h.id]?.latency?.[id];
          return l ? `${l.medianMs ?? '-'} / ${l.p90Ms ?? '-'} / ${l.maxMs ?? '-'}` : '-';
        }),
        g[id]['100y/10y'] === null ? '-' : `${g[id]['100y/10y']}x`,
        g[id]['1m/10y'] === null ? '-' : `${g[id]['1m/10y']}x`,
      ]);
    }
  }
  pad(rows);

  console.log(`\nConcurrent writers on 10y: ${o.writers} writers, ${o.seconds} s, replaceSetlist with 6 of the 30 most sung`);
  const c = [['store', 'writes', 'writes/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'aggregates = recount']];
  for (const [store, r] of Object.entries(results) as [StoreName, Partial<Record<History['id'], HistoryResult>>][]) {
    const s = r['10y']?.storm;
    const rc = r['10y']?.recount;
    c.push([
      store,
      String(s?.writes ?? '-'),
      String(s?.writesPerSecond ?? '-'),
      String(s?.p50Ms ?? '-'),
      String(s?.p99Ms ?? '-'),
      String(s?.maxMs ?? '-'),
      String(s?.errors.count ?? '-'),
      rc ? (rc.equal ? `yes (${rc.compared} answers)` : 'NO') : '-',
    ]);
  }
  pad(c);
  for (const [store, r] of Object.entries(results)) {
    for (const e of r?.['10y']?.storm?.errors.messages ?? []) console.log(`  ${store} error x${e.count}: ${e.message}`);
    const rc = r?.['10y']?.recount;
    if (rc && !rc.equal) console.log(`  ${store} first difference: ${rc.firstDifference}`);
  }

  console.log('\nImport: Neo4j import time (parts) / size on disk at stop; SQLite file size as imported');
  const im = [['store', ...histories.map((h) => h.id)]];
  for (const [store, r] of Object.entries(results) as [StoreName, Partial<Record<History['id'], HistoryResult>>][]) {
    im.push([
      store,
      ...histories.map((h) => {
        const l = r[h.id]?.load;
        if (!l) return '-';
        const mb = l.diskBytes === null ? '-' : `${(l.diskBytes / 2 ** 20).toFixed(1)} MB`;
        if (store === 'sqlite') return l.importMs === null ? mb : `${(l.importMs / 1000).toFixed(1)} s / ${mb}`;
        return `${l.importMs === null ? '-' : `${(l.importMs / 1000).toFixed(1)} s (${l.parts})`} / ${mb}`;
      }),
    ]);
  }
  pad(im);
}

interface Target {
  store: StoreName;
  what: string;
  target: string;
  value: number | null;
  met: boolean | null;
}

function targetsOf(results: Results): Target[] {
  const t: Target[] = [];
  const neo = results.neo4j;
  if (neo) {
    for (const { id, label } of OPS) {
      const m10 = neo['10y']?.latency?.[id].medianMs ?? null;
      t.push({ store: 'neo4j', what: `${label} median at 10y, ms`, target: `<= ${TARGETS.neo4jSingleMedianMs}`, value: m10, met: m10 === null ? null : m10 <= TARGETS.neo4jSingleMedianMs });
      const g = growthOf(neo)[id]['1m/10y'];
      t.push({ store: 'neo4j', what: `${label} median growth 10y -> 1m`, target: `<= ${TARGETS.growth1m}x`, value: g, met: g === null ? null : g <= TARGETS.growth1m });
    }
    const imp = neo['1m']?.load.importMs ?? null;
    t.push({ store: 'neo4j', what: '1m import, s', target: `<= ${TARGETS.neo4jImport1mS}`, value: imp === null ? null : round1(imp / 1000), met: imp === null ? null : imp / 1000 <= TARGETS.neo4jImport1mS });
  }
  if (results.sqlite) {
    for (const { id, label } of OPS) {
      const g = growthOf(results.sqlite)[id]['1m/10y'];
      t.push({ store: 'sqlite', what: `${label} median growth 10y -> 1m`, target: `<= ${TARGETS.growth1m}x`, value: g, met: g === null ? null : g <= TARGETS.growth1m });
    }
  }
  for (const [store, r] of Object.entries(results) as [StoreName, Partial<Record<History['id'], HistoryResult>>][]) {
    const s = r['10y']?.storm;
    const wps = s ? s.writesPerSecond : null;
    t.push({ store, what: `${s?.writers ?? 8} writers, writes/s`, target: `>= ${TARGETS.writesPerSecond}`, value: wps, met: wps === null ? null : wps >= TARGETS.writesPerSecond });
    const p99 = s?.p99Ms ?? null;
    t.push({ store, what: `${s?.writers ?? 8} writers, p99 ms`, target: `<= ${TARGETS.p99Ms}`, value: p99, met: p99 === null ? null : p99 <= TARGETS.p99Ms });
  }
  return t;
}

/**
 * Which code was measured: the commit, and the files under src/ that differ from it (changed or
 * untracked), or why that is unknown. Read-only git commands (no optional locks, no index refresh).
 */
function sourceOf(): { commit: string | null; changedUnderSrc: string[] | null; note?: string } {
  const root = path.join(__dirname, '..');
  const git = (...args: string[]) =>
    execFileSync('git', ['--no-optional-locks', ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', 'HEAD');
    const changed = [git('diff', '--name-only', 'HEAD', '--', 'src'), git('ls-files', '--others', '--exclude-standard', '--', 'src')]
      .join('\n')
      .split('\n')
      .filter(Boolean);
    return { commit, changedUnderSrc: changed };
  } catch {
    return { commit: null, changedUnderSrc: null, note: 'not a git checkout' };
  }
}

// ---------------------------------------------------------------------------------------------

export async function writesBench(argv: string[] = []): Promise<number> {
  const o = readWritesOptions(argv);
  const loadAvgBefore = os.loadavg();
  const started = Date.now();
  const histories = o.quick ? HISTORIES.slice(0, 1) : o.no1m ? HISTORIES.slice(0, 2) : HISTORIES;
  const neo4jSkipped = o.sqliteOnly ? '--sqlite-only' : process.env.NEO4J_URI ? null : localNeo4jMissing();
  const stores: StoreName[] = neo4jSkipped ? ['sqlite'] : ['sqlite', 'neo4j'];
  if (neo4jSkipped) console.log(`Neo4j not measured (${neo4jSkipped}): SQLite alone.`);
  console.log(`bench:writes: ${histories.map((h) => h.id).join(', ')}; ${stores.join(' and ')}; load average ${loadAvgBefore.map((x) => x.toFixed(2)).join(' ')}`);

  const source = sourceOf();
  if (source.changedUnderSrc?.length) {
    console.log(`Measuring src/ with ${source.changedUnderSrc.length} files changed from ${source.commit?.slice(0, 7)}: ${source.changedUnderSrc.join(', ')}`);
  }
  const results: Results = {};
  const picks: Record<string, Picks> = {};
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-writes-'));
  try {
    for (const h of histories) {
      const snapshot = snapshotOf(h);
      const p = picksOf(h, snapshot, o.warmup + Math.max(o.runs, o.sqliteRuns));
      picks[h.id] = p;
      console.log(`History ${h.id}: ${snapshot.songs.length} songs, ${snapshot.services.length} services, ${p.links} links; most sung #${p.top[0]} (${p.topLinks[0]} links), rare songs with ${p.rareLinks[0]}-${p.rareLinks.at(-1)} links`);
    }
    console.log('SQLite');
    results.sqlite = await sqliteHistories(histories, picks, o, work);
    if (stores.includes('neo4j')) {
      console.log('Neo4j');
      results.neo4j = await neo4jHistories(histories, picks, o);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }

  printTables(results, histories, o);
  const targets = targetsOf(results);
  console.log('\nTargets (reported, not enforced):');
  for (const t of targets) {
    console.log(`  ${t.met === null ? 'n/a ' : t.met ? 'met ' : 'MISS'}  ${t.store.padEnd(6)} ${t.what}: ${t.value ?? 'not measured'} (target ${t.target})`);
  }

  const failures: string[] = [];
  for (const [store, r] of Object.entries(results)) {
    for (const [h, x] of Object.entries(r ?? {})) {
      if (x.failed) failures.push(`${store} ${h} did not run: ${x.failed}`);
      for (const e of x.errors.messages) failures.push(`${store} ${h}: ${e.count} failed writes: ${e.message}`);
      if (x.recount && !x.recount.equal) failures.push(`${store} ${h}: aggregates differ from a recount: ${x.recount.firstDifference}`);
    }
  }
  console.log('');
  for (const f of failures) console.log(`FAILED ${f}`);
  const loadAvgAfter = os.loadavg();
  console.log(`load average before ${loadAvgBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAvgAfter.map((x) => x.toFixed(2)).join(' ')}; ${((Date.now() - started) / 1000).toFixed(0)} s in all`);

  const report = {
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      totalMemMB: Math.round(os.totalmem() / 2 ** 20),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      loadAvgBefore,
      loadAvgAfter,
    },
    options: o,
    source,
    stores,
    neo4j: neo4jSkipped
      ? { skipped: neo4jSkipped }
      : { server: process.env.NEO4J_URI ? 'NEO4J_URI (wiped before each load)' : 'local Neo4j 5.26 per history (scripts/neo4j-local.ts)' },
    histories: histories.map((h) => ({ ...h, links: picks[h.id].links, mostSung: picks[h.id].top.map((id, i) => ({ id, links: picks[h.id].topLinks[i] })), rareSongs: picks[h.id].rare.map((id, i) => ({ id, links: picks[h.id].rareLinks[i] })) })),
    results,
    growth: Object.fromEntries(Object.entries(results).map(([s, r]) => [s, growthOf(r ?? {})])),
    targets,
    failures,
    durationS: Math.round((Date.now() - started) / 1000),
  };
  fs.writeFileSync(o.out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), o.out)}`);
  return failures.length ? 1 : 0;
}

if (require.main === module) {
  writesBench(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
