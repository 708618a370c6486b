import { GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';

/**
 * One operation compiled by graphql-jit into a plain function, which spares graphql-js's
 * per-field interpretation (argument lookup, type dispatch) on every field of every record: the
 * bulk of the cost of a long list. Same schema, same resolvers. graphql-jit bakes the schema, the
 * document and the chosen operation into the function.
 */
export type Run = (contextValue: unknown, variables: Readonly<Record<string, unknown>> | null | undefined) => Promise<ExecutionResult>;

/** The compiled operation, or null when graphql-jit cannot compile it (it then runs interpreted). */
export function compileOperation(schema: GraphQLSchema, document: DocumentNode, operationName?: string): Run | null {
  const compiled = compileQuery(schema, document, operationName);
  if (!isCompiledQuery(compiled)) return null;
  return async (contextValue, variables) => withGraphQLErrors(await compiled.query(undefined, contextValue, variables ?? {}));
}

/**
 * graphql-js reports every failure as a GraphQLError with an `extensions` object and, for a
 * resolver's error, the cause as `originalError`. graphql-jit's errors pass `instanceof` but carry
 * no `extensions` (Apollo's formatting reads `extensions.code` and fails), and a resolver's
 * returned Error (how graphql-shield passes errors on) comes back as that Error itself. Rebuild
 * such errors so both facades' error mapping sees what graphql-js would give it.
 */
type LooseError = Error & {
  path?: (string | number)[];
  locations?: unknown;
  extensions?: Record<string, unknown>;
  originalError?: Error;
};

function asGraphQLError(error: LooseError): GraphQLError {
  if (error instanceof GraphQLError && error.extensions) return error;
  const cause = error.originalError ?? (error instanceof GraphQLError ? undefined : error);
  const wrapped = new GraphQLError(error.message, { path: error.path, originalError: cause, extensions: error.extensions });
  if (error.locations) Object.assign(wrapped, { locations: error.locations });
  return wrapped;
}

function withGraphQLErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  return { ...result, errors: result.errors.map((e) => asGraphQLError(e as LooseError)) };
}
