import crypto from 'node:crypto';
import os from 'node:os';
import neo4j, { Neo4jError, type Driver, type ManagedTransaction } from 'neo4j-driver';
import type { ParamDecl } from './statements';
import { REFRESH_ARTIST, REFRESH_PAIRS, REFRESH_USAGE } from './statements';

/**
 * Migrations run once per database, whichever instance gets there first: every step below is
 * recorded as a (:MigrationStep {name}) node when it is done, and steps are run only while
 * holding the migration lock, a lease on the (:MigrationLock) node (MIGRATION_CYPHER). Instances
 * that start meanwhile wait for the lock (bounded), then find the steps recorded and serve. A
 * step's name is its key below: add steps, never rename or edit one that has shipped (a database
 * that recorded it would not run it again; an index with the same name but another definition
 * would be silently kept). An index whose definition must change is created under a new name by
 * a new step, and the old one dropped by the step after it.
 *
 * The schema, in order: each statement is idempotent (IF NOT EXISTS, IF EXISTS) as well.
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
  // The never-sung songs of those reports in id order (usageTimes = 0, then id): the composite
  // index delivers them sorted, so a page reads $offset + $limit of them instead of sorting all
  // of them (EXPLAIN showed a Top over every never-sung song with song_usage_times alone).
  songUsageTimesId: 'CREATE RANGE INDEX song_usage_times_id IF NOT EXISTS FOR (s:Song) ON (s.usageTimes, s.id)',
  // A song's page of services (servicesForSongs): with equality on the link's copy of its song's
  // id, a seek returns the song's links in (date, service id) order, so SKIP/LIMIT stop after the
  // page instead of expanding and sorting every link of a popular song. Neo4j has no index of a
  // node's relationships in property order, hence the copies (filled by data.linkIds). Awaited
  // online so the first page read after the start uses it.
  performedInSong:
    'CREATE RANGE INDEX performed_in_song IF NOT EXISTS FOR ()-[r:PERFORMED_IN]-() ON (r.songId, r.date, r.serviceId)',
  performedInSongOnline: "CALL db.awaitIndex('performed_in_song', 300)",
  // A song's first and last link of one type, after a write removed the link that held it
  // (moveUsage): one seek in index order, stopping at the first link, however often it was sung.
  performedInSongType:
    'CREATE RANGE INDEX performed_in_song_type IF NOT EXISTS FOR ()-[r:PERFORMED_IN]-() ON (r.songId, r.serviceType, r.date)',
  performedInSongTypeOnline: "CALL db.awaitIndex('performed_in_song_type', 300)",
  // "Songs sung with" over all time and types: a song's pairs (./pairs.ts) by its id, most
  // services together first, read in index order and cut after the page.
  sungWithTogether: 'CREATE RANGE INDEX sung_with_together IF NOT EXISTS FOR ()-[p:SUNG_WITH]-() ON (p.songId, p.together)',
  // A pair by its two songs' ids, for the writers' deltas (movePairs): a seek, where a MERGE
  // between two often-sung songs walked one song's pairs.
  sungWithPair: 'CREATE RANGE INDEX sung_with_pair IF NOT EXISTS FOR ()-[p:SUNG_WITH]-() ON (p.songId, p.otherId)',
  // A pair is stored once, from the lower id (./pairs.ts): the pairs a song ends, most services
  // together first, for the same report. Awaited online so the first report after the start uses it.
  sungWithOtherTogether:
    'CREATE RANGE INDEX sung_with_other_together IF NOT EXISTS FOR ()-[p:SUNG_WITH]-() ON (p.otherId, p.together)',
  sungWithOtherTogetherOnline: "CALL db.awaitIndex('sung_with_other_together', 300)",
  // The all-time artists report over every type reads the artists' maintained totals (see
  // ./statements.ts) in this index's order, from the highest, and stops after the page.
  artistUsageTimes: 'CREATE RANGE INDEX artist_usage_times IF NOT EXISTS FOR (a:Artist) ON (a.usageTimes)',
  // Maintained timeline periods (./periods.ts): one node per key, MERGEd by the writers; the
  // timeline finds a bucket's period by its instants; one zone record.
  periodKey: 'CREATE CONSTRAINT period_key IF NOT EXISTS FOR (p:Period) REQUIRE p.key IS UNIQUE',
  periodRange: 'CREATE RANGE INDEX period_range IF NOT EXISTS FOR (p:Period) ON (p.start, p.end)',
  timelineZoneName: 'CREATE CONSTRAINT timeline_zone_name IF NOT EXISTS FOR (z:TimelineZone) REQUIRE z.name IS UNIQUE',
  // The outbox (./event-statements.ts): ids unique, and read after an id in their order.
  eventId: 'CREATE CONSTRAINT event_id IF NOT EXISTS FOR (e:Event) REQUIRE e.id IS UNIQUE',
  // Webhooks (./webhook-statements.ts): endpoints by id; a delivery by its endpoint and event
  // (an endpoint's log in event order), and the due ones by when they are due.
  webhookId: 'CREATE CONSTRAINT webhook_id IF NOT EXISTS FOR (w:Webhook) REQUIRE w.id IS UNIQUE',
  deliveryKey: 'CREATE CONSTRAINT delivery_key IF NOT EXISTS FOR (d:Delivery) REQUIRE (d.webhookId, d.eventId) IS UNIQUE',
  deliveryDue: 'CREATE RANGE INDEX delivery_due IF NOT EXISTS FOR (d:Delivery) ON (d.dueAt)',
} as const;

/** Rows (services, songs) per transaction of a batched data change. */
export const DATA_BATCH = 1000;

/**
 * A batch of at most DATA_BATCH services after $after, in id order, each write-locked before
 * `body` runs on its links (bound as `v`): the lock order writers take, so a setlist writer
 * running beside the migration is waited for, never missed.
 */
const perServiceBatch = (body: string) => `
MATCH (v:Service)
WHERE v.id > $after
WITH v
ORDER BY v.id
LIMIT ${DATA_BATCH}
SET v._lock = true
REMOVE v._lock
WITH v
CALL (v) {${body}}
RETURN count(v) AS rows, max(v.id) AS last`;

/**
 * Data changes, after the schema, in this order. Each is too large for one transaction on a big
 * graph: each run handles the next DATA_BATCH rows in id order after `$after`, and returns how
 * many as `rows` and the last id as `last`; migrateNeo4j runs it again from `last`, each time in
 * its own managed transaction, until a run handles fewer than DATA_BATCH.
 *
 * Each takes the locks a writer of the same data takes, in the writers' order (./statements.ts):
 * a service's lock before its links, a song's before its usage. Without it a migration running
 * beside the service could deadlock with a writer (setting a link's property waits on its
 * service's lock, which a setlist writer takes first), or write over what it has not seen.
 *
 * `linkCopies` fills the service date and type on links written before analytics existed.
 *
 * `renumberSetlists` makes positions the songs' places 1..n (docs/API.md) in graphs written
 * before that rule, keeping their order (position, then link seq). It takes each service's lock
 * before reading its setlist, so a link written beside it is either committed before it reads
 * or waits for it; it changes no song's usage (the order, hence the ends, stays).
 *
 * `songUsage` fills the maintained usage properties (./statements.ts) of songs written before
 * they existed, recomputed from their links (REFRESH_USAGE,
 * taking each song's lock before reading its links, so a writer running beside the migration
 * cannot be missed). Songs written since carry them (createSong and importSongs set zeros, every
 * link write moves them), so `usageTimes IS NULL` finds only old songs.
 *
 * `linkIds` copies the song's and the service's ids onto links written before the
 * performed_in_song index (r.songId, r.serviceId): links are never moved to another song or
 * service, so the copies never change once set. Like `linkCopies`, each service's lock first.
 *
 * `songPairs` makes the song pairs ("songs sung with": ./pairs.ts) of every song, in id order, from
 * its links (REFRESH_PAIRS: the song's lock first, its old pairs replaced, so a
 * batch cut short is simply run again). Writers since keep them by deltas.
 * `artistTotals` fills the maintained totals of artists (./statements.ts) written before they
 * existed, recomputed from their songs (REFRESH_ARTIST, locking each
 * artist, in key order, before reading its songs; after `songUsage`, whose totals it sums).
 * Artists written since carry them (made with zeros, moved by every write that touches their songs), so
 * `usageTimes IS NULL` finds only old ones, and each batch leaves fewer: an Artist has no id to
 * page by, so `$after` (from -1) only carries a running count, returned as `last`.
 * `artistSpellings` gives artists written before their spelling counts (`spellings`,
 * `spellingUses`: writers move them by the songs that join or leave an artist) those counts,
 * from their songs, the same way (`spellingUses IS NULL` finds only old ones).
 * `serviceSlots` marks the services that hold their date and type (`guarded`, ./statements.ts
 * createService) before the service_slot constraint exists: of services that share them (written
 * before the rule), the lowest id; the others stay unmarked, outside the constraint, and keep
 * their records. Each service's lock first, as writers take it.
 * `pairsOnce` drops the second copy of each song pair a database from before pairs were stored
 * once (./pairs.ts) holds: the one from the higher id to the lower, whose counts equal the
 * other's. Each song's lock first, in id order, as writers take them.
 */
export const BATCHED_DATA_CYPHER = {
  linkCopies: perServiceBatch(`
  MATCH (:Song)-[r:PERFORMED_IN]->(v)
  WHERE r.date IS NULL OR r.serviceType IS NULL
  SET r.date = v.date, r.serviceType = v.serviceType
`),
  renumberSetlists: perServiceBatch(`
  MATCH (:Song)-[r:PERFORMED_IN]->(v)
  WITH r
  ORDER BY r.position, r.seq
  WITH collect(r) AS links
  UNWIND range(0, size(links) - 1) AS i
  WITH links[i] AS r, i + 1 AS place
  WHERE r.position <> place
  SET r.position = place
`),
  songUsage: `
MATCH (s:Song)
WHERE s.usageTimes IS NULL AND s.id > $after
WITH s
ORDER BY s.id
LIMIT ${DATA_BATCH}
${REFRESH_USAGE}
RETURN count(s) AS rows, max(s.id) AS last`,
  linkIds: perServiceBatch(`
  MATCH (s:Song)-[r:PERFORMED_IN]->(v)
  WHERE r.songId IS NULL OR r.serviceId IS NULL
  SET r.songId = s.id, r.serviceId = v.id
`),
  songPairs: `
MATCH (s:Song)
WHERE s.id > $after
WITH s
ORDER BY s.id
LIMIT ${DATA_BATCH}
${REFRESH_PAIRS}
RETURN count(s) AS rows, max(s.id) AS last`,
  artistTotals: `
MATCH (a:Artist)
WHERE a.usageTimes IS NULL
WITH a
ORDER BY a.key
LIMIT ${DATA_BATCH}
${REFRESH_ARTIST}
RETURN count(a) AS rows, $after + count(a) AS last`,
  artistSpellings: `
MATCH (a:Artist)
WHERE a.spellingUses IS NULL
WITH a
ORDER BY a.key
LIMIT ${DATA_BATCH}
${REFRESH_ARTIST}
RETURN count(a) AS rows, $after + count(a) AS last`,
  serviceSlots: perServiceBatch(`
  WITH v
  WHERE v.guarded IS NULL AND NOT EXISTS {
    MATCH (o:Service)
    WHERE o.date = v.date AND o.serviceType = v.serviceType AND o.id < v.id
  }
  SET v.guarded = true
`),
  pairsOnce: `
MATCH (s:Song)
WHERE s.id > $after
WITH s
ORDER BY s.id
LIMIT ${DATA_BATCH}
SET s._lock = true
REMOVE s._lock
WITH s
CALL (s) {
  MATCH (s)-[p:SUNG_WITH]->(o:Song)
  WHERE o.id < s.id
  DELETE p
}
RETURN count(s) AS rows, max(s.id) AS last`,
} as const;

/**
 * Data changes that are one statement, after the batched ones. `timelinePeriods` records that the
 * timeline periods (./periods.ts) are to be built: a zone record without a zone, which the
 * timeline does not trust (it reads links), and which the first store opened with migrations on
 * fills in its SERVICE_TIME_ZONE, batched (./timeline.ts openTimeline: the calendars are
 * luxon's, computed in TypeScript, so the filling cannot be a Cypher step). A database that
 * already has a record keeps it.
 */
export const ONE_STATEMENT_DATA_CYPHER = {
  timelinePeriods: `
MERGE (z:TimelineZone {name: 'timeline'})
RETURN count(z) AS recorded`,
} as const;

export const ONE_STATEMENT_DATA_PARAMS = {
  timelinePeriods: {},
} as const satisfies Record<keyof typeof ONE_STATEMENT_DATA_CYPHER, ParamDecl>;

/** The one migration lock of a database. */
const LOCK = 'migrations';

/**
 * The lock and the step records. Their uniqueness constraints come first, outside the lock (two
 * instances creating one constraint at once is harmless: see createSchema): without them two
 * concurrent MERGEs of the lock node could create two.
 *
 * `takeLock` write-locks the node before reading who holds it (Neo4j's explicit-lock idiom, as
 * in ./statements.ts), so of two instances asking at once the second reads the first's
 * committed claim. The lock is a lease on the server's clock (`timestamp()`, one clock for every
 * instance): its holder renews it while it migrates, and an instance that died holding it (a
 * SIGKILL, a lost machine) stops blocking the others when the lease runs out.
 */
export const MIGRATION_CYPHER = {
  lockConstraint: 'CREATE CONSTRAINT migration_lock_name IF NOT EXISTS FOR (l:MigrationLock) REQUIRE l.name IS UNIQUE',
  stepConstraint: 'CREATE CONSTRAINT migration_step_name IF NOT EXISTS FOR (m:MigrationStep) REQUIRE m.name IS UNIQUE',
  finishedSteps: 'MATCH (m:MigrationStep) RETURN m.name AS name',
  takeLock: `
MERGE (l:MigrationLock {name: '${LOCK}'})
SET l._lock = true
REMOVE l._lock
WITH l, l.owner IS NULL OR l.owner = $owner OR l.until < timestamp() AS free
SET l.owner = CASE WHEN free THEN $owner ELSE l.owner END,
    l.until = CASE WHEN free THEN timestamp() + $leaseMs ELSE l.until END
RETURN free AS taken, l.owner AS owner`,
  renewLock: `
MATCH (l:MigrationLock {name: '${LOCK}'})
SET l._lock = true
REMOVE l._lock
WITH l
WHERE l.owner = $owner
SET l.until = timestamp() + $leaseMs
RETURN count(l) AS renewed`,
  releaseLock: `
MATCH (l:MigrationLock {name: '${LOCK}'})
SET l._lock = true
REMOVE l._lock
WITH l
WHERE l.owner = $owner
REMOVE l.owner, l.until
RETURN count(l) AS released`,
  recordStep: `
MERGE (m:MigrationStep {name: $name})
ON CREATE SET m.finishedAt = timestamp()
RETURN count(m) AS recorded`,
} as const;

export const MIGRATION_PARAMS = {
  lockConstraint: {},
  stepConstraint: {},
  finishedSteps: {},
  takeLock: { owner: 'STRING', leaseMs: 'INTEGER' },
  renewLock: { owner: 'STRING', leaseMs: 'INTEGER' },
  releaseLock: { owner: 'STRING' },
  recordStep: { name: 'STRING' },
} as const satisfies Record<keyof typeof MIGRATION_CYPHER, ParamDecl>;

export const BATCHED_DATA_PARAMS = {
  linkCopies: { after: 'INTEGER' },
  renumberSetlists: { after: 'INTEGER' },
  songUsage: { after: 'INTEGER' },
  linkIds: { after: 'INTEGER' },
  songPairs: { after: 'INTEGER' },
  artistTotals: { after: 'INTEGER' },
  artistSpellings: { after: 'INTEGER' },
  serviceSlots: { after: 'INTEGER' },
  pairsOnce: { after: 'INTEGER' },
} as const satisfies Record<keyof typeof BATCHED_DATA_CYPHER, ParamDecl>;

/**
 * Schema that needs data steps done first. `serviceSlot`: one service per date and type, over the
 * services `data.serviceSlots` marked (nodes without `guarded` are outside it), and the index the
 * holder of a slot is found by.
 */
export const SCHEMA_AFTER_DATA_CYPHER = {
  serviceSlot: 'CREATE CONSTRAINT service_slot IF NOT EXISTS FOR (v:Service) REQUIRE (v.date, v.serviceType, v.guarded) IS UNIQUE',
} as const;

interface Step {
  name: string;
  kind: 'schema' | 'batched' | 'statement';
  text: string;
}

/** Every step, in the order they run, named as they are recorded. */
export const MIGRATION_STEPS: readonly Step[] = [
  ...Object.entries(SCHEMA_CYPHER).map(([key, text]) => ({ name: `schema.${key}`, kind: 'schema' as const, text })),
  ...Object.entries(BATCHED_DATA_CYPHER).map(([key, text]) => ({ name: `data.${key}`, kind: 'batched' as const, text })),
  ...Object.entries(ONE_STATEMENT_DATA_CYPHER).map(([key, text]) => ({ name: `data.${key}`, kind: 'statement' as const, text })),
  ...Object.entries(SCHEMA_AFTER_DATA_CYPHER).map(([key, text]) => ({ name: `schema.${key}`, kind: 'schema' as const, text })),
];

export interface MigrationLog {
  info(msg: string): void;
  warn(msg: string): void;
}

export interface MigrationOptions {
  /** How long to wait for another instance's migration (MIGRATION_WAIT_SECONDS). Default 300 s. */
  waitMs?: number;
  /** The lease on the lock; renewed every third of it while migrating. Default 60 s. */
  leaseMs?: number;
  /** Between two looks at the lock or the steps while waiting. Default 1 s. */
  pollMs?: number;
  /** Who holds the lock, for the others' logs. Default host:pid:random. */
  owner?: string;
  log?: MigrationLog;
}

export const MIGRATION_DEFAULTS = { waitMs: 300_000, leaseMs: 60_000, pollMs: 1_000 } as const;

/** Another instance kept the lock, or the steps were not done, for the whole wait. */
export class MigrationWaitError extends Error {}

export interface MigrationReport {
  /** Steps this call ran (and recorded), in order; empty when another instance had done them. */
  ran: string[];
  /** Milliseconds spent waiting for another instance's lock. */
  waitedMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const silent: MigrationLog = { info: () => undefined, warn: () => undefined };
const defaultOwner = () => `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;

/**
 * Bring the database to this release's schema and data, once: a no-op (one read) when every step
 * is recorded; otherwise take the lock (waiting, at most `waitMs`, while another instance holds
 * it), run the steps not yet recorded, record each, release. Schema commands may not share a
 * transaction with data writes, so each schema step is its own managed transaction (which also
 * retries it if the server is briefly busy), recorded just after; a data step is recorded after
 * its last batch (a step cut short is run again from the start: every step is idempotent). Everything runs in WRITE sessions: on a cluster, on the leader.
 */
export async function migrateNeo4j(driver: Driver, database?: string, options: MigrationOptions = {}): Promise<MigrationReport> {
  const { waitMs, leaseMs, pollMs } = { ...MIGRATION_DEFAULTS, ...options };
  const log = options.log ?? silent;
  const owner = options.owner ?? defaultOwner();
  const session = driver.session({ database, defaultAccessMode: neo4j.session.WRITE });
  const write = <T>(work: (tx: ManagedTransaction) => Promise<T>) => session.executeWrite(work);
  const run = (tx: ManagedTransaction, text: string, params: Record<string, unknown> = {}) => tx.run(text, params);
  try {
    await createSchema(write, [MIGRATION_CYPHER.lockConstraint, MIGRATION_CYPHER.stepConstraint]);
    const pending = async () => {
      const done = new Set(await write(async (tx) => (await run(tx, MIGRATION_CYPHER.finishedSteps)).records.map((r) => r.get('name'))));
      return MIGRATION_STEPS.filter((step) => !done.has(step.name));
    };
    if ((await pending()).length === 0) return { ran: [], waitedMs: 0 };

    const started = Date.now();
    for (let told = false; ; ) {
      const row = await write(async (tx) => (await run(tx, MIGRATION_CYPHER.takeLock, { owner, leaseMs: neo4j.int(leaseMs) })).records[0]);
      if (row?.get('taken')) break;
      const waited = Date.now() - started;
      if (waited >= waitMs) {
        throw new MigrationWaitError(
          `another instance (${row?.get('owner')}) is still migrating the database after ${Math.round(waited / 1000)} s ` +
            '(MIGRATION_WAIT_SECONDS); start again once it is done, or raise MIGRATION_WAIT_SECONDS',
        );
      }
      if (!told) log.info(`Neo4j migrations: waiting for ${row?.get('owner')} to finish migrating`);
      told = true;
      await sleep(Math.min(pollMs, waitMs - waited));
    }
    const waitedMs = Date.now() - started;

    // Renewed on a timer, in transactions of its own, so a long step cannot outlive the lease.
    let renewal: Promise<unknown> = Promise.resolve();
    const renew = setInterval(() => {
      renewal = driver
        .executeQuery(MIGRATION_CYPHER.renewLock, { owner, leaseMs: neo4j.int(leaseMs) }, { database, routing: neo4j.routing.WRITE })
        .catch((err) => log.warn(`Neo4j migrations: could not renew the migration lock (${(err as Error).message})`));
    }, Math.max(1, Math.floor(leaseMs / 3)));
    const ran: string[] = [];
    try {
      // Read again under the lock: whoever held it before may have done them all.
      for (const step of await pending()) {
        log.info(`Neo4j migrations: running ${step.name}`);
        const record = (tx: ManagedTransaction) => run(tx, MIGRATION_CYPHER.recordStep, { name: step.name });
        if (step.kind === 'schema') {
          await createSchema(write, [step.text]);
          await write(record);
        }
        if (step.kind === 'batched') {
          // Managed transactions (retried when transient), so no CALL { ... } IN TRANSACTIONS,
          // which needs an implicit one: the batches are separate transactions driven from here.
          for (let after = neo4j.int(-1); ; ) {
            const row = await write(async (tx) => (await run(tx, step.text, { after })).records[0]);
            if (!row || neo4j.integer.toNumber(row.get('rows')) < DATA_BATCH) break;
            after = neo4j.int(row.get('last'));
          }
          await write(record);
        }
        if (step.kind === 'statement') {
          await write((tx) => run(tx, step.text));
          await write(record);
        }
        ran.push(step.name);
      }
    } finally {
      clearInterval(renew);
      await renewal;
      await write((tx) => run(tx, MIGRATION_CYPHER.releaseLock, { owner })).catch(() => undefined);
    }
    return { ran, waitedMs };
  } finally {
    await session.close();
  }
}

/**
 * Schema commands, each in its own managed transaction. Two instances starting together can both
 * pass IF NOT EXISTS; the loser's failure only says the rule now exists, which is the goal.
 */
async function createSchema(write: <T>(work: (tx: ManagedTransaction) => Promise<T>) => Promise<T>, statements: string[]) {
  for (const statement of statements) {
    try {
      await write((tx) => tx.run(statement));
    } catch (err) {
      if (!(err instanceof Neo4jError && /AlreadyExists$/.test(err.code))) throw err;
    }
  }
}

/**
 * With MIGRATE_ON_START=false: wait (at most `waitMs`) until every step of this release is
 * recorded, done by `npm run migrate:neo4j` or another instance, so the service never serves a
 * database without the schema it relies on.
 */
export async function awaitMigrated(driver: Driver, database?: string, options: MigrationOptions = {}): Promise<void> {
  const { waitMs, pollMs } = { ...MIGRATION_DEFAULTS, ...options };
  const log = options.log ?? silent;
  const started = Date.now();
  for (let told = false; ; ) {
    const { records } = await driver.executeQuery(MIGRATION_CYPHER.finishedSteps, {}, { database, routing: neo4j.routing.WRITE });
    const done = new Set(records.map((r) => r.get('name')));
    const missing = MIGRATION_STEPS.filter((step) => !done.has(step.name)).map((step) => step.name);
    if (missing.length === 0) return;
    const waited = Date.now() - started;
    if (waited >= waitMs) {
      throw new MigrationWaitError(
        `the database is not migrated to this release (${missing.length} steps missing, first ${missing[0]}) after ` +
          `${Math.round(waited / 1000)} s: run \`npm run migrate:neo4j\`, or start one instance with MIGRATE_ON_START=true`,
      );
    }
    if (!told) log.info(`Neo4j migrations: MIGRATE_ON_START=false; waiting for ${missing.length} steps (npm run migrate:neo4j)`);
    told = true;
    await sleep(Math.min(pollMs, waitMs - waited));
  }
}
