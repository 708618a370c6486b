import cors from 'cors';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, ERROR_STATUS } from '../errors';
import { graphqlBrowserRedirect } from '../explorers';
import { bodyParserError, jsonBody } from '../http/body';
import { chain } from '../http/chain';
import { CORS_ALLOWED_HEADERS, corsExposedHeaders } from '../http/cors';
import { rejectUndecodablePaths } from '../http/path';
import type { RequestRateLimiter } from '../http/rate-limit';

export const GRAPHQL_PATH = '/graphql';

/** An error met before Apollo sees the request, in GraphQL's own response shape. */
export function sendGraphQLError(res: Response, error: AppError): void {
  const extensions: Record<string, unknown> = { code: error.code };
  if (error.retryAfter !== undefined) {
    res.set('Retry-After', String(error.retryAfter));
    extensions.retryAfter = error.retryAfter;
  }
  res.status(ERROR_STATUS[error.code]).json({ errors: [{ message: error.message, extensions }] });
}

export interface GraphQLFacadeOptions {
  corsOrigins: string[] | '*';
  /** Without introspection there is no landing page: a browser opening /graphql goes to GraphiQL. */
  introspection: boolean;
  /** Charges every request (docs/API.md, Rate limits); none when limits are off. */
  rateLimiter?: RequestRateLimiter;
}

/** Failures before Apollo sees the request (body too large, malformed JSON), in GraphQL's shape. */
const bodyErrors: ErrorRequestHandler = (err, _req, res, next) => {
  const error = bodyParserError(err);
  if (!error) return next(err);
  sendGraphQLError(res, error);
};

/** A browser opening /graphql itself (not a path below it) when there is no landing page. */
const browserAtRoot: RequestHandler = (req, res, next) => (req.path === '/' ? graphqlBrowserRedirect(req, res, next) : next());

/**
 * The GraphQL facade over HTTP, mounted at /graphql, as one visible chain (src/http/chain.ts):
 * what every request gets (`before`: request id, logs and metrics, headers) → CORS (preflights
 * end here, uncharged) → rate limit → path check → JSON body → Apollo (`handler`), and every
 * refusal before Apollo in GraphQL's response shape with this facade's CORS headers.
 */
export function graphqlFacade(before: RequestHandler[], handler: RequestHandler, opts: GraphQLFacadeOptions): RequestHandler {
  return chain(
    [
      ...before,
      cors({ origin: opts.corsOrigins, allowedHeaders: CORS_ALLOWED_HEADERS, exposedHeaders: corsExposedHeaders('graphql'), maxAge: 600 }),
      ...(opts.rateLimiter ? [opts.rateLimiter.middleware((_req, res, error) => sendGraphQLError(res, error))] : []),
      ...(opts.introspection ? [] : [browserAtRoot]),
      rejectUndecodablePaths(sendGraphQLError),
      jsonBody(),
      handler,
    ],
    bodyErrors,
  );
}
