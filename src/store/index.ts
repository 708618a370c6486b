import { STARTUP_RETRY, connectNeo4j, type StoreLogger } from './neo4j/connect';
import fs from 'node:fs';
import { createPrivateFile } from '../private-file';
import { sqliteOpenError } from '../startup-errors';
import { SqliteStore } from './sqlite/store';
import type { Store } from './types';

export type { StoreLogger } from './neo4j/connect';

export interface StoreOptions {
  store: 'sqlite' | 'neo4j';
  sqlitePath: string;
  /** The zone of the maintained timeline periods, SQLite's and Neo4j's (SERVICE_TIME_ZONE; default UTC). */
  serviceTimeZone?: string;
  neo4j: {
    uri?: string;
    user?: string;
    password?: string;
    database?: string;
    /** NEO4J_RETRY_SECONDS; default NEO4J_TIMEOUTS.maxRetryTimeMs. */
    retrySeconds?: number;
    /** NEO4J_MAX_POOL_SIZE; default the driver's (100). */
    maxPoolSize?: number;
  };
  /** MIGRATE_ON_START (default true): with false, Neo4j waits for `npm run migrate:neo4j` instead. */
  migrateOnStart?: boolean;
  /** MIGRATION_WAIT_SECONDS: how long opening waits for another process's migration. */
  migrationWaitSeconds?: number;
}

function createPrivateFileUnlessThere(file: string): void {
  try {
    createPrivateFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

const waitMs = (opts: StoreOptions) =>
  opts.migrationWaitSeconds === undefined ? undefined : opts.migrationWaitSeconds * 1000;

/**
 * Without a logger (the CLIs) the startup wait still says what it is doing, on stderr; the "ready"
 * line is left out, so a CLI that succeeds writes to stderr only what it has to say itself, on
 * Neo4j as on SQLite.
 */
const consoleLogger: StoreLogger = {
  info: () => undefined,
  warn: (msg) => console.error(msg),
};

/**
 * Open the configured store. For Neo4j this waits (bounded) for the server and applies the schema;
 * it rejects with one clear message when the server stays unreachable or refuses the credentials.
 */
export async function createStore(opts: StoreOptions, log: StoreLogger = consoleLogger): Promise<Store> {
  if (opts.store === 'sqlite') {
    try {
      // The database holds password hashes: a new file is made owner-only (SQLite gives its -wal and
      // -shm files the same mode). An existing file keeps the mode the operator gave it, and so
      // does one another process (a second instance, a command-line tool) created just now.
      if (opts.sqlitePath !== ':memory:' && !fs.existsSync(opts.sqlitePath)) createPrivateFileUnlessThere(opts.sqlitePath);
      return new SqliteStore(opts.sqlitePath, opts.serviceTimeZone, { migrationWaitMs: waitMs(opts) });
    } catch (err) {
      throw sqliteOpenError(err, opts.sqlitePath);
    }
  }
  const { uri, user = 'neo4j', password = '', database, retrySeconds, maxPoolSize } = opts.neo4j;
  if (!uri) throw new Error('NEO4J_URI is required when STORE=neo4j');
  return connectNeo4j(
    {
      uri,
      user,
      password,
      database: database || undefined,
      maxRetryTimeMs: retrySeconds === undefined ? undefined : retrySeconds * 1000,
      maxPoolSize,
    },
    log,
    STARTUP_RETRY,
    { migrate: opts.migrateOnStart ?? true, waitMs: waitMs(opts) },
    opts.serviceTimeZone,
  );
}
