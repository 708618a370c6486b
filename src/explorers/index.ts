import express, { type Request, type Response } from 'express';
import helmet from 'helmet';
import { GRAPHIQL_FILES, SWAGGER_UI_FILES } from './assets';
import { homePage } from './home';
import { GRAPHIQL_CSS, GRAPHIQL_INIT, GRAPHIQL_PAGE, SWAGGER_UI_INIT, SWAGGER_UI_PAGE } from './pages';

export const DOCS_PATH = '/api/v1/docs';
export const GRAPHIQL_PATH = '/graphiql';
export const INSIGHTS_PATH = '/insights';
export const PLAN_PATH = '/plan';

/** Where everything is; answered at `/` and `/api/v1`. */
export const INDEX = {
  name: 'worship-records',
  description: 'Records of worship songs and the church services they are sung in',
  links: {
    rest: '/api/v1',
    docs: DOCS_PATH,
    openapi: '/api/v1/openapi.json',
    graphql: '/graphql',
    graphiql: GRAPHIQL_PATH,
    insights: INSIGHTS_PATH,
    plan: PLAN_PATH,
    health: '/healthz',
    ready: '/readyz',
  },
};

/**
 * The explorer pages load only what this process serves, so their CSP allows 'self' and nothing
 * else. `data:` images and fonts are the icons and fonts inlined in Swagger UI's and GraphiQL's
 * own stylesheets: they load from no origin at all.
 */
const explorerCsp = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'self'"],
  },
});

const ONE_DAY_MS = 24 * 60 * 60 * 1000;

function text(type: string, body: string) {
  return (_req: Request, res: Response) => {
    res.type(type).send(body);
  };
}

/**
 * One explorer: its page at the root, its start script and styles, and its package files. `limit`
 * charges each request it answers (a path it does not have is charged where it is answered).
 */
function explorerRouter(limit: express.RequestHandler, pageHtml: string, own: Record<string, [string, string]>, files: Record<string, string>) {
  const router = express.Router();
  router.get('/', limit, explorerCsp, text('html', pageHtml));
  for (const [name, [type, body]] of Object.entries(own)) router.get(`/${name}`, limit, explorerCsp, text(type, body));
  for (const [name, file] of Object.entries(files)) {
    router.get(`/${name}`, limit, explorerCsp, (_req, res, next) => {
      res.sendFile(file, { maxAge: ONE_DAY_MS }, (err) => err && next(err));
    });
  }
  return router;
}

const HOME_PAGE = homePage('Worship records', INDEX.description, INDEX.links);

/**
 * Swagger UI for the OpenAPI document and GraphiQL for /graphql, both served from npm packages
 * by this process (no CDN), plus the index. Served in production too: they add no capability
 * (the document and /graphql are public anyway); without introspection GraphiQL shows no schema
 * but still runs queries. `limit` (the request rate limit) charges each request answered here.
 */
export function mountExplorers(app: express.Express, limit: express.RequestHandler): void {
  app.get(['/', '/api/v1'], limit, (req, res, next) => {
    // A browser at `/` gets a page of links; every other client (no Accept, */*, JSON) the JSON
    // index, as before. The answer depends on Accept, so caches must key on it.
    res.vary('Accept');
    if (req.path === '/' && req.accepts(['application/json', 'text/html']) === 'text/html') {
      explorerCsp(req, res, (err?: unknown) => (err ? next(err) : void res.type('html').send(HOME_PAGE)));
      return;
    }
    res.json(INDEX);
  });
  app.use(DOCS_PATH, explorerRouter(limit, SWAGGER_UI_PAGE, { 'swagger-init.js': ['js', SWAGGER_UI_INIT] }, SWAGGER_UI_FILES));
  app.use(
    GRAPHIQL_PATH,
    explorerRouter(
      limit,
      GRAPHIQL_PAGE,
      { 'graphiql-init.js': ['js', GRAPHIQL_INIT], 'graphiql-page.css': ['css', GRAPHIQL_CSS] },
      GRAPHIQL_FILES,
    ),
  );
}

/**
 * Without Apollo's landing page (production, or introspection turned off), a browser opening
 * /graphql would get a 406 about its Accept header. Send it to GraphiQL instead; a GET that
 * carries a query, and every non-browser client, still reaches GraphQL.
 */
export function graphqlBrowserRedirect(req: Request, res: Response, next: express.NextFunction): void {
  const browsing = req.method === 'GET' && req.query.query === undefined && req.accepts(['application/json', 'text/html']) === 'text/html';
  if (!browsing) return next();
  res.redirect(303, GRAPHIQL_PATH);
}
