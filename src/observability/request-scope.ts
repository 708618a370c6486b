import { AsyncLocalStorage } from 'node:async_hooks';
import type { Credentials } from '../auth/credentials';

/**
 * What the access log line of one request learns while the request runs: parts of the answer that
 * only deeper layers know (which GraphQL operation ran). One record per request, reached through
 * AsyncLocalStorage so neither facade has to pass it along.
 */
export interface RequestScope {
  id: string;
  /** The request's credential, verified at most once for all who ask (access log, viewer). */
  credentials: Credentials;
  /** GraphQL operation name (or 'anonymous'), set by the Apollo plugin. */
  operation?: string;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function runInScope<T>(scope: RequestScope, fn: () => T): T {
  return storage.run(scope, fn);
}

export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}
