/**
 * What the Insights page costs a first visitor on a slow phone connection: Chromium's own "Slow
 * 4G" profile (puppeteer's PredefinedNetworkConditions: 562.5 ms latency, 180 kB/s down), an
 * empty cache, the demo data. Counted from the browser's Resource Timing: bytes transferred
 * (compressed, headers excluded) and the time until the first chart has drawn its data.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PredefinedNetworkConditions, type Browser } from 'puppeteer-core';
import { describeWithBrowser, launchBrowser } from '../helpers/browser';
import { startDemoServer } from '../helpers/demo-server';
import type { TestServer } from '../helpers/server';

const ROOT = path.resolve(__dirname, '..', '..');
const MAX_TRANSFERRED = 400 * 1024;

describeWithBrowser('Insights page on Slow 4G (headless Chromium, demo data)', (chromiumPath) => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startDemoServer();
    browser = await launchBrowser(chromiumPath);
    // A server that has been up a moment: its charting bundle brotli-compressed at the highest
    // quality (done once, off the event loop, from startup).
    const src = /<script src="(\/insights\/assets\/echarts\.min\.js\?v=[^"]+)"/.exec((await server.raw('GET', '/insights')).text)![1];
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${server.url}${src}`, { headers: { 'accept-encoding': 'br' } });
      // Brotli first; gzip is made beside it and is ready by then too.
      if (Number(res.headers.get('content-length')) < 200_000) break;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  // The time to the first chart is measured and printed, not asserted: a timing is a benchmark's
  // figure (docs/performance.md has the runs), never a test's.
  test('a first visit transfers at most 400 KB, compressed, and draws a chart', async () => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    try {
      await page.setCacheEnabled(false);
      await page.emulateNetworkConditions(PredefinedNetworkConditions['Slow 4G']);
      await page.goto(`${server.url.replace('localhost', '127.0.0.1')}/insights?window=all`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      // The first chart with its data drawn: an ECharts instance on a [data-chart] with a series of points.
      const drawnAt = await page.waitForFunction(
        () => {
          const echarts = (window as any).echarts;
          if (!echarts) return false;
          for (const el of document.querySelectorAll('[data-chart]')) {
            const series = echarts.getInstanceByDom(el)?.getOption()?.series as { data?: unknown[] }[] | undefined;
            if (series?.some((s) => (s.data?.length ?? 0) > 0)) return performance.now();
          }
          return false;
        },
        { timeout: 60_000, polling: 50 },
      );
      const firstChartMs = (await drawnAt.jsonValue()) as number;
      await page.waitForFunction(() => document.body.dataset.pending === '0', { timeout: 60_000, polling: 100 });
      const resources = await page.evaluate(() =>
        [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].map((e) => {
          const r = e as PerformanceResourceTiming;
          return { start: Math.round(r.startTime), end: Math.round(r.responseEnd), name: r.name.replace(location.origin, ''), transferred: r.transferSize - (r.transferSize > r.encodedBodySize ? r.transferSize - r.encodedBodySize : 0), body: r.decodedBodySize, encoded: r.encodedBodySize };
        }),
      );
      if (process.env.INSIGHTS_LOAD_TIMELINE) for (const r of resources) console.log(`${r.start}\t${r.end}\t${r.encoded}\t${r.name.slice(0, 120)}`);
      const transferred = resources.reduce((n, r) => n + r.encoded, 0);
      const echarts = resources.find((r) => r.name.includes('echarts.min.js'))!;
      console.log(
        `Insights on Slow 4G: ${resources.length} requests, ${(transferred / 1024).toFixed(0)} KiB transferred ` +
          `(${(resources.reduce((n, r) => n + r.body, 0) / 1024).toFixed(0)} KiB uncompressed), first chart at ${Math.round(firstChartMs)} ms`,
      );
      // Compressed on the wire: the charting library is a fraction of its size.
      expect(echarts.encoded).toBeLessThan(echarts.body / 2);
      expect(transferred).toBeLessThanOrEqual(MAX_TRANSFERRED);
      expect(firstChartMs).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  }, 120_000);

  test('the charting library is asked for by its version and kept for a year; the page itself is revalidated', async () => {
    const page = await server.raw('GET', '/insights');
    const src = /<script src="(\/insights\/assets\/echarts\.min\.js\?v=[^"]+)"/.exec(page.text)?.[1];
    expect(src).toMatch(/\?v=[0-9a-f]{16}$/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const lib = await server.raw('GET', src!, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(lib.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(lib.headers.get('content-encoding')).toBe('br');
    // Asked for without the version (an old page), it is revalidated instead.
    expect((await server.raw('GET', '/insights/assets/echarts.min.js')).headers.get('cache-control')).toBe('public, max-age=0');
    // Every module of the page is preloaded from the page itself: no waterfall of import levels.
    const modules = fs.readdirSync(path.join(ROOT, 'public', 'insights', 'assets', 'js')).filter((f) => f.endsWith('.js') && f !== 'main.js');
    for (const m of modules) expect(page.text).toContain(`<link rel="modulepreload" href="/insights/assets/js/${m}">`);
    // Small answers are sent as they are.
    expect((await server.raw('GET', '/healthz', { headers: { 'accept-encoding': 'br, gzip' } })).headers.get('content-encoding')).toBeNull();
  });
});
