import { filterSchema } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { useSofa } from 'sofa-api';
import type { GraphQLContext } from '../graphql/context';
import { firstError, restError } from './errors';
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
  });
}

export function createSofaRouter(schema: GraphQLSchema, log: Logger) {
  return useSofa({
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
    // SOFA selects only `{ id }` of a nested record type; a login answer carries the whole user.
    ignore: ['AuthPayload.user'],
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
