/**
 * One process of test/sqlite/sqlite.open-race.test.ts, run as `node -r tsx/cjs test/helpers/open-store.ts`:
 *
 *   open <file> [waitSeconds]             open the store on <file> (createStore, as the service and
 *                                         every command-line tool do), close it; print
 *                                         {"ok":true,"at":<epoch ms>} or {"ok":false,"error":...}
 *   hold <file> <ms>                      take the file's write lock (BEGIN IMMEDIATE), print
 *                                         "held", keep it <ms>, commit, print "released <epoch ms>"
 */
import Database from 'better-sqlite3';
import { createStore } from '../../src/store';

const [mode, file, arg] = process.argv.slice(2);

/** Block this process (not just its event loop) until `at`: nothing else may run meanwhile. */
const sleepUntil = (at: number) => {
  const ms = at - Date.now();
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

async function main() {
  if (mode === 'hold') {
    const db = new Database(file);
    db.exec('BEGIN IMMEDIATE');
    console.log('held');
    sleepUntil(Date.now() + Number(arg));
    db.exec('COMMIT');
    console.log(`released ${Date.now()}`);
    db.close();
    return;
  }
  const started = Date.now();
  try {
    const store = await createStore({
      store: 'sqlite',
      sqlitePath: file,
      neo4j: {},
      migrationWaitSeconds: arg === undefined ? undefined : Number(arg),
    });
    await store.close();
    console.log(JSON.stringify({ ok: true, ms: Date.now() - started, at: Date.now() }));
  } catch (err) {
    console.log(JSON.stringify({ ok: false, ms: Date.now() - started, error: (err as Error).message }));
  }
}

void main();
