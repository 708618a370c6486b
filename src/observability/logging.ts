import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { bearerToken } from '../auth/viewer';
import type { TokenService } from '../auth/tokens';
import type { RequestScope } from './request-scope';

/** A client's request id is kept only when it is short and plain: it goes into every log line. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given && CLIENT_REQUEST_ID.test(given) ? given : crypto.randomUUID();
}

/**
 * Middleware naming the route of the requests it sees, for paths no Express route matches, such as
 * a folder of static files (`/insights/assets/*`): one label for the folder, never one per file
 * name asked for, so a scan of made-up names cannot grow the metrics.
 */
export function nameRoute(pattern: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.route = pattern;
    next();
  };
}

/**
 * The route pattern a request matched (`/api/v1/songs/:id`), never the raw path, so metrics
 * labels stay few. GraphQL is one route; a folder named by `nameRoute` is one; requests that
 * matched nothing share one label.
 */
export function routeOf(req: Request): string {
  const pattern: unknown = req.route?.path;
  // A route registered for several paths (`app.get(['/', '/api/v1'], ...)`) is labelled by the one
  // the request took: its path is one of them, and a fixed one (no parameters).
  if (Array.isArray(pattern)) return `${req.baseUrl}${pattern.includes(req.path) ? req.path : pattern.join('|')}`;
  if (pattern !== undefined) return `${req.baseUrl}${pattern}`;
  const named: unknown = req.res?.locals?.route;
  if (typeof named === 'string') return named;
  if (req.baseUrl === '/graphql' || req.originalUrl.split('?')[0] === '/graphql') return '/graphql';
  return 'unmatched';
}

/**
 * One JSON line per answered request (pino-http). Only chosen fields are logged: no headers, no
 * query string (a GraphQL GET carries its query there) and no body, so no credential can leak.
 */
export function accessLog(log: Logger, tokens: TokenService): RequestHandler {
  /** The user a genuine, unexpired bearer token names; the request itself may still be refused. */
  const userIdOf = (req: IncomingMessage): number | undefined => {
    const bearer = bearerToken(req.headers.authorization);
    return bearer ? tokens.verify(bearer)?.sub : undefined;
  };
  const middleware = pinoHttp<IncomingMessage, ServerResponse>({
    logger: log,
    quietReqLogger: true,
    genReqId: (_req, res) => (res as ServerResponse & { locals: { scope: RequestScope } }).locals.scope.id,
    customAttributeKeys: { responseTime: 'durationMs' },
    serializers: {
      req: (req: { method: string; url: string; raw: Request }) => ({
        method: req.method,
        path: req.url.split('?')[0],
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customProps: (req, res) => {
      // Called at the start (nothing known yet) and again when the answer is finished.
      if (!res.writableFinished && !res.headersSent) return {};
      const props: Record<string, unknown> = { route: routeOf(req as Request) };
      const userId = userIdOf(req);
      if (userId !== undefined) props.userId = userId;
      const operation = (res as ServerResponse & { locals?: { scope?: RequestScope } }).locals?.scope?.operation;
      if (operation) props.operation = operation;
      return props;
    },
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
  });
  return middleware as unknown as RequestHandler;
}
