/**
 * Migration 2 on a database that already holds data (a store made before search and counts):
 * the FTS5 index and the row counts are backfilled, and from then on kept in step by triggers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/store/sqlite/migrations';
import { SqliteStore } from '../../src/store/sqlite/store';

test('an existing store gains search and counts over its old songs and services', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrate2-'));
  const file = path.join(dir, 'songs.db');
  try {
    // The database as version 1 left it.
    const db = new Database(file);
    db.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    db.exec(MIGRATIONS[0].sql);
    db.prepare('INSERT INTO schema_migrations VALUES (1, ?, ?)').run(MIGRATIONS[0].description, new Date().toISOString());
    db.prepare('INSERT INTO songs (name, artists) VALUES (?, ?)').run('Ngợi Khen Danh Ngài', '[]');
    db.prepare('INSERT INTO songs (name, artists) VALUES (?, ?)').run('Cornerstone', '["Hillsong Worship"]');
    db.prepare("INSERT INTO services (date, service_type) VALUES (1, 'WED'), (2, 'WED'), (3, 'SUN_AM')").run();
    db.close();

    const store = new SqliteStore(file);
    try {
      expect((await store.listSongs({ search: 'ngoi khen' }, {})).items.map((s) => s.name)).toEqual(['Ngợi Khen Danh Ngài']);
      expect((await store.listSongs({ search: 'hillsong' }, {})).totalCount).toBe(1);
      expect((await store.listSongs({}, { limit: 1 })).totalCount).toBe(2);
      expect((await store.listServices({ serviceTypes: ['WED'] }, {})).totalCount).toBe(2);
      await store.createSong({ name: 'New Song', artists: [] });
      expect((await store.listSongs({}, { limit: 1 })).totalCount).toBe(3);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
