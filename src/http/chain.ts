import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run one after another as one Express layer, in the order given, with Express's
 * meaning of `next`: `next()` goes on to the next one, `next(err)` (or a throw, or a rejected
 * promise) leaves the chain for `onError`, or for Express's own error handling when there is none;
 * after the last one, `next()` leaves the chain. The path a request takes is the array, visible
 * where it is made.
 *
 * Why not an `express.Router`: a router matches every layer's path again and writes half a dozen
 * properties on the request per layer (`params`, `baseUrl`, `next`, its matched route), which made
 * the busiest request (a POST /graphql, some ten layers deep) spend a tenth of its CPU in the
 * router and left the request object too varied for V8 to keep its property writes fast, its JSON
 * parser's among them (docs/performance.md).
 */
export function chain(handlers: RequestHandler[], onError?: ErrorRequestHandler): RequestHandler {
  return (req: Request, res: Response, out: NextFunction) => {
    let i = 0;
    const fail = (err: unknown) => (onError ? onError(err, req, res, out) : out(err));
    const next: NextFunction = (err?: unknown) => {
      // 'route' and 'router' skip the rest of a route or router: here, the rest of the chain.
      if (err === 'route' || err === 'router') return out();
      // As Express: any other truthy value is an error.
      if (err) return void fail(err);
      const handler = handlers[i++];
      if (!handler) return out();
      try {
        const done: unknown = handler(req, res, next);
        if (done instanceof Promise) done.catch(fail);
      } catch (e) {
        fail(e);
      }
    };
    next();
  };
}
