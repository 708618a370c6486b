/**
 * Every Cypher statement of the Neo4j store, by name, with the parameters each one takes.
 *
 * Graph model:
 *   (:Song {id, name, artists})-[:BY]->(:Artist {key})
 *   (:Song)-[:PERFORMED_IN {position, seq}]->(:Service {id, date, serviceType})
 *   (:User {id, username, usernameKey, passwordHash, role, tokenVersion})
 *   (:Sequence {name, value})   one per record kind: the highest id ever issued
 *
 * Why (:Artist) nodes serve byArtist: Neo4j 5 range indexes index a list property as one whole
 * value and text indexes only index strings, so no index can answer `$key IN s.artistKeys`; it
 * would scan every song. A uniqueness constraint on Artist.key gives a unique index seek, then
 * one expand per matching song: the cost follows the answer, not the catalogue. The nodes also
 * make MERGE safe under concurrency (the constraint serialises two creates of the same key).
 * An Artist whose last song goes keeps its node: deleting it would race with a concurrent MERGE
 * linking to it, and an orphan costs one index entry.
 *
 * Why a `seq` on PERFORMED_IN: positions can tie (an explicit position may equal another's), and
 * the contract breaks ties by link order. `seq` comes from the PERFORMED_IN sequence, so it is
 * unique across the store like SQLite's performed_in.id, and snapshots move it unchanged.
 *
 * Integers: every INTEGER parameter must be a neo4j Integer (neo4j.int). A JS number is sent as a
 * FLOAT and would be stored as one; `checkParams` in ./values.ts refuses it at run time, and
 * scripts/lint-cypher.ts lints each statement with exactly the parameters declared here.
 */

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
const nextId = (kind: string) => `MERGE (q:Sequence {name: '${kind}'})
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

/**
 * Batch reads keep the caller's order and length: `i` is each id's index in `$ids`, OPTIONAL MATCH
 * yields a null row for a missing id, and the rows come back ORDER BY i. Binding `$ids[i]` to a
 * variable first keeps the lookup a plain unique index seek.
 */
const byIndex = (list: string, as: string) => `
UNWIND range(0, size(${list}) - 1) AS i
WITH i, ${list}[i] AS ${as}`;

export const CYPHER = {
  // Songs
  listSongs: `MATCH (s:Song) RETURN ${SONG} ORDER BY id`,
  songsByIds: `${byIndex('$ids', 'songId')}
OPTIONAL MATCH (s:Song {id: songId})
RETURN i, ${SONG}
ORDER BY i`,
  songsByArtistKey: `
MATCH (:Artist {key: $artistKey})<-[:BY]-(s:Song)
RETURN DISTINCT ${SONG}
ORDER BY id`,
  createSong: `
${nextId('Song')}
CREATE (s:Song {id: q.value, name: $name, artists: $artists})
FOREACH (key IN $artistKeys | MERGE (a:Artist {key: key}) MERGE (s)-[:BY]->(a))
RETURN ${SONG}`,
  updateSong: `
MATCH (s:Song {id: $id})
SET s.name = coalesce($name, s.name), s.artists = coalesce($artists, s.artists)
RETURN ${SONG}`,
  /** Re-point BY edges of many songs; `rows` = [{id, artistKeys}]. Serves updates and imports. */
  setSongArtists: `
UNWIND $rows AS row
MATCH (s:Song {id: row.id})
OPTIONAL MATCH (s)-[old:BY]->(:Artist)
DELETE old
WITH DISTINCT s, row.artistKeys AS keys
FOREACH (key IN keys | MERGE (a:Artist {key: key}) MERGE (s)-[:BY]->(a))`,
  deleteSong: `
MATCH (s:Song {id: $id})
DETACH DELETE s
RETURN count(*) AS deleted`,

  // Services
  listServices: `MATCH (v:Service) RETURN ${SERVICE} ORDER BY date, id`,
  servicesByIds: `${byIndex('$ids', 'serviceId')}
OPTIONAL MATCH (v:Service {id: serviceId})
RETURN i, ${SERVICE}
ORDER BY i`,
  // Both bounds in one predicate pair: a single range seek on the Service.date index.
  servicesInRange: `
MATCH (v:Service)
WHERE v.date >= $min AND v.date <= $max
RETURN ${SERVICE}
ORDER BY date, id`,
  createService: `
${nextId('Service')}
CREATE (v:Service {id: q.value, date: $date, serviceType: $serviceType})
RETURN ${SERVICE}`,
  updateService: `
MATCH (v:Service {id: $id})
SET v.date = coalesce($date, v.date), v.serviceType = coalesce($serviceType, v.serviceType)
${COPY_TO_LINKS}
RETURN ${SERVICE}`,
  deleteService: `
MATCH (v:Service {id: $id})
DETACH DELETE v
RETURN count(*) AS deleted`,

  // PERFORMED_IN
  setlists: `${byIndex('$ids', 'serviceId')}
MATCH (s:Song)-[r:PERFORMED_IN]->(:Service {id: serviceId})
RETURN i, ${SONG}
ORDER BY i, r.position, r.seq`,
  servicesForSongs: `${byIndex('$ids', 'songId')}
MATCH (:Song {id: songId})-[:PERFORMED_IN]->(v:Service)
RETURN i, ${SERVICE}
ORDER BY i, date, id`,
  /** Does the service exist, and how many of the (distinct) song ids do. */
  linkTargets: `
OPTIONAL MATCH (v:Service {id: $serviceId})
WITH v
OPTIONAL MATCH (s:Song)
WHERE s.id IN $songIds
RETURN v IS NOT NULL AS service, count(DISTINCT s) AS songs`,
  /**
   * Reserve `$count` link seqs. Every link write runs this first: the write lock on the sequence
   * node then serialises link writes, so "append after the current last position" reads a
   * setlist no other transaction is changing, and all link writers lock in the same order
   * (sequence, then nodes), which keeps them from deadlocking each other.
   */
  reserveLinkSeqs: `
MERGE (q:Sequence {name: 'PERFORMED_IN'})
  ON CREATE SET q.value = 0
SET q.value = q.value + $count
RETURN q.value - $count AS base`,
  /**
   * Without a position a new link goes last and an existing one keeps its place; with one, the
   * link moves there. MERGE keeps one link per (song, service); an existing link keeps its seq.
   */
  linkSong: `
MATCH (v:Service {id: $serviceId})
MATCH (s:Song {id: $songId})
OPTIONAL MATCH (:Song)-[other:PERFORMED_IN]->(v)
WITH v, s, coalesce(max(other.position), 0) + 1 AS nextPosition
MERGE (s)-[r:PERFORMED_IN]->(v)
  ON CREATE SET r.seq = $seq, r.position = coalesce($position, nextPosition)
  ON MATCH SET r.position = coalesce($position, r.position)
SET r.date = v.date, r.serviceType = v.serviceType
RETURN r.position AS position`,
  unlinkSong: `
MATCH (:Song {id: $songId})-[r:PERFORMED_IN]->(:Service {id: $serviceId})
DELETE r
RETURN count(*) AS removed`,
  clearSetlist: `
MATCH (:Song)-[r:PERFORMED_IN]->(:Service {id: $serviceId})
DELETE r`,
  /** Positions 1..n in the order given; seqs base+1..base+n keep that order as link order too. */
  fillSetlist: `
MATCH (v:Service {id: $serviceId})
UNWIND range(0, size($songIds) - 1) AS i
WITH v, i, $songIds[i] AS songId
MATCH (s:Song {id: songId})
MERGE (s)-[r:PERFORMED_IN]->(v)
  ON CREATE SET r.seq = $base + i + 1
SET r.position = i + 1, r.date = v.date, r.serviceType = v.serviceType
RETURN count(r) AS linked`,

  // Users
  listUsers: `MATCH (u:User) RETURN ${USER} ORDER BY id`,
  usersByIds: `${byIndex('$ids', 'userId')}
OPTIONAL MATCH (u:User {id: userId})
RETURN i, ${USER}
ORDER BY i`,
  credentialsByKey: `MATCH (u:User {usernameKey: $usernameKey}) RETURN ${CREDENTIALS}`,
  credentialsById: `MATCH (u:User {id: $id}) RETURN ${CREDENTIALS}`,
  /**
   * No row when the username is taken. Two racing creates of one name both pass the check, and
   * the uniqueness constraint on usernameKey then fails the second (the store maps it to null).
   */
  createUser: `
OPTIONAL MATCH (taken:User {usernameKey: $usernameKey})
WITH taken
WHERE taken IS NULL
${nextId('User')}
CREATE (u:User {id: q.value, username: $username, usernameKey: $usernameKey,
                passwordHash: $passwordHash, role: $role, tokenVersion: 0})
RETURN ${USER}`,
  /**
   * Serialise every change that can remove an ADMIN (Neo4j's documented explicit-lock idiom: a
   * write takes the node's lock until commit). Read-committed alone would let two demotions each
   * count two admins and both pass.
   */
  lockUsers: `
MERGE (q:Sequence {name: 'User'})
  ON CREATE SET q.value = 0
SET q._lock = true
REMOVE q._lock`,
  userRole: 'MATCH (u:User {id: $id}) RETURN u.role AS role',
  userKeyTaken: `
MATCH (u:User {usernameKey: $usernameKey})
WHERE u.id <> $id
RETURN count(u) AS taken`,
  countAdmins: "MATCH (u:User {role: 'ADMIN'}) RETURN count(u) AS admins",
  updateUser: `
MATCH (u:User {id: $id})
SET u.username = coalesce($username, u.username),
    u.usernameKey = coalesce($usernameKey, u.usernameKey),
    u.passwordHash = coalesce($passwordHash, u.passwordHash),
    u.tokenVersion = u.tokenVersion + CASE WHEN $passwordHash IS NULL THEN 0 ELSE 1 END,
    u.role = coalesce($role, u.role)
RETURN ${USER}`,
  deleteUser: `
MATCH (u:User {id: $id})
DETACH DELETE u
RETURN count(*) AS deleted`,

  // Snapshots (scripts/migrate.ts); songs come from listSongs, which is already by id.
  exportServices: `MATCH (v:Service) RETURN ${SERVICE} ORDER BY id`,
  exportLinks: `
MATCH (s:Song)-[r:PERFORMED_IN]->(v:Service)
RETURN v.id AS serviceId, s.id AS songId, r.position AS position, r.seq AS seq
ORDER BY seq`,
  exportUsers: `MATCH (u:User) RETURN ${CREDENTIALS} ORDER BY id`,
  exportSequences: 'MATCH (q:Sequence) RETURN q.name AS name, q.value AS value',
  importSongs: `
UNWIND $rows AS row
MERGE (s:Song {id: row.id})
SET s.name = row.name, s.artists = row.artists`,
  importServices: `
UNWIND $rows AS row
MERGE (v:Service {id: row.id})
SET v.date = row.date, v.serviceType = row.serviceType
${COPY_TO_LINKS}`,
  importUsers: `
UNWIND $rows AS row
MERGE (u:User {id: row.id})
SET u.username = row.username, u.usernameKey = row.usernameKey, u.passwordHash = row.passwordHash,
    u.role = row.role, u.tokenVersion = row.tokenVersion`,
  importLinks: `
UNWIND $rows AS row
MATCH (s:Song {id: row.songId})
MATCH (v:Service {id: row.serviceId})
MERGE (s)-[r:PERFORMED_IN]->(v)
SET r.position = row.position, r.seq = row.seq, r.date = v.date, r.serviceType = v.serviceType`,
  /** Raise, never lower: the target may already have issued higher ids than the snapshot. */
  raiseSequences: `
UNWIND $rows AS row
MERGE (q:Sequence {name: row.name})
  ON CREATE SET q.value = 0
SET q.value = CASE WHEN q.value < row.value THEN row.value ELSE q.value END`,

  ping: 'RETURN 1 AS ok',
} as const;

export type StatementName = keyof typeof CYPHER;

const SONG_ROW = { id: 'INTEGER', name: 'STRING', artists: 'LIST<STRING>' } as const;
const ARTIST_ROW = { id: 'INTEGER', artistKeys: 'LIST<STRING>' } as const;

export const PARAMS = {
  listSongs: {},
  songsByIds: { ids: 'LIST<INTEGER>' },
  songsByArtistKey: { artistKey: 'STRING' },
  createSong: { name: 'STRING', artists: 'LIST<STRING>', artistKeys: 'LIST<STRING>' },
  updateSong: { id: 'INTEGER', name: 'STRING?', artists: 'LIST<STRING>?' },
  setSongArtists: { rows: { rows: ARTIST_ROW } },
  deleteSong: { id: 'INTEGER' },

  listServices: {},
  servicesByIds: { ids: 'LIST<INTEGER>' },
  servicesInRange: { min: 'INTEGER', max: 'INTEGER' },
  createService: { date: 'INTEGER', serviceType: 'STRING' },
  updateService: { id: 'INTEGER', date: 'INTEGER?', serviceType: 'STRING?' },
  deleteService: { id: 'INTEGER' },

  setlists: { ids: 'LIST<INTEGER>' },
  servicesForSongs: { ids: 'LIST<INTEGER>' },
  linkTargets: { serviceId: 'INTEGER', songIds: 'LIST<INTEGER>' },
  reserveLinkSeqs: { count: 'INTEGER' },
  linkSong: { serviceId: 'INTEGER', songId: 'INTEGER', position: 'INTEGER?', seq: 'INTEGER' },
  unlinkSong: { serviceId: 'INTEGER', songId: 'INTEGER' },
  clearSetlist: { serviceId: 'INTEGER' },
  fillSetlist: { serviceId: 'INTEGER', songIds: 'LIST<INTEGER>', base: 'INTEGER' },

  listUsers: {},
  usersByIds: { ids: 'LIST<INTEGER>' },
  credentialsByKey: { usernameKey: 'STRING' },
  credentialsById: { id: 'INTEGER' },
  createUser: { username: 'STRING', usernameKey: 'STRING', passwordHash: 'STRING', role: 'STRING' },
  lockUsers: {},
  userRole: { id: 'INTEGER' },
  userKeyTaken: { id: 'INTEGER', usernameKey: 'STRING' },
  countAdmins: {},
  updateUser: {
    id: 'INTEGER',
    username: 'STRING?',
    usernameKey: 'STRING?',
    passwordHash: 'STRING?',
    role: 'STRING?',
  },
  deleteUser: { id: 'INTEGER' },

  exportServices: {},
  exportLinks: {},
  exportUsers: {},
  exportSequences: {},
  importSongs: { rows: { rows: SONG_ROW } },
  importServices: { rows: { rows: { id: 'INTEGER', date: 'INTEGER', serviceType: 'STRING' } } },
  importUsers: {
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
  importLinks: { rows: { rows: { serviceId: 'INTEGER', songId: 'INTEGER', position: 'INTEGER', seq: 'INTEGER' } } },
  raiseSequences: { rows: { rows: { name: 'STRING', value: 'INTEGER' } } },

  ping: {},
} as const satisfies Record<StatementName, ParamDecl>;

/**
 * Statements for tests and tooling only; never called by the store. Linted with the rest.
 */
export const MAINTENANCE_CYPHER = {
  /** Empties the database: the contract suite runs each test on a blank graph. */
  deleteEverything: 'MATCH (n) DETACH DELETE n',
} as const;

export const MAINTENANCE_PARAMS = {
  deleteEverything: {},
} as const satisfies Record<keyof typeof MAINTENANCE_CYPHER, ParamDecl>;

/** Labels, relationship types and property keys of the model, for the linter's typo checks. */
export const GRAPH_VOCABULARY = {
  labels: ['Song', 'Service', 'User', 'Artist', 'Sequence'],
  relationshipTypes: ['PERFORMED_IN', 'BY'],
  propertyKeys: [
    'id', 'name', 'artists', 'key', 'date', 'serviceType', 'position', 'seq',
    'username', 'usernameKey', 'passwordHash', 'role', 'tokenVersion', 'value', '_lock',
  ],
};
