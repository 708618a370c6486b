import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from '../graphql/context';
import type { Metrics } from './metrics';

/**
 * Names each /graphql request's operation for its access-log line, and counts operations by name
 * and outcome. Operations that never resolve (unparsable, invalid) count as `anonymous` errors.
 */
export function operationsPlugin(metrics: Metrics, maxNames = 200): ApolloServerPlugin<GraphQLContext> {
  // Operation names are the client's choice: past `maxNames` distinct ones, new names share one
  // label so the metric cannot grow without bound.
  const seen = new Set<string>();
  const label = (name: string) => {
    if (seen.has(name)) return name;
    if (seen.size >= maxNames) return 'other';
    seen.add(name);
    return name;
  };
  return {
    async requestDidStart() {
      let name = 'anonymous';
      let type = 'unknown';
      return {
        async didResolveOperation({ operationName, operation, contextValue }) {
          name = operationName ?? 'anonymous';
          type = operation?.operation ?? 'unknown';
          if (contextValue.scope) contextValue.scope.operation = name;
        },
        async willSendResponse({ response }) {
          const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
          metrics.graphqlOperations.inc({ operation: label(name), type, outcome: errors?.length ? 'error' : 'success' });
        },
      };
    },
  };
}
