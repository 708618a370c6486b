import { ROUTES } from '../../src/rest/routes';
import type { Browser } from 'puppeteer-core';
import { describeWithBrowser, guardedPage, launchBrowser, screenshot, type GuardedPage } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The explorers in a real headless Chromium: they render, run a request, show its answer, load
 * nothing from any host but the service's own, and log no error (CSP violations included).
 */

jest.setTimeout(90_000);

describeWithBrowser('explorers in a real browser', (chromiumPath) => {
  let s: TestServer;
  let browser: Browser;
  let tab: GuardedPage;

  beforeAll(async () => {
    s = await startTestServer();
    const admin = await s.adminToken();
    await s.api('POST', '/songs', { token: admin, body: { name: 'Browser Hymn', artists: ['Headless'] } });
    browser = await launchBrowser(chromiumPath);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });
  beforeEach(async () => {
    tab = await guardedPage(browser);
  });
  afterEach(async () => {
    await tab.page.close();
  });

  function expectClean(): void {
    expect(tab.blocked).toEqual([]);
    expect([...new Set(tab.errors)]).toEqual([]);
  }

  test('a browser opening / gets a page of links, and its Insights link opens the Insights page', async () => {
    const { page } = tab;
    await page.goto(`${s.url}/`, { waitUntil: 'networkidle0' });
    expect(await page.title()).toBe('Worship records');
    const links = await page.$$eval('main a', (as) => as.map((a) => [a.textContent, new URL((a as HTMLAnchorElement).href).pathname]));
    expect(links).toEqual(
      expect.arrayContaining([
        ['Insights', '/insights'],
        ['GraphiQL', '/graphiql'],
        ['Swagger UI', '/api/v1/docs'],
      ]),
    );
    await screenshot(page, 'home');
    await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), page.click('main a[href="/insights"]')]);
    expect(new URL(page.url()).pathname).toBe('/insights');
    expect(await page.$eval('h1', (h) => h.textContent)).toMatch(/\S/);
    expectClean();
  });

  test('Swagger UI lists every operation, and "Try it out" on GET /songs shows the answer', async () => {
    const { page } = tab;
    await page.goto(`${s.url}/api/v1/docs`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('.opblock');
    expect(await page.$$eval('.opblock', (els) => els.length)).toBe(ROUTES.length);

    const block = '#operations-songs-songs';
    await page.click(`${block} .opblock-summary`);
    await page.waitForSelector(`${block} .try-out__btn`);
    await page.click(`${block} .try-out__btn`);
    await page.click(`${block} .execute`);
    await page.waitForSelector(`${block} .live-responses-table tbody .response-col_status`);
    const status = await page.$eval(`${block} .live-responses-table tbody .response-col_status`, (el) => el.textContent?.trim());
    const body = await page.$eval(`${block} .live-responses-table tbody .response-col_description`, (el) => el.textContent ?? '');
    await screenshot(page, 'swagger-ui-try-songs');
    expect(status).toBe('200');
    expect(body).toContain('Browser Hymn');
    expect(body).toMatch(/x-total-count: 1/i);
    expectClean();
  });

  test('Swagger UI shows each error status with its own example: 404 NOT_FOUND, 429 RATE_LIMITED, 503 UNAVAILABLE', async () => {
    const { page } = tab;
    await page.goto(`${s.url}/api/v1/docs`, { waitUntil: 'networkidle0' });
    const block = '#operations-songs-song';
    await page.waitForSelector(`${block} .opblock-summary`);
    await page.click(`${block} .opblock-summary`);
    await page.waitForSelector(`${block} .responses-table tr.response`);
    const shown = await page.$$eval(`${block} .responses-table tr.response`, (rows) =>
      rows.map((row) => [row.getAttribute('data-code'), row.querySelector('.microlight, pre')?.textContent ?? '']),
    );
    const example = (status: string) => shown.find(([code]) => code === status)?.[1] ?? '';
    expect(example('404')).toContain('"NOT_FOUND"');
    expect(example('429')).toContain('"RATE_LIMITED"');
    expect(example('429')).toContain('Too many requests');
    expect(example('503')).toContain('"UNAVAILABLE"');
    for (const status of ['429', '503']) expect([status, example(status).includes('NOT_FOUND')]).toEqual([status, false]);
    await screenshot(page, 'swagger-ui-error-examples');
    expectClean();
  });

  /** Replace GraphiQL's query by typing, as a user would, run it, and wait for `expected`. */
  async function runInGraphiQL(query: string, expected: string): Promise<string> {
    const { page } = tab;
    await page.waitForSelector('.graphiql-query-editor .CodeMirror');
    await page.click('.graphiql-query-editor .CodeMirror');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(query);
    const typed = await page.$eval('.graphiql-query-editor .CodeMirror', (el) => (el as any).CodeMirror.getValue());
    expect(typed).toBe(query);
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(
      (text: string) => (globalThis as any).document.querySelector('.graphiql-response')?.textContent?.includes(text),
      { timeout: 15_000 },
      expected,
    );
    return page.$eval('.graphiql-response', (el) => el.textContent ?? '');
  }

  test('GraphiQL runs a query typed into its editor and shows the answer', async () => {
    const { page } = tab;
    await page.goto(`${s.url}/graphiql`, { waitUntil: 'networkidle0' });
    const answer = await runInGraphiQL('{ songs { name artists } }', 'Browser Hymn');
    await screenshot(page, 'graphiql-songs');
    expect(answer).toContain('"artists"');
    expect(answer).toContain('Headless');
    expectClean();
  });

  test('in production, a browser on /graphql lands on GraphiQL, which runs queries without introspection', async () => {
    const prod = await startTestServer({ NODE_ENV: 'production' });
    try {
      const { page } = tab;
      await page.goto(`${prod.url}/graphql`, { waitUntil: 'networkidle0' });
      expect(new URL(page.url()).pathname).toBe('/graphiql');
      const answer = await runInGraphiQL('{ songs { id } }', '"songs"');
      await screenshot(page, 'graphiql-production');
      expect(answer.replace(/\s/g, '')).toContain('{"data":{"songs":[]}}');
      expect(tab.blocked).toEqual([]);
      // The only failure is the introspection query GraphiQL sends on load, refused in production.
      expect([...new Set(tab.errors)]).toEqual([
        `HTTP 400 ${prod.url}/graphql`,
        'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
      ]);
    } finally {
      await prod.close();
    }
  });
});
