import { buildOperationNodeForField, filterSchema } from '@graphql-tools/utils';
import { Kind, OperationTypeNode, type DocumentNode, type GraphQLSchema } from 'graphql';
import { createSofa, createSofaRouter as sofaRouter } from 'sofa-api';
import { GRAPHQL_ONLY_FIELDS, ROUTES, type RestRoute } from './routes';

export const BASE_PATH = '/api/v1';

/**
 * The REST view of the one schema: the same types and the same resolvers, minus the relation
 * fields, so that every operation SOFA derives selects exactly the flat record shape.
 */
export function restSchema(schema: GraphQLSchema): GraphQLSchema {
  const hidden = new Set<string>(GRAPHQL_ONLY_FIELDS);
  return filterSchema({
    schema,
    objectFieldFilter: (typeName, fieldName) => !hidden.has(`${typeName}.${fieldName}`),
    rootFieldFilter: (operation, fieldName) => !hidden.has(`${operation}.${fieldName}`),
  });
}

export type Sofa = ReturnType<typeof createSofa>;

/**
 * SOFA over the REST view of `schema`: the route table's paths and statuses, and what SOFA needs
 * to know to derive each route's operation and to document it. Requests are not served through
 * SOFA's own router (src/rest/router.ts runs the operations); its router writes the OpenAPI
 * document (./openapi.ts).
 */
/** The Timestamp scalar's JSON type: epoch ms (./openapi.ts widens it for request bodies). */
export const TIMESTAMP_JSON = { type: 'integer', format: 'int64' } as const;

export function sofaOf(schema: GraphQLSchema): Sofa {
  return createSofa({
    basePath: BASE_PATH,
    schema: restSchema(schema),
    routes: Object.fromEntries(
      ROUTES.filter((r) => r.aliasOf === undefined).map((r) => [r.field, { method: r.method, path: r.path, responseStatus: r.status === 201 ? 201 : 200 }]),
    ),
    // Without this SOFA documents the scalar as an `object` and refers to a schema it never writes.
    customScalars: {
      Timestamp: {
        ...TIMESTAMP_JSON,
        description: 'Epoch milliseconds; input also accepts an ISO-8601 date-time with Z or an offset',
      },
    },
    // SOFA selects only `{ id }` of a nested record type; a login answer carries the whole user,
    // and an analytics row the whole song.
    ignore: ['AuthPayload.user', 'SongUsage.song', 'SongUsageOfSong.song', 'SongPairing.song', 'SongShare.song', 'SongSuggestion.song'],
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

/**
 * The operation SOFA derives for a route's field: its router builds it with this builder from its
 * models, ignore list and depth, which `createSofa` works out from the schema (test/unit/rest.sofa.test.ts
 * checks that SOFA's router runs exactly this document for every route). Its variables are the
 * field's arguments, by name.
 */
export function sofaOperation(sofa: Sofa, route: RestRoute): DocumentNode {
  const operation = buildOperationNodeForField({
    kind: route.operation.root === 'Query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION,
    schema: sofa.schema,
    field: route.operation.name,
    models: sofa.models,
    ignore: sofa.ignore,
    circularReferenceDepth: sofa.depthLimit,
  });
  return { kind: Kind.DOCUMENT, definitions: [operation] };
}

/** SOFA's own router, which writes the OpenAPI document of every route (given a schema: over its REST view). */
export function createSofaRouter(from: GraphQLSchema | Sofa) {
  return sofaRouter('models' in from ? from : sofaOf(from));
}

export type SofaRouter = ReturnType<typeof createSofaRouter>;
