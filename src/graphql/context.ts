import type { Request, Response } from 'express';
import type { ServiceTimes } from '../domain/dates';
import type { Logger } from 'pino';
import type { LoginLimiter } from '../auth/login-limiter';
import type { TokenService } from '../auth/tokens';
import { Credentials } from '../auth/credentials';
import { Viewer } from '../auth/viewer';
import type { RequestScope } from '../observability/request-scope';
import type { Store } from '../store/types';
import type { TargetPolicy } from '../webhooks/targets';
import type { Listener } from '../events/feed';
import { createLoaders, type Loaders } from './loaders';

/**
 * What the resolvers need that lives as long as the process: the app's dependencies (not to be
 * confused with the church services the API records).
 */
export interface AppDependencies {
  store: Store;
  tokens: TokenService;
  loginLimiter: LoginLimiter;
  serviceTimeZone: string;
  /** Each service type's usual local time (SERVICE_TIMES), for a service date given as a day alone. */
  serviceTimes: ServiceTimes;
  log: Logger;
  /** Where webhooks may be sent (src/webhooks/targets.ts), checked when an endpoint is made or changed. */
  webhookTargets: TargetPolicy;
  /** Change events as they are recorded (src/events/feed.ts), for subscriptions. */
  changes: { listen(listener: Listener): () => void };
}

/** Per-request context, the same for both facades. */
export interface GraphQLContext extends AppDependencies {
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
  /**
   * Forget what the loaders read: a subscription's context lives as long as it does, and each event
   * it sends must read the records as they are then, not as the first event found them.
   */
  forgetLoaded(): void;
}

export interface RequestInfo {
  scope?: RequestScope;
  /** The request's credential as the first middleware read it (src/observability), verified once. */
  credentials?: Credentials;
  /** Without `credentials`: the Authorization header (tests, the bench's peers). */
  authorization?: string | null;
  clientAddress: string;
}

/**
 * The per-request context as a class rather than an object literal with getters: Apollo Server
 * copies the context it is given for each operation (Object.assign onto an object of the same
 * prototype), which runs an object's own getters, so the lazy client address (`req.ip` walks the
 * proxy chain) and the lazy loaders were worked out for every /graphql request. Getters on the
 * prototype survive that copy as getters; what they cache lives in plain fields, which the copy
 * shares (private `#fields` would not survive it).
 */
class RequestContext implements GraphQLContext {
  readonly store: Store;
  readonly tokens: TokenService;
  readonly loginLimiter: LoginLimiter;
  readonly serviceTimeZone: string;
  readonly serviceTimes: ServiceTimes;
  readonly log: Logger;
  readonly webhookTargets: TargetPolicy;
  readonly changes: AppDependencies['changes'];
  readonly viewer: Viewer;
  readonly totalCounts = new Map<string, number>();
  readonly scope?: RequestScope;
  private madeLoaders?: Loaders;

  constructor(
    deps: AppDependencies,
    private readonly info: RequestInfo,
  ) {
    this.store = deps.store;
    this.tokens = deps.tokens;
    this.loginLimiter = deps.loginLimiter;
    this.serviceTimeZone = deps.serviceTimeZone;
    this.serviceTimes = deps.serviceTimes;
    this.log = deps.log;
    this.webhookTargets = deps.webhookTargets;
    this.changes = deps.changes;
    this.viewer = new Viewer(info.credentials ?? new Credentials(info.authorization, deps.tokens), deps.store);
    this.scope = info.scope;
  }

  /** Made on first use: most REST calls never batch anything. */
  get loaders(): Loaders {
    return (this.madeLoaders ??= createLoaders(this.store));
  }

  forgetLoaded(): void {
    this.madeLoaders = undefined;
  }

  /** Read when asked (login's rate limit), not for every request: see `requestInfo`. */
  get clientAddress(): string {
    return this.info.clientAddress;
  }
}

export function createContext(deps: AppDependencies, req: RequestInfo): GraphQLContext {
  return new RequestContext(deps, req);
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
