import cors from 'cors';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { LoginLimiter } from './auth/login-limiter';
import { TokenService } from './auth/tokens';
import type { Config } from './config';
import { AppError, ERROR_STATUS } from './errors';
import { graphqlBrowserRedirect, mountExplorers } from './explorers';
import type { Services } from './graphql/context';
import { buildSchemas } from './graphql/schema';
import { createGraphQLHandler } from './graphql/server';
import { bodyParserError, jsonBody } from './http/body';
import { clientError } from './http/errors';
import { rejectUndecodablePaths } from './http/path';
import { insightsRouter } from './insights';
import { Lifecycle } from './lifecycle';
import { createObservability } from './observability';
import { sendError } from './rest/errors';
import { createRestRouter } from './rest/router';
import { BASE_PATH } from './rest/sofa';
import type { Store } from './store/types';

/** An error met before Apollo sees the request, in GraphQL's own response shape. */
function sendGraphQLError(res: Response, error: AppError): void {
  res.status(ERROR_STATUS[error.code]).json({ errors: [{ message: error.message, extensions: { code: error.code } }] });
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

  const services: Services = {
    store,
    tokens,
    loginLimiter: LoginLimiter.inMemory(config.loginMaxFailures, config.loginWindowSeconds, observability.loginEvents),
    serviceTimeZone: config.serviceTimeZone,
    log,
  };
  const schemas = buildSchemas();
  const graphql = await createGraphQLHandler(schemas.guarded, services, {
    introspection: config.graphqlIntrospection,
    maxDepth: config.graphqlMaxDepth,
    maxCost: config.graphqlMaxCost,
    maxAliases: config.graphqlMaxAliases,
    maxResponseBytes: config.maxResponseBytes,
    plugins: [observability.apolloPlugin],
  });

  const app = express();
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

  mountExplorers(app);
  app.use(insightsRouter(config.serviceTimeZone));
  app.use(BASE_PATH, createRestRouter(schemas.unguarded, services, config.corsOrigins, config.maxResponseBytes));

  if (!config.graphqlIntrospection) app.get('/graphql', graphqlBrowserRedirect);
  app.use(
    '/graphql',
    cors({
      origin: config.corsOrigins,
      // Joined once here rather than by cors on every request.
      allowedHeaders: 'Authorization,Content-Type,X-Request-Id',
      exposedHeaders: 'X-Request-Id',
      maxAge: 600,
    }),
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
    },
  };
}
