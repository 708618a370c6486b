import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * helmet's headers (docs/API.md: Headers and CORS) as one middleware. With CSP off, everything
 * helmet sets is the same on every answer, so its twelve chained middlewares are run once here,
 * against a recording response, and each request gets the recorded headers in one loop. Should a
 * helmet option ever make a header depend on the request (it would have to read `req`, or answer
 * later than at once), this refuses to start rather than send a stale one.
 */
export function securityHeaders(options: Readonly<HelmetOptions>): RequestHandler {
  const set: [name: string, value: string][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => void set.push([name, String(value)]),
    removeHeader: (name: string) => void removed.push(name),
  };
  const noRequest = new Proxy({}, {
    get: (_target, key) => {
      throw new Error(`helmet read req.${String(key)}: its headers are not the same for every request`);
    },
  });
  let ran = false;
  helmet(options)(noRequest as never, recorder as never, (err?: unknown) => {
    if (err) throw err;
    ran = true;
  });
  if (!ran) throw new Error('helmet did not answer at once: its headers cannot be worked out ahead');
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}
