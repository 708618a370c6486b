import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { expressMiddleware } from '@as-integrations/express5';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import type { GraphQLError, GraphQLFormattedError, GraphQLSchema, ValidationContext } from 'graphql';
import { AppError } from '../errors';
import { toAppError } from '../rest/errors';
import { createContext, type GraphQLContext, type Services } from './context';

export interface GraphQLOptions {
  introspection: boolean;
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
}

/**
 * Errors GraphQL reports about the request itself (parse, validation, variable coercion) keep
 * Apollo's code; errors from resolvers keep ours; anything unexpected is logged and masked.
 */
function formatError(services: Services) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = (error as { originalError?: unknown })?.originalError;
    if (!original) return formatted;
    const app = original instanceof AppError ? original : toAppError(original, services.log);
    return { ...formatted, message: app.message, extensions: { ...app.extensions } };
  };
}

const reportRejection = {
  propagateOnRejection: false,
  onReject: [(ctx: ValidationContext | null, err: GraphQLError) => ctx?.reportError(err)],
};

export async function createGraphQLHandler(schema: GraphQLSchema, services: Services, opts: GraphQLOptions) {
  const server = new ApolloServer<GraphQLContext>({
    schema,
    introspection: opts.introspection,
    // Credentials travel only in the Authorization header, never in cookies, so a browser cannot
    // be made to send them cross-site: Apollo's CSRF guard would only block plain `GET /graphql?query=`.
    csrfPrevention: false,
    includeStacktraceInErrorResponses: false,
    // A limit must be reported as a validation error, not thrown: Apollo answers an error thrown
    // from a validation rule as a masked 500, which tells the client nothing.
    validationRules: [
      maxDepthRule({ n: opts.maxDepth, ...reportRejection }),
      costLimitRule({ maxCost: opts.maxCost, ...reportRejection }),
      maxAliasesRule({ n: opts.maxAliases, ...reportRejection }),
    ],
    formatError: formatError(services),
    plugins: [
      // The schema sets no cache hints; the plugin would still wrap every field resolution.
      ApolloServerPluginCacheControlDisabled(),
      opts.introspection
        ? ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false })
        : ApolloServerPluginLandingPageDisabled(),
    ],
  });
  await server.start();
  const handler = expressMiddleware(server, {
    context: async ({ req }) =>
      createContext(services, { authorization: req.headers.authorization, clientAddress: req.ip ?? 'unknown' }),
  });
  return { handler, stop: () => server.stop() };
}
