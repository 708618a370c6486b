import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { RequestScope } from './request-scope';

/** A client's request id is kept only when it is short and plain: it goes into every log line. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given && CLIENT_REQUEST_ID.test(given) ? given : crypto.randomUUID();
}

/**
 * The route pattern a request matched (`/api/v1/songs/:id`), never the raw path, so metrics
 * labels stay few. GraphQL is one route; requests that matched nothing share one label.
 */
export function routeOf(req: Request): string {
  const pattern: unknown = req.route?.path;
  // A route registered for several paths (`app.get(['/', '/api/v1'], ...)`) is labelled by the one
  // the request took: its path is one of them, and a fixed one (no parameters).
  if (Array.isArray(pattern)) return `${req.baseUrl}${pattern.includes(req.path) ? req.path : pattern.join('|')}`;
  if (pattern !== undefined) return `${req.baseUrl}${pattern}`;
  if (req.baseUrl === '/graphql' || req.originalUrl.split('?')[0] === '/graphql') return '/graphql';
  return 'unmatched';
}

/**
 * One JSON line per answered request (pino-http). Only chosen fields are logged: no headers, no
 * query string (a GraphQL GET carries its query there) and no body, so no credential can leak.
 */
export function accessLog(log: Logger): RequestHandler {
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
      const scope = (res as ServerResponse & { locals?: { scope?: RequestScope } }).locals?.scope;
      // The user a genuine, unexpired bearer token names (the request itself may have been refused),
      // from the verification the viewer already made, if it made one.
      const userId = scope?.credentials.claims()?.sub;
      if (userId !== undefined) props.userId = userId;
      if (scope?.operation) props.operation = scope.operation;
      return props;
    },
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
  });
  return middleware as unknown as RequestHandler;
}
