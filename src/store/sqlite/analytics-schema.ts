import type Database from 'better-sqlite3';
import { spellingsByKey } from '../../domain/artists';

/**
 * Analytics must not scan and join: each performed_in row carries its service's date and type
 * and whether it opens or closes its setlist, so a window reads one covering index; and
 * song_usage_totals keeps each (song, service type)'s all-time count, first and last date and
 * opener/closer counts, so all-time analytics read one small table.
 *
 * Triggers keep those copies true, not the store's write code: every path that changes a
 * setlist or a service (the store's writes, cascading deletes, importSnapshot, a second process
 * on the same file) goes through them, inside the writing statement's own transaction, so the
 * copies can never be seen out of step with the rows they copy.
 */
const refreshEnds = (service: string) => `
    UPDATE performed_in SET
      is_opener = (id = (SELECT e.id FROM performed_in e WHERE e.service_id = ${service}
                         ORDER BY e.position, e.id LIMIT 1)),
      is_closer = (id = (SELECT e.id FROM performed_in e WHERE e.service_id = ${service}
                         ORDER BY e.position DESC, e.id DESC LIMIT 1))
    WHERE service_id = ${service};`;

/** Re-read first and last date of one (song, type) by two index seeks; drop the row once empty. */
const refreshBounds = (row: string) => `
    UPDATE song_usage_totals SET
      first = (SELECT min(service_date) FROM performed_in
               WHERE song_id = ${row}.song_id AND service_type = ${row}.service_type),
      last = (SELECT max(service_date) FROM performed_in
              WHERE song_id = ${row}.song_id AND service_type = ${row}.service_type)
    WHERE song_id = ${row}.song_id AND service_type = ${row}.service_type;
    DELETE FROM song_usage_totals
    WHERE song_id = ${row}.song_id AND service_type = ${row}.service_type AND times = 0;`;

/** Take link `row` out of its (song, type) totals. */
const leaveTotals = (row: string) => `
    UPDATE song_usage_totals SET
      times = times - 1, openers = openers - ${row}.is_opener, closers = closers - ${row}.is_closer
    WHERE song_id = ${row}.song_id AND service_type = ${row}.service_type;`;

export const ANALYTICS_MIGRATION = `
  ALTER TABLE performed_in ADD COLUMN service_date INTEGER;
  ALTER TABLE performed_in ADD COLUMN service_type TEXT;
  -- 1 when first (last) in setlist order: lowest (highest) position, then link order.
  ALTER TABLE performed_in ADD COLUMN is_opener INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE performed_in ADD COLUMN is_closer INTEGER NOT NULL DEFAULT 0;

  UPDATE performed_in SET (service_date, service_type) =
    (SELECT v.date, v.service_type FROM services v WHERE v.id = performed_in.service_id);
  UPDATE performed_in SET
    is_opener = (id = (SELECT e.id FROM performed_in e WHERE e.service_id = performed_in.service_id
                       ORDER BY e.position, e.id LIMIT 1)),
    is_closer = (id = (SELECT e.id FROM performed_in e WHERE e.service_id = performed_in.service_id
                       ORDER BY e.position DESC, e.id DESC LIMIT 1));

  CREATE TABLE song_usage_totals (
    song_id      INTEGER NOT NULL,
    service_type TEXT NOT NULL,
    times        INTEGER NOT NULL,
    first        INTEGER,
    last         INTEGER,
    openers      INTEGER NOT NULL,
    closers      INTEGER NOT NULL,
    PRIMARY KEY (song_id, service_type)
  ) WITHOUT ROWID;
  INSERT INTO song_usage_totals
  SELECT song_id, service_type, count(*), min(service_date), max(service_date), sum(is_opener), sum(is_closer)
  FROM performed_in GROUP BY song_id, service_type;

  -- The copy below fires performed_in_copied, which counts the new link in.
  CREATE TRIGGER performed_in_inserted AFTER INSERT ON performed_in BEGIN
    UPDATE performed_in SET (service_date, service_type) =
      (SELECT v.date, v.service_type FROM services v WHERE v.id = NEW.service_id)
    WHERE id = NEW.id;
    ${refreshEnds('NEW.service_id')}
  END;
  CREATE TRIGGER performed_in_moved AFTER UPDATE OF position, id ON performed_in BEGIN
    ${refreshEnds('NEW.service_id')}
  END;
  CREATE TRIGGER performed_in_deleted AFTER DELETE ON performed_in BEGIN
    ${leaveTotals('OLD')}
    ${refreshBounds('OLD')}
    ${refreshEnds('OLD.service_id')}
  END;
  -- A link's service date or type set (on insert) or changed (with its service): move it between
  -- totals. On insert OLD's type is NULL, which matches no row.
  CREATE TRIGGER performed_in_copied AFTER UPDATE OF service_date, service_type ON performed_in BEGIN
    ${leaveTotals('OLD')}
    INSERT INTO song_usage_totals (song_id, service_type, times, openers, closers)
    VALUES (NEW.song_id, NEW.service_type, 1, NEW.is_opener, NEW.is_closer)
    ON CONFLICT (song_id, service_type) DO UPDATE SET
      times = times + 1, openers = openers + excluded.openers, closers = closers + excluded.closers;
    ${refreshBounds('OLD')}
    ${refreshBounds('NEW')}
  END;
  CREATE TRIGGER performed_in_ends AFTER UPDATE OF is_opener, is_closer ON performed_in
  WHEN NEW.service_type IS NOT NULL BEGIN
    UPDATE song_usage_totals SET
      openers = openers + NEW.is_opener - OLD.is_opener, closers = closers + NEW.is_closer - OLD.is_closer
    WHERE song_id = NEW.song_id AND service_type = NEW.service_type;
  END;
  CREATE TRIGGER services_changed AFTER UPDATE OF date, service_type ON services BEGIN
    UPDATE performed_in SET service_date = NEW.date, service_type = NEW.service_type
    WHERE service_id = NEW.id;
  END;

  -- One song's performances (Song.usage, songsSungWith), and the totals' first/last seeks.
  CREATE INDEX performed_in_song_usage
    ON performed_in(song_id, service_type, service_date, is_opener, is_closer, service_id);
  -- Window-bounded analytics read only the window's range of this one.
  CREATE INDEX performed_in_date_usage
    ON performed_in(service_date, service_type, song_id, is_opener, is_closer, service_id);
`;

/** The service types as song_usage names its columns. */
export const USAGE_TYPES = [
  ['SUN_AM', 'sun_am'],
  ['SUN_PM', 'sun_pm'],
  ['WED', 'wed'],
] as const;

/** Beyond any date: min()/max() of several columns is NULL when one is, so NULLs become these. */
export const NO_FIRST = '9223372036854775807';
export const NO_LAST = '-9223372036854775807';

/** One SQL fragment per service type (`type` as stored, `col` as song_usage names its columns), joined. */
export const perType = (fn: (type: string, col: string) => string, sep = ',\n      ') =>
  USAGE_TYPES.map(([type, col]) => fn(type, col)).join(sep);

/**
 * Add (sign +) or take out (sign -) link `row` in its song's column group for its type: count and
 * ends move by one; the type's first and last date are re-read by two seeks of
 * performed_in_song_usage (CASE runs only the matching type's). One statement per link move.
 */
const moveUsage = (row: string, sign: '+' | '-') => `
    UPDATE song_usage SET
      ${perType((t, c) => `${c}_times = ${c}_times ${sign} (${row}.service_type IS '${t}'),
      ${c}_openers = ${c}_openers ${sign} (${row}.service_type IS '${t}') * ${row}.is_opener,
      ${c}_closers = ${c}_closers ${sign} (${row}.service_type IS '${t}') * ${row}.is_closer,
      ${c}_first = iif(${row}.service_type IS '${t}', (SELECT min(service_date) FROM performed_in
        WHERE song_id = ${row}.song_id AND service_type = '${t}'), ${c}_first),
      ${c}_last = iif(${row}.service_type IS '${t}', (SELECT max(service_date) FROM performed_in
        WHERE song_id = ${row}.song_id AND service_type = '${t}'), ${c}_last)`)}
    WHERE song_id = ${row}.song_id AND ${row}.service_type IS NOT NULL;`;

/**
 * Count link `row` in (sign +) or out of (sign -) the pairs it makes with the other links of its
 * service whose copied type is `type`, both ways round. Links of one service share its type, so at
 * rest every pair is between links of one type; while a service's type changes its links move one
 * by one, and each moved link leaves the pairs with links still of the old type and joins those
 * already of the new one, so every pair is counted out once and in once.
 */
const movePairs = (row: string, type: string, sign: '+' | '-') => {
  const others = `SELECT song_id FROM performed_in
      WHERE service_id = ${row}.service_id AND song_id <> ${row}.song_id AND service_type = ${type}`;
  if (sign === '+') {
    return `
    INSERT INTO song_pairs (song_id, other_id, service_type, together)
    SELECT ${row}.song_id, o.song_id, ${type}, 1 FROM (${others}) o WHERE true
    UNION ALL
    SELECT o.song_id, ${row}.song_id, ${type}, 1 FROM (${others}) o WHERE true
    ON CONFLICT (song_id, other_id, service_type) DO UPDATE SET together = together + 1;`;
  }
  // Both ways round, each a primary-key seek per other link.
  const pairsOf = `service_type = ${type} AND (
      (song_id = ${row}.song_id AND other_id IN (${others}))
      OR (other_id = ${row}.song_id AND song_id IN (${others})))`;
  return `
    UPDATE song_pairs SET together = together - 1 WHERE ${pairsOf};
    DELETE FROM song_pairs WHERE together = 0 AND ${pairsOf};`;
};

/** Every song's usage row recomputed from performed_in's copies (migration 5, bulk imports). */
export const SONG_USAGE_FILL = `
  UPDATE song_usage SET (
    ${perType((_, c) => `${c}_times, ${c}_first, ${c}_last, ${c}_openers, ${c}_closers`)}
  ) = (
    SELECT ${perType((t) => `coalesce(sum(service_type = '${t}'), 0),
      min(iif(service_type = '${t}', service_date, NULL)), max(iif(service_type = '${t}', service_date, NULL)),
      coalesce(sum((service_type = '${t}') * is_opener), 0), coalesce(sum((service_type = '${t}') * is_closer), 0)`)}
    FROM performed_in p WHERE p.song_id = song_usage.song_id
  );`;

/** Every pair recounted from the setlists (migration 5, bulk imports). */
export const SONG_PAIRS_FILL = `
  DELETE FROM song_pairs;
  INSERT INTO song_pairs
  SELECT a.song_id, b.song_id, a.service_type, count(*)
  FROM performed_in a JOIN performed_in b ON b.service_id = a.service_id AND b.song_id <> a.song_id
  GROUP BY a.song_id, b.song_id, a.service_type;`;

/**
 * Migration 5: one row per song (song_usage) instead of one per (song, service type), pivoted,
 * with the all-type totals as generated columns and an index per report order. The all-time
 * report, rotation and new songs then read an index in the order they answer in, and stop at
 * their page: no grouping, no sort, no scan of the history (migration 4's per-type rows still
 * had to be grouped and sorted: ~150 ms for the 1,000,000-performance bench history).
 *
 * The same triggers keep it, in the writing statement's transaction (see the header above).
 * A song's row is made with the song (AFTER INSERT ON songs) and goes with it (ON DELETE CASCADE).
 */
export const SONG_USAGE_MIGRATION = `
  DROP TRIGGER performed_in_deleted;
  DROP TRIGGER performed_in_copied;
  DROP TRIGGER performed_in_ends;
  DROP TABLE song_usage_totals;

  CREATE TABLE song_usage (
    song_id INTEGER PRIMARY KEY REFERENCES songs(id) ON DELETE CASCADE,
    ${perType(
      (_, c) => `${c}_times INTEGER NOT NULL DEFAULT 0, ${c}_first INTEGER, ${c}_last INTEGER,
    ${c}_openers INTEGER NOT NULL DEFAULT 0, ${c}_closers INTEGER NOT NULL DEFAULT 0`,
      ',\n    ',
    )},
    times   INTEGER GENERATED ALWAYS AS (${perType((_, c) => `${c}_times`, ' + ')}) VIRTUAL,
    first   INTEGER GENERATED ALWAYS AS (nullif(min(${perType((_, c) => `coalesce(${c}_first, ${NO_FIRST})`, ', ')}), ${NO_FIRST})) VIRTUAL,
    last    INTEGER GENERATED ALWAYS AS (nullif(max(${perType((_, c) => `coalesce(${c}_last, ${NO_LAST})`, ', ')}), ${NO_LAST})) VIRTUAL,
    openers INTEGER GENERATED ALWAYS AS (${perType((_, c) => `${c}_openers`, ' + ')}) VIRTUAL,
    closers INTEGER GENERATED ALWAYS AS (${perType((_, c) => `${c}_closers`, ' + ')}) VIRTUAL
  );
  INSERT INTO song_usage (song_id) SELECT id FROM songs;
  ${SONG_USAGE_FILL}

  -- Each (key, song) row's entries with that key: filled by fillArtistSpellings (JavaScript keys).
  ALTER TABLE song_artist_keys ADD COLUMN spellings TEXT NOT NULL DEFAULT '[]';

  -- Pairs of songs sung in one service, both ways round: services of each type holding both.
  CREATE TABLE song_pairs (
    song_id      INTEGER NOT NULL,
    other_id     INTEGER NOT NULL,
    service_type TEXT NOT NULL,
    together     INTEGER NOT NULL,
    PRIMARY KEY (song_id, other_id, service_type)
  ) WITHOUT ROWID;
  ${SONG_PAIRS_FILL}

  -- The report orders (ties by song id); rotation and new songs are ranges of the last two.
  CREATE INDEX song_usage_times ON song_usage(times DESC, song_id);
  CREATE INDEX song_usage_last_desc ON song_usage(last DESC, song_id);
  CREATE INDEX song_usage_last ON song_usage(last, song_id);
  CREATE INDEX song_usage_first ON song_usage(first, song_id);

  CREATE TRIGGER songs_usage_row AFTER INSERT ON songs BEGIN
    INSERT OR IGNORE INTO song_usage (song_id) VALUES (NEW.id);
  END;
  CREATE TRIGGER performed_in_deleted AFTER DELETE ON performed_in BEGIN
    ${moveUsage('OLD', '-')}
    ${movePairs('OLD', 'OLD.service_type', '-')}
    ${refreshEnds('OLD.service_id')}
  END;
  -- A link's service date or type set (on insert OLD's type is NULL: nothing to move out, and the
  -- WHEN skips it) or changed with its service: out of its old column group, into its new one.
  -- Either order gives the same rows: counts add up, and dates are re-read from performed_in.
  CREATE TRIGGER performed_in_copied_out AFTER UPDATE OF service_date, service_type ON performed_in
  WHEN OLD.service_type IS NOT NULL BEGIN
    ${moveUsage('OLD', '-')}
  END;
  CREATE TRIGGER performed_in_copied_in AFTER UPDATE OF service_date, service_type ON performed_in BEGIN
    ${moveUsage('NEW', '+')}
  END;
  -- Only a change of type moves a link between pairs (a date change leaves them).
  CREATE TRIGGER performed_in_paired_out AFTER UPDATE OF service_type ON performed_in
  WHEN OLD.service_type IS NOT NULL AND OLD.service_type IS NOT NEW.service_type BEGIN
    ${movePairs('OLD', 'OLD.service_type', '-')}
  END;
  CREATE TRIGGER performed_in_paired_in AFTER UPDATE OF service_type ON performed_in
  WHEN OLD.service_type IS NOT NEW.service_type BEGIN
    ${movePairs('NEW', 'NEW.service_type', '+')}
  END;
  CREATE TRIGGER performed_in_ends AFTER UPDATE OF is_opener, is_closer ON performed_in
  WHEN NEW.service_type IS NOT NULL BEGIN
    UPDATE song_usage SET
      ${perType((t, c) => `${c}_openers = ${c}_openers + (NEW.service_type IS '${t}') * (NEW.is_opener - OLD.is_opener),
      ${c}_closers = ${c}_closers + (NEW.service_type IS '${t}') * (NEW.is_closer - OLD.is_closer)`)}
    WHERE song_id = NEW.song_id;
  END;
`;

/** Every pair's total over the service types, from song_pairs (migration 9, bulk imports). */
export const SONG_PAIR_TOTALS_FILL = `
  DELETE FROM song_pair_totals;
  INSERT INTO song_pair_totals (song_id, other_id, together)
  SELECT song_id, other_id, sum(together) FROM song_pairs GROUP BY song_id, other_id;`;

/**
 * Migration 9: each pair's services together over every type, indexed per song in order of that
 * count. The all-time, all-types "sung with" (what suggestions read for each chosen song) then
 * reads a song's pairs from the most sung together down and stops after its page, where
 * song_pairs (per type, keyed by the other song) had to be read whole and summed: every partner a
 * popular song ever had, a cost that grew with the history (docs/performance.md).
 *
 * Kept from song_pairs by its own triggers, in the same statement's transaction: a pair row made
 * adds its count (an upsert's DO UPDATE fires the update trigger instead), a count changed moves
 * the total by the difference, a row deleted takes its count out and a total come to 0 goes.
 */
export const SONG_PAIR_TOTALS_MIGRATION = `
  CREATE TABLE song_pair_totals (
    song_id  INTEGER NOT NULL,
    other_id INTEGER NOT NULL,
    together INTEGER NOT NULL,
    PRIMARY KEY (song_id, other_id)
  ) WITHOUT ROWID;
  ${SONG_PAIR_TOTALS_FILL}
  CREATE INDEX song_pair_totals_order ON song_pair_totals(song_id, together DESC, other_id);

  CREATE TRIGGER song_pairs_total_in AFTER INSERT ON song_pairs BEGIN
    INSERT INTO song_pair_totals (song_id, other_id, together) VALUES (NEW.song_id, NEW.other_id, NEW.together)
    ON CONFLICT (song_id, other_id) DO UPDATE SET together = together + excluded.together;
  END;
  CREATE TRIGGER song_pairs_total_changed AFTER UPDATE OF together ON song_pairs BEGIN
    UPDATE song_pair_totals SET together = together + NEW.together - OLD.together
    WHERE song_id = NEW.song_id AND other_id = NEW.other_id;
  END;
  CREATE TRIGGER song_pairs_total_out AFTER DELETE ON song_pairs BEGIN
    UPDATE song_pair_totals SET together = together - OLD.together
    WHERE song_id = OLD.song_id AND other_id = OLD.other_id AND OLD.together <> 0;
    DELETE FROM song_pair_totals WHERE song_id = OLD.song_id AND other_id = OLD.other_id AND together = 0;
  END;
`;

/**
 * Migration 5's artist spellings for songs written before it: each song's entries grouped by
 * their key (src/domain/artists.ts), as the store writes them (SqliteStore.indexArtists).
 */
export function fillArtistSpellings(db: Database.Database): void {
  const set = db.prepare('UPDATE song_artist_keys SET spellings = ? WHERE artist_key = ? AND song_id = ?');
  // Pages of songs: better-sqlite3 cannot write while a read is open on the connection.
  const page = db.prepare('SELECT id, artists FROM songs WHERE id > ? ORDER BY id LIMIT 5000');
  for (let after = 0, songs: { id: number; artists: string }[]; (songs = page.all(after) as typeof songs).length; ) {
    for (const song of songs) {
      for (const [key, spellings] of spellingsByKey(JSON.parse(song.artists))) set.run(JSON.stringify(spellings), key, song.id);
    }
    after = songs[songs.length - 1].id;
  }
}
