/**
 * Migration 6 on a file written by the schema before it (migrations 1 to 5, with songs in it):
 * songs gain a CCLI number and a copyright line (none for the old songs), the search index is
 * rebuilt with the CCLI number in it and still finds the old songs, and the file itself refuses a
 * CCLI number that is not 1 to 10 digits.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/store/sqlite/migrations';
import { SqliteStore } from '../../src/store/sqlite/store';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-migration6-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A database as the release before migration 6 left it: migrations 1-5 applied, two songs. */
function versionFiveFile(): string {
  const file = path.join(dir, `v5-${Date.now()}-${Math.random()}.db`);
  const db = new Database(file);
  db.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  for (const m of MIGRATIONS.filter((m) => m.version <= 5)) {
    db.exec(m.sql);
    m.after?.(db);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.description, new Date().toISOString());
  }
  const song = db.prepare('INSERT INTO songs (name, artists) VALUES (?, ?)');
  song.run('How Great Is Our God', '["Chris Tomlin"]');
  song.run('Cornerstone', '["Hillsong Worship"]');
  db.close();
  return file;
}

const names = (songs: { name: string }[]) => songs.map((s) => s.name);

test('migration 6 adds licensing details to old songs (none), and search finds them by CCLI number', async () => {
  const file = versionFiveFile();
  const store = new SqliteStore(file);
  try {
    expect(await store.licensingOfSongs([1, 2])).toEqual([
      { ccliNumber: null, copyright: null },
      { ccliNumber: null, copyright: null },
    ]);
    // The rebuilt index still holds the old songs, by name and by artist.
    expect(names((await store.listSongs({ search: 'great god' }, {})).items)).toEqual(['How Great Is Our God']);
    expect(names((await store.listSongs({ search: 'hillsong' }, {})).items)).toEqual(['Cornerstone']);

    await store.updateSong(1, { ccliNumber: '4348399', copyright: '2004 worshiptogether.com songs' });
    expect(names((await store.listSongs({ search: '4348399' }, {})).items)).toEqual(['How Great Is Our God']);
    const created = await store.createSong({ name: 'Amazing Grace', artists: [], ccliNumber: '22025' });
    expect((await store.listSongs({ search: '22025' }, {})).items).toEqual([created]);
  } finally {
    await store.close();
  }

  const db = new Database(file);
  try {
    expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual(MIGRATIONS.map((m) => m.version));
    expect(db.prepare('SELECT ccli_number, copyright FROM songs WHERE id = 1').get()).toEqual({
      ccli_number: '4348399',
      copyright: '2004 worshiptogether.com songs',
    });
    // The file keeps the rules itself: a CCLI number is 1 to 10 digits, a copyright not empty.
    for (const bad of ['', 'CCLI 1', '12345678901', '12 34', '-1']) {
      expect(() => db.prepare('UPDATE songs SET ccli_number = ? WHERE id = 2').run(bad)).toThrow(/CHECK constraint failed/);
    }
    expect(() => db.prepare("UPDATE songs SET copyright = '' WHERE id = 2").run()).toThrow(/CHECK constraint failed/);
    expect(() => db.prepare('UPDATE songs SET copyright = ? WHERE id = 2').run('x'.repeat(501))).toThrow(/CHECK constraint failed/);
  } finally {
    db.close();
  }

  // Opening again applies nothing twice.
  const again = new SqliteStore(file);
  expect(await again.licensingOfSongs([1])).toEqual([{ ccliNumber: '4348399', copyright: '2004 worshiptogether.com songs' }]);
  await again.close();
});
