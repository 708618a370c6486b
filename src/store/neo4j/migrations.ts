import neo4j, { Neo4jError, type Driver } from 'neo4j-driver';
import { REFRESH_USAGE } from './statements';

/**
 * The schema, applied at every start, in order. Each statement is idempotent (IF NOT EXISTS, IF
 * EXISTS), so there is no version bookkeeping: add a statement, never edit one that has shipped
 * (an index with the same name but another definition would be silently kept); an index whose
 * definition must change is created under a new name and the old one dropped after it.
 *
 * Uniqueness constraints are backed by range indexes, so each id constraint is also the index
 * every `{id: $id}` lookup seeks; artist_key is the index byArtist starts from (see
 * ./statements.ts for why artists are nodes); sequence_name makes the id-sequence MERGE safe
 * under concurrency.
 */
export const SCHEMA_CYPHER = {
  songId: 'CREATE CONSTRAINT song_id IF NOT EXISTS FOR (s:Song) REQUIRE s.id IS UNIQUE',
  serviceId: 'CREATE CONSTRAINT service_id IF NOT EXISTS FOR (v:Service) REQUIRE v.id IS UNIQUE',
  userId: 'CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE',
  usernameKey: 'CREATE CONSTRAINT user_username_key IF NOT EXISTS FOR (u:User) REQUIRE u.usernameKey IS UNIQUE',
  artistKey: 'CREATE CONSTRAINT artist_key IF NOT EXISTS FOR (a:Artist) REQUIRE a.key IS UNIQUE',
  sequenceName: 'CREATE CONSTRAINT sequence_name IF NOT EXISTS FOR (q:Sequence) REQUIRE q.name IS UNIQUE',
  // Range index: serves before/after/between as one seek, and the ORDER BY date.
  serviceDate: 'CREATE RANGE INDEX service_date IF NOT EXISTS FOR (v:Service) ON (v.date)',
  // Range indexes for the list orders and filters (index-backed ORDER BY ... SKIP/LIMIT).
  songName: 'CREATE RANGE INDEX song_name IF NOT EXISTS FOR (s:Song) ON (s.name)',
  serviceType: 'CREATE RANGE INDEX service_type IF NOT EXISTS FOR (v:Service) ON (v.serviceType)',
  // Song search (db.index.fulltext.queryNodes): name, the artists list (LIST<STRING> values are
  // indexed by Neo4j 5's full-text indexes) and the CCLI number. standard-folding folds accents
  // and case (ASCII folding); not eventually consistent, so a song is searchable as soon as its
  // write commits. It replaces song_search (name and artists only), which is dropped once it is
  // online: a new index is populated in the background and a search on it fails until then, so
  // the start waits for it (at most 300 s).
  songSearch: `CREATE FULLTEXT INDEX song_search_ccli IF NOT EXISTS FOR (s:Song) ON EACH [s.name, s.artists, s.ccliNumber]
    OPTIONS { indexConfig: { \`fulltext.analyzer\`: 'standard-folding', \`fulltext.eventually_consistent\`: false } }`,
  songSearchOnline: "CALL db.awaitIndex('song_search_ccli', 300)",
  songSearchRetired: 'DROP INDEX song_search IF EXISTS',
  // Analytics windows: a range seek over the links' copies of their service dates.
  performedInDate: 'CREATE RANGE INDEX performed_in_date IF NOT EXISTS FOR ()-[r:PERFORMED_IN]-() ON (r.date)',
  // All-time analytics over every type read the songs' maintained usage totals (see
  // ./statements.ts): these serve the report orders (times sung, last sung either way, first
  // sung) as index-ordered scans that stop after the page, and the new-songs range on first.
  songUsageTimes: 'CREATE RANGE INDEX song_usage_times IF NOT EXISTS FOR (s:Song) ON (s.usageTimes)',
  songUsageLast: 'CREATE RANGE INDEX song_usage_last IF NOT EXISTS FOR (s:Song) ON (s.usageLast)',
  songUsageFirst: 'CREATE RANGE INDEX song_usage_first IF NOT EXISTS FOR (s:Song) ON (s.usageFirst)',
} as const;

/**
 * Data changes applied at every start after the schema, each idempotent. `renumberSetlists` makes
 * positions the songs' places 1..n (docs/API.md) in graphs written before that rule, keeping
 * their order (position, then link seq); on a graph already numbered it writes nothing.
 * `linkCopies` fills the service date and type on links written before analytics existed.
 */
export const DATA_CYPHER = {
  renumberSetlists: `
MATCH (:Song)-[r:PERFORMED_IN]->(v:Service)
WITH v, r
ORDER BY r.position, r.seq
WITH v, collect(r) AS links
UNWIND range(0, size(links) - 1) AS i
WITH links[i] AS r, i + 1 AS place
WHERE r.position <> place
SET r.position = place`,
  linkCopies: `
MATCH (:Song)-[r:PERFORMED_IN]->(v:Service)
WHERE r.date IS NULL OR r.serviceType IS NULL
SET r.date = v.date, r.serviceType = v.serviceType`,
} as const;

/** Songs per transaction of a batched data change. */
export const DATA_BATCH = 1000;

/**
 * Data changes too large for one transaction on a big graph, applied at every start after
 * DATA_CYPHER (so after `linkCopies`, whose link dates and types they read). Each run changes at
 * most DATA_BATCH rows and returns how many as `changed`; migrateNeo4j runs it again, each time
 * in its own managed transaction, until a run changes fewer than DATA_BATCH. Idempotent: on a
 * graph already done, the first run changes nothing.
 *
 * `songUsage` fills the maintained usage properties (./statements.ts) of songs written before
 * they existed, recomputed from their links exactly as refreshSongUsage does (the same text,
 * taking each song's lock before reading its links, so a writer running beside the migration
 * cannot be missed). Songs written since carry them (createSong and importSongs set zeros, every
 * link write refreshes), so `usageTimes IS NULL` finds only old songs.
 */
export const BATCHED_DATA_CYPHER = {
  songUsage: `
MATCH (s:Song)
WHERE s.usageTimes IS NULL
WITH s
ORDER BY s.id
LIMIT ${DATA_BATCH}
${REFRESH_USAGE}
RETURN count(s) AS changed`,
} as const;

/**
 * Schema commands may not share a transaction with data writes, so each runs in its own managed
 * transaction (which also retries it if the server is briefly busy).
 */
export async function migrateNeo4j(driver: Driver, database?: string): Promise<void> {
  const session = driver.session({ database, defaultAccessMode: neo4j.session.WRITE });
  try {
    for (const statement of Object.values(SCHEMA_CYPHER)) {
      try {
        await session.executeWrite((tx) => tx.run(statement));
      } catch (err) {
        // Two instances starting together can both pass IF NOT EXISTS; the loser's failure only
        // says the rule now exists, which is the goal.
        if (!(err instanceof Neo4jError && /AlreadyExists$/.test(err.code))) throw err;
      }
    }
    for (const statement of Object.values(DATA_CYPHER)) await session.executeWrite((tx) => tx.run(statement));
    // Managed transactions (retried when transient), so no CALL { ... } IN TRANSACTIONS, which
    // needs an implicit one: the batches are separate transactions driven from here instead.
    for (const statement of Object.values(BATCHED_DATA_CYPHER)) {
      for (;;) {
        const changed = await session.executeWrite(async (tx) => (await tx.run(statement)).records[0]?.get('changed'));
        if (neo4j.integer.toNumber(changed ?? 0) < DATA_BATCH) break;
      }
    }
  } finally {
    await session.close();
  }
}
