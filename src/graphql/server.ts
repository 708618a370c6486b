import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { costLimit } from './cost-limit';
import { toAppError } from '../http/errors';
import { documentStore } from './document-store';
import { apolloHandler } from './express-handler';
import { compiledExecution } from './execution';
import { guardNesting, refuseSubscriptions, reportLimit } from './guards';
import { createContext, requestInfo, type GraphQLContext, type AppDependencies } from './context';
import { responseLimit } from './response-limit';

export interface GraphQLOptions {
  introspection: boolean;
  maxDepth: number;
  /** The most an operation may cost (docs/API.md: Limits), counted with its variables. */
  maxCost: number;
  maxAliases: number;
  /** The largest answer body, in bytes (MAX_RESPONSE_BYTES). */
  maxResponseBytes: number;
  /** Extra Apollo plugins (operation metrics and log names: src/observability/apollo-plugin.ts). */
  plugins?: ApolloServerPlugin<GraphQLContext>[];
}

/**
 * Every error answers with a contract code (docs/API.md), never one of Apollo's own: a mistake in
 * the request (parse, validation, variables, operation name, persisted query) is BAD_REQUEST,
 * errors from resolvers keep ours, and anything unexpected is logged and masked as INTERNAL.
 */
function formatError(deps: AppDependencies) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const app = toAppError(error, deps.log);
    return { ...formatted, message: app.message, extensions: { ...app.extensions } };
  };
}

export async function createGraphQLHandler(schema: GraphQLSchema, deps: AppDependencies, opts: GraphQLOptions) {
  const answers = responseLimit(opts.maxResponseBytes);
  const format = formatError(deps);
  const server = new ApolloServer<GraphQLContext>({
    schema,
    documentStore: documentStore(),
    introspection: opts.introspection,
    // Credentials travel only in the Authorization header, never in cookies, so a browser cannot
    // be made to send them cross-site: Apollo's CSRF guard would only block plain `GET /graphql?query=`.
    csrfPrevention: false,
    includeStacktraceInErrorResponses: false,
    // Shutdown is the process's (src/lifecycle.ts): Apollo stopping itself on SIGTERM would fail
    // the requests still draining.
    stopOnTerminationSignals: false,
    // A limit must be reported as a validation error, not thrown: Apollo answers an error thrown
    // from a validation rule as a masked 500, which tells the client nothing.
    validationRules: [
      maxDepthRule({ n: opts.maxDepth, ...reportLimit }),
      maxAliasesRule({ n: opts.maxAliases, ...reportLimit }),
    ],
    formatError: format,
    stringifyResult: answers.stringifyResult,
    plugins: [
      refuseSubscriptions,
      costLimit(opts.maxCost),
      // Runs each operation compiled by graphql-jit (./execution.ts), after every plugin's checks
      // of the resolved operation (the cost limit's among them).
      compiledExecution(),
      // Before the operations plugin, so that its outcome counts a refused answer as an error.
      answers.plugin,
      // The schema sets no cache hints; the plugin would still wrap every field resolution.
      ApolloServerPluginCacheControlDisabled(),
      opts.introspection
        ? ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false })
        : ApolloServerPluginLandingPageDisabled(),
      ...(opts.plugins ?? []),
    ],
  });
  await server.start();
  const apollo = apolloHandler(server, async (req, res) => createContext(deps, requestInfo(req, res)));
  return { handler: guardNesting(apollo), stop: () => server.stop() };
}
