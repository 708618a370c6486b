import cors from 'cors';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { LoginLimiter } from './auth/login-limiter';
import { TokenService } from './auth/tokens';
import type { Config } from './config';
import { AppError } from './errors';
import type { Services } from './graphql/context';
import { buildSchema } from './graphql/schema';
import { createGraphQLHandler } from './graphql/server';
import { insightsRouter } from './insights';
import { BODY_LIMIT, bodyParserError, createRestRouter } from './rest/router';
import { BASE_PATH } from './rest/sofa';
import type { Store } from './store/types';

export interface App {
  express: express.Express;
  close(): Promise<void>;
}

/** Wire one schema and one resolver set into both facades, plus health endpoints. */
export async function createApp(config: Config, store: Store, log: Logger): Promise<App> {
  const services: Services = {
    store,
    tokens: new TokenService(config.jwtSecret, config.jwtExpiresIn),
    loginLimiter: LoginLimiter.inMemory(config.loginMaxFailures, config.loginWindowSeconds),
    serviceTimeZone: config.serviceTimeZone,
    log,
  };
  const schema = buildSchema();
  const graphql = await createGraphQLHandler(schema, services, {
    introspection: config.graphqlIntrospection,
    maxDepth: config.graphqlMaxDepth,
    maxCost: config.graphqlMaxCost,
    maxAliases: config.graphqlMaxAliases,
  });

  const app = express();
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  // The Sandbox page loads its UI from Apollo's CDN, which a strict CSP would block; every other
  // answer is JSON, which a CSP does not protect.
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

  app.use(insightsRouter(config.serviceTimeZone));
  app.use(BASE_PATH, createRestRouter(schema, services, config.corsOrigins));

  app.use(
    '/graphql',
    cors({ origin: config.corsOrigins, allowedHeaders: ['Authorization', 'Content-Type'], maxAge: 600 }),
    express.json({ limit: BODY_LIMIT }),
    graphql.handler,
  );
  // Failures before Apollo sees the request (body too large, malformed JSON) in GraphQL's shape.
  app.use('/graphql', (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const error = bodyParserError(err);
    if (!error) return next(err);
    res.status(error.code === 'PAYLOAD_TOO_LARGE' ? 413 : 400).json({
      errors: [{ message: error.message, extensions: { code: error.code } }],
    });
  });

  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    log.error({ err }, 'unhandled error');
    const body = { error: { code: 'INTERNAL', message: 'Internal server error' } };
    res.status(500).json(body);
  });
  app.use((req: Request, res: Response) => {
    const e = new AppError('NOT_FOUND', `No such endpoint: ${req.method} ${req.path}`);
    res.status(404).json({ error: { code: e.code, message: e.message } });
  });

  return {
    express: app,
    close: async () => {
      await graphql.stop();
    },
  };
}
