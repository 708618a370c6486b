import { HeaderMap, type ApolloServerPlugin, type GraphQLResponse } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import { createCompiledOperations, type CompiledCacheLimits } from './compiled';
import type { GraphQLContext } from './context';

/**
 * Execution of /graphql through graphql-jit, by Apollo Server's `responseForOperation` hook: the
 * plugin seam that lets a plugin answer an operation Apollo has parsed, validated and resolved
 * (after every plugin's checks of it: the limits, the cost rule) instead of Apollo's own
 * execution. Its errors come already in the contract's terms (./jit.ts) and are sent as they are,
 * with 400 when nothing ran because the variables do not fit their types (Apollo's
 * status400ForVariableCoercionErrors). An operation graphql-jit cannot compile, or no operation
 * at all, is left to Apollo, which runs graphql-js on the same schema and says what is wrong (its
 * errors go through the server's `formatError`).
 */
export function compiledExecution(limits?: CompiledCacheLimits): ApolloServerPlugin<GraphQLContext> {
  const operations = createCompiledOperations(limits);
  return {
    async requestDidStart() {
      return {
        async responseForOperation({ schema, document, operation, request, contextValue }): Promise<GraphQLResponse | null> {
          if (!operation) return null;
          const run = operations.compiled(schema, document, request.operationName ?? undefined);
          if (!run) return null;
          const result = await run(contextValue, request.variables);
          const errors: GraphQLFormattedError[] | undefined = result.errors?.map((e) => e.toJSON());
          const http: { status?: number; headers: HeaderMap } = { headers: new HeaderMap() };
          if (errors?.length && result.data === undefined) http.status = 400;
          return { http, body: { kind: 'single', singleResult: { data: result.data, errors } } };
        },
      };
    },
  };
}
