import cors from 'cors';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { rulesByField } from '../domain/validation';
import { AppError } from '../errors';
import { createContext, type Services } from '../graphql/context';
import { accessOf, decideAccess, type Access } from '../graphql/permissions';
import { bodyParserError, jsonBody } from '../http/body';
import { clientError, toAppError } from '../http/errors';
import { rejectUndecodablePaths } from '../http/path';
import { RATE_LIMIT_HEADERS, type RequestRateLimiter } from '../http/rate-limit';
import { oversize, sendJsonWithin } from '../http/response-size';
import { isAnalyticsField } from '../graphql/rate-limit';
import { sendError } from './errors';
import { songUsageCsv, wantsCsv } from './csv';
import { readArguments } from './input';
import { openApiDocument } from './openapi';
import { ROUTES, pathParams, type RestRoute } from './routes';
import { BASE_PATH, createSofaRouter, takeAnswer, type SofaServerContext } from './sofa';

export const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, OPTIONS';

function fieldOf(schema: GraphQLSchema, route: RestRoute): GraphQLField<unknown, unknown> {
  const [typeName, fieldName] = route.field.split('.');
  const type = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const field = type?.getFields()[fieldName];
  if (!field) throw new Error(`REST route ${route.method} ${route.path} names unknown field ${route.field}`);
  return field;
}

/** What each route needs per request, worked out once at startup. */
interface PreparedRoute extends RestRoute {
  args: GraphQLField<unknown, unknown>['args'];
  access: Access;
  rule: (typeof rulesByField)[string] | undefined;
  inPath: ReadonlySet<string>;
  hasBody: boolean;
  /** The URL SOFA's handler reads its query parameters from (paging, on GET). */
  sofaUrl(values: Record<string, unknown>): string;
}

function prepare(schema: GraphQLSchema, route: RestRoute): PreparedRoute {
  const inPath = new Set(pathParams(route.path));
  const hasBody = route.method === 'POST' || route.method === 'PUT';
  const base = `http://sofa.internal${BASE_PATH}${route.path}`;
  return {
    ...route,
    args: fieldOf(schema, route).args,
    access: accessOf(route.field),
    rule: rulesByField[route.field],
    inPath,
    hasBody,
    sofaUrl(values) {
      if (hasBody) return base;
      // A list is a repeated parameter, which SOFA's query parser reads back as a list.
      const query = Object.keys(values)
        .filter((name) => !inPath.has(name))
        .flatMap((name) => [values[name]].flat().map((v) => `${name}=${encodeURIComponent(String(v))}`));
      return query.length ? `${base}?${query.join('&')}` : base;
    },
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
 * preflights are answered here. Also used for answers given before this router runs (a client
 * over its rate limit).
 */
export function restCors(corsOrigins: string[] | '*'): RequestHandler {
  const headers = cors({
    origin: corsOrigins,
    methods: ALLOWED_METHODS,
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposedHeaders: ['Location', 'X-Total-Count', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id', ...RATE_LIMIT_HEADERS],
    optionsSuccessStatus: 204,
    maxAge: 600,
  });
  return (req, res, next) => {
    res.set('Access-Control-Allow-Methods', ALLOWED_METHODS);
    headers(req, res, next);
  };
}

type SofaHandler = (request: unknown, context: SofaServerContext) => Promise<globalThis.Response>;

/**
 * SOFA's generated handler of each route. Express has already matched the route and read its
 * parameters, so the adapter calls the handler directly instead of sending a second request
 * through SOFA's own URL router; `__routes` is the fets router's public list of its routes.
 */
function sofaHandlers(sofa: ReturnType<typeof createSofaRouter>): Map<string, SofaHandler> {
  return new Map(sofa.__routes.map((r) => [`${r.method} ${r.path}`, r.handler as unknown as SofaHandler]));
}

/**
 * REST API v1 as an Express router. Each route of the table is read strictly here (path ids, JSON
 * body types against the field's GraphQL argument types), run through SOFA (which executes the
 * field's generated operation on the shared resolvers), and shaped to the contract: statuses,
 * Location, X-Total-Count, 404 for unknown records, one JSON error shape. This module is the only
 * place that knows REST.
 */
export function createRestRouter(
  schema: GraphQLSchema,
  services: Services,
  corsOrigins: string[] | '*',
  maxResponseBytes: number,
  /** Charges report routes and CSV their weight (docs/API.md, Rate limits); none when limits are off. */
  rateLimiter?: RequestRateLimiter,
) {
  const log: Logger = services.log;
  const sofa = createSofaRouter(schema, log);
  const router = express.Router();

  router.use(restCors(corsOrigins));
  router.use(rejectUndecodablePaths(sendError));
  // Any content type is read as JSON: `curl -d '{...}'` sends form encoding by default, and a
  // body that is not JSON is answered as malformed either way.
  router.use(jsonBody(true));

  let openapi: Promise<unknown> | undefined;
  router.get('/openapi.json', async (_req, res, next) => {
    try {
      openapi ??= openApiDocument(sofa, schema);
      res.json(await openapi);
    } catch (err) {
      openapi = undefined;
      next(err);
    }
  });

  const methodsByPath = new Map<string, string[]>();
  const handlers = sofaHandlers(sofa);
  for (const route of ROUTES.map((r) => prepare(schema, r))) {
    const handler = handlers.get(`${route.method} ${route.path}`);
    if (!handler) throw new Error(`SOFA made no handler for ${route.method} ${route.path}`);
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);

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
        const graphqlContext = createContext(services, {
          authorization: req.headers.authorization,
          clientAddress: req.ip ?? 'unknown',
        });
        // Who is asking comes before what is asked: no token and a bad body is a 401, not a 400.
        // Shield makes the same decision again when the operation runs.
        const verdict = await decideAccess(route.access, graphqlContext, Number(req.params.id));
        if (verdict !== true) throw verdict;
        const values = readArguments(
          route.args,
          route.inPath,
          req.params as Record<string, string>,
          req.query as Record<string, unknown>,
          req.body,
          route.hasBody,
          route.rule,
        );
        // Asked before running the query, so a bad `format` costs nothing.
        const csv = route.csv !== undefined && wantsCsv(req);
        const body = route.hasBody
          ? JSON.stringify(Object.fromEntries(Object.entries(values).filter(([k]) => !route.inPath.has(k))))
          : undefined;
        // What SOFA's handler reads of a request: its URL (query), matched params and JSON body.
        const request = {
          url: route.sofaUrl(values),
          params: req.params,
          body: body ?? null,
          text: async () => body ?? '',
        };
        const serverContext: SofaServerContext = { graphqlContext };
        const answer = await handler(request, serverContext);

        if (!answer.ok) {
          res.status(answer.status);
          answer.headers.forEach((value, name) => {
            if (name !== 'content-length') res.set(name, value);
          });
          res.send(await answer.text());
          return;
        }
        const payload = takeAnswer(graphqlContext);
        if (route.status === 204) {
          res.status(204).end();
          return;
        }
        if (payload === null && route.record) {
          sendError(res, new AppError('NOT_FOUND', `${route.record} ${values.id} does not exist`));
          return;
        }
        if (route.status === 201) {
          const collection = route.path.split('/')[1];
          res.status(201).location(`${BASE_PATH}/${collection}/${(payload as { id: number }).id}`);
        }
        // A list the resolver did not count is the whole answer (an unpaged list, a top-N).
        const total = graphqlContext.totalCounts.get(route.field.split('.')[1]);
        if (Array.isArray(payload)) res.set('X-Total-Count', String(total ?? payload.length));
        // An answer over MAX_RESPONSE_BYTES is an error, and the error describes no list.
        const refuse = (error: AppError) => {
          res.removeHeader('X-Total-Count');
          sendError(res, error);
        };
        if (csv) {
          const csv = songUsageCsv(payload as never, values, services.serviceTimeZone);
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
  }

  // A known path with a method it does not have.
  for (const [path, methods] of methodsByPath) {
    router.all(path, (req, res) => {
      res.set('Allow', [...methods, 'OPTIONS'].join(', '));
      sendError(res, new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on this path; use ${methods.join(', ')}`));
    });
  }

  router.use((req: Request, res: Response) => {
    sendError(res, new AppError('NOT_FOUND', `No such endpoint: ${req.method} ${BASE_PATH}${req.path}`));
  });

  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendError(res, bodyParserError(err) ?? clientError(err) ?? toAppError(err, log));
  });

  return router;
}
