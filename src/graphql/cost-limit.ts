import type { ApolloServerPlugin } from '@apollo/server';
import { getVariableValues } from 'graphql';
import { formatCost, fragmentsOf, operationCost } from './cost';
import { COST_TABLE, type CostTable } from './cost-table';
import { badRequest } from './guards';

/**
 * Refuse an operation whose cost (./cost.ts) is over `maxCost` before it runs: 400, BAD_REQUEST,
 * naming the cost and the limit. It runs once the operation is chosen rather than as a validation
 * rule, because the cost depends on the variables (`songsConnection(first: $n)` must cost what
 * `first: 1000` costs), and Apollo validates, and caches, a document without them.
 */
export function costLimit(maxCost: number, table: CostTable = COST_TABLE): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
          // Variables that do not fit their types are refused when the operation runs, before
          // any resolver, so nothing is read.
          if (coerced.errors) return;
          const cost = operationCost(schema, fragmentsOf(document.definitions), operation, coerced.coerced, table);
          if (cost > maxCost) throw badRequest(`Query Cost limit of ${maxCost} exceeded, found ${formatCost(cost)}.`);
        },
      };
    },
  };
}
