import compression from 'compression';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { LoginLimiter } from './auth/login-limiter';
import { createLimiterStore } from './limits/limiter-store';
import { TokenService } from './auth/tokens';
import type { Config } from './config';
import { AppError } from './errors';
import { mountExplorers } from './explorers';
import type { AppDependencies } from './graphql/context';
import { buildSchemas } from './graphql/schema';
import { createGraphQLHandler } from './graphql/server';
import { graphqlFacade, GRAPHQL_PATH } from './graphql/router';
import { bodyParserError } from './http/body';
import { clientError } from './http/errors';
import { rejectUndecodablePaths } from './http/path';
import { securityHeaders } from './http/security-headers';
import { RequestRateLimiter } from './http/rate-limit';
import { rateLimitPlugin } from './graphql/rate-limit';
import { insightsRouter } from './insights';
import { planRouter } from './plan';
import { Lifecycle } from './lifecycle';
import { createObservability } from './observability';
import { sendError } from './rest/errors';
import { createRestRouter } from './rest/router';
import { BASE_PATH } from './rest/sofa';
import type { Store } from './store/types';
import { resolverOf, type TargetPolicy } from './webhooks/targets';
import { DeliveryWorker } from './webhooks/worker';
import { EventFeed } from './events/feed';
import { attachSubscriptions } from './graphql/subscriptions';
import type http from 'node:http';

export interface App {
  express: express.Express;
  /** Graceful shutdown state: /readyz answers 503 once draining. */
  lifecycle: Lifecycle;
  /** GraphQL subscriptions over WebSocket on the server's /graphql (src/graphql/subscriptions.ts). */
  attach(server: http.Server): void;
  /** Before the HTTP drain: subscribers are told the server is going away. */
  closeSubscriptions(): Promise<void>;
  close(): Promise<void>;
}

/** Wire one schema and one resolver set into both facades, plus health endpoints. */
export async function createApp(config: Config, rawStore: Store, log: Logger): Promise<App> {
  // Operations: logs, metrics, audit (src/observability) and graceful shutdown (src/lifecycle.ts).
  const tokens = new TokenService(config.jwtSecret, config.jwtExpiresIn);
  const observability = createObservability({ log, tokens, metricsToken: config.metricsToken });
  const lifecycle = new Lifecycle();
  const store = observability.measureStore(rawStore);
  // Login (and request) counts: in this process's memory, or in the Redis every instance shares.
  const limits = createLimiterStore(config.redisUrl, log);

  // Where webhooks may go (src/webhooks/targets.ts), checked when an endpoint is made and at each try.
  const webhookTargets: TargetPolicy = { allowPrivate: config.webhooks.allowPrivateTargets, resolve: resolverOf(config.webhooks.dnsServers) };
  // Change events as they are recorded, for subscriptions (src/events/feed.ts).
  const changes = new EventFeed({ store, log, redisUrl: config.redisUrl });
  await changes.start();
  const deps: AppDependencies = {
    changes,
    webhookTargets,
    store,
    tokens,
    loginLimiter: LoginLimiter.in(limits, config.loginMaxFailures, config.loginWindowSeconds, observability.loginEvents),
    serviceTimeZone: config.serviceTimeZone,
    serviceTimes: config.serviceTimes,
    log,
  };
  // Request rate limits per client (docs/API.md, Rate limits), counted where the login limits
  // are (memory, or the Redis every instance shares); none with RATE_LIMIT=off.
  const rateLimiter = config.rateLimit ? RequestRateLimiter.in(limits, config.rateLimit, tokens) : undefined;
  const schemas = buildSchemas();
  const graphql = await createGraphQLHandler(schemas.guarded, deps, {
    introspection: config.graphqlIntrospection,
    maxDepth: config.graphqlMaxDepth,
    maxCost: config.graphqlMaxCost,
    maxAliases: config.graphqlMaxAliases,
    maxResponseBytes: config.maxResponseBytes,
    plugins: [observability.apolloPlugin, ...(rateLimiter ? [rateLimitPlugin(rateLimiter)] : [])],
  });

  const app = express();
  // Off before the first middleware: helmet would drop the header too, but only from the answers
  // that pass it, and /metrics is answered before it.
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  // gzip or brotli for answers over 1 KiB to clients that accept them (the Insights page's
  // charting library above all, and long lists); the `compression` package's own negotiation.
  // A request that accepts no encoding skips it: the package wraps every answer it sees, which
  // cost the lightest requests about a tenth of their CPU (docs/performance.md).
  const compress = compression();
  const compressAccepted: RequestHandler = (req, res, next) => (req.headers['accept-encoding'] ? compress(req, res, next) : next());
  // The Sandbox page loads its UI from Apollo's CDN, which a strict CSP would block; the explorer
  // pages set their own 'self'-only CSP (src/explorers); every other answer is JSON.
  const headers = securityHeaders({ contentSecurityPolicy: false, crossOriginEmbedderPolicy: false });

  // What every request but /metrics gets after its request id, logs and metrics.
  const everyRequest = [lifecycle.gate, compressAccepted, headers];

  // GraphQL first, as one layer (src/http/chain.ts): its path is no other's, and the busiest
  // requests then pass no other layer. Its chain begins with what every request gets.
  app.use(
    GRAPHQL_PATH,
    graphqlFacade([observability.observe, ...everyRequest], graphql.handler, {
      corsOrigins: config.corsOrigins,
      introspection: config.graphqlIntrospection,
      rateLimiter,
    }),
  );
  // The request id, logs and metrics, and GET /metrics; then the rest of what every request gets.
  app.use(observability.router);
  app.use(everyRequest);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await store.ping();
      res.json({ status: 'ready', store: store.kind });
    } catch {
      res.status(503).json({ status: 'unavailable', store: store.kind });
    }
  });

  // REST, as GraphQL above, owns its CORS, rate limit refusals and error shape (src/rest/router.ts).
  // Everything else but the probes (and /metrics, in the observability router) is charged too,
  // answered in REST's error shape.
  const limit: RequestHandler = rateLimiter ? rateLimiter.middleware((_req, res, error) => sendError(res, error)) : (_req, _res, next) => next();
  mountExplorers(app, limit);
  // The pages, each entered only by its own paths (routing is case-insensitive): mounted bare at the
  // root, every request walked their layers first. Not mounted at '/insights' or '/plan', which
  // would hide the difference between /insights and /insights/ that each router answers.
  const insights = insightsRouter(config.serviceTimeZone);
  const plan = planRouter(config.serviceTimeZone);
  const pages: [RegExp, RequestHandler][] = [
    [/^\/insights(?:\/|$)/i, insights],
    [/^\/plan(?:\/|$)/i, plan],
  ];
  app.use((req, res, next) => {
    const page = pages.find(([route]) => route.test(req.path))?.[1];
    if (!page) return next();
    limit(req, res, (err?: unknown) => (err ? next(err) : page(req, res, next)));
  });
  app.use(BASE_PATH, createRestRouter(schemas.unguarded, deps, config.corsOrigins, config.maxResponseBytes, rateLimiter));
  app.use(limit);
  app.use(rejectUndecodablePaths(sendError));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const error = bodyParserError(err) ?? clientError(err);
    if (error) return sendError(res, error);
    log.error({ err }, 'unhandled error');
    sendError(res, new AppError('INTERNAL', 'Internal server error'));
  });
  app.use((req: Request, res: Response) => {
    sendError(res, new AppError('NOT_FOUND', `No such endpoint: ${req.method} ${req.path}`));
  });

  // Webhook deliveries, from the store's queue (src/webhooks/worker.ts); every replica may run one.
  const worker = config.webhooks.deliver
    ? new DeliveryWorker({ store, targets: webhookTargets, log, metrics: observability.metrics, retryDelaysMs: config.webhooks.retryDelaysMs, leaseMs: config.webhooks.leaseMs })
    : undefined;
  worker?.start();
  let subscriptions: ReturnType<typeof attachSubscriptions> | undefined;

  return {
    express: app,
    lifecycle,
    attach(server) {
      subscriptions = attachSubscriptions(server, schemas.guarded, deps, {
        maxDepth: config.graphqlMaxDepth,
        maxAliases: config.graphqlMaxAliases,
        rateLimiter,
      });
    },
    closeSubscriptions: async () => {
      await subscriptions?.close();
    },
    close: async () => {
      await subscriptions?.close();
      await changes.stop();
      await worker?.stop();
      await graphql.stop();
      await limits.close();
    },
  };
}
