import type { DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Logger } from 'pino';
import { AppError } from '../errors';
import { toAppError } from '../http/errors';
import type { GraphQLContext } from './context';

/**
 * One operation compiled by graphql-jit into a plain function, which spares graphql-js's
 * per-field interpretation (argument lookup, type dispatch) on every field of every record: the
 * bulk of the cost of a long list. Same schema, same resolvers. graphql-jit bakes the schema, the
 * document and the chosen operation into the function.
 *
 * What it answers is the contract's: every error is an AppError (src/errors.ts), with its code,
 * placed where it happened (path, locations), made once here for both facades, which send it as
 * it is (REST its first, /graphql all of them). An error that is no AppError is a bug: logged here
 * with the request's logger and answered as INTERNAL, its details kept from the client.
 */
export interface Outcome {
  data?: ExecutionResult['data'];
  errors?: readonly AppError[];
}

export type Run = (context: GraphQLContext, variables: Readonly<Record<string, unknown>> | null | undefined) => Promise<Outcome>;

/** The compiled operation, or null when graphql-jit cannot compile it (it then runs interpreted). */
export function compileOperation(schema: GraphQLSchema, document: DocumentNode, operationName?: string): Run | null {
  const compiled = compileQuery(schema, document, operationName);
  if (!isCompiledQuery(compiled)) return null;
  return async (context, variables) => inContractTerms(await compiled.query(undefined, context, variables ?? {}), context.log);
}

/**
 * graphql-jit's errors: a resolver's thrown error wrapped (its cause as `originalError`, or, for a
 * returned Error, as graphql-shield passes them on, that Error itself), or its own GraphQLError
 * for variables that do not fit their types, which is the client's mistake (toAppError: no code is
 * BAD_REQUEST).
 */
type LooseError = Error & {
  path?: (string | number)[];
  locations?: GraphQLError['locations'];
  originalError?: Error;
};

function contractError(error: LooseError, log: Logger): AppError {
  const cause = error.originalError ?? error;
  const app = toAppError(cause, log);
  const placed = new AppError(app.code, app.message, { details: app.details, retryAfter: app.retryAfter, path: error.path });
  if (error.locations) Object.assign(placed, { locations: error.locations });
  return placed;
}

function inContractTerms(result: ExecutionResult, log: Logger): Outcome {
  if (!result.errors?.length) return result as Outcome;
  return { ...result, errors: result.errors.map((e) => contractError(e as LooseError, log)) } as Outcome;
}
