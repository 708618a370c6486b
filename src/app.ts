import cors from 'cors';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { LoginLimiter } from './auth/login-limiter';
import { createLimiterStore } from './limits/limiter-store';
import { TokenService } from './auth/tokens';
import type { Config } from './config';
import { AppError, ERROR_STATUS } from './errors';
import { graphqlBrowserRedirect, mountExplorers } from './explorers';
import type { AppDependencies } from './graphql/context';
import { buildSchemas } from './graphql/schema';
import { createGraphQLHandler } from './graphql/server';
import { bodyParserError, jsonBody } from './http/body';
import { clientError } from './http/errors';
import { rejectUndecodablePaths } from './http/path';
import { CORS_ALLOWED_HEADERS, corsExposedHeaders } from './http/cors';
import { RequestRateLimiter } from './http/rate-limit';
import { rateLimitPlugin } from './graphql/rate-limit';
import { insightsRouter } from './insights';
import { Lifecycle } from './lifecycle';
import { createObservability } from './observability';
import { sendError } from './rest/errors';
import { createRestRouter, restCors } from './rest/router';
import { BASE_PATH } from './rest/sofa';
import type { Store } from './store/types';

/** An error met before Apollo sees the request, in GraphQL's own response shape. */
function sendGraphQLError(res: Response, error: AppError): void {
  const extensions: Record<string, unknown> = { code: error.code };
  if (error.retryAfter !== undefined) {
    res.set('Retry-After', String(error.retryAfter));
    extensions.retryAfter = error.retryAfter;
  }
  res.status(ERROR_STATUS[error.code]).json({ errors: [{ message: error.message, extensions }] });
}

export interface App {
  express: express.Express;
  /** Graceful shutdown state: /readyz answers 503 once draining. */
  lifecycle: Lifecycle;
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

  const deps: AppDependencies = {
    store,
    tokens,
    loginLimiter: LoginLimiter.in(limits, config.loginMaxFailures, config.loginWindowSeconds, observability.loginEvents),
    serviceTimeZone: config.serviceTimeZone,
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
  app.use(observability.router);
  app.use(lifecycle.gate);
  // The Sandbox page loads its UI from Apollo's CDN, which a strict CSP would block; the explorer
  // pages set their own 'self'-only CSP (src/explorers); every other answer is JSON.
  app.use(helmet({ contentSecurityPolicy: false, crossOriginEmbedderPolicy: false }));

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

  const graphqlCors = cors({
    origin: config.corsOrigins,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: corsExposedHeaders('graphql'),
    maxAge: 600,
  });
  // Everything above (the probes, and /metrics in the observability router) is never limited. A
  // refusal carries the CORS headers of its facade, so that browser scripts can read it.
  if (rateLimiter) {
    const restCorsHeaders = restCors(config.corsOrigins);
    app.use(
      rateLimiter.middleware((req, res, error) => {
        if (/^\/graphql(\/|$)/i.test(req.path)) return graphqlCors(req, res, () => sendGraphQLError(res, error));
        if (req.path.toLowerCase() === BASE_PATH || req.path.toLowerCase().startsWith(`${BASE_PATH}/`)) {
          return restCorsHeaders(req, res, () => sendError(res, error));
        }
        sendError(res, error);
      }),
    );
  }
  mountExplorers(app);
  // Entered only by its own paths (routing is case-insensitive): mounted bare at the root, every
  // request walked its five layers first. Not mounted at '/insights', which would hide the
  // difference between /insights and /insights/ that the router answers.
  const insights = insightsRouter(config.serviceTimeZone);
  app.use((req, res, next) => (/^\/insights(?:\/|$)/i.test(req.path) ? insights(req, res, next) : next()));
  app.use(BASE_PATH, createRestRouter(schemas.unguarded, deps, config.corsOrigins, config.maxResponseBytes, rateLimiter));

  if (!config.graphqlIntrospection) app.get('/graphql', graphqlBrowserRedirect);
  app.use(
    '/graphql',
    graphqlCors,
    rejectUndecodablePaths(sendGraphQLError),
    jsonBody(),
    graphql.handler,
  );
  // Failures before Apollo sees the request (body too large, malformed JSON) in GraphQL's shape.
  app.use('/graphql', (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const error = bodyParserError(err);
    if (!error) return next(err);
    sendGraphQLError(res, error);
  });

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

  return {
    express: app,
    lifecycle,
    close: async () => {
      await graphql.stop();
      await limits.close();
    },
  };
}
