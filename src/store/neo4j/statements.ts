/**
 * Every Cypher statement of the Neo4j store, by name, with the parameters each one takes.
 *
 * Graph model:
 *   (:Song {id, name, artists, ccliNumber?, copyright?, <usage properties>})-[:BY]->(:Artist {key, <artist totals>})
 *   (ccliNumber and copyright, the song's licensing details, are absent when not recorded)
 *   (:Song)-[:PERFORMED_IN {position, seq, date, serviceType, songId, serviceId}]->(:Service {id, date, serviceType})
 *   (:Song)-[:SUNG_WITH {songId, otherId, sunAm, sunPm, wed, together}]->(:Song)   song pairs, once each (songId < otherId), see ./pairs.ts
 *   (a link's date and serviceType copy its service's, kept in step by COPY_TO_LINKS; songId and
 *   serviceId copy its ends' ids, set when it is created and never changed: links never move)
 *   (:User {id, username, usernameKey, passwordHash, role, tokenVersion})
 *   (:Sequence {name, value})   one per record kind: the highest id ever issued
 *   (:Event {id, type, at, data})   the outbox: change events, data as JSON (./event-statements.ts)
 *   (:Webhook), (:Delivery)   webhook endpoints and their deliveries (./webhook-statements.ts)
 *   (:Period {key, kind, start, end, <per type> Services and Links, songs1..songs7}) and
 *   (:TimelineZone {name, zone}): the maintained timeline periods (./period-statements.ts)
 *
 * Why (:Artist) nodes serve byArtist: Neo4j 5 range indexes index a list property as one whole
 * value and text indexes only index strings, so no index can answer `$key IN s.artistKeys`; it
 * would scan every song. A uniqueness constraint on Artist.key gives a unique index seek, then
 * one expand per matching song: the cost follows the answer, not the catalogue. The nodes also
 * make MERGE safe under concurrency (the constraint serialises two creates of the same key).
 * An Artist whose last song goes keeps its node: deleting it would race with a concurrent MERGE
 * linking to it, and an orphan costs one index entry.
 *
 * Positions are the songs' places in the setlist, 1..n without gaps (docs/API.md). A setlist
 * write (./setlists.ts) locks and reads the service's setlist (lockSetlists), computes the new
 * order in TypeScript (src/domain/setlist.ts, shared with SQLite) and writes the links removed,
 * moved and made in one statement (writeLinks).
 *
 * Why a `seq` on PERFORMED_IN: the link order, unique across the store like SQLite's
 * performed_in.id, so snapshots move links between the stores unchanged. Seqs come from blocks
 * each process reserves from the PERFORMED_IN sequence in transactions of their own
 * (./link-seqs.ts), so no writer holds a lock every link write would queue on.
 *
 * Song usage (maintained aggregates): every Song carries, per service type T (prefix sunAm, sunPm,
 * wed) and for all types together (prefix usage), `<t>Times` (its links to services of that type;
 * a song is linked at most once per service, so this is the number of services), `<t>First` and
 * `<t>Last` (min and max link date, absent when none), `<t>Openers` and `<t>Closers` (links that
 * are first / last of their setlist: position 1, position n). All-time analytics read these
 * instead of every link (./analytics-statements.ts). Writes MOVE them by what they changed, in
 * their own transaction (moveUsage, ./usage.ts): times and ends by deltas, first and last from
 * the dates added, or sought again in index order when the link holding them went. The migration
 * `data.songUsage` RECOMPUTES them for songs written before they existed (REFRESH_USAGE).
 *
 * Artist totals (maintained aggregates, the all-time artists report's): every Artist carries
 * `spelling` (the spelling the report shows: the most common entry among its songs' `artists`
 * whose Cypher-folded form equals its key, ties by spelling; absent when none) with the counts it
 * is read from (`spellings`, `spellingUses`), `<t>Times` per service type (the sum of its songs'
 * `<t>Times`), `usageTimes` (their sum), and `songs1` .. `songs7`: per non-empty set of types,
 * as a mask (bit 0 SUN_AM, bit 1 SUN_PM, bit 2 WED, like SQLite's timeline masks), how many of
 * its songs were sung at least once in those types. Writes MOVE them by their songs' usage
 * deltas and by the songs that join or leave the artist (moveArtists, moveSpellings); the
 * migrations `data.artistTotals` and `data.artistSpellings` RECOMPUTE them (REFRESH_ARTIST).
 *
 * Locks: every writer goes through a WritePlan (./write-plan.ts), which takes locks only in the
 * one order (services, songs, artists, periods) and refuses a step out of it; imports, which run
 * with writers stopped, use an unordered plan, and Neo4j detects the deadlocks that can cause
 * and the managed transaction runs again. The data migrations (./migrations.ts) lock each
 * service, ascending, before touching its links, and each song before its usage, like the
 * writers they run beside.
 *
 * Every write statement returns what it wrote (a row, or a count), and the plan checks it
 * against what it meant to write, rolling the transaction back when they differ.
 *
 * Integers: every INTEGER parameter reaches Neo4j as a neo4j Integer: a JS number is sent as a
 * FLOAT and would be stored as one. Callers pass numbers; `encodeParams` in ./values.ts converts
 * them by the declaration, the one place that does, and refuses anything else at run time;
 * scripts/lint-cypher.ts lints each statement with exactly the parameters declared here.
 */

import { perOrder, SERVICE_AFTER, SERVICE_PAGE, SONG_AFTER, SONG_PAGE, SONG_SERVICES } from '../list-statements';
import { PERIOD_PROPERTIES, PERIOD_STATEMENTS } from './period-statements';
import { FOLD, SPELLINGS, WRITE_STATEMENTS } from './write-statements';
import { EVENT_STATEMENTS } from './event-statements';
import { WEBHOOK_STATEMENTS } from './webhook-statements';

/** Parameter types as Cypher names them; `?` means null is allowed (patch fields). */
export type ScalarType =
  | 'INTEGER' | 'INTEGER?' | 'STRING' | 'STRING?' | 'BOOLEAN' | 'LIST<INTEGER>' | 'LIST<STRING>' | 'LIST<STRING>?';
/** A list of maps, one per row of an UNWIND, each with these fields. */
export interface RowsType {
  rows: Record<string, ScalarType>;
}
export type ParamType = ScalarType | RowsType;
export type ParamDecl = Readonly<Record<string, ParamType>>;

const SONG = 's.id AS id, s.name AS name, s.artists AS artists';
const LICENSING = 's.ccliNumber AS ccliNumber, s.copyright AS copyright';
const SERVICE = 'v.id AS id, v.date AS date, v.serviceType AS serviceType';
const USER = 'u.id AS id, u.username AS username, u.role AS role';
const CREDENTIALS = `${USER}, u.passwordHash AS passwordHash, u.tokenVersion AS tokenVersion`;

/**
 * Take the next id of a record kind. `SET q.value = q.value + 1` reads the property it writes, so
 * Neo4j takes the node's write lock before the read (no lost update under read-committed), and
 * the MERGE is safe because of the uniqueness constraint on Sequence.name. Concurrent creates
 * queue on that lock and each sees the previous commit: ids never collide, and since the value
 * only grows, never come back after a delete.
 */
export const nextId = (kind: string) => `MERGE (q:Sequence {name: '${kind}'})
  ON CREATE SET q.value = 0
SET q.value = q.value + 1`;

/**
 * Links carry a copy of their service's date and type for analytics (./analytics-statements.ts):
 * every statement that creates a link or changes a service sets it in the same transaction. A
 * unit subquery, so the outer row count is unchanged.
 */
const COPY_TO_LINKS = `WITH v
CALL (v) {
  MATCH (:Song)-[l:PERFORMED_IN]->(v)
  SET l.date = v.date, l.serviceType = v.serviceType
}`;

/** The service types whose usage a Song keeps, with the camelCase prefix of their properties. */
export const USAGE_TYPES = [
  ['SUN_AM', 'sunAm'],
  ['SUN_PM', 'sunPm'],
  ['WED', 'wed'],
] as const;
const USAGE_FIELDS = ['Times', 'First', 'Last', 'Openers', 'Closers'] as const;
const USAGE_PREFIXES = [...USAGE_TYPES.map(([, prefix]) => prefix), 'usage'];
/** Every maintained usage property of a Song (see the header). */
export const USAGE_PROPERTIES = USAGE_PREFIXES.flatMap((p) => USAGE_FIELDS.map((f) => `${p}${f}`));
/** A song never sung: counts 0; first and last dates absent (null). */
const ZERO_USAGE = USAGE_PREFIXES.flatMap((p) => [`${p}Times`, `${p}Openers`, `${p}Closers`]);

/**
 * Whether link `r` of service `v` opens (closes) its setlist: no link of the service before it
 * (after it) in position, then seq, order. False when `r` is null.
 */
export const LINK_ENDS = `
  r IS NOT NULL AND NOT EXISTS {
    MATCH (:Song)-[o:PERFORMED_IN]->(v)
    WHERE o.position < r.position OR (o.position = r.position AND o.seq < r.seq)
  } AS opener,
  r IS NOT NULL AND NOT EXISTS {
    MATCH (:Song)-[o:PERFORMED_IN]->(v)
    WHERE o.position > r.position OR (o.position = r.position AND o.seq > r.seq)
  } AS closer`;

const usageAggregates = (prefix: string, of: string) => `sum(CASE WHEN ${of} THEN 1 ELSE 0 END) AS ${prefix}Times,
    min(CASE WHEN ${of} THEN r.date END) AS ${prefix}First,
    max(CASE WHEN ${of} THEN r.date END) AS ${prefix}Last,
    sum(CASE WHEN ${of} AND opener THEN 1 ELSE 0 END) AS ${prefix}Openers,
    sum(CASE WHEN ${of} AND closer THEN 1 ELSE 0 END) AS ${prefix}Closers`;
const ALL_TYPES_LIST = `[${USAGE_TYPES.map(([type]) => `'${type}'`).join(', ')}]`;

/**
 * Recompute the usage properties of the bound song `s` from its links (see the header). The first
 * SET takes the song's write lock (the explicit-lock idiom of lockByIds) BEFORE the subquery reads
 * its links, so the read sees every link committed by a writer that held the lock before us. One
 * OPTIONAL MATCH row per link, each with its opener/closer test over its service's setlist (a
 * short list); a song with no link gets one row with r null: counts 0, dates null.
 */
export const REFRESH_USAGE = `SET s._lock = true
REMOVE s._lock
WITH s
CALL (s) {
  OPTIONAL MATCH (s)-[r:PERFORMED_IN]->(v:Service)
  WITH r, ${LINK_ENDS}
  RETURN ${[...USAGE_TYPES.map(([type, prefix]) => usageAggregates(prefix, `r.serviceType = '${type}'`)), usageAggregates('usage', `r.serviceType IN ${ALL_TYPES_LIST}`)].join(',\n    ')}
}
SET ${USAGE_PROPERTIES.map((p) => `s.${p} = ${p}`).join(',\n    ')}`;

const PAIR_PROPERTIES = USAGE_TYPES.map(([, p]) => p);
const PER_TYPE_COUNTS = USAGE_TYPES.map(([type, p]) => `sum(CASE WHEN r.serviceType = '${type}' THEN 1 ELSE 0 END) AS ${p}`).join(',\n    ');

/**
 * Recompute the song pairs of the bound song `s` that start at it (see ./pairs.ts): its lock first
 * (as REFRESH_USAGE), then its SUNG_WITH relationships out are dropped and made again from its
 * links, one per song with a higher id sung in one of its services, counting those services per
 * type (the pairs with lower ids start at those songs: a run over every song makes each once, and
 * drops the second copy a database from before pairs were stored once holds). Creating a
 * relationship locks the other song too, so a pair is never written beside a writer holding either
 * of its songs. The `data.songPairs` migration (./migrations.ts) uses it; writes and imports move
 * pairs by deltas (movePairs).
 */
export const REFRESH_PAIRS = `SET s._lock = true
REMOVE s._lock
WITH s
CALL (s) {
  MATCH (s)-[p:SUNG_WITH]->()
  DELETE p
}
CALL (s) {
  MATCH (s)-[r:PERFORMED_IN]->(:Service)<-[:PERFORMED_IN]-(o:Song)
  WHERE o.id > s.id
  WITH o, ${PER_TYPE_COUNTS}
  CREATE (s)-[:SUNG_WITH {songId: s.id, otherId: o.id, ${PAIR_PROPERTIES.map((p) => `${p}: ${p}`).join(', ')}, together: ${PAIR_PROPERTIES.join(' + ')}}]->(o)
}`;
/** The sets of service types an artist counts its songs for: masks 1..7 (bit i: USAGE_TYPES[i]). */
export const TYPE_MASKS = [1, 2, 3, 4, 5, 6, 7] as const;
/** Every maintained total of an Artist (see the header); `usageTimes` and `<t>Times` also name Song properties. */
export const ARTIST_PROPERTIES = [
  'spelling',
  'spellings',
  'spellingUses',
  ...USAGE_TYPES.map(([, prefix]) => `${prefix}Times`),
  'usageTimes',
  ...TYPE_MASKS.map((m) => `songs${m}`),
];
/** A new artist's totals: no song sung yet, no spelling counted (moveArtists, SPELLINGS move them from there). */
const ARTIST_ZEROS = ARTIST_PROPERTIES.filter((p) => p !== 'spelling')
  .map((p) => (p.startsWith('spelling') ? `a.${p} = []` : `a.${p} = 0`))
  .join(', ');
const sungIn = (mask: number) =>
  USAGE_TYPES.filter((_, bit) => mask & (1 << bit))
    .map(([, prefix]) => `${prefix} > 0`)
    .join(' OR ');

/**
 * Recompute the totals of the bound artist `a` from its songs (see the header). The first SET
 * takes the artist's write lock before the subqueries read its songs. Songs always carry their
 * usage (zeros when never sung); the coalesce only covers a song written before song usage was
 * maintained and not yet filled by its migration. The spelling is the Cypher fold of
 * src/domain/artists.ts's artistKey (NFC, trim, upper then lower case, NFC); one row with null
 * when no entry folds to the key (an aggregation without grouping keys answers one row).
 */
export const REFRESH_ARTIST = `SET a._lock = true
REMOVE a._lock
WITH a
CALL (a) {
  OPTIONAL MATCH (a)<-[:BY]-(s:Song)
  WITH ${USAGE_TYPES.map(([, p]) => `coalesce(s.${p}Times, 0) AS ${p}`).join(', ')}
  RETURN ${USAGE_TYPES.map(([, p]) => `sum(${p}) AS ${p}Times`).join(', ')},
    ${TYPE_MASKS.map((m) => `sum(CASE WHEN ${sungIn(m)} THEN 1 ELSE 0 END) AS songs${m}`).join(',\n    ')}
}
CALL (a) {
  OPTIONAL MATCH (a)<-[:BY]-(t:Song)
  UNWIND coalesce(t.artists, []) AS spelling
  WITH a, spelling
  WHERE ${FOLD('spelling')} = a.key
  WITH spelling, count(*) AS uses
  ORDER BY uses DESC, spelling
  RETURN collect(spelling)[0] AS spelling, collect(spelling) AS spellings, collect(uses) AS spellingUses
}
SET a.spelling = spelling, a.spellings = spellings, a.spellingUses = spellingUses,
    ${USAGE_TYPES.map(([, p]) => `a.${p}Times = ${p}Times`).join(', ')},
    a.usageTimes = ${USAGE_TYPES.map(([, p]) => `${p}Times`).join(' + ')},
    ${TYPE_MASKS.map((m) => `a.songs${m} = songs${m}`).join(', ')}`;

/**
 * Batch reads keep the caller's order and length: `i` is each id's index in `$ids`, OPTIONAL MATCH
 * yields a null row for a missing id, and the rows come back ORDER BY i. Binding `$ids[i]` to a
 * variable first keeps the lookup a plain unique index seek.
 */
const byIndex = (list: string, as: string) => `
UNWIND range(0, size(${list}) - 1) AS i
WITH i, ${list}[i] AS ${as}`;

/**
 * Write-lock the nodes of `label` whose ids are in `$<id>s`; counts those that exist. A node
 * deleted by the writer whose lock this one waited for is locked all the same, and reads with no
 * properties: it is not counted.
 */
const lockByIds = (label: string, v: string, id: string) => `
UNWIND $${id}s AS ${id}
MATCH (${v}:${label} {id: ${id}})
SET ${v}._lock = true
REMOVE ${v}._lock
WITH ${v}
WHERE ${v}.id IS NOT NULL
RETURN count(${v}) AS locked`;
/**
 * List orders. The `IS NOT NULL` predicates let the planner read the range index on the sort
 * property in order (index-backed ORDER BY), so SKIP/LIMIT stop after the page instead of sorting
 * the whole label. Every order ends with id, so it is total and keyset cursors are exact.
 */
const SONG_ORDER = {
  ID_ASC: { where: 's.id IS NOT NULL', order: 's.id' },
  ID_DESC: { where: 's.id IS NOT NULL', order: 's.id DESC' },
  NAME_ASC: { where: 's.name IS NOT NULL', order: 's.name, s.id' },
  NAME_DESC: { where: 's.name IS NOT NULL', order: 's.name DESC, s.id DESC' },
} as const;
type SongOrder = keyof typeof SONG_ORDER;
const songsPage = (sort: SongOrder) => `
MATCH (s:Song)
WHERE ${SONG_ORDER[sort].where}
RETURN ${SONG}
ORDER BY ${SONG_ORDER[sort].order}
SKIP $offset LIMIT $limit`;
/** After a keyset: the first predicate is an index range seek; the second breaks ties by id. */
const songsAfter = (sort: SongOrder) => {
  const [gte, gt] = sort.endsWith('DESC') ? ['<=', '<'] : ['>=', '>'];
  const where = sort.startsWith('ID') ? `s.id ${gt} $id` : `s.name ${gte} $key AND (s.name ${gt} $key OR s.id ${gt} $id)`;
  return `
MATCH (s:Song)
WHERE ${where}
RETURN ${SONG}
ORDER BY ${SONG_ORDER[sort].order}
LIMIT $limit`;
};
/** `$serviceTypes` is always the list to keep (all three types when the caller gave no filter). */
const OF_TYPES = 'v.serviceType IN $serviceTypes';
/**
 * A song's page of services, in either date order (Song.services, withSong). Unlike a setlist (a
 * few songs by nature), a popular song has hundreds of links: its page is a seek on
 * performed_in_song (the links' copies of their song's id, then date and service id), read forwards
 * or backwards, which returns the song's links already in page order, so SKIP/LIMIT stop after the
 * page and no link outside it is read past the type filter. The `IS NOT NULL` predicates let the
 * planner use the composite index for the order (every link carries both), and the ORDER BY names
 * the whole index key: `r.songId` is one value per subquery, so the order is (date, service id),
 * but without it EXPLAIN showed a Top over every link of the song. The type filter stays a Filter
 * above the ordered seek. The hint keeps it there: performed_in_song_type (song id, type, date)
 * would seek the types too but then sort every link of the song.
 */
const servicesForSongs = (dir: '' | ' DESC') => `${byIndex('$ids', 'songId')}
CALL (songId) {
  MATCH ()-[r:PERFORMED_IN]->(v:Service)
  USING INDEX r:PERFORMED_IN(songId, date, serviceId)
  WHERE r.songId = songId AND r.date IS NOT NULL AND r.serviceId IS NOT NULL AND r.serviceType IN $serviceTypes
  WITH r, v
  ORDER BY r.songId${dir}, r.date${dir}, r.serviceId${dir}
  SKIP $offset LIMIT $limit
  RETURN v
}
RETURN i, ${SERVICE}
ORDER BY i, date${dir}, id${dir}`;

const servicesPage = (desc: boolean) => `
MATCH (v:Service)
WHERE v.date IS NOT NULL AND ${OF_TYPES}
RETURN ${SERVICE}
ORDER BY ${desc ? 'v.date DESC, v.id DESC' : 'v.date, v.id'}
SKIP $offset LIMIT $limit`;
const servicesAfter = (desc: boolean) => {
  const [gte, gt] = desc ? ['<=', '<'] : ['>=', '>'];
  return `
MATCH (v:Service)
WHERE v.date ${gte} $key AND (v.date ${gt} $key OR v.id ${gt} $id) AND ${OF_TYPES}
RETURN ${SERVICE}
ORDER BY ${desc ? 'v.date DESC, v.id DESC' : 'v.date, v.id'}
LIMIT $limit`;
};

const SONG_ROW = { id: 'INTEGER', name: 'STRING', artists: 'LIST<STRING>', ccliNumber: 'STRING?', copyright: 'STRING?' } as const;
const PAGE_PARAMS = { offset: 'INTEGER', limit: 'INTEGER' } as const;
const AFTER_ID_PARAMS = { id: 'INTEGER', limit: 'INTEGER' } as const;
const ARTIST_ROW = { id: 'INTEGER', artistKeys: 'LIST<STRING>' } as const;

/** A statement: its parameters and their types (checked and encoded by ./values.ts), and its text. */
export interface Statement {
  params: ParamDecl;
  cypher: string;
}

/** Every statement of the store by name, each with its parameters beside its text. */
export const STATEMENTS = {
  // Songs
  ...perOrder(SONG_PAGE, (sort) => ({ params: PAGE_PARAMS, cypher: songsPage(sort) })),
  ...perOrder(SONG_AFTER, (sort) => ({
    params: sort.startsWith('ID') ? AFTER_ID_PARAMS : ({ key: 'STRING', ...AFTER_ID_PARAMS } as const),
    cypher: songsAfter(sort),
  })),
  /**
   * After a bulk import: resample the indexes, wait for it, then clear the query caches
   * (Neo4jStore.replanAfterImport says why).
   */
  prepareForReplanning: {
    params: { timeoutMs: 'INTEGER' },
    cypher: 'CALL db.prepareForReplanning($timeoutMs)',
  },
  /** A label count comes from Neo4j's count store: constant time. */
  countSongs: {
    params: {},
    cypher: 'MATCH (s:Song) RETURN count(s) AS total',
  },
  /** `$query` is built by src/domain/search.ts (luceneQuery): user text never reaches it as syntax. */
  searchSongs: {
    params: { query: 'STRING', offset: 'INTEGER', limit: 'INTEGER' },
    cypher: `
CALL db.index.fulltext.queryNodes('song_search_ccli', $query) YIELD node, score
WITH node AS s, score
RETURN ${SONG}
ORDER BY score DESC, s.id
SKIP $offset LIMIT $limit`,
  },
  countSearch: {
    params: { query: 'STRING' },
    cypher: `
CALL db.index.fulltext.queryNodes('song_search_ccli', $query) YIELD node
RETURN count(node) AS total`,
  },
  /** Licensing details are read only for the songs that show them (see SongRecord). */
  songsLicensing: {
    params: { ids: 'LIST<INTEGER>' },
    cypher: `${byIndex('$ids', 'songId')}
OPTIONAL MATCH (s:Song {id: songId})
RETURN i, s.id AS id, ${LICENSING}
ORDER BY i`,
  },
  songsByIds: {
    params: { ids: 'LIST<INTEGER>' },
    cypher: `${byIndex('$ids', 'songId')}
OPTIONAL MATCH (s:Song {id: songId})
RETURN i, ${SONG}
ORDER BY i`,
  },
  songsByArtistKey: {
    params: { artistKey: 'STRING', offset: 'INTEGER', limit: 'INTEGER' },
    cypher: `
MATCH (:Artist {key: $artistKey})<-[:BY]-(s:Song)
RETURN ${SONG}
ORDER BY s.id
SKIP $offset LIMIT $limit`,
  },
  countByArtistKey: {
    params: { artistKey: 'STRING' },
    cypher: `
MATCH (:Artist {key: $artistKey})<-[:BY]-(s:Song)
RETURN count(s) AS total`,
  },
  createSong: {
    params: { name: 'STRING', artists: 'LIST<STRING>', artistKeys: 'LIST<STRING>', ccliNumber: 'STRING?', copyright: 'STRING?' },
    cypher: `
${nextId('Song')}
CREATE (s:Song {id: q.value, name: $name, artists: $artists, ccliNumber: $ccliNumber, copyright: $copyright,
                ${ZERO_USAGE.map((p) => `${p}: 0`).join(', ')}})
FOREACH (key IN $artistKeys | MERGE (a:Artist {key: key}) ON CREATE SET ${ARTIST_ZEROS} MERGE (s)-[:BY]->(a))
WITH s
${SPELLINGS('1')}
RETURN ${SONG}`,
  },
  /** Licensing fields: $set<Field> true writes $<field> (null removes the property), false keeps it. */
  updateSong: {
    params: {
      id: 'INTEGER',
      name: 'STRING?',
      artists: 'LIST<STRING>?',
      setCcliNumber: 'BOOLEAN',
      ccliNumber: 'STRING?',
      setCopyright: 'BOOLEAN',
      copyright: 'STRING?',
    },
    cypher: `
MATCH (s:Song {id: $id})
SET s.name = coalesce($name, s.name), s.artists = coalesce($artists, s.artists),
    s.ccliNumber = CASE WHEN $setCcliNumber THEN $ccliNumber ELSE s.ccliNumber END,
    s.copyright = CASE WHEN $setCopyright THEN $copyright ELSE s.copyright END
RETURN ${SONG}`,
  },
  /** Re-point BY edges of many songs; `rows` = [{id, artistKeys}]. Serves updates and imports. */
  setSongArtists: {
    params: { rows: { rows: ARTIST_ROW } },
    cypher: `
UNWIND $rows AS row
MATCH (s:Song {id: row.id})
// Only the artists it leaves and joins, each found from the song (a handful of BY links, where an
// artist has thousands): a link kept is not deleted and made again (an import re-brings every
// song its part's links name, and every relationship deleted in a transaction is merged into each
// relationship index seek after it in that transaction).
WITH s, row, [(s)-[r:BY]->(a:Artist) | {r: r, key: a.key}] AS had
FOREACH (gone IN [h IN had WHERE NOT h.key IN row.artistKeys] | DELETE gone.r)
WITH s, [key IN row.artistKeys WHERE NONE(h IN had WHERE h.key = key)] AS joins
FOREACH (key IN joins | MERGE (a:Artist {key: key}) ON CREATE SET ${ARTIST_ZEROS} CREATE (s)-[:BY]->(a))
RETURN count(s) AS songs`,
  },
  deleteSong: {
    params: { id: 'INTEGER' },
    cypher: `
MATCH (s:Song {id: $id})
DETACH DELETE s
RETURN count(*) AS deleted`,
  },
  /**
   * Song pairs (./pairs.ts): add each row's per-type deltas to the pair (songId)->(otherId)
   * (songId < otherId: each pair is stored once), made
   * on its first service and removed when no service holds both any more. The caller holds both
   * songs' locks (every song of the setlists it changes), so no other writer makes or removes the
   * same pair beside it, and looking it up before creating it is safe. It is looked up on the
   * index sung_with_pair (songId, otherId): a MERGE between the two songs checked the relationships
   * of one of them (Expand(Into)), 20,000 db hits for two songs with 20,000 partners each, where
   * the seek costs about ten, however often either song was sung. `together` is the sum over
   * types: the all-types report reads it in index order.
   */
  movePairs: {
    params: { rows: { rows: { songId: 'INTEGER', otherId: 'INTEGER', sunAm: 'INTEGER', sunPm: 'INTEGER', wed: 'INTEGER' } } },
    cypher: `
UNWIND $rows AS row
OPTIONAL MATCH ()-[old:SUNG_WITH]->()
USING INDEX SEEK old:SUNG_WITH(songId, otherId)
WHERE old.songId = row.songId AND old.otherId = row.otherId
// A pair that exists moves (a SET on no pair does nothing) and goes at zero; the rest are made.
SET ${PAIR_PROPERTIES.map((x) => `old.${x} = old.${x} + row.${x}`).join(', ')},
    old.together = old.together + ${PAIR_PROPERTIES.map((x) => `row.${x}`).join(' + ')}
FOREACH (gone IN CASE WHEN old.together = 0 THEN [old] ELSE [] END | DELETE gone)
WITH count(*) AS moved, collect(CASE WHEN old IS NULL THEN row END) AS fresh
CALL (fresh) {
  UNWIND fresh AS row
  MATCH (s:Song {id: row.songId})
  MATCH (o:Song {id: row.otherId})
  CREATE (s)-[:SUNG_WITH {songId: s.id, otherId: o.id, ${PAIR_PROPERTIES.map((x) => `${x}: row.${x}`).join(', ')},
                          together: ${PAIR_PROPERTIES.map((x) => `row.${x}`).join(' + ')}}]->(o)
  RETURN count(*) AS made
}
// A pair of songs not there is not made: fewer moved than sent.
RETURN moved - size(fresh) + made AS moved`,
  },
  // Services
  ...perOrder(SERVICE_PAGE, (sort) => ({ params: { serviceTypes: 'LIST<STRING>', ...PAGE_PARAMS } as const, cypher: servicesPage(sort === 'DATE_DESC') })),
  ...perOrder(SERVICE_AFTER, (sort) => ({
    params: { serviceTypes: 'LIST<STRING>', key: 'INTEGER', ...AFTER_ID_PARAMS } as const,
    cypher: servicesAfter(sort === 'DATE_DESC'),
  })),
  countServices: {
    params: {},
    cypher: 'MATCH (v:Service) RETURN count(v) AS total',
  },
  /** With a type filter the count store cannot answer; the service_type index can. */
  countServicesOfTypes: {
    params: { serviceTypes: 'LIST<STRING>' },
    cypher: `
MATCH (v:Service)
WHERE ${OF_TYPES}
RETURN count(v) AS total`,
  },
  servicesByIds: {
    params: { ids: 'LIST<INTEGER>' },
    cypher: `${byIndex('$ids', 'serviceId')}
OPTIONAL MATCH (v:Service {id: serviceId})
RETURN i, ${SERVICE}
ORDER BY i`,
  },
  // Both bounds in one predicate pair: a single range seek on the Service.date index.
  servicesInRange: {
    params: { min: 'INTEGER', max: 'INTEGER', serviceTypes: 'LIST<STRING>', offset: 'INTEGER', limit: 'INTEGER' },
    cypher: `
MATCH (v:Service)
WHERE v.date >= $min AND v.date <= $max AND ${OF_TYPES}
RETURN ${SERVICE}
ORDER BY v.date, v.id
SKIP $offset LIMIT $limit`,
  },
  countInRange: {
    params: { min: 'INTEGER', max: 'INTEGER', serviceTypes: 'LIST<STRING>' },
    cypher: `
MATCH (v:Service)
WHERE v.date >= $min AND v.date <= $max AND ${OF_TYPES}
RETURN count(v) AS total`,
  },
  // One service per date and type (../types.ts SlotTaken): a service holding its slot is
  // `guarded`, and the service_slot constraint over (date, serviceType, guarded) refuses a second
  // one; services that shared a slot before the rule lack the property, which leaves them out.
  createService: {
    params: { date: 'INTEGER', serviceType: 'STRING' },
    cypher: `
${nextId('Service')}
CREATE (v:Service {id: q.value, date: $date, serviceType: $serviceType, guarded: true})
RETURN ${SERVICE}`,
  },
  // Moved to another date or type, a service holds its new slot (taken: the constraint refuses
  // it); one left where it is keeps what it had. The move comes first, so a service that shared
  // its old slot is checked against its new one only.
  updateService: {
    params: { id: 'INTEGER', date: 'INTEGER?', serviceType: 'STRING?' },
    cypher: `
MATCH (v:Service {id: $id})
WITH v, v.date = coalesce($date, v.date) AND v.serviceType = coalesce($serviceType, v.serviceType) AS stays
SET v.date = coalesce($date, v.date), v.serviceType = coalesce($serviceType, v.serviceType)
SET v.guarded = CASE WHEN stays THEN v.guarded ELSE true END
${COPY_TO_LINKS}
RETURN ${SERVICE}`,
  },
  serviceInSlot: {
    params: { date: 'INTEGER', serviceType: 'STRING' },
    cypher: `
MATCH (v:Service {date: $date, serviceType: $serviceType, guarded: true})
RETURN v.id AS id`,
  },
  deleteService: {
    params: { id: 'INTEGER' },
    cypher: `
MATCH (v:Service {id: $id})
DETACH DELETE v
RETURN count(*) AS deleted`,
  },
  // PERFORMED_IN
  /**
   * Relation reads page each parent separately, inside a `CALL (parent) { ... }` subquery: the
   * parent's links are ordered there and cut by SKIP/LIMIT before anything is returned, so the
   * planner keeps only the page (a Top-K sort) instead of collecting and sorting the parent's whole
   * list. Neo4j has no index of a node's relationships in property order, so a service's links
   * are still expanded (from its id's index seek); a song's services are read in order off the
   * links' copies of their song's id and their service's date and id (performed_in_song: see
   * servicesForSongs), with the service id breaking ties, and filtered on the copy of the
   * service's type (see COPY_TO_LINKS), so only the page's services are returned. The outer
   * ORDER BY sorts the pages' rows only. Counts come from a second statement (a parent whose page
   * is empty still has its total).
   */
  setlists: {
    params: { ids: 'LIST<INTEGER>', offset: 'INTEGER', limit: 'INTEGER' },
    cypher: `${byIndex('$ids', 'serviceId')}
CALL (serviceId) {
  MATCH (s:Song)-[r:PERFORMED_IN]->(:Service {id: serviceId})
  WITH s, r
  ORDER BY r.position, r.seq
  SKIP $offset LIMIT $limit
  RETURN s, r.position AS position, r.seq AS seq
}
RETURN i, ${SONG}
ORDER BY i, position, seq`,
  },
  /** The service's degree: every PERFORMED_IN comes from a Song, so no label test is needed. */
  setlistCounts: {
    params: { ids: 'LIST<INTEGER>' },
    cypher: `${byIndex('$ids', 'serviceId')}
MATCH (v:Service {id: serviceId})
RETURN i, COUNT { (v)<-[:PERFORMED_IN]-() } AS total`,
  },
  /** A song's page of services, either way (servicesForSongs, above). */
  ...perOrder(SONG_SERVICES, (sort) => ({
    params: { ids: 'LIST<INTEGER>', serviceTypes: 'LIST<STRING>', offset: 'INTEGER', limit: 'INTEGER' } as const,
    cypher: servicesForSongs(sort === 'DATE_DESC' ? ' DESC' : ''),
  })),
  /**
   * The song's maintained per-type link counts (see the header; a song is linked at most once per
   * service, so they count its services): constant time however often it was sung.
   */
  servicesForSongsCounts: {
    params: { ids: 'LIST<INTEGER>', serviceTypes: 'LIST<STRING>' },
    cypher: `${byIndex('$ids', 'songId')}
MATCH (s:Song {id: songId})
RETURN i, ${USAGE_TYPES.map(([type, prefix]) => `CASE WHEN '${type}' IN $serviceTypes THEN s.${prefix}Times ELSE 0 END`).join('\n  + ')} AS total`,
  },
  lockSongs: {
    params: { songIds: 'LIST<INTEGER>' },
    cypher: lockByIds('Song', 's', 'songId'),
  },
  /** Services a song is linked to, ascending: the services a song delete must lock first. */
  servicesOfSong: {
    params: { id: 'INTEGER' },
    cypher: `
MATCH (:Song {id: $id})-[:PERFORMED_IN]->(v:Service)
RETURN v.id AS serviceId
ORDER BY serviceId`,
  },
  /** New positions of existing links; `rows` = [{serviceId, songId, position}]. */
  placeLinks: {
    params: { rows: { rows: { serviceId: 'INTEGER', songId: 'INTEGER', position: 'INTEGER' } } },
    cypher: `
UNWIND $rows AS row
MATCH (:Song {id: row.songId})-[r:PERFORMED_IN]->(:Service {id: row.serviceId})
SET r.position = row.position
RETURN count(r) AS placed`,
  },
  // Users
  listUsers: {
    params: {},
    cypher: `MATCH (u:User) RETURN ${USER} ORDER BY id`,
  },
  usersByIds: {
    params: { ids: 'LIST<INTEGER>' },
    cypher: `${byIndex('$ids', 'userId')}
OPTIONAL MATCH (u:User {id: userId})
RETURN i, ${USER}
ORDER BY i`,
  },
  credentialsByKey: {
    params: { usernameKey: 'STRING' },
    cypher: `MATCH (u:User {usernameKey: $usernameKey}) RETURN ${CREDENTIALS}`,
  },
  credentialsById: {
    params: { id: 'INTEGER' },
    cypher: `MATCH (u:User {id: $id}) RETURN ${CREDENTIALS}`,
  },
  /**
   * No row when the username is taken. Two racing creates of one name both pass the check, and
   * the uniqueness constraint on usernameKey then fails the second (the store maps it to null).
   */
  createUser: {
    params: { username: 'STRING', usernameKey: 'STRING', passwordHash: 'STRING', role: 'STRING' },
    cypher: `
OPTIONAL MATCH (taken:User {usernameKey: $usernameKey})
WITH taken
WHERE taken IS NULL
${nextId('User')}
CREATE (u:User {id: q.value, username: $username, usernameKey: $usernameKey,
                passwordHash: $passwordHash, role: $role, tokenVersion: 0})
RETURN ${USER}`,
  },
  /**
   * Serialise every change that can remove an ADMIN (Neo4j's documented explicit-lock idiom: a
   * write takes the node's lock until commit). Read-committed alone would let two demotions each
   * count two admins and both pass.
   */
  lockUsers: {
    params: {},
    cypher: `
MERGE (q:Sequence {name: 'User'})
  ON CREATE SET q.value = 0
SET q._lock = true
REMOVE q._lock
RETURN count(q) AS locked`,
  },
  userRole: {
    params: { id: 'INTEGER' },
    cypher: 'MATCH (u:User {id: $id}) RETURN u.role AS role',
  },
  userKeyTaken: {
    params: { id: 'INTEGER', usernameKey: 'STRING' },
    cypher: `
MATCH (u:User {usernameKey: $usernameKey})
WHERE u.id <> $id
RETURN count(u) AS taken`,
  },
  countAdmins: {
    params: {},
    cypher: "MATCH (u:User {role: 'ADMIN'}) RETURN count(u) AS admins",
  },
  updateUser: {
    params: {
      id: 'INTEGER',
      username: 'STRING?',
      usernameKey: 'STRING?',
      passwordHash: 'STRING?',
      role: 'STRING?',
    },
    cypher: `
MATCH (u:User {id: $id})
SET u.username = coalesce($username, u.username),
    u.usernameKey = coalesce($usernameKey, u.usernameKey),
    u.passwordHash = coalesce($passwordHash, u.passwordHash),
    u.tokenVersion = u.tokenVersion + CASE WHEN $passwordHash IS NULL THEN 0 ELSE 1 END,
    u.role = coalesce($role, u.role)
RETURN ${USER}`,
  },
  deleteUser: {
    params: { id: 'INTEGER' },
    cypher: `
MATCH (u:User {id: $id})
DETACH DELETE u
RETURN count(*) AS deleted`,
  },
  // Snapshots (scripts/migrate.ts)
  exportSongs: {
    params: {},
    cypher: `MATCH (s:Song) RETURN ${SONG} ORDER BY id`,
  },
  exportLicensing: {
    params: {},
    cypher: `
MATCH (s:Song)
WHERE s.ccliNumber IS NOT NULL OR s.copyright IS NOT NULL
RETURN s.id AS songId, ${LICENSING}
ORDER BY songId`,
  },
  exportServices: {
    params: {},
    cypher: `MATCH (v:Service) RETURN ${SERVICE} ORDER BY id`,
  },
  exportLinks: {
    params: {},
    cypher: `
MATCH (s:Song)-[r:PERFORMED_IN]->(v:Service)
RETURN v.id AS serviceId, s.id AS songId, r.position AS position, r.seq AS seq
ORDER BY seq`,
  },
  exportUsers: {
    params: {},
    cypher: `MATCH (u:User) RETURN ${CREDENTIALS} ORDER BY id`,
  },
  exportSequences: {
    params: {},
    cypher: 'MATCH (q:Sequence) RETURN q.name AS name, q.value AS value',
  },
  importSongs: {
    params: { rows: { rows: SONG_ROW } },
    cypher: `
UNWIND $rows AS row
MERGE (s:Song {id: row.id})
  ON CREATE SET ${ZERO_USAGE.map((p) => `s.${p} = 0`).join(', ')}
SET s.name = row.name, s.artists = row.artists, s.ccliNumber = row.ccliNumber, s.copyright = row.copyright
RETURN count(s) AS written`,
  },
  // A snapshot's services leave their slots before any is written (the constraint is checked at
  // each write, not at commit), so that one moving into a slot another of them leaves is not refused.
  unguardServices: {
    params: { ids: 'LIST<INTEGER>' },
    cypher: `
UNWIND $ids AS id
MATCH (v:Service {id: id})
REMOVE v.guarded
RETURN count(v) AS unguarded`,
  },
  // Then each holds its slot unless another service does: a lower id of the snapshot (`row.first`
  // is false: ./transfer.ts), or a service of the store the snapshot does not bring.
  importServices: {
    params: { rows: { rows: { id: 'INTEGER', date: 'INTEGER', serviceType: 'STRING', first: 'BOOLEAN' } } },
    cypher: `
UNWIND $rows AS row
WITH row, row.first AND NOT EXISTS { MATCH (:Service {date: row.date, serviceType: row.serviceType, guarded: true}) } AS guarded
MERGE (v:Service {id: row.id})
SET v.date = row.date, v.serviceType = row.serviceType, v.guarded = CASE WHEN guarded THEN true END
${COPY_TO_LINKS}
RETURN count(v) AS written`,
  },
  importUsers: {
    params: {
      rows: {
        rows: {
          id: 'INTEGER',
          username: 'STRING',
          usernameKey: 'STRING',
          passwordHash: 'STRING',
          role: 'STRING',
          tokenVersion: 'INTEGER',
        },
      },
    },
    cypher: `
UNWIND $rows AS row
MERGE (u:User {id: row.id})
SET u.username = row.username, u.usernameKey = row.usernameKey, u.passwordHash = row.passwordHash,
    u.role = row.role, u.tokenVersion = row.tokenVersion
RETURN count(u) AS written`,
  },
  importLinks: {
    params: { rows: { rows: { serviceId: 'INTEGER', songId: 'INTEGER', position: 'INTEGER', seq: 'INTEGER' } } },
    cypher: `
UNWIND $rows AS row
MATCH (s:Song {id: row.songId})
MATCH (v:Service {id: row.serviceId})
MERGE (s)-[r:PERFORMED_IN]->(v)
SET r.position = row.position, r.seq = row.seq, r.date = v.date, r.serviceType = v.serviceType,
    r.songId = s.id, r.serviceId = v.id
RETURN count(r) AS written`,
  },
  /** Raise, never lower: the target may already have issued higher ids than the snapshot. */
  raiseSequences: {
    params: { rows: { rows: { name: 'STRING', value: 'INTEGER' } } },
    cypher: `
UNWIND $rows AS row
MERGE (q:Sequence {name: row.name})
  ON CREATE SET q.value = 0
SET q.value = CASE WHEN q.value < row.value THEN row.value ELSE q.value END
RETURN count(q) AS raised`,
  },
  // Artist totals (see the header)
  ping: {
    params: {},
    cypher: 'RETURN 1 AS ok',
  },
  ...PERIOD_STATEMENTS,
  ...WRITE_STATEMENTS,
  ...EVENT_STATEMENTS,
  ...WEBHOOK_STATEMENTS,

} as const satisfies Record<string, Statement>;

export type StatementName = keyof typeof STATEMENTS;
type Texts<T> = { [K in keyof T]: string };
type Decls<T> = { [K in keyof T]: T[K] extends { params: infer P } ? P : never };
/** The statements' texts by name (what the linter, the plan pins and the statement log read). */
export const CYPHER = Object.fromEntries(Object.entries(STATEMENTS).map(([k, v]) => [k, v.cypher])) as Texts<typeof STATEMENTS>;
/** The statements' parameter declarations by name. */
export const PARAMS = Object.fromEntries(Object.entries(STATEMENTS).map(([k, v]) => [k, v.params])) as Decls<typeof STATEMENTS>;





/**
 * Statements for tests and tooling only; never called by the store. Linted with the rest.
 */
export const MAINTENANCE_CYPHER = {
  /** Empties the database: the contract suite runs each test on a blank graph. */
  deleteEverything: 'MATCH (n) DETACH DELETE n',
  /** Makes every song look written before usage was maintained: the migration test refills it. */
  forgetSongUsage: `
MATCH (s:Song)
REMOVE ${USAGE_PROPERTIES.map((p) => `s.${p}`).join(', ')}`,
  /** Makes every artist look written before its totals were maintained: the migration test refills them. */
  forgetArtistTotals: `
MATCH (a:Artist)
REMOVE ${ARTIST_PROPERTIES.map((p) => `a.${p}`).join(', ')}`,
} as const;

export const MAINTENANCE_PARAMS = {
  deleteEverything: {},
  forgetSongUsage: {},
  forgetArtistTotals: {},
} as const satisfies Record<keyof typeof MAINTENANCE_CYPHER, ParamDecl>;

/** Labels, relationship types and property keys of the model, for the linter's typo checks. */
export const GRAPH_VOCABULARY = {
  labels: ['Song', 'Service', 'User', 'Artist', 'Sequence', 'MigrationLock', 'MigrationStep', 'Period', 'TimelineZone', 'Event', 'Webhook', 'Delivery'],
  relationshipTypes: ['PERFORMED_IN', 'BY', 'SUNG_WITH'],
  propertyKeys: [
    'id', 'name', 'artists', 'ccliNumber', 'copyright', 'key', 'date', 'serviceType', 'guarded', 'position', 'seq',
    'username', 'usernameKey', 'passwordHash', 'role', 'tokenVersion', 'value', '_lock',
    'owner', 'until', 'finishedAt', 'songId', 'serviceId', 'otherId', 'together', 'type', 'at', 'data',
    'url', 'events', 'description', 'enabled', 'secret', 'previousSecret', 'previousUntil', 'createdAt', 'failingSince',
    'disabledReason', 'webhookId', 'eventId', 'eventType', 'status', 'attempts', 'dueAt', 'leaseOwner', 'leaseUntil',
    'lastAttemptAt', 'lastStatus', 'lastError', ...PAIR_PROPERTIES,
    ...USAGE_PROPERTIES,
    ...ARTIST_PROPERTIES,
    ...PERIOD_PROPERTIES,
  ],
};
