import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors';

const internal = () => new AppError('INTERNAL', 'Internal server error');

/** Apollo Server's codes for a request it refused: every one a client mistake. */
const APOLLO_REQUEST_CODES = new Set([
  'BAD_REQUEST',
  'BAD_USER_INPUT',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/**
 * The client-facing form of whatever went wrong, for either facade. Our own errors keep their code
 * (also when graphql wrapped them with a path); a GraphQL error with no code is a malformed
 * request; anything else is a bug, logged here and answered as a bare INTERNAL with no internals.
 */
export function toAppError(error: unknown, log?: Logger): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof GraphQLError) {
    if (error.originalError) return toAppError(error.originalError, log);
    const code = error.extensions?.code;
    if (typeof code === 'string' && APOLLO_REQUEST_CODES.has(code)) return new AppError('BAD_REQUEST', error.message);
    if (typeof code === 'string' && code in ERROR_STATUS && code !== 'INTERNAL') {
      const retryAfter = error.extensions.retryAfter;
      return new AppError(code as ErrorCode, error.message, typeof retryAfter === 'number' ? { retryAfter } : {});
    }
    return new AppError('BAD_REQUEST', error.message);
  }
  log?.error({ err: error }, 'unexpected error');
  return internal();
}

/**
 * An error that Express or one of its parts (router, body parser, static files) marks with a 4xx
 * status, such as a route parameter it could not decode: the client's mistake, never a 500.
 */
export function clientError(err: unknown): AppError | undefined {
  const status = (err as { status?: unknown })?.status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  return status === 413
    ? new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large')
    : new AppError('BAD_REQUEST', 'The request could not be read');
}
