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
}

/**
 * Bounded so that a request against a dead or unreachable Neo4j fails with 503 within a few
 * seconds instead of hanging until the client gives up (the driver's defaults are 30 s to acquire
 * a connection and 30 s of retries). Measured in test/neo4j.unavailable.test.ts: a refused
 * connection fails after the retries at about 1 s and 3 s (the driver stops retrying once 2 s
 * have passed); a server that accepts but never answers fails at the 5 s acquisition timeout.
 */
export const NEO4J_TIMEOUTS = {
  connectionTimeoutMs: 3_000,
  acquisitionTimeoutMs: 5_000,
  maxRetryTimeMs: 2_000,
  transactionTimeoutMs: 15_000,
} as const;

export function createNeo4jDriver(o: Neo4jOptions): Driver {
  const driver = neo4j.driver(o.uri, neo4j.auth.basic(o.user, o.password), {
    connectionTimeout: o.connectionTimeoutMs ?? NEO4J_TIMEOUTS.connectionTimeoutMs,
    connectionAcquisitionTimeout: o.acquisitionTimeoutMs ?? NEO4J_TIMEOUTS.acquisitionTimeoutMs,
    maxTransactionRetryTime: o.maxRetryTimeMs ?? NEO4J_TIMEOUTS.maxRetryTimeMs,
    userAgent: 'worship-records',
  });
  // Only the Neo4j test runs set its variable: they check that every statement ran on a server.
  return recordingStatements(driver);
}

/**
 * The server cannot be reached or cannot serve right now, as opposed to a bad query. Transient
 * errors reach us only after the driver's retries ran out (a leader switch or a deadlock that
 * kept recurring), so they are "try again shortly" too.
 */
export function isConnectivityError(err: unknown): boolean {
  if (!(err instanceof Neo4jError)) return false;
  if (err.code === neo4j.error.SERVICE_UNAVAILABLE || err.code === neo4j.error.SESSION_EXPIRED) return true;
  if (err.code.startsWith('Neo.TransientError.')) return true;
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

/**
 * What the API should see for a driver failure: UNAVAILABLE (503) when the database is out of
 * reach, the error itself otherwise (a bug, answered as 500).
 */
export function toStoreError(err: unknown): unknown {
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
