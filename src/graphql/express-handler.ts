import { HeaderMap, type ApolloServer, type BaseContext, type HTTPGraphQLRequest } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';

/**
 * The query string of a request URL as Node's `url.parse(url).search` gives it (from the `?` to
 * any `#`, or empty), without parsing the rest of the URL: Apollo only reads it with
 * URLSearchParams, which decodes what `url.parse` would have percent-escaped.
 */
export function searchOf(url: string): string {
  const hash = url.indexOf('#');
  const end = hash < 0 ? url.length : hash;
  // A `?` inside the fragment starts no query string.
  const first = url.indexOf('?');
  return first < 0 || first >= end ? '' : url.slice(first, end);
}

/** Where Express's `res.send` stops measuring a string and encodes it once instead. */
const SMALL = 1000;

/**
 * A complete answer written as Express's `res.send(string)` writes it here, without the work that
 * has nothing to do on this path: Apollo set the Content-Type (a charset is added to one without,
 * as `res.send` does), ETags are off (src/app.ts), so without validators no answer is fresh (304),
 * and Apollo answers no 204. Measured in docs/performance.md.
 */
export function sendComplete(req: Request, res: Response, body: string): void {
  const type = res.getHeader('content-type');
  if (typeof type === 'string' && !/;\s*charset=/i.test(type)) res.setHeader('Content-Type', `${type}; charset=utf-8`);
  const chunk = body.length < SMALL ? body : Buffer.from(body, 'utf8');
  res.setHeader('Content-Length', typeof chunk === 'string' ? Buffer.byteLength(chunk, 'utf8') : chunk.length);
  if (req.method === 'HEAD') res.end();
  else res.end(chunk);
}

/**
 * Apollo Server on Express 5 through Apollo's integration API (`executeHTTPGraphQLRequest`, the
 * seam `@as-integrations/express5` is written on), doing what that package does per request less
 * its `url.parse` of every request URL, which was its costliest step (docs/performance.md). The
 * request's headers, method, query string and parsed body go to Apollo; its status, headers and
 * body come back as they are.
 */
export function apolloHandler<C extends BaseContext>(
  server: ApolloServer<C>,
  context: (req: Request, res: Response) => Promise<C>,
): RequestHandler {
  server.assertStarted('apolloHandler()');
  return async (req, res) => {
    if (!('body' in req)) {
      // A wiring mistake (no JSON parser in front), as the integration answers it.
      res.status(500).send('`req.body` is not set: mount a JSON body parser before the GraphQL handler.');
      return;
    }
    const headers = new HeaderMap();
    for (const name in req.headers) {
      const value = req.headers[name];
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const httpGraphQLRequest: HTTPGraphQLRequest = { method: req.method.toUpperCase(), headers, search: searchOf(req.url), body: req.body };
    const answer = await server.executeHTTPGraphQLRequest({ httpGraphQLRequest, context: () => context(req, res) });
    for (const [name, value] of answer.headers) res.setHeader(name, value);
    res.statusCode = answer.status || 200;
    if (answer.body.kind === 'complete') {
      sendComplete(req, res, answer.body.string);
      return;
    }
    // Incremental delivery (@defer): written as Apollo yields it.
    for await (const chunk of answer.body.asyncIterator) res.write(chunk);
    res.end();
  };
}
