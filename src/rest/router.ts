import cors from 'cors';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { AppError } from '../errors';
import { createContext, requestInfo, type AppDependencies } from '../graphql/context';
import { compileOperation, type Run } from '../graphql/jit';
import { decideAccess } from '../graphql/permissions';
import { bodyParserError, jsonBody } from '../http/body';
import { clientError, toAppError } from '../http/errors';
import { rejectUndecodablePaths } from '../http/path';
import { CORS_ALLOWED_HEADERS, corsExposedHeaders } from '../http/cors';
import type { RequestRateLimiter } from '../http/rate-limit';
import { oversize, sendJsonWithin } from '../http/response-size';
import { isAnalyticsField } from '../graphql/rate-limit';
import { sendError } from './errors';
import { songUsageCsv, wantsCsv } from './csv';
import { readArguments } from './input';
import { openApiDocument } from './openapi';
import { ROUTES, pathParams, type RestRoute } from './routes';
import { BASE_PATH, createSofaRouter, sofaOf, sofaOperation, type Sofa } from './sofa';

export const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, OPTIONS';

function fieldOf(schema: GraphQLSchema, route: RestRoute): GraphQLField<unknown, unknown> {
  const type = route.operation.root === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const field = type?.getFields()[route.operation.name];
  if (!field) throw new Error(`REST route ${route.method} ${route.path} names unknown field ${route.field}`);
  return field;
}

/** What each route needs per request, worked out once at startup. */
interface PreparedRoute extends RestRoute {
  args: GraphQLField<unknown, unknown>['args'];
  inPath: ReadonlySet<string>;
  hasBody: boolean;
  /** The operation SOFA derives from the route's field, compiled once; its variables are the field's arguments. */
  run: Run;
}

function prepare(sofa: Sofa, route: RestRoute): PreparedRoute {
  const all = fieldOf(sofa.schema, route).args;
  const document = sofaOperation(sofa, route);
  // The request's arguments, read by name (./input.ts), are the operation's variables as they are.
  const names = new Set(all.map((a) => a.name));
  for (const d of document.definitions) {
    for (const v of 'variableDefinitions' in d ? (d.variableDefinitions ?? []) : []) {
      if (!names.has(v.variable.name.value)) throw new Error(`SOFA's operation for ${route.field} has variable $${v.variable.name.value}, which is no argument of the field`);
    }
  }
  const run = compileOperation(sofa.schema, document);
  if (!run) throw new Error(`graphql-jit could not compile SOFA's operation for ${route.field}`);
  return {
    ...route,
    args: all.filter((a) => !route.without?.includes(a.name)),
    inPath: new Set(pathParams(route.path)),
    hasBody: route.method === 'POST' || route.method === 'PUT',
    run,
  };
}

function wantsCsvLeniently(req: Request): boolean {
  try {
    return wantsCsv(req);
  } catch {
    return false;
  }
}

/**
 * The CORS headers every /api/v1 answer carries, errors included (docs/API.md: Headers and CORS);
 * preflights are answered here.
 */
function restCors(corsOrigins: string[] | '*'): RequestHandler {
  const headers = cors({
    origin: corsOrigins,
    methods: ALLOWED_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: corsExposedHeaders('rest'),
    optionsSuccessStatus: 204,
    maxAge: 600,
  });
  return (req, res, next) => {
    res.set('Access-Control-Allow-Methods', ALLOWED_METHODS);
    headers(req, res, next);
  };
}

/**
 * REST API v1 as an Express router. Each route of the table is read strictly here (path ids, JSON
 * body types against the field's GraphQL argument types), access is decided here, once, the
 * operation SOFA derives from the route's field runs compiled on the shared resolvers, and its
 * answer is shaped to the contract and written once: statuses, Location, X-Total-Count, 404 for
 * unknown records, one JSON error shape. This module is the only place that knows REST.
 *
 * `schema` is the executable schema without graphql-shield (src/graphql/schema.ts): REST decides
 * each route's access itself, by the same rule and the same decision (`decideAccess`) that shield
 * applies on /graphql, and a route's operation reaches no other root field.
 */
export function createRestRouter(
  schema: GraphQLSchema,
  deps: AppDependencies,
  corsOrigins: string[] | '*',
  maxResponseBytes: number,
  /** Charges every request, and report routes and CSV their weight (docs/API.md, Rate limits); none when limits are off. */
  rateLimiter?: RequestRateLimiter,
) {
  const log: Logger = deps.log;
  const sofa = sofaOf(schema);
  const router = express.Router();

  // One chain for every route: CORS (preflights end here, uncharged) → rate limit → path check →
  // JSON body; then the route's own access decision, argument reading and operation.
  router.use(restCors(corsOrigins));
  if (rateLimiter) router.use(rateLimiter.middleware((_req, res, error) => sendError(res, error)));
  router.use(rejectUndecodablePaths(sendError));
  // Any content type is read as JSON: `curl -d '{...}'` sends form encoding by default, and a
  // body that is not JSON is answered as malformed either way.
  router.use(jsonBody(true));

  // SOFA's own router writes the document; it serves nothing else, so it is made on first ask.
  let openapi: Promise<unknown> | undefined;
  router.get('/openapi.json', async (_req, res, next) => {
    try {
      openapi ??= openApiDocument(createSofaRouter(sofa), schema);
      res.json(await openapi);
    } catch (err) {
      openapi = undefined;
      next(err);
    }
  });

  const prepared = ROUTES.map((r) => prepare(sofa, r));
  const methodsByPath = new Map<string, string[]>();
  for (const route of prepared) methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  // A known path with a method it does not have: 405, decided right after the path's own routes,
  // before any less specific path that also matches the URL (ROUTES runs most specific first), so
  // `PUT /users/me` is refused as a method of /users/me, not read as `PUT /users/:id` with id 'me'.
  const methodNotAllowed = (path: string) => {
    const methods = methodsByPath.get(path)!;
    router.all(path, (req, res) => {
      res.set('Allow', [...methods, 'OPTIONS'].join(', '));
      sendError(res, new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on this path; use ${methods.join(', ')}`));
    });
  };
  for (const [i, route] of prepared.entries()) {
    const { access, rule } = route.operation;

    const analytics = isAnalyticsField(route.field);
    router[route.method.toLowerCase() as 'get'](route.path, async (req: Request, res: Response, next: NextFunction) => {
      try {
        // Before any work: a client over its budget costs no report. A bad `format` is charged as
        // JSON and refused below.
        if (rateLimiter && analytics) {
          const policy = rateLimiter.policy;
          const weight = route.csv !== undefined && wantsCsvLeniently(req) ? policy.csvWeight : policy.analyticsWeight;
          if (!(await rateLimiter.chargeHeavy(res, weight))) return;
        }
        const graphqlContext = createContext(deps, requestInfo(req, res));
        // Who is asking comes before what is asked: no token and a bad body is a 401, not a 400.
        if (access !== 'public') {
          const verdict = await decideAccess(access, graphqlContext, Number(req.params.id));
          if (verdict !== true) throw verdict;
        }
        const values = readArguments(
          route.args,
          route.inPath,
          req.params as Record<string, string>,
          req.query as Record<string, unknown>,
          req.body,
          route.hasBody,
          rule,
        );
        // Asked before running the query, so a bad `format` costs nothing.
        const csv = route.csv !== undefined && wantsCsv(req);
        const result = await route.run(graphqlContext, values);
        // The first error is the one that stopped the operation; in the contract's terms already.
        const stopped = result.errors?.[0];
        if (stopped) return sendError(res, stopped);
        if (route.status === 204) {
          res.status(204).end();
          return;
        }
        const payload = result.data?.[route.operation.name] ?? null;
        if (payload === null && route.record) {
          sendError(res, new AppError('NOT_FOUND', `${route.record} ${values.id} does not exist`));
          return;
        }
        if (route.status === 201) {
          const collection = route.path.split('/')[1];
          res.status(201).location(`${BASE_PATH}/${collection}/${(payload as { id: number }).id}`);
        }
        // A list the resolver did not count is the whole answer (an unpaged list, a top-N).
        const total = graphqlContext.totalCounts.get(route.operation.name);
        if (Array.isArray(payload)) res.set('X-Total-Count', String(total ?? payload.length));
        // An answer over MAX_RESPONSE_BYTES is an error, and the error describes no list.
        const refuse = (error: AppError) => {
          res.removeHeader('X-Total-Count');
          sendError(res, error);
        };
        if (csv) {
          const csv = songUsageCsv(payload as never, values, deps.serviceTimeZone);
          const tooLarge = oversize(csv.body, maxResponseBytes);
          if (tooLarge) return refuse(tooLarge);
          res.type('text/csv; charset=utf-8').attachment(csv.fileName).send(csv.body);
          return;
        }
        sendJsonWithin(res, payload, maxResponseBytes, refuse);
      } catch (err) {
        next(err);
      }
    });
    if (prepared[i + 1]?.path !== route.path) methodNotAllowed(route.path);
  }

  router.use((req: Request, res: Response) => {
    sendError(res, new AppError('NOT_FOUND', `No such endpoint: ${req.method} ${BASE_PATH}${req.path}`));
  });

  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendError(res, bodyParserError(err) ?? clientError(err) ?? toAppError(err, log));
  });

  return router;
}
