import { execute, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/**
 * `graphql.execute` with each document compiled once by graphql-jit into a plain function, which
 * spares graphql-js's per-field interpretation (argument lookup, type dispatch) on every field of
 * every record: the bulk of the cost of a 1,000-record list. Same schema, same resolvers (shield
 * included); documents are the parsed objects SOFA builds once per route or Apollo caches per
 * query text, so a WeakMap keyed by them compiles each exactly once and frees it with them.
 */
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

export function createCompiledExecute() {
  const compiled = new WeakMap<DocumentNode, CompiledQuery | null>();

  return async function compiledExecute(args: ExecutionArgs): Promise<ExecutionResult> {
    let query = compiled.get(args.document);
    if (query === undefined) {
      const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
      query = isCompiledQuery(result) ? result : null;
      compiled.set(args.document, query);
    }
    // A document graphql-jit cannot compile still runs, interpreted.
    if (query === null) return execute(args);
    return withGraphQLErrors(await query.query(args.rootValue, args.contextValue, args.variableValues ?? {}));
  };
}
