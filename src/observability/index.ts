import express, { type RequestHandler, type Router } from 'express';
import type { ApolloServerPlugin } from '@apollo/server';
import type { Logger } from 'pino';
import { Credentials } from '../auth/credentials';
import type { LoginEvents } from '../auth/login-limiter';
import type { GraphQLContext } from '../graphql/context';
import type { TokenService } from '../auth/tokens';
import type { Store } from '../store/types';
import { operationsPlugin } from './apollo-plugin';
import { accessLog, requestIdOf, routeOf } from './logging';
import { Metrics } from './metrics';
import type { RequestScope } from './request-scope';
import { measureStore } from './store-metrics';

export interface Observability {
  metrics: Metrics;
  /** First middleware of the app: request id, access log, request metrics, and GET /metrics. */
  router: Router;
  /** The router's middleware alone (request id, access log, request metrics), for a facade's own chain. */
  observe: RequestHandler;
  measureStore(store: Store): Store;
  apolloPlugin: ApolloServerPlugin<GraphQLContext>;
  loginEvents: LoginEvents;
}

export function createObservability(opts: { log: Logger; tokens: TokenService; metricsToken?: string }): Observability {
  const { log } = opts;
  const metrics = new Metrics();
  // At a level that drops access lines (warn, error, silent) the access log is left out: nothing of
  // a request is gathered for a line no one writes.
  const access = log.isLevelEnabled('info') ? accessLog(log) : undefined;
  const observe: RequestHandler = (req, res, next) => {
    const scope: RequestScope = {
      id: requestIdOf(req.headers['x-request-id']),
      credentials: new Credentials(req.headers.authorization, opts.tokens),
    };
    res.locals.scope = scope;
    res.setHeader('X-Request-Id', scope.id);
    const start = performance.now();
    res.once('finish', () => metrics.observeRequest(req.method, routeOf(req), res.statusCode, (performance.now() - start) / 1000));
    if (access) access(req, res, next);
    else next();
  };
  const router = express.Router();
  router.use(observe);
  router.get('/metrics', metrics.handler(opts.metricsToken));

  const loginEvents: LoginEvents = {
    failure(username, address) {
      metrics.loginFailures.inc();
      log.warn({ event: 'login_failed', username, address }, 'login failed');
    },
    lockout(username, address, retryAfter) {
      metrics.loginLockouts.inc();
      log.warn({ event: 'login_locked_out', username, address, retryAfter }, 'login locked out');
    },
    refused(username, address, retryAfter) {
      metrics.loginRefused.inc();
      log.warn({ event: 'login_refused', username, address, retryAfter }, 'login refused: locked out');
    },
  };

  return {
    metrics,
    router,
    observe,
    measureStore: (store) => measureStore(store, metrics),
    apolloPlugin: operationsPlugin(metrics),
    loginEvents,
  };
}
