/**
 * Preloaded (`node -r tsx/cjs -r ./test/helpers/start-barrier.ts <script>`) so that processes
 * open their SQLite database at the same moment, however long each took to load: the first
 * `new Database()` (better-sqlite3) of the process announces itself in the directory START_DIR and
 * blocks until START_COUNT processes have done so, then all go on within a millisecond or so of
 * each other. Only the module's export is wrapped; the database is better-sqlite3's, unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

const dir = process.env.START_DIR!;
const count = Number(process.env.START_COUNT);
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
let gated = false;

function GatedDatabase(this: unknown, ...args: ConstructorParameters<typeof Database>) {
  if (!gated) {
    gated = true;
    fs.writeFileSync(path.join(dir, String(process.pid)), '');
    const deadline = Date.now() + 60_000;
    while (fs.readdirSync(dir).length < count && Date.now() < deadline) sleep(1);
  }
  return new Database(...args);
}
Object.setPrototypeOf(GatedDatabase, Database);
GatedDatabase.prototype = Database.prototype;

require.cache[require.resolve('better-sqlite3')]!.exports = GatedDatabase;
