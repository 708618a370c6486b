import { startTestServer, type TestServer } from '../helpers/server';

/** The explorer pages and the JSON index over HTTP; test/browser/browser.explorers.test.ts runs them. */

const CSP = "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;font-src 'self' data:;connect-src 'self';object-src 'none';base-uri 'self';form-action 'self';frame-ancestors 'self'";
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

test.each(['/', '/api/v1', '/api/v1/'])('%s answers a JSON index of every entry point', async (path) => {
  const res = await s.raw('GET', path);
  expect(res.status).toBe(200);
  expect(res.body.links).toEqual({
    rest: '/api/v1',
    docs: '/api/v1/docs',
    openapi: '/api/v1/openapi.json',
    graphql: '/graphql',
    graphiql: '/graphiql',
    insights: '/insights',
    plan: '/plan',
    health: '/healthz',
    ready: '/readyz',
  });
  for (const link of Object.values<string>(res.body.links)) {
    const url = link === '/graphql' ? '/graphql?query=%7B__typename%7D' : link;
    expect([link, (await s.raw('GET', url)).status]).toEqual([link, 200]);
  }
});

describe('GET / by content negotiation', () => {
  const INDEX = {
    name: 'worship-records',
    description: 'Records of worship songs and the church services they are sung in',
    links: {
      rest: '/api/v1',
      docs: '/api/v1/docs',
      openapi: '/api/v1/openapi.json',
      graphql: '/graphql',
      graphiql: '/graphiql',
      insights: '/insights',
      plan: '/plan',
      health: '/healthz',
      ready: '/readyz',
    },
  };

  test.each([
    ['Accept: */*, as curl and fetch send', '*/*'],
    ['Accept: application/json', 'application/json'],
    ['JSON preferred over HTML', 'application/json, text/html;q=0.9'],
  ])('%s gets the JSON index, exactly', async (_label, accept) => {
    const res = await s.raw('GET', '/', { headers: { accept } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('vary')).toMatch(/\bAccept\b/);
    expect(res.body).toEqual(INDEX);
  });

  test('a browser gets an HTML page linking Insights, the planning page, GraphiQL, Swagger UI and the OpenAPI document', async () => {
    const res = await s.raw('GET', '/', { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('vary')).toMatch(/\bAccept\b/);
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    const hrefs = [...res.text.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map(([, href, text]) => [text, href]);
    expect(hrefs).toEqual([
      ['Insights', '/insights'],
      ['Plan a service', '/plan'],
      ['GraphiQL', '/graphiql'],
      ['Swagger UI', '/api/v1/docs'],
      ['OpenAPI document', '/api/v1/openapi.json'],
      ['Liveness', '/healthz'],
      ['readiness', '/readyz'],
    ]);
    expect(res.text).toContain('docs/API.md');
    expect(res.text).not.toMatch(/https?:\/\//);
    for (const [, href] of hrefs) expect([href, (await s.raw('GET', href, { headers: { accept: BROWSER_ACCEPT } })).status]).toEqual([href, 200]);
  });

  test('/api/v1 stays JSON for a browser too: it is the REST API root', async () => {
    const res = await s.raw('GET', '/api/v1', { headers: { accept: BROWSER_ACCEPT } });
    expect(res.body).toEqual(INDEX);
  });
});

test.each([
  ['/api/v1/docs', 'text/html', 'swagger-ui-bundle.js'],
  ['/api/v1/docs/swagger-init.js', 'text/javascript', "url: '/api/v1/openapi.json'"],
  ['/api/v1/docs/swagger-ui-bundle.js', 'text/javascript', 'SwaggerUIBundle'],
  ['/graphiql', 'text/html', 'graphiql.min.js'],
  ['/graphiql/graphiql.min.js', 'text/javascript', 'GraphiQL'],
  ['/graphiql/react.production.min.js', 'text/javascript', 'React'],
  ['/graphiql/graphiql-init.js', 'text/javascript', "'/graphql'"],
])('%s is served by the process with a self-only CSP', async (path, type, content) => {
  const res = await s.raw('GET', path);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain(type);
  expect(res.headers.get('content-security-policy')).toBe(CSP);
  expect(res.text).toContain(content);
});

test('the pages name no other origin', async () => {
  for (const path of ['/api/v1/docs', '/graphiql', '/api/v1/docs/swagger-init.js', '/graphiql/graphiql-init.js']) {
    expect([path, (await s.raw('GET', path)).text]).not.toEqual([path, expect.stringMatching(/https?:\/\//)]);
  }
});

test('no other file of node_modules is reachable', async () => {
  for (const path of ['/api/v1/docs/package.json', '/graphiql/package.json', '/graphiql/..%2F..%2Fpackage.json']) {
    expect([path, (await s.raw('GET', path)).status]).toEqual([path, 404]);
  }
});

test('JSON answers still carry no CSP (the Sandbox page needs Apollo\'s CDN)', async () => {
  expect((await s.api('GET', '/songs')).headers.get('content-security-policy')).toBeNull();
});

describe('a browser opening /graphql', () => {
  test('outside production gets Apollo Sandbox', async () => {
    const res = await s.raw('GET', '/graphql', { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('apollo');
  });

  test('in production is sent to GraphiQL; API clients still reach GraphQL', async () => {
    const prod = await startTestServer({ NODE_ENV: 'production' });
    try {
      const res = await fetch(`${prod.url}/graphql`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/graphiql');
      const query = await prod.raw('GET', '/graphql?query=%7Bsongs%7Bid%7D%7D', { headers: { accept: BROWSER_ACCEPT } });
      expect(query.status).toBe(200);
      expect(query.body).toEqual({ data: { songs: [] } });
      expect((await prod.gql('{ songs { id } }')).body).toEqual({ data: { songs: [] } });
      expect((await prod.raw('GET', '/graphiql')).status).toBe(200);
    } finally {
      await prod.close();
    }
  });
});
