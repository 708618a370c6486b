/**
 * Concurrency on SQLite made real: several OS processes (each its own SqliteStore, as several API
 * instances on one file would be) write the same database file at once. Inside one process
 * better-sqlite3 runs each call to completion, so only separate processes can interleave; these
 * cases therefore depend on the IMMEDIATE transaction around every multi-statement write, and fail
 * without it (the invariants are read by a separate connection after every write).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bucketsBetween } from '../../src/domain/analytics/buckets';
import { artistKey } from '../../src/domain/artists';
import type { AnalyticsWindow, SongUsageQuery } from '../../src/store/analytics-types';
import { SqliteStore } from '../../src/store/sqlite/store';
import { Reference } from '../helpers/analytics-reference';

interface WorkerReport {
  worker: number;
  result?: unknown;
  error?: string;
  violations?: string[];
  violationCount?: number;
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-concurrency-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let files = 0;
const newFile = () => path.join(dir, `db-${++files}.sqlite`);

function runWorker(
  file: string,
  scenario: string,
  worker: number,
  rounds: number,
  arg: string,
  writers: number,
): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', 'tsx/cjs', 'test/helpers/sqlite-writer.ts', file, scenario, String(worker), String(rounds), arg],
      { cwd: path.join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, WRITERS: String(writers) } },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', () => {
      const line = out.trim().split('\n').pop();
      if (!line) return reject(new Error(`worker ${worker} printed nothing: ${err}`));
      resolve(JSON.parse(line) as WorkerReport);
    });
  });
}

/** Run the workers at once; every one must finish without an error or an observed violation. */
async function together(workers: Promise<WorkerReport>[]): Promise<WorkerReport[]> {
  const reports = await Promise.all(workers);
  for (const r of reports) {
    expect(r.error).toBeUndefined();
    expect({ worker: r.worker, violations: r.violations }).toEqual({ worker: r.worker, violations: [] });
  }
  return reports;
}

async function prepared(setup: (store: SqliteStore) => Promise<void>): Promise<string> {
  const file = newFile();
  const store = new SqliteStore(file);
  await setup(store);
  await store.close();
  return file;
}

const PROCESSES = 4;

/** The maintained usage rows, timeline periods and pairs (kept by triggers in each writer's transaction) equal a plain recount. */
async function expectUsageExact(store: SqliteStore) {
  const ref = new Reference(await store.exportSnapshot());
  for (const sort of ['TIMES_SUNG', 'LEAST_RECENTLY_SUNG'] as const) {
    const q: SongUsageQuery = { window: { from: null, to: null, serviceTypes: ['SUN_AM', 'SUN_PM', 'WED'] }, sort, includeUnsung: true };
    expect(await store.songUsage(q)).toEqual(ref.songUsage(q));
  }
  const span = ref.serviceSpan(['WED']);
  for (const bucket of ['WEEK', 'YEAR'] as const) {
    const buckets = bucketsBetween(span!.first, span!.last, bucket, 'UTC');
    const wed: AnalyticsWindow = { from: null, to: null, serviceTypes: ['WED'] };
    expect(await store.usageTimeline(buckets, wed, null)).toEqual(ref.usageTimeline(buckets, wed, null));
  }
  const window = { from: null, to: null, serviceTypes: ['SUN_AM', 'SUN_PM', 'WED'] as const };
  for (let songId = 1; songId <= 8; songId++) {
    expect(await store.songsSungWith(songId, { ...window, serviceTypes: [...window.serviceTypes] }, 20)).toEqual(
      ref.songsSungWith(songId, { ...window, serviceTypes: [...window.serviceTypes] }, 20),
    );
  }
}

test('50 concurrent creates from 4 processes, sharing artists named in different orders', async () => {
  const file = newFile();
  await new SqliteStore(file).close();
  const counts = [13, 13, 12, 12];
  const reports = await together(counts.map((n, w) => runWorker(file, 'create', w, n, '', counts.length)));
  const ids = reports.flatMap((r) => r.result as number[]);
  expect(new Set(ids).size).toBe(50);
  const store = new SqliteStore(file);
  expect((await store.listSongs({}, {})).totalCount).toBe(50);
  expect((await store.songsByArtistKey(artistKey('shared one'), {})).totalCount).toBe(50);
  expect((await store.songsByArtistKey(artistKey('Shared Two'), {})).totalCount).toBe(50);
  await store.close();
}, 60_000);

test('concurrent setlist writes to ONE service keep its positions 1..n in every committed state', async () => {
  const file = await prepared(async (store) => {
    for (let i = 1; i <= 8; i++) await store.createSong({ name: `s${i}`, artists: [] });
    await store.createService({ date: 0, serviceType: 'WED' });
  });
  const reports = await together(Array.from({ length: PROCESSES }, (_, w) => runWorker(file, 'setlist', w, 300, '1', PROCESSES)));
  expect(reports.reduce((sum, r) => sum + (r.result as number), 0)).toBeGreaterThan(0);
  const store = new SqliteStore(file);
  const snapshot = await store.exportSnapshot();
  const positions = snapshot.links.map((l) => l.position).sort((a, b) => a - b);
  expect(positions).toEqual(positions.map((_, i) => i + 1));
  await expectUsageExact(store);
  await store.close();
}, 60_000);

test('concurrent setlist writes to DIFFERENT services do not disturb each other', async () => {
  const file = await prepared(async (store) => {
    for (let i = 1; i <= 8; i++) await store.createSong({ name: `s${i}`, artists: [] });
    for (let w = 0; w < PROCESSES; w++) await store.createService({ date: w, serviceType: 'WED' });
  });
  await together(Array.from({ length: PROCESSES }, (_, w) => runWorker(file, 'setlist', w, 200, String(w + 1), PROCESSES)));
  const store = new SqliteStore(file);
  const { links } = await store.exportSnapshot();
  for (let serviceId = 1; serviceId <= PROCESSES; serviceId++) {
    const positions = links.filter((l) => l.serviceId === serviceId).map((l) => l.position).sort((a, b) => a - b);
    expect(positions).toEqual(positions.map((_, i) => i + 1));
  }
  await expectUsageExact(store);
  await store.close();
}, 60_000);

test('concurrent demotions from 2 processes never leave the store without an ADMIN', async () => {
  let ids: number[] = [];
  const file = await prepared(async (store) => {
    const users = [
      await store.createUser({ username: 'one', passwordHash: 'h', role: 'ADMIN' }),
      await store.createUser({ username: 'two', passwordHash: 'h', role: 'ADMIN' }),
    ];
    ids = users.map((u) => u!.id);
  });
  const reports = await together(ids.map((id, w) => runWorker(file, 'demote', w, 1000, String(id), ids.length)));
  // Demotions did happen (one at a time), and each was refused while it would have been the last.
  expect(reports.reduce((sum, r) => sum + (r.result as number), 0)).toBeGreaterThan(0);
}, 60_000);
