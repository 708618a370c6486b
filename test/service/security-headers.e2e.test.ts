import type { AddressInfo } from 'node:net';
import express from 'express';
import helmet from 'helmet';
import { securityHeaders } from '../../src/http/security-headers';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The service sends helmet's headers, as helmet itself would send them with the service's options,
 * on every kind of answer (src/http/security-headers.ts runs helmet once and replays what it set).
 */

const OPTIONS = { contentSecurityPolicy: false, crossOriginEmbedderPolicy: false } as const;

/** The headers helmet alone puts on an answer, from a bare Express app running it. */
async function helmetsOwn(): Promise<Record<string, string>> {
  const app = express();
  app.use(helmet(OPTIONS));
  app.get('/', (_req, res) => {
    res.end();
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const reply = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const own: Record<string, string> = {};
    // Express's own headers are not helmet's.
    for (const [name, value] of reply.headers) if (!['date', 'connection', 'keep-alive', 'content-length', 'x-powered-by'].includes(name)) own[name] = value;
    return own;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

test('every answer carries exactly the headers helmet sets, and no X-Powered-By', async () => {
  const expected = await helmetsOwn();
  // What helmet 8 sends with CSP and COEP off: the comparison is not of two empty sets.
  expect(Object.keys(expected).length).toBeGreaterThanOrEqual(10);
  expect(expected['x-content-type-options']).toBe('nosniff');
  const answers = [
    await s.raw('GET', '/api/v1/songs'),
    await s.raw('GET', '/api/v1/songs/999999'),
    await s.raw('POST', '/graphql', { body: { query: '{ songs(limit: 1) { id } }' } }),
    await s.raw('GET', '/nowhere'),
    await s.raw('GET', '/healthz'),
  ];
  for (const reply of answers) {
    const sent = Object.fromEntries(Object.keys(expected).map((name) => [name, reply.headers.get(name)]));
    expect(sent).toEqual(expected);
    expect(reply.headers.get('x-powered-by')).toBeNull();
  }
});

test('an option that would make a header depend on the request is refused at startup', () => {
  const perRequest = { contentSecurityPolicy: { directives: { scriptSrc: [(req: { url?: string }) => `'nonce-${req.url}'`] } } };
  expect(() => securityHeaders(perRequest as never)).toThrow(/helmet read req\.url/);
});
