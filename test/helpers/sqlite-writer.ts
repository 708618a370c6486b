/**
 * One writer process of test/sqlite/sqlite.concurrency.test.ts: opens the SQLite file given in argv and
 * runs one scenario against its own SqliteStore, as a second API instance on the same file would.
 * After each write it reads the database through a separate connection and records every state
 * that breaks an invariant; committed states must never do so. Prints one JSON line.
 *
 *   node -r tsx/cjs test/helpers/sqlite-writer.ts <file> <scenario> <worker> <rounds> [arg]
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite/store';

const [file, scenario, workerArg, roundsArg, arg] = process.argv.slice(2);
const worker = Number(workerArg);
const rounds = Number(roundsArg);

const store = new SqliteStore(file);
const observer = new Database(file, { readonly: true });
observer.pragma('busy_timeout = 5000');
const violations: string[] = [];

/** Positions of every service's setlist (other workers' too) must read 1..n. */
function checkPlaces() {
  const rows = observer
    .prepare('SELECT service_id, position FROM performed_in ORDER BY service_id, position')
    .all() as { service_id: number; position: number }[];
  const byService = new Map<number, number[]>();
  for (const r of rows) byService.set(r.service_id, [...(byService.get(r.service_id) ?? []), r.position]);
  for (const [serviceId, positions] of byService) {
    if (positions.some((p, i) => p !== i + 1)) violations.push(`service ${serviceId}: positions ${positions.join(',')}`);
  }
}

/** Every song (all of these have artists) must be indexed by its artist keys. */
function checkArtistIndex() {
  const unindexed = observer
    .prepare('SELECT count(*) FROM songs s WHERE NOT EXISTS (SELECT 1 FROM song_artist_keys k WHERE k.song_id = s.id)')
    .pluck()
    .get() as number;
  if (unindexed > 0) violations.push(`${unindexed} song(s) without their artist keys`);
}

function checkAdmins() {
  const admins = observer.prepare("SELECT count(*) FROM users WHERE role = 'ADMIN'").pluck().get() as number;
  if (admins === 0) violations.push('no ADMIN left');
}

// A deterministic pseudo-random sequence per worker, so a failure can be replayed.
let seed = 7919 * (worker + 1);
const random = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};

/**
 * Start together: process start-up (a second or more) is far longer than the runs, so without
 * this the workers would mostly run one after another. Each announces itself with a file and
 * waits for all WRITERS of them.
 */
async function barrier() {
  const writers = Number(process.env.WRITERS ?? '1');
  fs.writeFileSync(`${file}.ready-${scenario}-${worker}`, '');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const ready = fs.readdirSync(path.dirname(file)).filter((f) => f.startsWith(`${path.basename(file)}.ready-${scenario}-`));
    if (ready.length >= writers) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('the other writers never started');
}

async function main(): Promise<unknown> {
  await barrier();
  switch (scenario) {
    case 'create': {
      // Songs naming the same artists in opposite orders, depending on the worker.
      const artists = worker % 2 === 0 ? ['Shared One', 'Shared Two'] : ['shared two', 'SHARED ONE'];
      const ids: number[] = [];
      for (let i = 0; i < rounds; i++) {
        ids.push((await store.createSong({ name: `w${worker}-${i}`, artists })).id);
        checkArtistIndex();
      }
      return ids;
    }
    case 'setlist': {
      // arg: the service id; songs 1..8 exist.
      const serviceId = Number(arg);
      let ok = 0;
      for (let i = 0; i < rounds; i++) {
        const songId = 1 + random(8);
        const op = random(3);
        const result =
          op === 0
            ? await store.unlinkSong(serviceId, songId)
            : await store.linkSong(serviceId, songId, op === 1 ? 1 + random(10) : undefined);
        if (result === 'ok') ok++;
        checkPlaces();
      }
      return ok;
    }
    case 'demote': {
      // arg: this worker's user id; every worker's user starts as an ADMIN.
      const id = Number(arg);
      let demoted = 0;
      for (let i = 0; i < rounds; i++) {
        const result = await store.updateUser(id, { role: 'USER' });
        if (typeof result === 'object' && result?.role === 'USER') demoted++;
        checkAdmins();
        await store.updateUser(id, { role: 'ADMIN' });
      }
      return demoted;
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

main()
  .then(async (result) => {
    process.stdout.write(`${JSON.stringify({ worker, result, violations: violations.slice(0, 5), violationCount: violations.length })}\n`);
    observer.close();
    await store.close();
  })
  .catch((err) => {
    process.stdout.write(`${JSON.stringify({ worker, error: String(err?.stack ?? err) })}\n`);
    process.exitCode = 1;
  });
