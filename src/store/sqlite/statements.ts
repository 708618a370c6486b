import { perOrder, SERVICE_AFTER, SERVICE_PAGE, SONG_AFTER, SONG_PAGE, SONG_SERVICES } from '../list-statements';
import type { ServiceSort, SongSort } from '../types';
import { perType } from './analytics-schema';

/**
 * Every SQL statement of the SQLite store, by name. Batch reads take a JSON array parameter and
 * expand it with json_each, so one prepared statement serves any batch size.
 *
 * Lists are read a page at a time (`LIMIT @limit OFFSET @offset`, `@limit` -1 for no limit) with
 * their count beside them in the same read transaction. Which index serves each list is stated in
 * docs/performance.md ("Paging, counting and search") and checked by test/sqlite.plans.test.ts.
 */
const SONG_ORDER = {
  ID_ASC: 'id',
  ID_DESC: 'id DESC',
  NAME_ASC: 'name, id',
  NAME_DESC: 'name DESC, id DESC',
} as const satisfies Record<SongSort, string>;
const SERVICE_ORDER = {
  DATE_ASC: 'date, id',
  DATE_DESC: 'date DESC, id DESC',
} as const satisfies Record<ServiceSort, string>;

/** `@types` is a JSON array of service types: the filter is always given (all three when absent). */
const OF_TYPES = 'service_type IN (SELECT value FROM json_each(@types))';
const songsPage = (sort: SongSort) => `SELECT id, name, artists FROM songs ORDER BY ${SONG_ORDER[sort]} LIMIT @limit OFFSET @offset`;
/** Keyset pages compare (key, id) as one row value, which SQLite answers with an index range. */
const songsAfter = (sort: SongSort) => {
  const op = sort.endsWith('DESC') ? '<' : '>';
  const where = sort.startsWith('ID') ? `id ${op} @id` : `(name, id) ${op} (@key, @id)`;
  return `SELECT id, name, artists FROM songs WHERE ${where} ORDER BY ${SONG_ORDER[sort]} LIMIT @limit`;
};
const servicesPage = (sort: ServiceSort) =>
  `SELECT id, date, service_type FROM services WHERE ${OF_TYPES} ORDER BY ${SERVICE_ORDER[sort]} LIMIT @limit OFFSET @offset`;
const servicesAfter = (sort: ServiceSort) =>
  `SELECT id, date, service_type FROM services WHERE (date, id) ${sort === 'DATE_DESC' ? '<' : '>'} (@key, @id) AND ${OF_TYPES}
   ORDER BY ${SERVICE_ORDER[sort]} LIMIT @limit`;

/**
 * The first @end links of song `song` to services of type `t.value`, in (date, id) order: a seek of
 * performed_in_song_usage that stops after @end rows (the index orders ties on a date by setlist
 * ends before the service id, so only the last date's rows are sorted). Named, because the
 * planner would otherwise walk performed_in_song_date (already in date order) and test the type
 * of every link of the song.
 */
const firstOfType = (song: string, sort: ServiceSort) => `
      SELECT q.id FROM performed_in q INDEXED BY performed_in_song_usage
      WHERE q.song_id = ${song} AND q.service_type = t.value
      ORDER BY ${byDate('q', sort)} LIMIT @end`;

/** A song's services in the asked date order, ties by service id the same way (alias `a`'s columns). */
const byDate = (a: string, sort: ServiceSort) =>
  sort === 'DATE_DESC' ? `${a}.service_date DESC, ${a}.service_id DESC` : `${a}.service_date, ${a}.service_id`;

/**
 * A song's services (Song.services, withSong), in either date order: the same index ranges read
 * forwards or backwards. One song or many (json_each), every type or some (see below).
 */
const servicesForSong = (sort: ServiceSort) => `
    SELECT song_id AS key, service_id AS id, service_date AS date, service_type FROM performed_in
    WHERE song_id = @id ORDER BY ${byDate('performed_in', sort)} LIMIT @limit OFFSET @offset`;
const servicesForSongs = (sort: ServiceSort) => `
    SELECT j.value AS key, p.service_id AS id, p.service_date AS date, p.service_type
    FROM json_each(@ids) j
    JOIN performed_in p ON p.id IN (
      SELECT q.id FROM performed_in q WHERE q.song_id = j.value
      ORDER BY ${byDate('q', sort)} LIMIT @limit OFFSET @offset)
    ORDER BY j.value, ${byDate('p', sort)}`;
// Some types: filtering the date-ordered range row by row would read all of a song's links
// when it is rarely sung in the asked types. performed_in_song_usage (song_id, service_type,
// service_date, ...) is ordered by date within each type, so the page is merged from each asked
// type's first @end links (offset + limit), never from all of them.
const servicesForSongOfTypes = (sort: ServiceSort) => `
    SELECT @id AS key, p.service_id AS id, p.service_date AS date, p.service_type
    FROM json_each(@types) t JOIN performed_in p ON p.id IN (${firstOfType('@id', sort)})
    ORDER BY ${byDate('p', sort)} LIMIT @limit OFFSET @offset`;
// Per song, the same merge as a correlated subquery (measured faster than numbering every
// song's candidates with a window).
const servicesForSongsOfTypes = (sort: ServiceSort) => `
    SELECT j.value AS key, p.service_id AS id, p.service_date AS date, p.service_type
    FROM json_each(@ids) j
    JOIN performed_in p ON p.id IN (
      SELECT c.id FROM json_each(@types) t JOIN performed_in c ON c.id IN (${firstOfType('j.value', sort)})
      ORDER BY ${byDate('c', sort)} LIMIT @limit OFFSET @offset)
    ORDER BY j.value, ${byDate('p', sort)}`;

/**
 * The statement names of a song's services, by the songs asked (one or many), the types (all or
 * some), and order; many songs of every type are named as Neo4j's one statement is.
 */
export const SONG_SERVICE_STATEMENTS = {
  one: { DATE_ASC: 'servicesForSong', DATE_DESC: 'servicesForSongDesc' },
  many: SONG_SERVICES,
  oneOfTypes: { DATE_ASC: 'servicesForSongOfTypes', DATE_DESC: 'servicesForSongOfTypesDesc' },
  manyOfTypes: { DATE_ASC: 'servicesForSongsOfTypes', DATE_DESC: 'servicesForSongsOfTypesDesc' },
} as const satisfies Record<string, Record<ServiceSort, string>>;

export const SQL = {
  // Songs
  ...perOrder(SONG_PAGE, songsPage),
  ...perOrder(SONG_AFTER, songsAfter),
  /** Kept by triggers (migration 2): counting 100,000 rows on every page would cost what the store holds. */
  countSongs: "SELECT n FROM row_counts WHERE name = 'songs'",
  /** `@match` is an FTS5 expression built by src/domain/search.ts; rank is bm25 with name weighted 2, artists 1. */
  searchSongs: `
    SELECT s.id, s.name, s.artists FROM songs_fts f JOIN songs s ON s.id = f.rowid
    WHERE songs_fts MATCH @match ORDER BY f.rank, s.id LIMIT @limit OFFSET @offset`,
  countSearch: 'SELECT count(*) FROM songs_fts WHERE songs_fts MATCH @match',
  songsByIds: 'SELECT id, name, artists FROM songs WHERE id IN (SELECT value FROM json_each(?))',
  songsByArtistKey: `
    SELECT s.id, s.name, s.artists FROM song_artist_keys k JOIN songs s ON s.id = k.song_id
    WHERE k.artist_key = @key ORDER BY k.song_id LIMIT @limit OFFSET @offset`,
  countByArtistKey: 'SELECT count(*) FROM song_artist_keys WHERE artist_key = @key',
  songsLicensing: 'SELECT id, ccli_number, copyright FROM songs WHERE id IN (SELECT value FROM json_each(?))',
  insertSong: `
    INSERT INTO songs (name, artists, ccli_number, copyright) VALUES (@name, @artists, @ccliNumber, @copyright)
    RETURNING id, name, artists`,
  // Licensing fields: @set<Field> 1 writes @<field> (NULL removes it), 0 keeps the stored value.
  updateSong: `
    UPDATE songs SET name = coalesce(@name, name), artists = coalesce(@artists, artists),
      ccli_number = iif(@setCcliNumber, @ccliNumber, ccli_number), copyright = iif(@setCopyright, @copyright, copyright)
    WHERE id = @id RETURNING id, name, artists`,
  deleteSong: 'DELETE FROM songs WHERE id = ?',
  // One row per distinct key of a song, with the song's entries that have it (artistUsage's spellings).
  insertArtistKey: `
    INSERT INTO song_artist_keys (artist_key, song_id, spellings) VALUES (?, ?, ?)
    ON CONFLICT (artist_key, song_id) DO UPDATE SET spellings = excluded.spellings`,
  deleteArtistKeys: 'DELETE FROM song_artist_keys WHERE song_id = ?',
  songExists: 'SELECT 1 FROM songs WHERE id = ?',
  songsExisting: 'SELECT id FROM songs WHERE id IN (SELECT value FROM json_each(?))',

  // Services
  ...perOrder(SERVICE_PAGE, servicesPage),
  ...perOrder(SERVICE_AFTER, servicesAfter),
  countServices: "SELECT coalesce(sum(n), 0) FROM row_counts WHERE name IN (SELECT 'services:' || value FROM json_each(@types))",
  servicesByIds: 'SELECT id, date, service_type FROM services WHERE id IN (SELECT value FROM json_each(?))',
  servicesInRange: `
    SELECT id, date, service_type FROM services WHERE date BETWEEN @min AND @max AND ${OF_TYPES}
    ORDER BY date, id LIMIT @limit OFFSET @offset`,
  countInRange: `SELECT count(*) FROM services WHERE date BETWEEN @min AND @max AND ${OF_TYPES}`,
  insertService: 'INSERT INTO services (date, service_type) VALUES (?, ?) RETURNING id, date, service_type',
  // A service moved to another date or type holds its new slot (a shared one is refused by the
  // services_slot index); one left where it is keeps what it had (migration 8).
  updateService: `
    UPDATE services SET date = coalesce(@date, date), service_type = coalesce(@serviceType, service_type),
      guarded = iif(date = coalesce(@date, date) AND service_type = coalesce(@serviceType, service_type), guarded, 1)
    WHERE id = @id RETURNING id, date, service_type`,
  serviceInSlot: 'SELECT id FROM services WHERE date = ? AND service_type = ? AND guarded = 1',
  deleteService: 'DELETE FROM services WHERE id = ?',
  serviceExists: 'SELECT 1 FROM services WHERE id = ?',

  // PERFORMED_IN
  // Relation pages read each parent's page from an index and stop there (ORDER BY ... LIMIT per
  // parent), so a song sung in 3,000 services costs what its page costs, not its links
  // (docs/performance.md). One parent: a plain ORDER BY ... LIMIT. Many parents (a DataLoader
  // batch, one statement per level): the same per parent, as a correlated subquery (SQLite has
  // no LATERAL). @ids hold distinct ids; every row carries its parent as `key`.
  setlist: `
    SELECT p.service_id AS key, s.id, s.name, s.artists
    FROM performed_in p JOIN songs s ON s.id = p.song_id
    WHERE p.service_id = @id ORDER BY p.position, p.id LIMIT @limit OFFSET @offset`,
  setlists: `
    SELECT j.value AS key, s.id, s.name, s.artists
    FROM json_each(@ids) j
    JOIN performed_in p ON p.id IN (
      SELECT q.id FROM performed_in q WHERE q.service_id = j.value
      ORDER BY q.position, q.id LIMIT @limit OFFSET @offset)
    JOIN songs s ON s.id = p.song_id
    ORDER BY j.value, p.position, p.id`,
  // A setlist's count reads its index range: setlists are short (at most SETLIST_MAX_SONGS,
  // src/domain/setlist.ts), unlike a song's performances.
  setlistCounts: `
    SELECT service_id AS key, count(*) AS total FROM performed_in
    WHERE service_id IN (SELECT value FROM json_each(@ids)) GROUP BY service_id`,
  // A song's services come from its links' copies of their service's date and type (kept by
  // triggers, see analytics-schema.ts), so no service row is read. Every type: the song's range
  // of performed_in_song_date (song_id, service_date, service_id, service_type) in page order.
  ...perOrder(SONG_SERVICE_STATEMENTS.one, servicesForSong),
  ...perOrder(SONG_SERVICE_STATEMENTS.many, servicesForSongs),
  ...perOrder(SONG_SERVICE_STATEMENTS.oneOfTypes, servicesForSongOfTypes),
  ...perOrder(SONG_SERVICE_STATEMENTS.manyOfTypes, servicesForSongsOfTypes),
  // The maintained per-type counts of song_usage (a song is linked at most once per service, so
  // its links of a type are its services of that type): one primary-key read per song.
  servicesForSongsCounts: `
    SELECT song_id AS key,
      ${perType((type, col) => `iif('${type}' IN (SELECT value FROM json_each(@types)), ${col}_times, 0)`, '\n      + ')} AS total
    FROM song_usage WHERE song_id IN (SELECT value FROM json_each(@ids))`,
  // Positions are places 1..n (docs/API.md). Link writes read the order (setlistOrder), compute
  // the new one in src/domain/setlist.ts, and write the positions that changed (moveLink) and the
  // new links (insertLink: a plain INSERT, since an upsert would spend an AUTOINCREMENT link id).
  setlistOrder: 'SELECT song_id, position FROM performed_in WHERE service_id = ? ORDER BY position, id',
  servicesOfSong: 'SELECT service_id FROM performed_in WHERE song_id = ? ORDER BY service_id',
  insertLink: 'INSERT INTO performed_in (service_id, song_id, position) VALUES (?, ?, ?)',
  moveLink: 'UPDATE performed_in SET position = ? WHERE service_id = ? AND song_id = ?',
  unlink: 'DELETE FROM performed_in WHERE service_id = ? AND song_id = ?',
  /**
   * Close the gaps in the setlists of the given services (after a song's links went with it):
   * positions become 1..n in their current order. Migration 2 runs the same over every service.
   */
  renumberSetlists: `
    UPDATE performed_in SET position = r.place
    FROM (
      SELECT id, row_number() OVER (PARTITION BY service_id ORDER BY position, id) AS place
      FROM performed_in WHERE service_id IN (SELECT value FROM json_each(?))
    ) AS r
    WHERE performed_in.id = r.id AND performed_in.position <> r.place`,
  clearSetlist: 'DELETE FROM performed_in WHERE service_id = ?',
  setlistSongIds: 'SELECT song_id FROM performed_in WHERE service_id = ? ORDER BY position, id',

  // Users
  listUsers: 'SELECT id, username, role FROM users ORDER BY id',
  usersByIds: 'SELECT id, username, role FROM users WHERE id IN (SELECT value FROM json_each(?))',
  credentialsByKey: 'SELECT id, username, role, password_hash, token_version FROM users WHERE username_key = ?',
  credentialsById: 'SELECT id, username, role, password_hash, token_version FROM users WHERE id = ?',
  insertUser: `
    INSERT INTO users (username, username_key, password_hash, role) VALUES (?, ?, ?, ?)
    ON CONFLICT (username_key) DO NOTHING RETURNING id, username, role`,
  userKeyTaken: 'SELECT 1 FROM users WHERE username_key = ? AND id <> ?',
  updateUser: `
    UPDATE users SET
      username = coalesce(@username, username), username_key = coalesce(@usernameKey, username_key),
      password_hash = coalesce(@passwordHash, password_hash),
      token_version = token_version + (@passwordHash IS NOT NULL),
      role = coalesce(@role, role)
    WHERE id = @id RETURNING id, username, role`,
  userRole: 'SELECT role FROM users WHERE id = ?',
  countAdmins: "SELECT count(*) FROM users WHERE role = 'ADMIN'",
  deleteUser: 'DELETE FROM users WHERE id = ?',

  // Change events (src/events/changes.ts): appended by each write, read in order.
  insertEvent: 'INSERT INTO events (type, at, data) VALUES (?, ?, ?) RETURNING seq',
  eventsAfter: 'SELECT seq, type, at, data FROM events WHERE seq > ? ORDER BY seq LIMIT ?',
  lastEvent: 'SELECT max(seq) FROM events',
  setlistOfService: `
    SELECT s.id, s.name, s.artists FROM performed_in p JOIN songs s ON s.id = p.song_id
    WHERE p.service_id = ? ORDER BY p.position, p.id`,

  // Snapshots (scripts/migrate.ts). Upserts keep ids; ON CONFLICT (id) leaves the row in place, so
  // foreign keys pointing at it never cascade.
  exportSongs: 'SELECT id, name, artists FROM songs ORDER BY id',
  exportLicensing: `
    SELECT id AS song_id, ccli_number, copyright FROM songs
    WHERE ccli_number IS NOT NULL OR copyright IS NOT NULL ORDER BY id`,
  exportServices: 'SELECT id, date, service_type FROM services ORDER BY id',
  exportLinks: 'SELECT id AS seq, service_id, song_id, position FROM performed_in ORDER BY id',
  countLinks: 'SELECT count(*) AS n FROM performed_in',
  exportUsers: 'SELECT id, username, role, password_hash, token_version FROM users ORDER BY id',
  /** Highest id ever issued per AUTOINCREMENT table, including ids of deleted rows. */
  exportSequences: 'SELECT name, seq FROM sqlite_sequence',
  importSong: `
    INSERT INTO songs (id, name, artists, ccli_number, copyright) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET name = excluded.name, artists = excluded.artists,
      ccli_number = excluded.ccli_number, copyright = excluded.copyright`,
  // A snapshot's service holds its slot unless another service already does (one that shared it
  // before the rule: services come in id order, so of such a group the lowest id holds it).
  importService: `
    INSERT INTO services (id, date, service_type, guarded)
    VALUES (@id, @date, @serviceType, iif(EXISTS (
      SELECT 1 FROM services o WHERE o.date = @date AND o.service_type = @serviceType AND o.guarded = 1 AND o.id <> @id
    ), NULL, 1))
    ON CONFLICT (id) DO UPDATE SET date = excluded.date, service_type = excluded.service_type, guarded = excluded.guarded`,
  // The snapshot's link id (its link order) wins for an existing (service, song) pair. A link id
  // already used by another pair fails the import (PRIMARY KEY) instead of silently replacing it.
  importLink: `
    INSERT INTO performed_in (id, service_id, song_id, position) VALUES (?, ?, ?, ?)
    ON CONFLICT (service_id, song_id) DO UPDATE SET id = excluded.id, position = excluded.position`,
  importUser: `
    INSERT INTO users (id, username, username_key, password_hash, role, token_version)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET username = excluded.username, username_key = excluded.username_key,
      password_hash = excluded.password_hash, role = excluded.role, token_version = excluded.token_version`,
  // sqlite_sequence has no unique key, so "upsert" is an insert-if-absent followed by a raise. Its
  // columns have no type affinity, so the CAST keeps a JS number (bound as REAL) an integer.
  insertSequence: `
    INSERT INTO sqlite_sequence (name, seq) SELECT @name, 0
    WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = @name)`,
  raiseSequence: 'UPDATE sqlite_sequence SET seq = max(seq, CAST(@value AS INTEGER)) WHERE name = @name',

  ping: 'SELECT 1',
} as const;

export type StatementName = keyof typeof SQL;
