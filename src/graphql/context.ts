import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { LoginLimiter } from '../auth/login-limiter';
import type { TokenService } from '../auth/tokens';
import { Credentials } from '../auth/credentials';
import { Viewer } from '../auth/viewer';
import type { RequestScope } from '../observability/request-scope';
import type { Store } from '../store/types';
import { createLoaders, type Loaders } from './loaders';

/** What the resolvers need that lives as long as the process. */
export interface Services {
  store: Store;
  tokens: TokenService;
  loginLimiter: LoginLimiter;
  serviceTimeZone: string;
  log: Logger;
}

/** Per-request context, the same for both facades. */
export interface GraphQLContext extends Services {
  loaders: Loaders;
  viewer: Viewer;
  /** Client address, for login rate limiting. */
  clientAddress: string;
  /**
   * The full size of each paged root list, by response key: REST sends its field's as
   * X-Total-Count. Keyed rather than one slot so that no other list in the answer can overwrite it.
   */
  totalCounts: Map<string, number>;
  /** The request's record for the access log (its id, the operation that ran); none outside HTTP. */
  scope?: RequestScope;
}

export interface RequestInfo {
  scope?: RequestScope;
  /** The request's credential as the first middleware read it (src/observability), verified once. */
  credentials?: Credentials;
  /** Without `credentials`: the Authorization header (tests, the bench's peers). */
  authorization?: string | null;
  clientAddress: string;
}

export function createContext(services: Services, req: RequestInfo): GraphQLContext {
  let loaders: Loaders | undefined;
  return {
    ...services,
    // Made on first use: most REST calls never batch anything.
    get loaders() {
      return (loaders ??= createLoaders(services.store));
    },
    viewer: new Viewer(req.credentials ?? new Credentials(req.authorization, services.tokens), services.store),
    // Read when asked (login's rate limit), not for every request: see `requestInfo`.
    get clientAddress() {
      return req.clientAddress;
    },
    totalCounts: new Map(),
    scope: req.scope,
  };
}

/**
 * What either facade reads of an Express request for its context: the credential the first
 * middleware read (src/observability), so the token is verified once per request, and the client
 * address, worked out only if a resolver asks (login's rate limit): `req.ip` walks the proxy chain.
 */
export function requestInfo(req: Request, res: Response): RequestInfo {
  const scope = res.locals.scope as RequestScope | undefined;
  return {
    scope,
    credentials: scope?.credentials,
    authorization: req.headers.authorization,
    get clientAddress() {
      return req.ip ?? 'unknown';
    },
  };
}
