import type { Credentials } from '../auth/credentials';

/**
 * What the access log line of one request learns while the request runs: parts of the answer that
 * only deeper layers know (which GraphQL operation ran). One record per request, made by the first
 * middleware and kept in `res.locals.scope`; both facades hand it to the resolvers in their
 * context (src/graphql/context.ts). Passed along, not found through AsyncLocalStorage, whose
 * hooks would tax every promise of every request.
 */
export interface RequestScope {
  id: string;
  /** The request's credential, verified at most once for all who ask (access log, viewer). */
  credentials: Credentials;
  /** GraphQL operation name (or 'anonymous'), set by the Apollo plugin. */
  operation?: string;
}
