import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { GraphQLNonNull, isNonNullType, type GraphQLSchema } from 'graphql';
import { AppError, ERROR_STATUS, notFound, StoreUnavailableError, validationFailed } from '../errors';
import { BODY_LIMIT } from '../http/body';
import { rateLimited } from '../http/rate-limit';
import { restError } from './errors';
import { BOUND_PATTERN, SERVICE_DATE_TEXT_PATTERN } from '../domain/date-patterns';
import { MAX_MS, MIN_MS } from '../domain/dates';
import { SUNG_OFTEN_PARAMETERS } from '../domain/analytics/sung-often';
import { SUGGESTION_PARAMETERS } from '../domain/analytics/suggestions';

const range = (p: { minimum: number; maximum: number; default: number }) => `${p.minimum}–${p.maximum}, default ${p.default}`;
import { INT_MAX, MAX_PAGE } from '../domain/validation';
import { accessOf } from '../graphql/permissions';
import type { MutationOperation, RootField } from '../graphql/operations';
import { describeQueryParameter, queryName } from './input';
import { markNullableFields, withNullability, type SchemaObject } from './openapi-nullable';
import { pathParams, ROUTES, type RestRoute } from './routes';
import type { SofaRouter } from './sofa';
import { BASE_PATH, TIMESTAMP_JSON } from './sofa';

type Parameter = { name: string; in: string; description?: string; required?: boolean; schema?: Record<string, unknown> };
type BodySchema = { properties?: Record<string, unknown>; required?: string[] };
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown;
  responses: Record<string, unknown>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content?: { 'application/json'?: { schema?: BodySchema } } };
};
type Document = {
  info: Record<string, unknown>;
  tags?: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
};

/** Routes that also answer CSV say so in their 200 answer and take `format`. */
function describeCsv(op: Operation): void {
  const ok = op.responses?.['200'] as { content?: Record<string, unknown> } | undefined;
  if (ok?.content) {
    ok.content['text/csv'] = {
      schema: {
        type: 'string',
        description:
          'UTF-8 with a byte-order mark, CRLF line ends (RFC 4180): a header row (Song, CCLI #, Copyright, Artists, ' +
          'Times sung, First sung, Last sung, one column per service type, Song ID), then one row per song. A cell ' +
          'starting with = + - @, a tab or a carriage return is written with a single quote before it, quoted, so ' +
          'that spreadsheets never run it as a formula (see docs/API.md, Reports and analytics).',
      },
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

export const isPublic = (field: RootField): boolean => accessOf(field) === 'public';

/**
 * The operationId of a route: its GraphQL field's name, so both facades name an operation alike;
 * at a binding's `alsoAt` path, with the path's parameters (`suggestSongsByServiceId`).
 */
export const operationIdOf = (route: RestRoute): string =>
  route.field.split('.')[1] + (route.aliasOf === undefined ? '' : `By${pathParams(route.path).map((p) => p[0].toUpperCase() + p.slice(1)).join('And')}`);

/** The OpenAPI form of an Express route path (`/songs/:id` → `/songs/{id}`). */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

const TAGS = [
  { name: 'songs', description: 'Worship songs' },
  { name: 'services', description: 'Church services (occasions), searched by date or song' },
  { name: 'setlists', description: 'Which songs were performed in a service, in order (PERFORMED_IN)' },
  { name: 'users', description: 'Accounts, roles and login' },
  { name: 'reports', description: 'Song-performance analytics: usage, rotation, new songs, songs sung often, timelines, artists' },
  { name: 'suggestions', description: 'What to sing at a service: songs with their scores and the reasons in words' },
  { name: 'webhooks', description: 'Endpoints the service POSTs change events to, signed by the Standard Webhooks specification; their delivery logs' },
];

function tagOf(route: RestRoute): string {
  if (/^\/services\/:serviceId\/songs/.test(route.path)) return 'setlists';
  if (route.aliasOf !== undefined) return tagOf({ ...route, path: route.aliasOf, aliasOf: undefined });
  return route.path.split('/')[1];
}

const json = (schema: unknown) => ({ 'application/json': { schema } });

/**
 * The Error body with one named example per error given, each exactly the body the service sends
 * for it (`restError`), so that each status shows its own code and message.
 */
/** Examples named by their code (a second of one code: CONFLICT_2, ...). */
const errorBody = (...errors: AppError[]) => ({
  'application/json': {
    schema: { $ref: '#/components/schemas/Error' },
    examples: Object.fromEntries(
      errors.map((e, i) => {
        const before = errors.slice(0, i).filter((o) => o.code === e.code).length;
        return [before === 0 ? e.code : `${e.code}_${before + 1}`, { value: restError(e).body }];
      }),
    ),
  },
});

/** Reusable error answers: every status the REST layer gives, with its codes and headers. */
const RESPONSES = {
  BadRequest: {
    description:
      '`BAD_REQUEST` (malformed JSON, a path or query parameter of the wrong form) or `VALIDATION_FAILED` (a value rule failed; `details` names each field)',
    content: errorBody(
      validationFailed([{ field: 'name', message: 'must not be empty' }]),
      new AppError('BAD_REQUEST', 'The request body is not valid JSON'),
    ),
  },
  Unauthenticated: {
    description: '`UNAUTHENTICATED`: the bearer token is missing, malformed, expired, wrongly signed or its user is gone',
    headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } },
    content: errorBody(new AppError('UNAUTHENTICATED', 'Authentication required: send Authorization: Bearer <token>')),
  },
  Forbidden: {
    description: '`FORBIDDEN`: the token is valid but its user lacks the privilege',
    content: errorBody(new AppError('FORBIDDEN', 'Not allowed')),
  },
  NotFound: {
    description: '`NOT_FOUND`: a record named in the path does not exist (on an unlink, also: the song is not linked)',
    content: errorBody(notFound('Song', 42)),
  },
  PayloadTooLarge: {
    description: '`PAYLOAD_TOO_LARGE`: the request body (on any method) is over 100 KiB',
    content: errorBody(new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${BODY_LIMIT}`)),
  },
  RateLimited: {
    description:
      '`RATE_LIMITED`: this client (its user, or its address when not signed in) has spent its request budget for the ' +
      'window; report routes and CSV cost more than other requests (docs/API.md, Rate limits). On login also: too many ' +
      'failed logins for this username from this address',
    headers: {
      'Retry-After': { $ref: '#/components/headers/RetryAfter' },
      'RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
      'RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
      'RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
    },
    content: errorBody(rateLimited({ allowed: false, limit: 3000, remaining: 0, resetSeconds: 42 })),
  },
  Internal: {
    description: '`INTERNAL`: a fault of the server; the message carries no internals',
    content: errorBody(new AppError('INTERNAL', 'Internal server error')),
  },
  Unavailable: {
    description: '`UNAVAILABLE`: the database cannot be reached; try again after `Retry-After` seconds',
    headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
    content: errorBody(new StoreUnavailableError()),
  },
};

const HEADERS = {
  Location: { description: 'The path of the new record, e.g. `/api/v1/songs/31`', schema: { type: 'string' } },
  XTotalCount: {
    description: 'How many records the whole list holds, whatever `limit` and `offset` cut from it',
    schema: { type: 'integer', minimum: 0 },
  },
  WWWAuthenticate: { description: 'Always `Bearer`', schema: { type: 'string' } },
  RetryAfter: { description: 'Seconds until the request may be tried again', schema: { type: 'integer', minimum: 0 } },
  RateLimitLimit: { description: "Points per window in this client's budget", schema: { type: 'integer', minimum: 1 } },
  RateLimitRemaining: { description: 'Points left in the current window', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'Seconds until the window ends and the budget is full again', schema: { type: 'integer', minimum: 1 } },
};

const ref = (name: keyof typeof RESPONSES) => ({ $ref: `#/components/responses/${name}` });

const PARAMETER_TEXT: Record<string, string> = {
  limit: `At most this many records (1–${MAX_PAGE}); without it the whole list`,
  offset: 'Skip this many records first (≥ 0)',
  id: 'The record id (a positive integer)',
  serviceId: 'A service id (a positive integer)',
  songId: 'A song id (a positive integer)',
  artist: 'An artist name; trimmed and compared ignoring case after Unicode NFC normalisation',
  date: 'Epoch milliseconds (an instant), `YYYY-MM-DD` (a whole day in the service time zone) or an ISO-8601 date-time with `Z` or an offset',
  from: 'Start, inclusive: epoch ms, `YYYY-MM-DD` (from the start of that day) or an ISO-8601 date-time',
  to: 'End, inclusive: epoch ms, `YYYY-MM-DD` (to the end of that day) or an ISO-8601 date-time',
  lastServices: `How many of the most recent services (of the types, up to \`to\`) to count: ${range(SUNG_OFTEN_PARAMETERS.lastServices)}`,
  moreThanPercent: `Songs sung in more than this percentage of those services: ${range(SUNG_OFTEN_PARAMETERS.moreThanPercent)}`,
};

/** Ranges of integer query parameters the resolvers check (a value outside is a 400). */
const PARAMETER_RANGES: Record<string, { minimum: number; maximum: number }> = {
  limit: { minimum: 1, maximum: MAX_PAGE },
  lastServices: SUNG_OFTEN_PARAMETERS.lastServices,
  moreThanPercent: SUNG_OFTEN_PARAMETERS.moreThanPercent,
};

/** Where a field's parameter means something of its own: its text and schema, over the ones above. */
const FIELD_PARAMETERS: Partial<Record<RootField, Record<string, { text: string; schema?: Record<string, unknown> }>>> = {
  'Query.suggestSongs': {
    serviceId: { text: 'The service to suggest songs for; or, for a service not yet created, `date` and `serviceType`' },
    date: { text: 'The day of a service not yet created: `YYYY-MM-DD` in the service time zone, or an instant within it' },
    serviceType: { text: 'The type of a service not yet created' },
    chosen: {
      text: `Ids of the songs already chosen, at most ${SUGGESTION_PARAMETERS.chosen.maximum}; for an existing service, its setlist when absent`,
      schema: { maxItems: SUGGESTION_PARAMETERS.chosen.maximum, items: { type: 'integer', format: 'int32', minimum: 1, maximum: INT_MAX } },
    },
    limit: {
      text: `At most this many suggestions: ${range(SUGGESTION_PARAMETERS.limit)}`,
      schema: { minimum: SUGGESTION_PARAMETERS.limit.minimum, maximum: SUGGESTION_PARAMETERS.limit.maximum },
    },
  },
};

/** Parameters that are dates (paths of /services/byDate, the reports' window): parseBound reads them. */
const DATE_PARAMETERS = new Set(['date', 'from', 'to']);

function describeParameters(op: Operation, field: RootField): void {
  const own = FIELD_PARAMETERS[field] ?? {};
  for (const p of op.parameters ?? []) {
    p.description ??= own[p.name]?.text ?? PARAMETER_TEXT[p.name];
    if (DATE_PARAMETERS.has(p.name) && p.schema?.type === 'string') p.schema.pattern = BOUND_PATTERN;
    // Ids, in the path or the query (`/reports/timeline?songId=`): positive GraphQL Ints.
    if ((p.in === 'path' || p.name.endsWith('Id')) && p.schema?.type === 'integer') Object.assign(p.schema, { minimum: 1, maximum: INT_MAX });
    if (PARAMETER_RANGES[p.name]) Object.assign(p.schema ?? {}, PARAMETER_RANGES[p.name]);
    if (p.name === 'offset') Object.assign(p.schema ?? {}, { minimum: 0 });
    if (own[p.name]?.schema) Object.assign(p.schema ?? {}, own[p.name].schema);
  }
  if (!op.parameters?.length) delete op.parameters;
}

/**
 * What a body's Timestamp accepts (src/graphql/scalars.ts): epoch ms, an ISO-8601 date-time or a day. The
 * scalar has one schema in SOFA, the answers' integer, with which a generated client refused the
 * date-time form docs/API.md documents.
 */
const TIMESTAMP_IN = {
  oneOf: [
    // The years 1900 to 2200, as parseTimestamp checks them.
    { ...TIMESTAMP_JSON, minimum: MIN_MS, maximum: MAX_MS },
    { type: 'string', pattern: SERVICE_DATE_TEXT_PATTERN },
  ],
  description:
    "Epoch milliseconds, an ISO-8601 date-time with `Z` or an offset, or a calendar day alone (`2026-11-29`, at the service type's usual time in the service's time zone); its calendar date in 1900–2200",
};

/**
 * SOFA lists every argument of a POST/PUT both as a query parameter and as a body field, path
 * parameters included. This API reads those arguments from the JSON body only (src/rest/input.ts),
 * and the path parameters from the path only. An empty `required` list is not valid OpenAPI 3.0.
 */
function describeBody(op: Operation, inPath: string[]): void {
  op.parameters = op.parameters?.filter((p) => p.in !== 'query');
  const schema = op.requestBody?.content?.['application/json']?.schema;
  if (!op.requestBody || !schema) return;
  for (const name of inPath) delete schema.properties?.[name];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (isDeepStrictEqual(property, TIMESTAMP_JSON)) schema.properties![name] = TIMESTAMP_IN;
  }
  schema.required = schema.required?.filter((name) => !inPath.includes(name));
  if (!schema.required?.length) delete schema.required;
  if (!Object.keys(schema.properties ?? {}).length) {
    delete op.requestBody;
    return;
  }
  op.requestBody.required = Boolean(schema.required?.length);
}

/**
 * The operation's value rule (the zod schema its resolver checks, src/domain/validation.ts) as
 * JSON Schema, merged into the body's properties or the query parameters it names: lengths,
 * patterns, ranges, array sizes and uniqueness are stated where the check is made, not restated.
 * A body date keeps TIMESTAMP_IN.
 */
function describeRule(op: Operation, rule: z.ZodObject): void {
  const stated = z.toJSONSchema(rule, { io: 'input', unrepresentable: 'any', target: 'openapi-3.0' }) as { properties?: Record<string, object> };
  const body = op.requestBody?.content?.['application/json']?.schema;
  for (const [name, constraint] of Object.entries(stated.properties ?? {})) {
    if (!Object.keys(constraint).length) continue;
    const property = body?.properties?.[name] as Record<string, unknown> | undefined;
    if (property) Object.assign(property, constraint);
    const parameter = op.parameters?.find((p) => p.in === 'query' && p.name === queryName(name));
    if (parameter?.schema) Object.assign(parameter.schema, constraint);
  }
}

/** OpenAPI 3.0 wants at least one entry in every `required` list (SOFA writes empty ones). */
function dropEmptyRequired(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (Array.isArray(record.required) && record.required.length === 0) delete record.required;
  for (const value of Object.values(record)) dropEmptyRequired(value);
}

/** Every status a route can answer besides its success, per docs/API.md and src/rest/router.ts. */
function errorResponses(route: RestRoute, op: Operation): Record<string, unknown> {
  const access = route.operation.access;
  const field = operationIdOf(route);
  const out: Record<string, unknown> = { '400': ref('BadRequest') };
  if (access !== 'public' || field === 'login') out['401'] = ref('Unauthenticated');
  if (access === 'admin' || access === 'adminOrSelf') out['403'] = ref('Forbidden');
  // A record named by id, in the path or the query (`/reports/timeline?songId=`), may not exist.
  const names = [...pathParams(route.path), ...(op.parameters ?? []).map((p) => p.name)];
  if (names.some((p) => p === 'id' || p.endsWith('Id'))) out['404'] = ref('NotFound');
  const conflicts = (route.operation as Partial<MutationOperation>).conflicts;
  if (conflicts) out['409'] = { description: `\`CONFLICT\`: ${conflicts.when}`, content: errorBody(...conflicts.examples) };
  // The router reads a JSON body on every method, if one is sent, before anything else.
  out['413'] = ref('PayloadTooLarge');
  // Any request may find its client over its rate limit (and login also counts failures).
  out['429'] = ref('RateLimited');
  out['500'] = ref('Internal');
  out['503'] = ref('Unavailable');
  return out;
}

function successResponse(route: RestRoute, op: Operation): [string, Record<string, unknown>] {
  if (route.status === 204) return ['204', { description: 'Done; no body' }];
  const status = route.status === 201 ? '201' : '200';
  const answer = (op.responses[status] ?? op.responses['200'] ?? {}) as Record<string, unknown>;
  // Every array answer carries X-Total-Count (src/rest/router.ts).
  const schema = (answer.content as Record<string, { schema?: { type?: string } }> | undefined)?.['application/json']?.schema;
  const isList = schema?.type === 'array';
  const headers: Record<string, unknown> = {};
  if (status === '201') headers.Location = { $ref: '#/components/headers/Location' };
  if (isList) headers['X-Total-Count'] = { $ref: '#/components/headers/XTotalCount' };
  const description = status === '201' ? 'Created' : isList ? 'The records, in the order stated' : 'OK';
  return [status, { ...answer, description, ...(Object.keys(headers).length ? { headers } : {}) }];
}

/**
 * The answer's schema allows null where the route's GraphQL field can answer null, except on a
 * single-record read, whose null answer is a 404 (src/rest/router.ts).
 */
function allowNullAnswer(route: RestRoute, answer: Record<string, unknown>, graphql: GraphQLSchema, schemas: Record<string, SchemaObject>) {
  const [root, name] = route.field.split('.');
  const type = (root === 'Query' ? graphql.getQueryType() : graphql.getMutationType())?.getFields()[name]?.type;
  const json = (answer.content as Record<string, { schema?: SchemaObject }> | undefined)?.['application/json'];
  if (!type || !json?.schema) return;
  json.schema = withNullability(json.schema, route.record && !isNonNullType(type) ? new GraphQLNonNull(type) : type, schemas);
}

const INFO_DESCRIPTION = `REST API v1 of the worship records service, derived by SOFA from the same GraphQL schema and
resolvers that serve \`/graphql\`. The users' reference is docs/API.md in the repository.

Every error is \`{"error":{"code","message","details"?}}\`. Besides the statuses listed per operation:
an unknown path answers 404 \`NOT_FOUND\`; a method a path does not have answers 405
\`METHOD_NOT_ALLOWED\` with an \`Allow\` header; \`OPTIONS\` (CORS preflight) answers 204.
A path that is not valid percent-encoded UTF-8 answers 400 \`BAD_REQUEST\` before any routing, on
any path and method.
Requests are rate limited per client (its user when signed in, otherwise its address) unless the
server runs with RATE_LIMIT=off: every answer then carries \`RateLimit-Limit\`,
\`RateLimit-Remaining\` and \`RateLimit-Reset\`, and a client over its budget gets 429
\`RATE_LIMITED\` with \`Retry-After\` (seconds) on any path and method; report routes and CSV cost
more points than other requests (docs/API.md, Rate limits).
Public operations need no token (a bad token on them is ignored); the others need
\`Authorization: Bearer <token>\` from \`POST /users/login\`.`;

/**
 * SOFA's generated OpenAPI document, completed with what only the REST layer knows: operation
 * names, summaries and tags, which routes need a bearer token, every status and header each route
 * answers, and the error shape; and with what SOFA leaves out of the schema `graphql`: which
 * fields can be null. SOFA's webhook routes for subscriptions are not served (the schema
 * has no subscriptions), so they are left out.
 */
export async function openApiDocument(sofa: SofaRouter, graphql: GraphQLSchema): Promise<unknown> {
  const res = await sofa.fetch(new Request(`http://sofa.internal${BASE_PATH}/openapi.json`));
  const doc = (await res.json()) as Document;
  for (const path of Object.keys(doc.paths)) {
    // SOFA's own are /webhook and /webhook/{id}; this service's endpoints live at /webhooks.
    if (path === '/webhook' || path.startsWith('/webhook/')) delete doc.paths[path];
  }
  doc.info = {
    ...doc.info,
    description: INFO_DESCRIPTION,
    license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
  };
  doc.tags = TAGS;
  // SOFA describes the root types as if they were records; REST has no such objects.
  delete doc.components.schemas.Query;
  delete doc.components.schemas.Mutation;
  const schemas = doc.components.schemas as Record<string, SchemaObject>;
  markNullableFields(schemas, graphql);
  doc.components.schemas.Error = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: {
            type: 'string',
            enum: Object.keys(ERROR_STATUS),
            example: 'NOT_FOUND',
          },
          message: { type: 'string', example: 'Song 42 does not exist' },
          details: {
            type: 'array',
            items: {
              type: 'object',
              required: ['field', 'message'],
              properties: { field: { type: 'string', example: 'name' }, message: { type: 'string', example: 'is required' } },
            },
          },
        },
      },
    },
  };
  doc.components.responses = RESPONSES;
  doc.components.headers = HEADERS;

  for (const route of ROUTES) if (route.aliasOf !== undefined) documentAlias(doc, route);
  for (const route of ROUTES) {
    // Paths are relative to the document's `servers: [{ url: BASE_PATH }]`, as SOFA writes them.
    const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    if (!op) continue;
    op.responses ??= {};
    if (route.method === 'POST' || route.method === 'PUT') describeBody(op, pathParams(route.path));
    else for (const p of op.parameters ?? []) if (p.in === 'query') describeQueryParameter(p, doc.components.schemas);
    if (route.operation.rule) describeRule(op, route.operation.rule);
    if (route.csv) describeCsv(op);
    describeParameters(op, route.field);
    op.operationId = operationIdOf(route);
    op.summary = route.operation.summary;
    if (!op.description) delete op.description;
    op.tags = [tagOf(route)];
    op.security = isPublic(route.field) ? [] : [{ bearerAuth: [] }];
    const [status, success] = successResponse(route, op);
    allowNullAnswer(route, success, graphql, schemas);
    op.responses = { [status]: success, ...errorResponses(route, op) };
  }
  dropEmptyRequired(doc);
  dropUnusedSchemas(doc);
  return doc;
}

/**
 * A route at a binding's `alsoAt` path: SOFA documents the field at its main path only, so the
 * operation is copied here, its path parameters moved from the query string into the path, and
 * the arguments it does not take dropped.
 */
function documentAlias(doc: Document, route: RestRoute): void {
  const method = route.method.toLowerCase();
  const main = doc.paths[openApiPath(route.aliasOf!)]?.[method];
  if (!main) return;
  const op = structuredClone(main);
  const inPath = pathParams(route.path);
  op.parameters = (op.parameters ?? []).flatMap((p) => {
    if (inPath.includes(p.name)) return [{ ...p, in: 'path', required: true }];
    return route.without?.includes(p.name) ? [] : [p];
  });
  (doc.paths[openApiPath(route.path)] ??= {})[method] = op;
}

/**
 * SOFA describes every type of the schema, including GraphQL-only ones (SetlistEntry, connections,
 * ...) that no REST operation answers; keep only the schemas some operation reaches.
 */
function dropUnusedSchemas(doc: Document): void {
  const schemas = doc.components.schemas;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const target = key === '$ref' && typeof value === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(value)?.[1] : undefined;
      if (target !== undefined) {
        if (!used.has(target)) {
          used.add(target);
          visit(schemas[target]);
        }
      } else visit(value);
    }
  };
  visit(doc.paths);
  visit(doc.components.responses);
  visit(doc.components.headers);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}
