import { HeaderMap, type ApolloServerPlugin, type GraphQLResponse } from '@apollo/server';
import type { ExecutionResult, GraphQLError, GraphQLFormattedError } from 'graphql';
import { createCompiledOperations, type CompiledCacheLimits } from './compiled';

type FormatError = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/**
 * An error of the compiled execution as Apollo formats the errors of its own: its JSON form with a
 * code (INTERNAL_SERVER_ERROR when it has none), an `http` extension taken out into the answer's
 * status, then the server's `formatError`.
 */
function formatted(error: GraphQLError, formatError: FormatError, http: { status?: number }): GraphQLFormattedError {
  const { http: head, ...rest } = (error.extensions ?? {}) as Record<string, unknown> & { http?: { status?: number } };
  if (head?.status !== undefined) http.status = Math.max(http.status ?? 0, head.status);
  return formatError({ ...error.toJSON(), extensions: { ...rest, code: rest.code ?? 'INTERNAL_SERVER_ERROR' } }, error);
}

/**
 * Execution of /graphql through graphql-jit, by Apollo Server's `responseForOperation` hook: the
 * plugin seam that lets a plugin answer an operation Apollo has parsed, validated and resolved
 * (after every plugin's checks of it: the limits, the cost rule) instead of Apollo's own
 * execution. The answer is what Apollo makes of an execution result: errors formatted by the same
 * `formatError`, and 400 when nothing ran because the variables do not fit their types. An
 * operation graphql-jit cannot compile, or no operation at all, is left to Apollo, which runs
 * graphql-js on the same schema and says what is wrong.
 */
export function compiledExecution(formatError: FormatError, limits?: CompiledCacheLimits): ApolloServerPlugin {
  const operations = createCompiledOperations(limits);
  return {
    async requestDidStart() {
      return {
        async responseForOperation({ schema, document, operation, request, contextValue }): Promise<GraphQLResponse | null> {
          if (!operation) return null;
          const run = operations.compiled(schema, document, request.operationName ?? undefined);
          if (!run) return null;
          const result: ExecutionResult = await run(contextValue, request.variables);
          const http: { status?: number; headers: HeaderMap } = { headers: new HeaderMap() };
          const errors = result.errors?.map((e) => formatted(e, formatError, http));
          // No data: the variables were refused before anything ran (Apollo's
          // status400ForVariableCoercionErrors).
          if (errors?.length && result.data === undefined) http.status ??= 400;
          return { http, body: { kind: 'single', singleResult: { data: result.data, errors, extensions: result.extensions } } };
        },
      };
    },
  };
}
