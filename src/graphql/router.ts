import cors from 'cors';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError, ERROR_STATUS } from '../errors';
import { graphqlBrowserRedirect } from '../explorers';
import { bodyParserError, jsonBody } from '../http/body';
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

export interface GraphQLRouterOptions {
  corsOrigins: string[] | '*';
  /** Without introspection there is no landing page: a browser opening /graphql goes to GraphiQL. */
  introspection: boolean;
  /** Charges every request (docs/API.md, Rate limits); none when limits are off. */
  rateLimiter?: RequestRateLimiter;
}

/**
 * The GraphQL facade over HTTP, mounted at /graphql, as one visible chain: CORS (preflights end
 * here, uncharged) → rate limit → path check → JSON body → Apollo (`handler`), and every refusal
 * before Apollo in GraphQL's response shape with this facade's CORS headers.
 */
export function createGraphQLRouter(handler: RequestHandler, opts: GraphQLRouterOptions): express.Router {
  const router = express.Router();
  router.use(
    cors({
      origin: opts.corsOrigins,
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: corsExposedHeaders('graphql'),
      maxAge: 600,
    }),
  );
  if (opts.rateLimiter) router.use(opts.rateLimiter.middleware((_req, res, error) => sendGraphQLError(res, error)));
  if (!opts.introspection) router.get('/', graphqlBrowserRedirect);
  router.use(rejectUndecodablePaths(sendGraphQLError), jsonBody(), handler);
  // Failures before Apollo sees the request (body too large, malformed JSON).
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const error = bodyParserError(err);
    if (!error) return next(err);
    sendGraphQLError(res, error);
  });
  return router;
}
