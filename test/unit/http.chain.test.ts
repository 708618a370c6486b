import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { chain } from '../../src/http/chain';

const req = {} as Request;
const res = {} as Response;

/** Runs the chain once; what was called, in order, and how it left. */
function run(handlers: RequestHandler[], onError?: ErrorRequestHandler): Promise<{ seen: string[]; out: unknown[] | undefined; handled: unknown }> {
  return new Promise((resolve) => {
    const seen: string[] = [];
    (req as unknown as { seen: string[] }).seen = seen;
    let handled: unknown;
    const errorHandler: ErrorRequestHandler | undefined = onError
      ? (err, rq, rs, next) => {
          handled = err;
          onError(err, rq, rs, next);
          resolve({ seen, out: undefined, handled });
        }
      : undefined;
    const out: NextFunction = (...args: unknown[]) => resolve({ seen, out: args, handled });
    chain(handlers, errorHandler)(req, res, out);
  });
}

const step =
  (name: string, then: (next: NextFunction) => unknown = (next) => next()): RequestHandler =>
  (rq, _rs, next) => {
    (rq as unknown as { seen: string[] }).seen.push(name);
    return then(next) as void;
  };

describe('chain', () => {
  it('runs every handler in order, then leaves by next()', async () => {
    const r = await run([step('a'), step('b'), step('c')]);
    expect(r.seen).toEqual(['a', 'b', 'c']);
    expect(r.out).toEqual([]);
  });

  it('stops where a handler answers without next', async () => {
    let answered = false;
    const pending = run([step('a'), step('b', () => (answered = true)), step('c')]);
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(true);
    void pending;
  });

  it.each([
    ['next(err)', (next: NextFunction) => next(new Error('boom'))],
    ['a throw', () => {
      throw new Error('boom');
    }],
    ['a rejected promise', async () => {
      throw new Error('boom');
    }],
  ])('leaves for the error handler on %s, skipping the rest', async (_name, then) => {
    const r = await run([step('a'), step('b', then), step('c')], (_err, _rq, _rs, _next) => undefined);
    expect(r.seen).toEqual(['a', 'b']);
    expect((r.handled as Error).message).toBe('boom');
  });

  it("passes an error on to Express's handling when it has no handler of its own", async () => {
    const r = await run([step('a', (next) => next(new Error('boom'))), step('b')]);
    expect(r.seen).toEqual(['a']);
    expect((r.out?.[0] as Error).message).toBe('boom');
  });

  it("treats 'route' and 'router' as leaving the chain, not as errors", async () => {
    for (const skip of ['route', 'router']) {
      const r = await run([step('a', (next) => next(skip)), step('b')], () => {
        throw new Error('not an error');
      });
      expect(r.seen).toEqual(['a']);
      expect(r.out).toEqual([]);
    }
  });
});
