/**
 * `npm run bench:analytics` (also run at the end of `npm run bench`): the latency of every
 * analytic through the API on three generated histories, and the plain statements (base tables
 * joined and grouped, the same answer) the all-time analytics must beat.
 *
 *   10y   1,000 songs, three services a week for 10 years      (~9,400 performances)
 *   100y  1,000 songs, the same density for 100 years          (~94,000 performances)
 *   1m    20,000 songs, 166,667 services over 100 years         (1,000,000 performances)
 *
 * Histories are written once through importSnapshot (so the triggers maintain the copies) and
 * kept in $BENCH_ANALYTICS_DIR (default: the OS temp dir) for later runs. Each measurement is the
 * median of `--runs` (7) timed calls after one warm-up: through the real server over HTTP (API),
 * and the same store call in-process (store), which is the database's share.
 *
 * Checks (exit code 1 when one fails): window-bounded (one-year) analytics grow at most 1.5x from
 * 10 to 100 years; each all-time analytic at 1m takes at most a tenth of the plain statement.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startServer } from '../src/server';
import { bucketsBetween } from '../src/domain/analytics/buckets';
import { SqliteStore } from '../src/store/sqlite/store';
import type { ServiceType } from '../src/generated/graphql';
import type { Snapshot } from '../src/store/types';
import { prng } from './seed';

interface History {
  id: '10y' | '100y' | '1m';
  songs: number;
  services: number;
  years: number;
  perService: number;
}

const HISTORIES: History[] = [
  { id: '10y', songs: 1000, services: 1560, years: 10, perService: 6 },
  { id: '100y', songs: 1000, services: 15600, years: 100, perService: 6 },
  { id: '1m', songs: 20000, services: 166_667, years: 100, perService: 6 },
];

const FIRST_YEAR = 1926;
const YEAR_MS = 365.25 * 86_400_000;
const TYPES: ServiceType[] = ['SUN_AM', 'SUN_PM', 'WED'];

/** Services evenly spread over the years; Zipf-skewed setlists of `perService` songs; 5% of songs never sung. */
function snapshotOf(h: History): Snapshot {
  const rand = prng(1010);
  const songs = Array.from({ length: h.songs }, (_, i) => ({
    id: i + 1,
    name: `Song ${i + 1}`,
    artists: [`Artist ${1 + Math.floor(rand() * (h.songs / 10))}`],
  }));
  const singable = Math.floor(h.songs * 0.95);
  // Zipf(1) by inverse CDF over ranks: cheap for 20,000 songs.
  const cdf: number[] = [];
  let sum = 0;
  for (let i = 0; i < singable; i++) cdf.push((sum += 1 / (i + 1)));
  const draw = () => {
    const r = rand() * sum;
    let lo = 0;
    let hi = singable - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
  const start = Date.UTC(FIRST_YEAR, 0, 3);
  const step = (h.years * YEAR_MS) / h.services;
  const services = Array.from({ length: h.services }, (_, i) => ({
    id: i + 1,
    date: Math.round(start + i * step),
    serviceType: TYPES[i % 3],
  }));
  const links: Snapshot['links'] = [];
  for (const v of services) {
    const picked = new Set<number>();
    while (picked.size < h.perService) picked.add(draw());
    let position = 0;
    for (const songId of picked) links.push({ serviceId: v.id, songId, position: ++position, seq: links.length + 1 });
  }
  return {
    format: 'worship-records-snapshot',
    version: 1,
    songs,
    services,
    links,
    users: [],
    sequences: { song: h.songs, service: h.services, user: 0, link: links.length },
  };
}

async function database(h: History, dir: string): Promise<string> {
  // v3: the schema numbering of main (song_usage is migration 5); a file cached under another
  // numbering would be migrated wrongly, so it is never reused.
  const file = path.join(dir, `analytics-${h.id}-v3.db`);
  if (fs.existsSync(file)) return file;
  const started = Date.now();
  const store = new SqliteStore(`${file}.tmp`);
  await store.importSnapshot(snapshotOf(h));
  await store.close();
  fs.renameSync(`${file}.tmp`, file);
  for (const ext of ['-wal', '-shm']) fs.rmSync(`${file}.tmp${ext}`, { force: true });
  console.log(`  generated ${h.id} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return file;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return Math.round(median(times) * 10) / 10;
}

const perTypePlain = (t: string, c: string) => `sum(l.service_type = '${t}') AS ${c}, max(iif(l.service_type = '${t}', l.date, NULL)) AS ${c}_last`;

/**
 * Every link with its service's date and type and whether it opens or closes its setlist: read
 * from the base tables (performed_in joined to services; ends by window functions over each
 * setlist), none of the copies, totals or indexes the analytics keep.
 */
const PLAIN_LINKS = `
  links AS (
    SELECT p.song_id, p.service_id, v.date, v.service_type,
      row_number() OVER (PARTITION BY p.service_id ORDER BY p.position, p.id) = 1 AS opener,
      row_number() OVER (PARTITION BY p.service_id ORDER BY p.position DESC, p.id DESC) = 1 AS closer
    FROM performed_in p JOIN services v ON v.id = p.service_id
  )`;

/** One song's whole answer (times, first, last, ends, per type count and last) from PLAIN_LINKS. */
const PLAIN_STATS = `count(l.song_id) AS times, min(l.date) AS first, max(l.date) AS last,
    coalesce(sum(l.opener), 0) AS openers, coalesce(sum(l.closer), 0) AS closers,
    ${perTypePlain('SUN_AM', 'sun_am')}, ${perTypePlain('SUN_PM', 'sun_pm')}, ${perTypePlain('WED', 'wed')}`;

/**
 * The plain statements each all-time analytic is held against: one statement over the base tables
 * (performed_in joined to services, grouped) answering the same question as the API, with the
 * same columns and order. `usageJoin`/`rotationJoin` are the bare join and grouping without ends,
 * per-type last dates, songs or order (a lower bound for any plain statement), reported beside.
 */
const PLAIN = {
  usage: `
    WITH ${PLAIN_LINKS}
    SELECT s.id, s.name, s.artists, ${PLAIN_STATS}
    FROM links l JOIN songs s ON s.id = l.song_id
    GROUP BY s.id
    ORDER BY times DESC, s.id`,
  rotation: `
    WITH ${PLAIN_LINKS}
    SELECT s.id, s.name, s.artists, ${PLAIN_STATS}
    FROM songs s LEFT JOIN links l ON l.song_id = s.id
    GROUP BY s.id HAVING last IS NULL OR last < @cutoff
    ORDER BY last, s.id`,
  newSongs: `
    WITH ${PLAIN_LINKS}
    SELECT s.id, s.name, s.artists, ${PLAIN_STATS}
    FROM links l JOIN songs s ON s.id = l.song_id
    GROUP BY s.id HAVING first BETWEEN @from AND @to
    ORDER BY first DESC, s.id DESC`,
  sungWith: `
    WITH mine AS (SELECT p.service_id FROM performed_in p JOIN services v ON v.id = p.service_id WHERE p.song_id = 1),
    pairs AS (
      SELECT p.song_id, count(*) AS together FROM mine JOIN performed_in p ON p.service_id = mine.service_id
      WHERE p.song_id <> 1 GROUP BY p.song_id
    ),
    counts AS (SELECT p.song_id, count(*) AS n FROM performed_in p JOIN services v ON v.id = p.service_id GROUP BY p.song_id)
    SELECT s.id, s.name, s.artists, together, CAST(together AS REAL) / ((SELECT count(*) FROM mine) + c.n - together) AS jaccard
    FROM pairs JOIN counts c ON c.song_id = pairs.song_id JOIN songs s ON s.id = pairs.song_id
    ORDER BY together DESC, jaccard DESC, s.id LIMIT 20`,
  timeline: `
    WITH b AS (SELECT key AS i, json_extract(value, '$[0]') AS start, json_extract(value, '$[1]') AS end FROM json_each(@buckets))
    SELECT b.start, count(DISTINCT v.id) AS services, count(p.id) AS performances, count(DISTINCT p.song_id) AS distinct_songs
    FROM b LEFT JOIN services v ON v.date BETWEEN b.start AND b.end LEFT JOIN performed_in p ON p.service_id = v.id
    GROUP BY b.i ORDER BY b.i`,
  artists: `
    SELECT k.artist_key, count(*) AS times, count(DISTINCT p.song_id) AS songs
    FROM performed_in p JOIN services v ON v.id = p.service_id JOIN song_artist_keys k ON k.song_id = p.song_id
    WHERE k.artist_key <> ''
    GROUP BY k.artist_key ORDER BY times DESC, k.artist_key`,
  usageJoin: `
    SELECT p.song_id, count(*), min(v.date), max(v.date),
      sum(v.service_type = 'SUN_AM'), sum(v.service_type = 'SUN_PM'), sum(v.service_type = 'WED')
    FROM performed_in p JOIN services v ON v.id = p.service_id
    GROUP BY p.song_id`,
  rotationJoin: `
    SELECT s.id, max(v.date) AS last
    FROM songs s LEFT JOIN performed_in p ON p.song_id = s.id LEFT JOIN services v ON v.id = p.service_id
    GROUP BY s.id HAVING last IS NULL OR last < @cutoff
    ORDER BY last, s.id`,
};

interface Analytic {
  id: string;
  /** One-year window (must grow at most 1.5x from 10y to 100y), or all time. */
  scope: 'year' | 'all';
  path: (w: Bounds) => string;
  /** The same analytic as one store call, in-process: the database's share of the latency. */
  store: (s: SqliteStore, w: Bounds) => Promise<unknown>;
  /** The plain statement it is compared with (all-time, at 1m). */
  plain?: keyof typeof PLAIN;
}

/** The last year of a history (YYYY-MM-DD and ms), and the rotation cut-off (mid-history). */
interface Bounds {
  from: string;
  to: string;
  fromMs: number;
  toMs: number;
  cutoff: string;
  cutoffMs: number;
}

const ALL: ServiceType[] = ['SUN_AM', 'SUN_PM', 'WED'];
const allTime = { from: null, to: null, serviceTypes: ALL };
const inYear = (w: Bounds) => ({ from: w.fromMs, to: w.toMs, serviceTypes: ALL });

const ANALYTICS: Analytic[] = [
  {
    id: 'songUsage',
    scope: 'year',
    path: (w) => `/api/v1/reports/songUsage?from=${w.from}&to=${w.to}`,
    store: (s, w) => s.songUsage({ window: inYear(w), sort: 'TIMES_SUNG', includeUnsung: false }),
  },
  {
    id: 'songUsage',
    scope: 'all',
    path: () => '/api/v1/reports/songUsage',
    store: (s) => s.songUsage({ window: allTime, sort: 'TIMES_SUNG', includeUnsung: false }),
    plain: 'usage',
  },
  {
    id: 'songUsage limit=100',
    scope: 'all',
    path: () => '/api/v1/reports/songUsage?limit=100',
    store: (s) => s.songUsage({ window: allTime, sort: 'TIMES_SUNG', includeUnsung: false, limit: 100 }),
    plain: 'usage',
  },
  {
    id: 'notSungSince',
    scope: 'all',
    path: (w) => `/api/v1/songs/notSungSince/${w.cutoff}`,
    store: (s, w) => s.songUsage({ window: allTime, sort: 'LEAST_RECENTLY_SUNG', includeUnsung: true, lastBefore: w.cutoffMs }),
    plain: 'rotation',
  },
  {
    id: 'newSongs',
    scope: 'year',
    path: (w) => `/api/v1/reports/newSongs?from=${w.from}&to=${w.to}`,
    store: (s, w) => s.songUsage({ window: allTime, sort: 'FIRST_SUNG', includeUnsung: false, firstIn: inYear(w) }),
    // New songs carry all-time stats (first performance ever falls in the window).
    plain: 'newSongs',
  },
  {
    id: 'sungWith',
    scope: 'year',
    path: (w) => `/api/v1/songs/1/sungWith?from=${w.from}&to=${w.to}`,
    store: (s, w) => s.songsSungWith(1, inYear(w), 20),
  },
  { id: 'sungWith', scope: 'all', path: () => '/api/v1/songs/1/sungWith', store: (s) => s.songsSungWith(1, allTime, 20), plain: 'sungWith' },
  {
    id: 'timeline WEEK',
    scope: 'year',
    path: (w) => `/api/v1/reports/timeline?bucket=WEEK&from=${w.from}&to=${w.to}`,
    store: (s, w) => s.usageTimeline(bucketsBetween(w.fromMs, w.toMs, 'WEEK', 'UTC'), inYear(w), null),
  },
  {
    id: 'timeline YEAR',
    scope: 'all',
    path: () => '/api/v1/reports/timeline?bucket=YEAR',
    store: async (s) => {
      const span = (await s.serviceSpan(ALL))!;
      return s.usageTimeline(bucketsBetween(span.first, span.last, 'YEAR', 'UTC'), allTime, null);
    },
    plain: 'timeline',
  },
  {
    id: 'artists',
    scope: 'year',
    path: (w) => `/api/v1/reports/artists?from=${w.from}&to=${w.to}`,
    store: (s, w) => s.artistUsage(inYear(w), {}),
  },
  { id: 'artists', scope: 'all', path: () => '/api/v1/reports/artists', store: (s) => s.artistUsage(allTime, {}), plain: 'artists' },
  {
    id: 'song usage',
    scope: 'year',
    path: (w) => `/api/v1/songs/2/usage?from=${w.from}&to=${w.to}`,
    store: (s, w) => s.usageOfSongs([2], inYear(w)),
  },
];

export async function analyticsBench(argv: string[] = []): Promise<number> {
  const runsAt = argv.indexOf('--runs');
  const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 7;
  const only = argv.includes('--no-1m') ? HISTORIES.slice(0, 2) : HISTORIES;
  const dir = process.env.BENCH_ANALYTICS_DIR ?? os.tmpdir();
  if (argv.includes('--generate-only')) {
    for (const h of only) await database(h, dir);
    return 0;
  }
  const api: Record<string, Record<string, number>> = {};
  const db: Record<string, Record<string, number>> = {};
  const plain: Record<string, Record<string, number>> = {};
  console.log('\nAnalytics: median ms, API (HTTP through the server) / store (the same statement in-process):');
  for (const h of only) {
    const file = await database(h, dir);
    const lastYear = FIRST_YEAR + h.years - 1;
    const midYear = FIRST_YEAR + Math.floor(h.years / 2);
    const w: Bounds = {
      from: `${lastYear}-01-01`,
      to: `${lastYear}-12-31`,
      fromMs: Date.UTC(lastYear, 0, 1),
      toMs: Date.UTC(lastYear + 1, 0, 1) - 1,
      cutoff: `${midYear}-01-01`,
      cutoffMs: Date.UTC(midYear, 0, 1) - 1,
    };
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: file, LOG_LEVEL: 'silent', NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), GRAPHQL_MAX_COST: '100000' });
    const server = await startServer(config, createLogger('silent'));
    const row: Record<string, number> = {};
    const storeRow: Record<string, number> = {};
    try {
      for (const a of ANALYTICS) {
        const url = `${server.url}${a.path(w)}`;
        row[`${a.id} [${a.scope}]`] = await timed(runs, async () => {
          const res = await fetch(url);
          if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        });
        storeRow[`${a.id} [${a.scope}]`] = await timed(runs, () => a.store(server.store as SqliteStore, w));
      }
      const gql = JSON.stringify({ query: `{ songs(limit: 100) { id usage(from: "${w.from}", to: "${w.to}") { timesSung asOpener } } }` });
      row['Song.usage x100 (GraphQL) [year]'] = await timed(runs, async () => {
        const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: gql });
        if (!res.ok) throw new Error(`graphql: ${res.status}`);
        await res.arrayBuffer();
      });
      storeRow['Song.usage x100 (GraphQL) [year]'] = await timed(runs, () =>
        (server.store as SqliteStore).usageOfSongs(Array.from({ length: 100 }, (_, i) => i + 1), inYear(w)),
      );
    } finally {
      await server.close();
    }
    const raw = new Database(file, { readonly: true });
    const span = raw.prepare('SELECT min(date) AS first, max(date) AS last FROM services').get() as { first: number; last: number };
    const params: Record<keyof typeof PLAIN, Record<string, unknown>> = {
      usage: {},
      rotation: { cutoff: w.cutoffMs },
      newSongs: { from: w.fromMs, to: w.toMs },
      sungWith: {},
      timeline: { buckets: JSON.stringify(bucketsBetween(span.first, span.last, 'YEAR', 'UTC').map((b) => [b.start, b.end])) },
      artists: {},
      usageJoin: {},
      rotationJoin: { cutoff: w.cutoffMs },
    };
    plain[h.id] = {};
    for (const name of Object.keys(PLAIN) as (keyof typeof PLAIN)[]) {
      const statement = raw.prepare(PLAIN[name]);
      plain[h.id][name] = await timed(Math.min(runs, 3), async () => statement.all(params[name]));
    }
    raw.close();
    api[h.id] = row;
    db[h.id] = storeRow;
  }

  const names = Object.keys(api[only[0].id]);
  const table = [['analytic', ...only.map((h) => `${h.id} api/store`)]];
  for (const n of names) table.push([n, ...only.map((h) => `${api[h.id][n]} / ${db[h.id][n]}`)]);
  table.push(...(Object.keys(PLAIN) as (keyof typeof PLAIN)[]).map((p) => [`plain ${p}`, ...only.map((h) => `- / ${plain[h.id][p]}`)]));
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const r of table) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));

  const failures: string[] = [];
  if (api['100y']) {
    for (const n of names.filter((x) => x.endsWith('[year]'))) {
      for (const [what, m] of [['API', api], ['store', db]] as const) {
        const growth = m['100y'][n] / m['10y'][n];
        // Below a few milliseconds the ratio is timer and scheduling noise.
        if (growth > 1.5 && m['100y'][n] > 5) failures.push(`${n} (${what}): ${growth.toFixed(2)}x from 10y to 100y`);
      }
    }
  }
  const big = only.at(-1)!;
  for (const a of ANALYTICS.filter((x) => x.plain)) {
    const n = `${a.id} [${a.scope}]`;
    const ratio = api[big.id][n] / plain[big.id][a.plain!];
    const join = a.plain === 'usage' ? 'usageJoin' : a.plain === 'rotation' ? 'rotationJoin' : null;
    const beside = join ? `; ${((api[big.id][n] / plain[big.id][join]) * 100).toFixed(1)}% of the bare ${join}` : '';
    console.log(`${n} at ${big.id}: API ${(ratio * 100).toFixed(1)}% of the plain ${a.plain} statement (store ${((db[big.id][n] / plain[big.id][a.plain!]) * 100).toFixed(1)}%${beside})`);
    if (ratio > 0.1) failures.push(`${n}: ${(ratio * 100).toFixed(1)}% of the plain statement (target <= 10%)`);
  }
  for (const f of failures) console.log(`CHECK FAILED ${f}`);
  const out = path.join(__dirname, 'analytics-results.json');
  fs.writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), runs, node: process.version, cpus: os.cpus().length, loadAvg: os.loadavg(), api, store: db, plain, failures }, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
  return failures.length ? 1 : 0;
}

if (require.main === module) {
  void analyticsBench(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
