import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { expressMiddleware } from '@as-integrations/express5';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import type { GatewayInterface } from '@apollo/server-gateway-interface';
import { printSchema, type GraphQLError, type GraphQLFormattedError, type GraphQLSchema, type ValidationContext } from 'graphql';
import { createCompiledExecute } from './compiled';
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

/**
 * Apollo's executor seam. Apollo still parses, validates (depth, cost and alias limits included)
 * and caches documents; execution runs each document compiled once by graphql-jit, as REST does.
 * No federation is involved: the "gateway" serves this one local schema.
 */
function compiledExecution(schema: GraphQLSchema): GatewayInterface {
  const execute = createCompiledExecute();
  return {
    async load() {
      return {
        executor: async (request) =>
          execute({
            schema,
            document: request.document,
            contextValue: request.context,
            variableValues: request.request.variables,
            // The name the client asked for: `request.operationName` is the one Apollo resolved,
            // null when none matched, which would let a lone operation run under any name.
            operationName: request.request.operationName,
          }),
      };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    async stop() {},
  };
}

export async function createGraphQLHandler(schema: GraphQLSchema, services: Services, opts: GraphQLOptions) {
  const server = new ApolloServer<GraphQLContext>({
    gateway: compiledExecution(schema),
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
