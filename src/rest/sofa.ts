import { filterSchema } from '@graphql-tools/utils';
import type { ExecutionArgs, ExecutionResult, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { Logger } from 'pino';
import { useSofa } from 'sofa-api';
import { createCompiledExecute } from '../graphql/compiled';
import type { GraphQLContext } from '../graphql/context';
import { firstError } from '../http/errors';
import { restError } from './errors';
import { GRAPHQL_ONLY_FIELDS, ROUTES } from './routes';

export const BASE_PATH = '/api/v1';

/** What the Express adapter hands SOFA with each request: the context it already built. */
export interface SofaServerContext {
  graphqlContext: GraphQLContext;
}

/**
 * The REST view of the one schema: the same types and the same (guarded) resolvers, minus the
 * relation fields, so that every operation SOFA derives selects exactly the flat record shape.
 */
export function restSchema(schema: GraphQLSchema): GraphQLSchema {
  const hidden = new Set<string>(GRAPHQL_ONLY_FIELDS);
  return filterSchema({
    schema,
    objectFieldFilter: (typeName, fieldName) => !hidden.has(`${typeName}.${fieldName}`),
    rootFieldFilter: (operation, fieldName) => !hidden.has(`${operation}.${fieldName}`),
  });
}

/**
 * The answers of the operations SOFA ran, by request context. SOFA would serialise each answer
 * into a Response that the adapter would parse again only to serialise it once more; instead the
 * adapter takes the value from here and serialises it once (src/rest/router.ts).
 */
const answers = new WeakMap<GraphQLContext, unknown>();

export function takeAnswer(ctx: GraphQLContext): unknown {
  const answer = answers.get(ctx);
  answers.delete(ctx);
  return answer;
}

/** SOFA's `execute`: run its operation compiled, keep the data for the adapter, give SOFA a stub. */
function restExecute() {
  const run = createCompiledExecute();
  return async (args: ExecutionArgs): Promise<ExecutionResult> => {
    const result = await run(args);
    if (result.errors?.length || !result.data) return result;
    // SOFA's operations select exactly one root field.
    const op = args.document.definitions[0] as OperationDefinitionNode;
    const selection = op.selectionSet.selections[0] as { name: { value: string } };
    const field = selection.name.value;
    answers.set(args.contextValue as GraphQLContext, result.data[field]);
    return { data: { [field]: null } };
  };
}

export function createSofaRouter(schema: GraphQLSchema, log: Logger) {
  return useSofa({
    execute: restExecute() as never,
    basePath: BASE_PATH,
    schema: restSchema(schema),
    routes: Object.fromEntries(
      ROUTES.map((r) => [r.field, { method: r.method, path: r.path, responseStatus: r.status === 201 ? 201 : 200 }]),
    ),
    // Without this SOFA documents the scalar as an `object` and refers to a schema it never writes.
    customScalars: {
      Timestamp: {
        type: 'integer',
        format: 'int64',
        description: 'Epoch milliseconds; input also accepts an ISO-8601 date-time with Z or an offset',
      },
    },
    // SOFA selects only `{ id }` of a nested record type; a login answer carries the whole user,
    // and an analytics row the whole song.
    ignore: ['AuthPayload.user', 'SongUsage.song', 'SongPairing.song', 'SongShare.song'],
    context: ({ graphqlContext }: SofaServerContext & { request: unknown }) => graphqlContext,
    errorHandler: ((errors: readonly unknown[]) => {
      const { status, headers, body } = restError(firstError(errors, log));
      return Response.json(body, { status, headers });
      // fets types its own Response class; the platform's is what it uses at run time.
    }) as never,
    openAPI: {
      info: {
        title: 'Song and Service Records API',
        version: '1.0.0',
        description:
          'REST API v1, derived by SOFA from the same GraphQL schema and resolvers that serve /graphql.',
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
  });
}

export type SofaRouter = ReturnType<typeof createSofaRouter>;
