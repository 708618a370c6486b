/**
 * What the Insights page costs a first visitor on a slow phone connection: Chromium's own "Slow
 * 4G" profile (puppeteer's PredefinedNetworkConditions: 562.5 ms latency, 180 kB/s down), an
 * empty cache, the demo data. Counted from the browser's Resource Timing: bytes transferred
 * (compressed, headers excluded) and the time until the first chart has drawn its data.
 */
import { PredefinedNetworkConditions, type Browser } from 'puppeteer-core';
import { describeWithBrowser, launchBrowser } from '../helpers/browser';
import { startDemoServer } from '../helpers/demo-server';
import type { TestServer } from '../helpers/server';

const MAX_TRANSFERRED = 400 * 1024;

describeWithBrowser('Insights page on Slow 4G (headless Chromium, demo data)', (chromiumPath) => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startDemoServer();
    browser = await launchBrowser(chromiumPath);
    // A server that has been up a moment: its charting bundles compressed at the highest settings
    // (done once, off the event loop, from startup; until then the middleware streams them).
    const page = (await server.raw('GET', '/insights')).text;
    for (const src of page.match(/\/insights\/assets\/echarts-[a-z]+\.js\?v=[0-9a-f]+/g)!) {
      for (let i = 0; i < 100; i++) {
        const res = await fetch(`${server.url}${src}`, { headers: { 'accept-encoding': 'br' } });
        await res.arrayBuffer();
        if (res.headers.get('content-length') !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
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
      const echarts = resources.filter((r) => /\/echarts-(first|core|more)\.js/.test(r.name));
      console.log(
        `Insights on Slow 4G: ${resources.length} requests, ${(transferred / 1024).toFixed(0)} KiB transferred ` +
          `(${(resources.reduce((n, r) => n + r.body, 0) / 1024).toFixed(0)} KiB uncompressed), first chart at ${Math.round(firstChartMs)} ms`,
      );
      // The charting library in its three parts (the second step once the first was in), each
      // compressed on the wire to a fraction of its size.
      expect(echarts.map((r) => /echarts-([a-z]+)/.exec(r.name)![1]).sort()).toEqual(['core', 'first', 'more']);
      // The page's own modules are one request (browsers hold six connections to a host).
      expect(resources.filter((r) => r.name.endsWith('.js') || r.name.includes('.js?')).map((r) => r.name.replace(/\?.*/, '')).sort()).toEqual(
        ['/insights/assets/echarts-core.js', '/insights/assets/echarts-first.js', '/insights/assets/echarts-more.js', '/insights/assets/insights.js'],
      );
      for (const part of echarts) expect(part.encoded).toBeLessThan(part.body / 2);
      expect(transferred).toBeLessThanOrEqual(MAX_TRANSFERRED);
      expect(firstChartMs).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  }, 120_000);

  test('the charting library is asked for by its version and kept for a year; the page itself is revalidated', async () => {
    const page = await server.raw('GET', '/insights');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const first = /<script type="module" src="(\/insights\/assets\/echarts-first\.js\?v=[0-9a-f]{16})"/.exec(page.text)?.[1];
    const core = /<link rel="modulepreload" href="(\/insights\/assets\/echarts-core\.js\?v=[0-9a-f]{16})"/.exec(page.text)?.[1];
    const more = /data-echarts-more="(\/insights\/assets\/echarts-more\.js\?v=[0-9a-f]{16})"/.exec(page.text)?.[1];
    expect([first, core, more].every(Boolean)).toBe(true);
    for (const src of [first!, core!, more!]) {
      const lib = await server.raw('GET', src, { headers: { 'accept-encoding': 'br, gzip' } });
      expect([src, lib.headers.get('cache-control')]).toEqual([src, 'public, max-age=31536000, immutable']);
      expect(lib.headers.get('content-encoding')).toBe('br');
      // Asked for without the version (an old page), it is revalidated instead.
      expect((await server.raw('GET', src.replace(/\?v=.*/, ''))).headers.get('cache-control')).toBe('public, max-age=0');
    }
    // Both steps import the core by the very URL the page preloads: one fetch of it, not two.
    for (const step of [first!, more!]) {
      const text = (await server.raw('GET', step)).text;
      expect(text).toContain(`"${core!.replace('/insights/assets/', './')}"`);
    }
    // The page's modules come as one file, by its version too (npm test holds it fresh).
    const bundle = /<script type="module" src="(\/insights\/assets\/insights\.js\?v=[0-9a-f]{16})"/.exec(page.text)?.[1];
    expect((await server.raw('GET', bundle!)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(page.text).not.toContain('/insights/assets/js/');
    // Small answers are sent as they are.
    expect((await server.raw('GET', '/healthz', { headers: { 'accept-encoding': 'br, gzip' } })).headers.get('content-encoding')).toBeNull();
  });
});
