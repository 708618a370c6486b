/**
 * Versioned SQLite migrations on a file written by an older version: migration 2 turns setlist
 * positions into places 1..n (docs/API.md), keeping each setlist's order (position, then link
 * order), and leaves everything else as it was; the relation-page migration adds the index a
 * song's page of services is read from; migration 9 totals each pair over the service types.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/store/sqlite/migrations';
import { SqliteStore } from '../../src/store/sqlite/store';
import { expectSlotFree } from '../../src/store/types';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-migrations-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A database exactly as version 1 of the schema left it, with gaps and ties in its positions. */
function versionOneFile(): string {
  const file = path.join(dir, `v1-${Date.now()}-${Math.random()}.db`);
  const db = new Database(file);
  db.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  db.exec(MIGRATIONS[0].sql);
  db.prepare('INSERT INTO schema_migrations VALUES (1, ?, ?)').run(MIGRATIONS[0].description, new Date().toISOString());
  const song = db.prepare('INSERT INTO songs (name) VALUES (?)');
  for (const name of ['a', 'b', 'c', 'd', 'e']) song.run(name);
  db.prepare("INSERT INTO services (date, service_type) VALUES (1, 'WED'), (2, 'WED'), (3, 'WED')").run();
  const link = db.prepare('INSERT INTO performed_in (service_id, song_id, position) VALUES (?, ?, ?)');
  // Service 1: e at 9, a at 2, c at 2 (linked after a), b at 5  ->  a, c, b, e
  link.run(1, 5, 9);
  link.run(1, 1, 2);
  link.run(1, 3, 2);
  link.run(1, 2, 5);
  // Service 2: already 1..n; service 3: one song far down.
  link.run(2, 4, 1);
  link.run(2, 1, 2);
  link.run(3, 2, 40);
  db.close();
  return file;
}

/** `file` as the release before migration `version` left it: `undo` run, and the migration's record gone. */
function asBefore(file: string, version: number, undo: string): void {
  const old = new Database(file);
  old.exec(undo);
  old.prepare('DELETE FROM schema_migrations WHERE version = ?').run(version);
  old.close();
}

const stored = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare('SELECT service_id, song_id, position FROM performed_in ORDER BY service_id, position')
      .all() as { service_id: number; song_id: number; position: number }[];
  } finally {
    db.close();
  }
};

test('migration 2 renumbers every setlist to 1..n in its old order, and is recorded once', async () => {
  const file = versionOneFile();
  const idsBefore = new Database(file, { readonly: true }).prepare('SELECT id, service_id, song_id FROM performed_in ORDER BY id').all();
  const store = new SqliteStore(file);
  const names = async (serviceId: number) => (await store.setlistsForServices([serviceId]))[0].items.map((s) => s.name);
  expect(await names(1)).toEqual(['a', 'c', 'b', 'e']);
  expect(await names(3)).toEqual(['b']);
  await store.close();

  expect(stored(file).map((r) => `${r.service_id}:${r.song_id}@${r.position}`)).toEqual([
    '1:1@1', '1:3@2', '1:2@3', '1:5@4',
    '2:4@1', '2:1@2',
    '3:2@1',
  ]);
  const db = new Database(file, { readonly: true });
  // Link ids (the link order snapshots carry) are untouched; the migration is recorded.
  expect(db.prepare('SELECT id, service_id, song_id FROM performed_in ORDER BY id').all()).toEqual(idsBefore);
  expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual(
    MIGRATIONS.map((m) => m.version),
  );
  db.close();

  // Opening again applies nothing twice and changes nothing.
  await new SqliteStore(file).close();
  expect(stored(file).map((r) => r.position)).toEqual([1, 2, 3, 4, 1, 2, 1]);
});

test('migration 1 is never edited: versions are 1, 2, ... in order', () => {
  expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  expect(MIGRATIONS[0].description).toBe('songs, services, PERFORMED_IN links, users');
});

test('the relation-page migration indexes each song\'s links by date on a file written before it, and pages from it', async () => {
  const migration = MIGRATIONS.find((m) => m.sql.includes('performed_in_song_date'))!;
  // A file as the release before it left it: the same schema without the index and its record.
  const file = path.join(dir, `before-relation-index-${Date.now()}.db`);
  const writer = new SqliteStore(file);
  const song = await writer.createSong({ name: 'Sung often', artists: [] });
  const made: number[] = [];
  for (let i = 0; i < 12; i++) {
    const v = expectSlotFree(await writer.createService({ date: (12 - i) * 86_400_000, serviceType: i % 3 ? 'SUN_AM' : 'WED' }));
    await writer.replaceSetlist(v.id, [song.id]);
    made.push(v.id);
  }
  await writer.close();
  asBefore(file, migration.version, 'DROP INDEX performed_in_song_date');

  const store = new SqliteStore(file);
  const [page] = await store.servicesForSongs([song.id], {}, { limit: 5, offset: 2 });
  // Later services were made on earlier dates: date order is the reverse of id order.
  expect({ ids: page.items.map((v) => v.id), total: page.totalCount }).toEqual({ ids: [...made].reverse().slice(2, 7), total: 12 });
  await store.close();
  const db = new Database(file, { readonly: true });
  expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'performed_in_song_date'").pluck().get()).toMatch(
    /ON performed_in\(song_id, service_date, service_id, service_type\)/,
  );
  expect(db.prepare('SELECT count(*) FROM schema_migrations WHERE version = ?').pluck().get(migration.version)).toBe(1);
  db.close();
});

test('migration 8 keeps services that share a date and type; the lowest id of each holds it from then on', async () => {
  // A file of an old release holding services written twice for one date and type.
  const file = path.join(dir, `v1-service-slots-${Date.now()}.db`);
  const old = new Database(file);
  old.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  old.exec(MIGRATIONS[0].sql);
  old.prepare('INSERT INTO schema_migrations VALUES (1, ?, ?)').run(MIGRATIONS[0].description, new Date().toISOString());
  old.prepare("INSERT INTO services (date, service_type) VALUES (5, 'WED'), (5, 'SUN_AM'), (5, 'WED'), (9, 'WED'), (5, 'WED')").run();
  old.close();

  const store = new SqliteStore(file);
  expect((await store.listServices({}, {})).totalCount).toBe(5);
  expect(await store.createService({ date: 5, serviceType: 'WED' })).toEqual({ slotTakenBy: 1 });
  expect(await store.createService({ date: 5, serviceType: 'SUN_AM' })).toEqual({ slotTakenBy: 2 });
  expect(await store.updateService(3, { date: 9 })).toEqual({ slotTakenBy: 4 });
  // A service left in its shared slot keeps its record and may be written as it is.
  expect(await store.updateService(5, { serviceType: 'WED' })).toEqual({ id: 5, date: 5, serviceType: 'WED' });
  await store.close();
  const db = new Database(file, { readonly: true });
  expect(db.prepare('SELECT id, guarded FROM services ORDER BY id').all()).toEqual([
    { id: 1, guarded: 1 },
    { id: 2, guarded: 1 },
    { id: 3, guarded: null },
    { id: 4, guarded: 1 },
    { id: 5, guarded: null },
  ]);
  db.close();
});

test("migration 9 totals each pair of a file written before it over the types, and keeps the totals from then on", async () => {
  const migration = MIGRATIONS.find((m) => m.sql.includes('CREATE TABLE song_pair_totals'))!;
  const file = path.join(dir, `before-pair-totals-${Date.now()}.db`);
  const writer = new SqliteStore(file);
  const [a, b, c] = [await writer.createSong({ name: 'a', artists: [] }), await writer.createSong({ name: 'b', artists: [] }), await writer.createSong({ name: 'c', artists: [] })];
  // a and b together at 3 services of 2 types, a and c at 1.
  for (const [day, type, ids] of [[1, 'SUN_AM', [a.id, b.id]], [2, 'WED', [b.id, a.id, c.id]], [3, 'SUN_PM', [a.id, b.id]]] as const) {
    const v = expectSlotFree(await writer.createService({ date: day * 86_400_000, serviceType: type }));
    await writer.replaceSetlist(v.id, [...ids]);
  }
  await writer.close();
  // The file as the release before it left it: no totals, no triggers keeping them, no record.
  asBefore(file, migration.version, 'DROP TRIGGER song_pairs_total_in; DROP TRIGGER song_pairs_total_changed; DROP TRIGGER song_pairs_total_out; DROP TABLE song_pair_totals');

  const store = new SqliteStore(file);
  const allTime = { from: null, to: null, serviceTypes: ['SUN_AM', 'SUN_PM', 'WED'] as ('SUN_AM' | 'SUN_PM' | 'WED')[] };
  const together = async () => (await store.songsSungWith(a.id, allTime, 10)).map((p) => [p.song.id, p.together]);
  expect(await together()).toEqual([[b.id, 3], [c.id, 1]]);
  // Kept from then on: a setlist changed moves the totals with it.
  const services = (await store.listServices({}, {})).items;
  await store.replaceSetlist(services[1].id, [c.id, a.id]);
  expect(await together()).toEqual([[b.id, 2], [c.id, 1]]);
  await store.close();
  const db = new Database(file, { readonly: true });
  const recount = db.prepare('SELECT song_id, other_id, sum(together) AS together FROM song_pairs GROUP BY song_id, other_id ORDER BY 1, 2').all();
  expect(db.prepare('SELECT song_id, other_id, together FROM song_pair_totals ORDER BY 1, 2').all()).toEqual(recount);
  expect(db.prepare('SELECT count(*) FROM schema_migrations WHERE version = ?').pluck().get(migration.version)).toBe(1);
  db.close();
});
