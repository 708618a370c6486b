import type { ApolloServerPlugin } from '@apollo/server';
import { getVariableValues, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
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
  /**
   * The cost of each operation that declares no variables, which its document alone decides: by
   * operation node, held as long as Apollo keeps the document (its cache is bounded), so a repeated
   * query is costed once. An operation with variables is costed on every request.
   */
  const constant = new WeakMap<OperationDefinitionNode, number>();
  const costOf = (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>) =>
    operationCost(schema, fragmentsOf(document.definitions), operation, variables, table);

  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          let cost: number;
          if (!operation.variableDefinitions?.length) {
            cost = constant.get(operation) ?? costOf(schema, document, operation, {});
            constant.set(operation, cost);
          } else {
            const coerced = getVariableValues(schema, operation.variableDefinitions, request.variables ?? {});
            // Variables that do not fit their types are refused when the operation runs, before
            // any resolver, so nothing is read.
            if (coerced.errors) return;
            cost = costOf(schema, document, operation, coerced.coerced);
          }
          if (cost > maxCost) throw badRequest(`Query Cost limit of ${maxCost} exceeded, found ${formatCost(cost)}.`);
        },
      };
    },
  };
}
