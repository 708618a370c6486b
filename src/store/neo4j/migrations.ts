import neo4j, { Neo4jError, type Driver } from 'neo4j-driver';

/**
 * The schema, applied at every start. Each statement is idempotent (IF NOT EXISTS), so there is
 * no version bookkeeping: add a statement, never edit one that has shipped (an index with the
 * same name but another definition would be silently kept).
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
  // Analytics windows: a range seek over the links' copies of their service dates.
  performedInDate: 'CREATE RANGE INDEX performed_in_date IF NOT EXISTS FOR ()-[r:PERFORMED_IN]-() ON (r.date)',
} as const;

/**
 * Data fixes applied after the schema at every start; each is idempotent and touches nothing once
 * done. `linkCopies` fills the service date and type on links written before analytics existed.
 */
export const DATA_MIGRATION_CYPHER = {
  linkCopies: `
MATCH (:Song)-[r:PERFORMED_IN]->(v:Service)
WHERE r.date IS NULL OR r.serviceType IS NULL
SET r.date = v.date, r.serviceType = v.serviceType`,
} as const;

/**
 * Schema commands may not share a transaction with data writes, so each runs in its own managed
 * transaction (which also retries it if the server is briefly busy).
 */
export async function migrateNeo4j(driver: Driver, database?: string): Promise<void> {
  const session = driver.session({ database, defaultAccessMode: neo4j.session.WRITE });
  try {
    for (const statement of [...Object.values(SCHEMA_CYPHER), ...Object.values(DATA_MIGRATION_CYPHER)]) {
      try {
        await session.executeWrite((tx) => tx.run(statement));
      } catch (err) {
        // Two instances starting together can both pass IF NOT EXISTS; the loser's failure only
        // says the rule now exists, which is the goal.
        if (!(err instanceof Neo4jError && /AlreadyExists$/.test(err.code))) throw err;
      }
    }
  } finally {
    await session.close();
  }
}
