import type { Logger } from 'pino';
import type { LoginLimiter } from '../auth/login-limiter';
import type { TokenService } from '../auth/tokens';
import { bearerToken, Viewer } from '../auth/viewer';
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
}

export interface RequestInfo {
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
    viewer: new Viewer(bearerToken(req.authorization), services.tokens, services.store),
    clientAddress: req.clientAddress,
    totalCounts: new Map(),
  };
}
