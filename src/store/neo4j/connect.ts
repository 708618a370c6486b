import { createNeo4jDriver, isConnectivityError, safeUri, type Neo4jOptions } from './driver';
import { awaitMigrated, migrateNeo4j } from './migrations';
import { Neo4jStore } from './store';

/** Any logger with these two methods (pino's fit). */
export interface StoreLogger {
  info(msg: string): void;
  warn(msg: string): void;
}

export interface StartupRetry {
  /** Connection attempts before giving up. */
  attempts: number;
  /** Wait after the first failure, doubled after each further one up to `maxDelayMs`. */
  initialDelayMs: number;
  maxDelayMs: number;
}

/** What a starting instance does about migrations (MIGRATE_ON_START, MIGRATION_WAIT_SECONDS). */
export interface StartupMigration {
  /** Run the pending migrations (true), or wait for `npm run migrate:neo4j` to have run them. */
  migrate: boolean;
  /** How long to wait for another instance's migration. Default 300 s. */
  waitMs?: number;
}

/** About a minute in all: long enough for a Neo4j container that is still starting. */
export const STARTUP_RETRY: StartupRetry = { attempts: 15, initialDelayMs: 500, maxDelayMs: 5_000 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The driver's connection errors run to several sentences; the root cause is what helps. */
function reason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: string }).code;
  const cause = /Caused by: (.+)$/s.exec(err.message)?.[1] ?? err.message;
  return code && code !== 'N/A' ? `${code}: ${cause}` : cause;
}

/**
 * Open the process's one driver, wait for Neo4j with bounded retries, bring the database to this
 * release (or wait until `npm run migrate:neo4j` has), and return the store. Only "cannot reach
 * it yet" is retried: wrong credentials or a missing database fail at once, since waiting cannot
 * fix them.
 */
export async function connectNeo4j(
  options: Neo4jOptions,
  log: StoreLogger,
  retry: StartupRetry = STARTUP_RETRY,
  migration: StartupMigration = { migrate: true },
  serviceTimeZone = 'UTC',
): Promise<Neo4jStore> {
  const where = `${safeUri(options.uri)}${options.database ? ` (database ${options.database})` : ''}`;
  const driver = createNeo4jDriver(options);
  for (let attempt = 1; ; attempt++) {
    try {
      await driver.verifyConnectivity({ database: options.database });
      const waiting = { waitMs: migration.waitMs, log };
      if (migration.migrate) {
        const { ran } = await migrateNeo4j(driver, options.database, waiting);
        if (ran.length > 0) log.info(`Neo4j migrations: ran ${ran.length} steps (${ran.join(', ')})`);
      } else {
        await awaitMigrated(driver, options.database, waiting);
      }
      const store = new Neo4jStore(driver, {
        database: options.database,
        transactionTimeoutMs: options.transactionTimeoutMs,
        serviceTimeZone,
      });
      // Migrating instances also bring the timeline periods to this zone (the others read links
      // for the timeline until one has).
      if (migration.migrate) {
        const started = Date.now();
        if (await store.openTimeline()) log.info(`Neo4j timeline periods rebuilt in ${serviceTimeZone} (${Date.now() - started} ms)`);
      }
      log.info(`Neo4j at ${where} is ready; schema constraints and indexes are in place`);
      return store;
    } catch (err) {
      if (!isConnectivityError(err) || attempt >= retry.attempts) {
        await driver.close().catch(() => undefined);
        const tries = isConnectivityError(err) ? ` after ${attempt} attempts` : '';
        throw new Error(`Cannot use Neo4j at ${where}${tries}: ${reason(err)}`, { cause: err });
      }
      const delay = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** (attempt - 1));
      log.warn(
        `Waiting for Neo4j at ${where}: attempt ${attempt}/${retry.attempts} failed (${reason(err)}); retrying in ${delay} ms`,
      );
      await sleep(delay);
    }
  }
}
