import { accessOf } from '../graphql/permissions';
import { pathParams, ROUTES } from './routes';
import type { SofaRouter } from './sofa';
import { BASE_PATH } from './sofa';

type Parameter = { name: string; in: string };
type BodySchema = { properties?: Record<string, unknown>; required?: string[] };
type Operation = {
  security?: unknown;
  responses?: Record<string, unknown>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: { 'application/json'?: { schema?: BodySchema } } };
};
type Document = { paths: Record<string, Record<string, Operation>>; components: Record<string, Record<string, unknown>> };

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * A list argument is read from its singular, repeated (`?serviceType=SUN_AM&serviceType=WED`), as
 * src/rest/input.ts reads it; SOFA documents it under the argument's own name.
 */
function describeListParameters(op: Operation): void {
  for (const p of op.parameters ?? []) {
    const param = p as Parameter & { schema?: { type?: string }; style?: string; explode?: boolean };
    if (param.in !== 'query' || param.schema?.type !== 'array') continue;
    param.name = param.name.replace(/s$/, '');
    param.style = 'form';
    param.explode = true;
  }
}

/** Routes that also answer CSV say so in their 200 answer and take `format`. */
function describeCsv(op: Operation): void {
  const ok = op.responses?.['200'] as { content?: Record<string, unknown> } | undefined;
  if (ok?.content) {
    ok.content['text/csv'] = {
      schema: { type: 'string', description: 'A header row, then one row per song (see docs/api/analytics.md)' },
    };
  }
  op.parameters = [
    ...(op.parameters ?? []),
    {
      name: 'format',
      in: 'query',
      description: '`csv` answers CSV (as does `Accept: text/csv`); `json` forces JSON',
      schema: { type: 'string', enum: ['json', 'csv'] },
    } as Parameter,
  ];
}

export const isPublic = (field: string): boolean => accessOf(field) === 'public';

/**
 * SOFA lists every argument of a POST/PUT both as a query parameter and as a body field, path
 * parameters included. This API reads those arguments from the JSON body only (src/rest/input.ts),
 * and the path parameters from the path only.
 */
function describeBody(op: Operation, inPath: string[]): void {
  op.parameters = op.parameters?.filter((p) => p.in !== 'query');
  const schema = op.requestBody?.content?.['application/json']?.schema;
  if (!op.requestBody || !schema) return;
  for (const name of inPath) delete schema.properties?.[name];
  schema.required = schema.required?.filter((name) => !inPath.includes(name));
  if (!Object.keys(schema.properties ?? {}).length) {
    delete op.requestBody;
    return;
  }
  op.requestBody.required = Boolean(schema.required?.length);
}

/**
 * SOFA's generated OpenAPI document, completed with what only the REST layer knows: which routes
 * need a bearer token, the 204 answers of deletes, and the error shape. SOFA's webhook routes for
 * subscriptions are not served (the schema has no subscriptions), so they are left out.
 */
export async function openApiDocument(sofa: SofaRouter): Promise<unknown> {
  const res = await sofa.fetch(new Request(`http://sofa.internal${BASE_PATH}/openapi.json`));
  const doc = (await res.json()) as Document;
  for (const path of Object.keys(doc.paths)) {
    if (path.includes('/webhook')) delete doc.paths[path];
  }
  // SOFA describes the root types as if they were records; REST has no such objects.
  delete doc.components.schemas.Query;
  delete doc.components.schemas.Mutation;
  doc.components.schemas.Error = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', example: 'NOT_FOUND' },
          message: { type: 'string' },
          details: {
            type: 'array',
            items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
          },
        },
      },
    },
  };
  for (const route of ROUTES) {
    // Paths are relative to the document's `servers: [{ url: BASE_PATH }]`, as SOFA writes them.
    const oasPath = route.path.replace(/:(\w+)/g, '{$1}');
    const op = doc.paths[oasPath]?.[route.method.toLowerCase()];
    if (!op) continue;
    if (route.method === 'POST' || route.method === 'PUT') describeBody(op, pathParams(route.path));
    op.responses ??= {};
    if (route.status === 204) {
      delete op.responses['200'];
      op.responses['204'] = { description: 'Done; no body' };
    }
    op.responses['400'] = errorResponse('Bad request or validation failed');
    if (route.csv) describeCsv(op);
    if (route.method === 'GET') describeListParameters(op);
    if (!isPublic(route.field)) {
      op.security = [{ bearerAuth: [] }];
      op.responses['401'] = errorResponse('Missing, invalid or expired token');
      op.responses['403'] = errorResponse('The token lacks the privilege');
    }
    if (route.path.includes(':')) op.responses['404'] = errorResponse('No such record');
  }
  return doc;
}
