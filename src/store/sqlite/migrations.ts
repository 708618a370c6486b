import type Database from 'better-sqlite3';
import { ANALYTICS_MIGRATION } from './analytics-schema';

/**
 * Schema versions, applied in order, each once, inside one transaction with its bookkeeping row
 * in `schema_migrations`. Never edit a released migration: add the next one.
 */
export const MIGRATIONS: { version: number; description: string; sql: string }[] = [
  {
    version: 1,
    description: 'songs, services, PERFORMED_IN links, users',
    sql: `
      -- AUTOINCREMENT (not just INTEGER PRIMARY KEY) so ids are never reused after a delete.
      CREATE TABLE songs (
        id      INTEGER PRIMARY KEY AUTOINCREMENT,
        name    TEXT NOT NULL,
        artists TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(artists))  -- JSON array, as given
      );
      -- One row per distinct normalised artist of a song: serves byArtist through the primary key.
      CREATE TABLE song_artist_keys (
        artist_key TEXT NOT NULL,
        song_id    INTEGER NOT NULL REFERENCES songs(id) ON DELETE CASCADE,
        PRIMARY KEY (artist_key, song_id)
      ) WITHOUT ROWID;
      CREATE INDEX song_artist_keys_song ON song_artist_keys(song_id);

      CREATE TABLE services (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        date         INTEGER NOT NULL,
        service_type TEXT NOT NULL CHECK (service_type IN ('SUN_AM', 'SUN_PM', 'WED'))
      );
      CREATE INDEX services_date ON services(date, id);

      -- PERFORMED_IN: the id is the link order that breaks ties between equal positions.
      CREATE TABLE performed_in (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        song_id    INTEGER NOT NULL REFERENCES songs(id) ON DELETE CASCADE,
        service_id INTEGER NOT NULL REFERENCES services(id) ON DELETE CASCADE,
        position   INTEGER NOT NULL CHECK (position >= 1),
        UNIQUE (service_id, song_id)
      );
      CREATE INDEX performed_in_setlist ON performed_in(service_id, position, id);
      CREATE INDEX performed_in_song ON performed_in(song_id);

      CREATE TABLE users (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        username      TEXT NOT NULL,
        username_key  TEXT NOT NULL UNIQUE,  -- lower-cased: usernames are unique ignoring case
        password_hash TEXT NOT NULL,
        role          TEXT NOT NULL CHECK (role IN ('ADMIN', 'USER')),
        token_version INTEGER NOT NULL DEFAULT 0
      );
    `,
  },
  {
    version: 2,
    description: 'analytics: service date and type copied onto performed_in, setlist ends, covering indexes',
    sql: ANALYTICS_MIGRATION,
  },
];

export function migrate(db: Database.Database): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Set(
    db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[],
  );
  const done: number[] = [];
  for (const m of MIGRATIONS) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)')
        .run(m.version, m.description, new Date().toISOString());
    }).immediate();
    done.push(m.version);
  }
  return done;
}
