import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { AppError, ERROR_STATUS, type ErrorCode, type FieldProblem } from '../errors';

export interface RestError {
  status: number;
  headers: Record<string, string>;
  body: { error: { code: ErrorCode; message: string; details?: FieldProblem[] } };
}

export function restError(error: AppError): RestError {
  const headers: Record<string, string> = {};
  if (error.code === 'UNAUTHENTICATED') headers['WWW-Authenticate'] = 'Bearer';
  if (error.retryAfter !== undefined) headers['Retry-After'] = String(error.retryAfter);
  const body: RestError['body'] = { error: { code: error.code, message: error.message } };
  if (error.details?.length) body.error.details = error.details;
  return { status: ERROR_STATUS[error.code], headers, body };
}

const internal = () => new AppError('INTERNAL', 'Internal server error');

/** Apollo Server's codes for a request it refused: every one a client mistake (issue 8). */
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
 * The client-facing form of whatever went wrong. Our own errors keep their code (also when graphql
 * wrapped them with a path); a GraphQL error with no code is a malformed request; anything else
 * is a bug, logged here and answered as a bare 500 with no internals.
 */
export function toAppError(error: unknown, log?: Logger): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof GraphQLError) {
    if (error.originalError) return toAppError(error.originalError, log);
    const code = error.extensions?.code;
    if (typeof code === 'string' && APOLLO_REQUEST_CODES.has(code)) return new AppError('BAD_REQUEST', error.message);
    if (typeof code === 'string' && code in ERROR_STATUS && code !== 'INTERNAL') {
      return new AppError(code as ErrorCode, error.message);
    }
    return new AppError('BAD_REQUEST', error.message);
  }
  log?.error({ err: error }, 'unexpected error');
  return internal();
}

/** Several errors (a GraphQL result) answer with the first one, which is the one that stopped it. */
export const firstError = (errors: readonly unknown[], log?: Logger) => toAppError(errors[0], log);
