import crypto from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
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
 * One JSON line per answered request. Only chosen fields are logged: no headers, no query string
 * (a GraphQL GET carries its query there) and no body, so no credential can leak. The line is
 * written by the process's logger itself, with the request's fields in the line: no child logger
 * is made per request (pino-http, used before, made three: about 0.08 ms of every request).
 *
 * A request ends when its answer is finished, or when its connection closes first (the client
 * went away): it is logged once, at `error` for a 5xx answer or a failed response stream.
 */
export function accessLog(log: Logger): RequestHandler {
  const write = (req: Request, res: Response, started: number, err?: Error) => {
    const scope = res.locals.scope as RequestScope;
    // In the order the lines have always had (pino-http's), which readers of these logs may rely on.
    const line: Record<string, unknown> = { reqId: scope.id, req: { method: req.method, path: req.originalUrl.split('?')[0] }, route: routeOf(req) };
    // The user a genuine, unexpired bearer token names (the request itself may have been refused),
    // from the verification the viewer already made, if it made one.
    const userId = scope.credentials.claims()?.sub;
    if (userId !== undefined) line.userId = userId;
    if (scope.operation) line.operation = scope.operation;
    line.res = { status: res.statusCode };
    if (err || res.statusCode >= 500) {
      line.err = err ?? new Error(`failed with status code ${res.statusCode}`);
      line.durationMs = Date.now() - started;
      log.error(line, 'request failed');
    } else {
      line.durationMs = Date.now() - started;
      log.info(line, 'request completed');
    }
  };
  return (req, res, next) => {
    const started = Date.now();
    const done = (err?: Error) => {
      res.off('close', done);
      res.off('finish', done);
      res.off('error', done);
      write(req, res, started, err);
    };
    res.on('close', done);
    res.on('finish', done);
    res.on('error', done);
    next();
  };
}
