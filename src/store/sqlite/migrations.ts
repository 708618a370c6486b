import type Database from 'better-sqlite3';
import { ANALYTICS_MIGRATION, fillArtistSpellings, SONG_PAIR_TOTALS_MIGRATION, SONG_USAGE_MIGRATION } from './analytics-schema';
import { TIMELINE_MIGRATION } from './timeline-schema';
import { WEBHOOKS_MIGRATION } from './webhook-statements';

/**
 * Schema versions, applied in order, each once, inside one transaction with its bookkeeping row
 * in `schema_migrations`. Never edit a released migration: add the next one.
 */
export const MIGRATIONS: {
  version: number;
  description: string;
  sql: string;
  /** Data the SQL cannot compute (artist keys are JavaScript), run after it in its transaction. */
  after?: (db: Database.Database) => void;
}[] = [
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
    description: 'setlist positions are places 1..n without gaps (docs/API.md)',
    // Ties (equal positions) kept link order (id) before: that order becomes the places.
    sql: `
      UPDATE performed_in SET position = r.place
      FROM (
        SELECT id, row_number() OVER (PARTITION BY service_id ORDER BY position, id) AS place
        FROM performed_in
      ) AS r
      WHERE performed_in.id = r.id AND performed_in.position <> r.place;
    `,
  },
  {
    version: 3,
    description: 'list paging: name index, row counts, full-text search over songs',
    sql: `
      -- Sorting songs by name walks this index (the rowid, the id, is its tie-breaker).
      CREATE INDEX songs_name ON songs(name);

      -- Row counts kept by triggers, so a page's totalCount costs one lookup whatever the size.
      CREATE TABLE row_counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO row_counts (name, n) SELECT 'songs', count(*) FROM songs;
      INSERT INTO row_counts (name, n)
        SELECT 'services:' || t.value, (SELECT count(*) FROM services WHERE service_type = t.value)
        FROM json_each('["SUN_AM","SUN_PM","WED"]') t;
      CREATE TRIGGER songs_count_insert AFTER INSERT ON songs BEGIN
        UPDATE row_counts SET n = n + 1 WHERE name = 'songs';
      END;
      CREATE TRIGGER songs_count_delete AFTER DELETE ON songs BEGIN
        UPDATE row_counts SET n = n - 1 WHERE name = 'songs';
      END;
      CREATE TRIGGER services_count_insert AFTER INSERT ON services BEGIN
        UPDATE row_counts SET n = n + 1 WHERE name = 'services:' || new.service_type;
      END;
      CREATE TRIGGER services_count_delete AFTER DELETE ON services BEGIN
        UPDATE row_counts SET n = n - 1 WHERE name = 'services:' || old.service_type;
      END;
      CREATE TRIGGER services_count_update AFTER UPDATE OF service_type ON services
      WHEN old.service_type <> new.service_type BEGIN
        UPDATE row_counts SET n = n - 1 WHERE name = 'services:' || old.service_type;
        UPDATE row_counts SET n = n + 1 WHERE name = 'services:' || new.service_type;
      END;

      -- Song search: an external-content FTS5 index over songs(name, artists), kept in step by
      -- triggers inside the writing transaction. The artists column is the JSON array as stored;
      -- its brackets, quotes and commas are separators to the tokenizer. remove_diacritics 2 folds
      -- accents (also on letters with several marks, as in Vietnamese); prefix indexes serve the
      -- prefix match on the last word.
      CREATE VIRTUAL TABLE songs_fts USING fts5(
        name, artists, content = 'songs', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
      );
      INSERT INTO songs_fts (songs_fts, rank) VALUES ('rank', 'bm25(2.0, 1.0)');
      INSERT INTO songs_fts (songs_fts) VALUES ('rebuild');
      CREATE TRIGGER songs_fts_insert AFTER INSERT ON songs BEGIN
        INSERT INTO songs_fts (rowid, name, artists) VALUES (new.id, new.name, new.artists);
      END;
      CREATE TRIGGER songs_fts_delete AFTER DELETE ON songs BEGIN
        INSERT INTO songs_fts (songs_fts, rowid, name, artists) VALUES ('delete', old.id, old.name, old.artists);
      END;
      CREATE TRIGGER songs_fts_update AFTER UPDATE OF name, artists ON songs BEGIN
        INSERT INTO songs_fts (songs_fts, rowid, name, artists) VALUES ('delete', old.id, old.name, old.artists);
        INSERT INTO songs_fts (rowid, name, artists) VALUES (new.id, new.name, new.artists);
      END;
    `,
  },
  {
    version: 4,
    description: 'analytics: service date and type copied onto performed_in, setlist ends, covering indexes',
    sql: ANALYTICS_MIGRATION,
  },
  {
    version: 5,
    description: 'analytics: one maintained usage row per song, indexed in each report order; song pairs; artist spellings; timeline periods',
    sql: SONG_USAGE_MIGRATION + TIMELINE_MIGRATION,
    after: fillArtistSpellings,
  },
  {
    version: 6,
    description: 'songs carry their CCLI song number and copyright line; search also finds a song by its CCLI number',
    sql: `
      -- The rules of src/domain/licensing.ts, kept by the file too: NULL when not recorded.
      ALTER TABLE songs ADD COLUMN ccli_number TEXT
        CHECK (ccli_number IS NULL OR (length(ccli_number) BETWEEN 1 AND 10 AND ccli_number NOT GLOB '*[^0-9]*'));
      ALTER TABLE songs ADD COLUMN copyright TEXT
        CHECK (copyright IS NULL OR length(copyright) BETWEEN 1 AND 500);

      -- The search index of migration 3 gains the CCLI number as a third column. An FTS5 table's
      -- columns cannot change, so it is made again (with its triggers) and rebuilt from songs.
      DROP TRIGGER songs_fts_insert;
      DROP TRIGGER songs_fts_delete;
      DROP TRIGGER songs_fts_update;
      DROP TABLE songs_fts;
      CREATE VIRTUAL TABLE songs_fts USING fts5(
        name, artists, ccli_number, content = 'songs', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
      );
      INSERT INTO songs_fts (songs_fts, rank) VALUES ('rank', 'bm25(2.0, 1.0, 1.0)');
      INSERT INTO songs_fts (songs_fts) VALUES ('rebuild');
      CREATE TRIGGER songs_fts_insert AFTER INSERT ON songs BEGIN
        INSERT INTO songs_fts (rowid, name, artists, ccli_number) VALUES (new.id, new.name, new.artists, new.ccli_number);
      END;
      CREATE TRIGGER songs_fts_delete AFTER DELETE ON songs BEGIN
        INSERT INTO songs_fts (songs_fts, rowid, name, artists, ccli_number)
        VALUES ('delete', old.id, old.name, old.artists, old.ccli_number);
      END;
      CREATE TRIGGER songs_fts_update AFTER UPDATE OF name, artists, ccli_number ON songs BEGIN
        INSERT INTO songs_fts (songs_fts, rowid, name, artists, ccli_number)
        VALUES ('delete', old.id, old.name, old.artists, old.ccli_number);
        INSERT INTO songs_fts (rowid, name, artists, ccli_number) VALUES (new.id, new.name, new.artists, new.ccli_number);
      END;
    `,
  },
  {
    version: 7,
    description: "relation pages: each song's links in service date order",
    // A song's page of services (Song.services, withSong) reads its range of this index in page
    // order and stops after the page (docs/performance.md); the copied type makes it covering.
    sql: `
      CREATE INDEX performed_in_song_date ON performed_in(song_id, service_date, service_id, service_type);
    `,
  },
  {
    version: 8,
    description: 'one service per date and type: a unique index over the services that hold their slot',
    // The guard of ../types.ts SlotTaken. `guarded` is 1 for a service holding its date and type,
    // NULL for one that shared them with a lower id before this rule (a unique index treats NULLs
    // as distinct, so those keep their records); the Neo4j store keeps the same rule with the same
    // property and a composite uniqueness constraint.
    sql: `
      ALTER TABLE services ADD COLUMN guarded INTEGER DEFAULT 1 CHECK (guarded = 1);
      UPDATE services SET guarded = NULL
      WHERE EXISTS (
        SELECT 1 FROM services o WHERE o.date = services.date AND o.service_type = services.service_type AND o.id < services.id
      );
      CREATE UNIQUE INDEX services_slot ON services(date, service_type, guarded);
    `,
  },
  {
    version: 9,
    description: "analytics: each song's pairs over every service type, in order of services together",
    sql: SONG_PAIR_TOTALS_MIGRATION,
  },
  {
    version: 10,
    description: 'change events, recorded by each write in its transaction (the outbox)',
    sql: `
      -- AUTOINCREMENT: an event's number is never reused, so ids keep their order for good.
      CREATE TABLE events (
        seq  INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        at   INTEGER NOT NULL,  -- epoch ms
        data TEXT NOT NULL CHECK (json_valid(data))
      );
    `,
  },
  {
    version: 11,
    description: 'webhook endpoints and their deliveries',
    sql: WEBHOOKS_MIGRATION,
  },
];

/** The file was written by a newer release: running old code on it could corrupt it. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `The database has schema version ${found}, newer than this release knows (${known}): ` +
        'run the release that wrote it, or restore a backup taken before the upgrade',
    );
  }
}

/**
 * Apply every pending migration, each recorded in `schema_migrations`. The check and all the
 * migrations run in ONE `BEGIN IMMEDIATE` transaction: it takes the file's write lock before
 * reading what is applied, so of two processes opening one file at the same moment (two API
 * instances, or the service and a command-line tool) the second waits for the first to commit
 * (the connection's busy_timeout bounds the wait), then finds nothing left to do. Checked and
 * applied separately, both would read "not applied" and the second would re-run DDL the first
 * had already committed ("duplicate column", "no such trigger").
 */
export function migrate(db: Database.Database): number[] {
  const known = Math.max(...MIGRATIONS.map((m) => m.version));
  const run = db.transaction((): number[] => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
    const newest = Math.max(...applied, 0);
    if (newest > known) throw new SchemaTooNewError(newest, known);
    const done: number[] = [];
    for (const m of MIGRATIONS) {
      if (applied.has(m.version)) continue;
      db.exec(m.sql);
      m.after?.(db);
      db.prepare('INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)')
        .run(m.version, m.description, new Date().toISOString());
      done.push(m.version);
    }
    return done;
  });
  return run.immediate();
}
