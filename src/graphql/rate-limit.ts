import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { BASE_POINTS, budgetHeaders, rateLimited, type RequestRateLimiter } from '../http/rate-limit';
import { COST_TABLE } from './cost-table';
import type { GraphQLContext } from './context';

/**
 * `Query.songUsage`, `Song.usage`, ...: the fields that aggregate in the database, which the cost
 * table weighs as such.
 */
export const isAnalyticsField = (coordinate: string): boolean => Object.hasOwn(COST_TABLE.weights, coordinate);

/**
 * How many analytics fields the operation selects, fragments included: each occurrence runs (one
 * batched statement per occurrence for `Song.usage`). Each fragment is counted once and reused,
 * so fragments that spread each other many times cost no more to count than to read.
 */
export function analyticsFieldsIn(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const counted = new Map<string, number>();

  const count = (node: OperationDefinitionNode | FragmentDefinitionNode): number => {
    const typeInfo = new TypeInfo(schema);
    let n = 0;
    visit(
      node,
      visitWithTypeInfo(typeInfo, {
        Field(field) {
          const parent = typeInfo.getParentType();
          if (parent && isAnalyticsField(`${parent.name}.${field.name.value}`)) n++;
        },
        FragmentSpread(spread) {
          const name = spread.name.value;
          const fragment = fragments.get(name);
          if (!fragment) return;
          // Validation has refused cycles before this runs; the 0 placeholder guards anyway.
          if (!counted.has(name)) {
            counted.set(name, 0);
            counted.set(name, count(fragment));
          }
          n += counted.get(name)!;
        },
      }),
    );
    return n;
  };
  return count(operation);
}

/**
 * Charges a GraphQL operation its analytics weight (docs/API.md, Rate limits), once it is parsed,
 * validated and resolved, before it runs: the request already paid BASE_POINTS on arrival; an
 * operation with n analytics fields pays n × RATE_LIMIT_ANALYTICS_WEIGHT in all, as n report
 * routes would on REST.
 */
export function rateLimitPlugin(limiter: RequestRateLimiter): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      // The client's turn for a heavy operation (src/http/rate-limit.ts, Turns), ended with the answer.
      let end: (() => void) | undefined;
      let answered = false;
      return {
        async willSendResponse() {
          answered = true;
          end?.();
        },
        async didResolveOperation({ schema, document, operation, request, response, contextValue }) {
          if (!operation) return;
          const fields = analyticsFieldsIn(schema, document, operation);
          if (!fields) return;
          // The request's own credentials: the token is verified once per request.
          const credentials = limiter.credentialsOf(contextValue.scope, request.http?.headers.get('authorization'));
          const key = limiter.keyOf(credentials, contextValue.clientAddress);
          const budget = await limiter.charge(key, fields * limiter.policy.analyticsWeight - BASE_POINTS);
          const headers = budgetHeaders(budget);
          for (const [name, value] of Object.entries(headers)) response.http.headers.set(name, value);
          if (budget.allowed) {
            end = await limiter.turn(key);
            // Another plugin may have refused the request while this one waited.
            if (answered) end();
            return;
          }
          const refusal = rateLimited(budget);
          // `http` is Apollo's own extension (status and headers of the answer); it never reaches the client.
          const http = { status: 429, headers: new HeaderMap([['retry-after', String(budget.resetSeconds)], ...Object.entries(headers)]) };
          throw new GraphQLError(refusal.message, { extensions: { ...refusal.extensions, http } as Record<string, unknown> });
        },
      };
    },
  };
}
