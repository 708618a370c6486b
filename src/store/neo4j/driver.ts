import neo4j, { Neo4jError, type Driver } from 'neo4j-driver';
import { StoreUnavailableError } from '../../errors';
import { recordingStatements } from './statement-log';

export interface Neo4jOptions {
  uri: string;
  user: string;
  password: string;
  /** Default: the server's default database. */
  database?: string;
  /** TCP connect timeout, ms. */
  connectionTimeoutMs?: number;
  /** Longest wait for a pooled connection (including opening one), ms. */
  acquisitionTimeoutMs?: number;
  /** Longest time executeRead/executeWrite keep retrying transient failures, ms. */
  maxRetryTimeMs?: number;
  /** Server-side limit on one transaction, ms. */
  transactionTimeoutMs?: number;
  /** Connections this process may hold open (NEO4J_MAX_POOL_SIZE); default the driver's 100. */
  maxPoolSize?: number;
}

/**
 * Each attempt is bounded, so a dead or unreachable server costs a few seconds per attempt (the
 * driver's defaults are 30 s to acquire a connection): a refused connection fails at once, a
 * server that accepts but never answers at the 5 s acquisition timeout
 * (test/service/neo4j.unavailable.test.ts measures both). Transactions are retried through transient
 * failures for `maxRetryTimeMs` (NEO4J_RETRY_SECONDS, 30 s by default): long enough for a
 * cluster to elect a new leader (typically well under 20 s), so a failover costs a slow answer
 * rather than an error; past it the request answers 503 UNAVAILABLE with Retry-After.
 */
export const NEO4J_TIMEOUTS = {
  connectionTimeoutMs: 3_000,
  acquisitionTimeoutMs: 5_000,
  maxRetryTimeMs: 30_000,
  transactionTimeoutMs: 15_000,
} as const;

/**
 * One driver per process: it is the connection pool. Use a `neo4j://` URI (routing) for a
 * cluster or Aura: the driver then reads the cluster's routing table, sends writes to the leader
 * and fails over when it changes (`bolt://` pins one member). `neo4j://` works against a single
 * server too.
 */
export function createNeo4jDriver(o: Neo4jOptions): Driver {
  const driver = neo4j.driver(o.uri, neo4j.auth.basic(o.user, o.password), {
    connectionTimeout: o.connectionTimeoutMs ?? NEO4J_TIMEOUTS.connectionTimeoutMs,
    connectionAcquisitionTimeout: o.acquisitionTimeoutMs ?? NEO4J_TIMEOUTS.acquisitionTimeoutMs,
    maxTransactionRetryTime: o.maxRetryTimeMs ?? NEO4J_TIMEOUTS.maxRetryTimeMs,
    ...(o.maxPoolSize === undefined ? {} : { maxConnectionPoolSize: o.maxPoolSize }),
    userAgent: 'worship-records',
  });
  // Only the Neo4j test runs set its variable: they check that every statement ran on a server.
  return recordingStatements(driver);
}

/**
 * Codes meaning "this member cannot take this now; another can, or this one soon": a write sent
 * to a follower (NotALeader, ForbiddenOnReadOnlyDatabase: with `neo4j://` the driver turns these
 * into SessionExpired and retries on the new leader; with `bolt://` they arrive as they are).
 * A database that is stopped or still starting is a TransientError.
 */
const CLUSTER_CODES = new Set(['Neo.ClientError.Cluster.NotALeader', 'Neo.ClientError.General.ForbiddenOnReadOnlyDatabase']);

/**
 * The server cannot be reached or cannot serve right now, as opposed to a bad query. Transient
 * errors reach us only after the driver's retries ran out (a leader election longer than the
 * budget, or a deadlock that kept recurring), so they are "try again shortly" too.
 */
export function isConnectivityError(err: unknown): boolean {
  if (!(err instanceof Neo4jError)) return false;
  if (err.code === neo4j.error.SERVICE_UNAVAILABLE || err.code === neo4j.error.SESSION_EXPIRED) return true;
  // The Bolt conversation broke, not the request: a server that goes away while a connection logs
  // in fails the requests queued on that connection with ProtocolError ("Failed to connect to
  // server ... write EPIPE"), seen as a 500 for a write in flight while the server stopped.
  if (err.code === neo4j.error.PROTOCOL_ERROR) return true;
  if (err.code.startsWith('Neo.TransientError.') || CLUSTER_CODES.has(err.code)) return true;
  if (err.retryable) return true;
  // The pool raises this without a code when no connection could be had in time.
  return /connection acquisition timed out/i.test(err.message);
}

/** Wrong credentials, or too many wrong attempts: the store is unusable until someone acts. */
export function isAuthError(err: unknown): boolean {
  return err instanceof Neo4jError && err.code.startsWith('Neo.ClientError.Security.');
}

export function isUniquenessViolation(err: unknown): boolean {
  return err instanceof Neo4jError && err.code === 'Neo.ClientError.Schema.ConstraintValidationFailed';
}

/** The service_slot constraint's refusal (one service per date and type), told apart by its message. */
export function isSlotViolation(err: unknown): boolean {
  return isUniquenessViolation(err) && /label `Service`.*`guarded`/s.test((err as Error).message);
}

/**
 * The transaction ran past its time limit (NEO4J_TIMEOUTS.transactionTimeoutMs, or the server's
 * own `db.transaction.timeout`): the server is up but did not answer this request in time.
 */
export function isTransactionTimeout(err: unknown): boolean {
  return err instanceof Neo4jError && /^Neo\.(Client|Transient)Error\.Transaction\.TransactionTimedOut/.test(err.code);
}

export const TIMED_OUT_MESSAGE = 'The database did not answer in time; try again shortly';

/**
 * What the API should see for a driver failure: UNAVAILABLE (503 with Retry-After) when the
 * database is out of reach or did not answer within the transaction time limit (an overloaded
 * server is the server's problem, not a bug of the request's: never a 500), the error itself
 * otherwise (a bug, answered as 500).
 */
export function toStoreError(err: unknown): unknown {
  if (isTransactionTimeout(err)) return new StoreUnavailableError(err, TIMED_OUT_MESSAGE);
  return isConnectivityError(err) || isAuthError(err) ? new StoreUnavailableError(err) : err;
}

/** For logs: the URI without any user info it may carry. */
export function safeUri(uri: string): string {
  try {
    const url = new URL(uri);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return '(unparseable NEO4J_URI)';
  }
}
