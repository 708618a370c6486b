/**
 * The Insights page in headless Chromium, on the demo data (`npm run seed` into a temp SQLite
 * file), against a real server. Every number the page shows is compared with what the GraphQL
 * API answers for the same window. Screenshots of each view go to test-artifacts/insights-*.png;
 * with INSIGHTS_DOCS_SCREENSHOT=1 (npm run screenshot:insights) the overview also goes to
 * docs/insights.png for the README.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { ARTIFACTS_DIR, describeWithBrowser, guardedPage, launchBrowser, type GuardedPage } from '../helpers/browser';
import { startTestServer, tempDbPath, type TestServer } from '../helpers/server';

const ROOT = path.resolve(__dirname, '..', '..');
const DOCS_SCREENSHOT = path.join(ROOT, 'docs', 'insights.png');

interface Usage {
  song: { id: number; name: string };
  timesSung: number;
  byServiceType: { serviceType: string; timesSung: number }[];
}

/** GraphQL arguments as literals, the way the page writes them. */
function args(a: Record<string, unknown>): string {
  const parts = Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${k === 'serviceTypes' ? `[${(v as string[]).join(', ')}]` : JSON.stringify(v)}`);
  return parts.length ? `(${parts.join(', ')})` : '';
}

describeWithBrowser('Insights page (headless Chromium, demo data)', (chromiumPath) => {
  let server: TestServer;
  let browser: Browser;
  let base: string;
  const pages: GuardedPage[] = [];

  async function api<T>(query: string): Promise<T> {
    const res = await server.gql(query);
    expect(res.body.errors).toBeUndefined();
    return res.body.data as T;
  }
  const topSongs = async (w: Record<string, unknown> = {}) =>
    (
      await api<{ songUsage: Usage[] }>(
        `{ songUsage${args({ ...w, limit: 15 })} { song { id name } timesSung byServiceType { serviceType timesSung } } }`,
      )
    ).songUsage;

  async function open(query = '', viewport = { width: 1280, height: 900 }, origin = base): Promise<GuardedPage> {
    const g = await guardedPage(browser);
    pages.push(g);
    await g.page.setViewport(viewport);
    // Still frames: the page turns chart animation off for users who ask for reduced motion.
    await g.page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]);
    await g.page.goto(`${origin}/insights${query}`, { waitUntil: 'load' });
    await settled(g.page);
    return g;
  }

  /** Every load answered (the page counts loads in flight on body[data-pending]). */
  const settled = (page: Page) =>
    // Polling by interval: animation frames (the default) never come in a background tab.
    page.waitForFunction(() => document.body.dataset.pending === '0', { timeout: 15_000, polling: 50 });

  /** A real mouse click, with the target scrolled clear of the sticky controls bar first. */
  async function click(page: Page, sel: string) {
    await page.$eval(sel, (e) => e.scrollIntoView({ block: 'center' }));
    await page.click(sel);
  }

  const text = (page: Page, sel: string) => page.$eval(sel, (e) => (e.textContent ?? '').trim());

  /** The first data row of a view's table: cell texts. */
  const tableRows = (page: Page, view: string) =>
    page.$$eval(`[data-table="${view}"] tbody tr`, (rows) =>
      rows.map((r) => [...r.children].map((c) => (c.textContent ?? '').trim())),
    );

  /** The chart's drawn series data, from ECharts itself. */
  const chartSeries = (page: Page, view: string) =>
    page.$eval(`[data-chart="${view}"]`, (el) => {
      const chart = (window as any).echarts.getInstanceByDom(el);
      return (chart.getOption().series as { name: string; data: unknown[] }[]).map((s) => ({ name: s.name, data: s.data }));
    });

  const chartSize = (page: Page, view: string) =>
    page.$eval(`[data-chart="${view}"] canvas`, (c) => {
      const r = c.getBoundingClientRect();
      return { width: r.width, height: r.height };
    });

  async function shoot(g: GuardedPage, name: string, selector?: string) {
    fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const file = path.join(ARTIFACTS_DIR, `insights-${name}.png`);
    if (selector) {
      const el = await g.page.$(selector);
      await el!.screenshot({ path: file as `${string}.png` });
    } else {
      await g.page.screenshot({ path: file as `${string}.png`, fullPage: true });
    }
    return file;
  }

  function expectClean(g: GuardedPage) {
    expect(g.errors).toEqual([]);
    expect(g.blocked).toEqual([]);
  }

  beforeAll(async () => {
    const dbPath = tempDbPath();
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/seed.ts'], {
      cwd: ROOT,
      env: { ...process.env, SQLITE_PATH: dbPath, STORE: 'sqlite', LOG_LEVEL: 'silent' },
      stdio: 'pipe',
    });
    // The suite opens the page and changes its view faster than a person does (about 3,300 points
    // in its first minute, over the default 3,000): a budget it cannot spend, the limiter still on.
    server = await startTestServer({ SQLITE_PATH: dbPath, RATE_LIMIT_POINTS: '30000' });
    // The request guard lets 127.0.0.1 through only.
    base = server.url.replace('localhost', '127.0.0.1');
    browser = await launchBrowser(chromiumPath);
  }, 120_000);

  afterAll(async () => {
    for (const g of pages) await g.page.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
  });

  it('serves the page with a strict same-origin CSP and its assets from the host', async () => {
    const page = await server.raw('GET', '/insights');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.text).not.toMatch(/https?:\/\//);
    for (const asset of ['echarts-first.js', 'echarts-core.js', 'echarts-more.js', 'js/main.js', 'insights.css', 'favicon.svg']) {
      const res = await server.raw('GET', `/insights/assets/${asset}`);
      expect(res.status).toBe(200);
      // Revalidated, not cached blind (fetch itself will not send a conditional GET: curl does).
      expect(res.headers.get('cache-control')).toBe('public, max-age=0');
      expect(res.headers.get('etag')).toBeTruthy();
    }
    const missing = await server.raw('GET', '/insights/assets/nope.js');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  it('draws every view on all-time demo data, with the API numbers, no console errors and no off-host request', async () => {
    const g = await open('?window=all');
    const { page } = g;
    const api = await topSongs();
    expect(api.length).toBeGreaterThan(0);

    expect(await text(page, '[data-view="top"] .summary')).toContain(
      `Most sung: ${api[0].song.name}, ${api[0].timesSung} time`,
    );
    const rows = await tableRows(page, 'top');
    expect(rows.map((r) => [r[0], Number(r[1])])).toEqual(api.map((u) => [u.song.name, u.timesSung]));

    for (const view of ['top', 'timeline', 'often', 'rotation', 'new', 'pairs']) {
      const size = await chartSize(page, view);
      expect(size.width).toBeGreaterThan(100);
      expect(size.height).toBeGreaterThan(100);
    }
    // Screen readers hear the summary, not ECharts' raw data tuples.
    expect(await page.$eval('[data-chart="top"]', (e) => e.getAttribute('aria-label'))).toContain(
      `Most sung: ${api[0].song.name}`,
    );
    await shoot(g, 'overview');
    if (process.env.INSIGHTS_DOCS_SCREENSHOT) {
      // The README shows the page as it opens: the last 12 months.
      const first = await open('', { width: 1280, height: 900 });
      await first.page.screenshot({ path: DOCS_SCREENSHOT as `${string}.png`, fullPage: true });
      expectClean(first);
      // Screenshots wait for frames, which a tab behind another never draws.
      await page.bringToFront();
    }
    for (const [view, sel] of [
      ['top', '[data-view="top"]'],
      ['timeline', '[data-view="timeline"]'],
      ['often', '[data-view="often"]'],
      ['rotation', '[data-view="rotation"]'],
      ['new', '[data-view="new"]'],
      ['pairs', '[data-view="pairs"]'],
    ]) {
      await shoot(g, view, sel);
    }
    expectClean(g);
  });

  it('lists new songs newest first: the chart keeps the newest and the summary names the first row', async () => {
    const g = await open('?window=all');
    const { page } = g;
    const fresh = (await api<{ newSongs: { song: { name: string }; firstSung: number }[] }>('{ newSongs { song { name } firstSung } }')).newSongs;
    // All time: every sung song is "new", more than the chart draws.
    expect(fresh.length).toBeGreaterThan(30);
    expect(fresh[0].firstSung).toBeGreaterThan(fresh[fresh.length - 1].firstSung);
    expect((await tableRows(page, 'new')).map((r) => r[0])).toEqual(fresh.map((r) => r.song.name));
    const drawn = await page.$eval('[data-chart="new"]', (el) =>
      (window as any).echarts.getInstanceByDom(el).getOption().yAxis[0].data as string[],
    );
    expect(drawn).toEqual(fresh.slice(0, drawn.length).map((r) => r.song.name));
    const summary = await text(page, '[data-view="new"] .summary');
    expect(summary).toContain(`the latest: ${fresh[0].song.name}`);
    expect(summary).toContain(`The chart shows the newest ${drawn.length}`);
    expectClean(g);
  });

  it('each table alternative shows the numbers its chart draws', async () => {
    const g = await open('?window=all');
    const { page } = g;
    const numbers = (rows: string[][], col: number) => rows.map((r) => Number(r[col]));

    // Top songs: one stacked series per service type; the table has the total and each type.
    const top = await chartSeries(page, 'top');
    const topRows = await tableRows(page, 'top');
    top.forEach((s, i) => expect(s.data).toEqual(numbers(topRows, 2 + i)));
    expect(topRows.map((r) => Number(r[1]))).toEqual(
      topRows.map((_, row) => top.reduce((sum, s) => sum + (s.data[row] as number), 0)),
    );

    const timeline = await chartSeries(page, 'timeline');
    const timelineRows = await tableRows(page, 'timeline');
    // A partial bucket is a marked data item: { value, ... }.
    const values = (data: unknown[]) => data.map((d) => (d && typeof d === 'object' ? (d as { value: number }).value : d));
    expect(values(timeline[0].data)).toEqual(numbers(timelineRows, 1));
    expect(timeline[1].data).toEqual(numbers(timelineRows, 2));

    const fresh = await chartSeries(page, 'new');
    const newRows = await tableRows(page, 'new');
    expect(fresh[0].data).toEqual(numbers(newRows, 2).slice(0, fresh[0].data.length));

    // Pairs: every table row is a cell of the heat map ([x, y, together]), both ways round.
    const cells = (await chartSeries(page, 'pairs'))[0].data as [number, number, number][];
    const names = await page.$eval('[data-chart="pairs"]', (el) =>
      (window as any).echarts.getInstanceByDom(el).getOption().yAxis[0].data as string[],
    );
    const pairRows = await tableRows(page, 'pairs');
    expect(pairRows.length).toBeGreaterThan(0);
    for (const [a, b, together] of pairRows) {
      const [i, j] = [names.indexOf(a), names.indexOf(b)];
      expect(cells.find(([x, y]) => x === j && y === i)?.[2]).toBe(Number(together));
      expect(cells.find(([x, y]) => x === i && y === j)?.[2]).toBe(Number(together));
    }

    // The timeline by week, and the rotation over 4 weeks: the URL says so, the numbers are the API's.
    await page.select('select[name="bucket"]', 'WEEK');
    await settled(page);
    expect(new URL(page.url()).searchParams.get('bucket')).toBe('WEEK');
    const weeks = (
      await api<{ usageTimeline: { services: number; distinctSongs: number }[] }>(
        '{ usageTimeline(bucket: WEEK) { services distinctSongs } }',
      )
    ).usageTimeline;
    expect((await tableRows(page, 'timeline')).map((r) => [Number(r[1]), Number(r[2])])).toEqual(
      weeks.map((b) => [b.services, b.distinctSongs]),
    );
    await page.$eval('input[name="weeks"]', (el) => {
      (el as HTMLInputElement).value = '4';
      el.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await settled(page);
    expect(new URL(page.url()).searchParams.get('weeks')).toBe('4');
    const today = new Date().toISOString().slice(0, 10); // the test server's zone is UTC
    const cutoff = new Date(Date.parse(today) - 28 * 86_400_000).toISOString().slice(0, 10);
    const rotation = (
      await api<{ songsNotSungSince: { song: { name: string } }[] }>(
        `{ songsNotSungSince(date: "${cutoff}") { song { name } } }`,
      )
    ).songsNotSungSince;
    expect((await tableRows(page, 'rotation')).map((r) => r[0])).toEqual(rotation.map((r) => r.song.name));

    // The toggle swaps the chart for the table, and back.
    await click(page, '[data-view="top"] .table-toggle');
    expect(await page.$eval('[data-table="top"]', (e) => (e as HTMLElement).hidden)).toBe(false);
    expect(await page.$eval('[data-chart="top"]', (e) => (e as HTMLElement).hidden)).toBe(true);
    expect(await page.$eval('[data-view="top"] .table-toggle', (e) => e.getAttribute('aria-pressed'))).toBe('true');
    await shoot(g, 'table', '[data-view="top"]');
    await click(page, '[data-view="top"] .table-toggle');
    expect(await page.$eval('[data-chart="top"]', (e) => (e as HTMLElement).hidden)).toBe(false);
    expectClean(g);
  });

  it('opens on the last 12 months (no window in the URL); all time is ?window=all', async () => {
    const g = await open();
    const { page } = g;
    // The test server's zone is UTC: today, and the day after the same date a year ago.
    const now = new Date();
    // (29 February a year back is the 28th.)
    const lastDay = new Date(Date.UTC(now.getUTCFullYear() - 1, now.getUTCMonth() + 1, 0)).getUTCDate();
    const yearAgo = new Date(Date.UTC(now.getUTCFullYear() - 1, now.getUTCMonth(), Math.min(now.getUTCDate(), lastDay) + 1));
    const [from, to] = [yearAgo.toISOString().slice(0, 10), now.toISOString().slice(0, 10)];
    expect(await page.$eval('select[name="preset"]', (e) => (e as HTMLSelectElement).value)).toBe('12m');
    expect(await page.$eval('input[name="from"]', (e) => (e as HTMLInputElement).value)).toBe(from);
    expect(await page.$eval('input[name="to"]', (e) => (e as HTMLInputElement).value)).toBe(to);
    expect(new URL(page.url()).search).toBe('');
    const year = await topSongs({ from, to });
    expect((await tableRows(page, 'top')).map((r) => [r[0], Number(r[1])])).toEqual(year.map((u) => [u.song.name, u.timesSung]));

    await page.select('select[name="preset"]', 'all');
    await settled(page);
    expect(new URL(page.url()).search).toBe('?window=all');
    const all = await topSongs();
    expect((await tableRows(page, 'top')).map((r) => [r[0], Number(r[1])])).toEqual(all.map((u) => [u.song.name, u.timesSung]));

    // A reload keeps all time; back to the default, the URL is clean again.
    const again = await open('?window=all');
    expect(await again.page.$eval('select[name="preset"]', (e) => (e as HTMLSelectElement).value)).toBe('all');
    expect(await again.page.$eval('input[name="from"]', (e) => (e as HTMLInputElement).value)).toBe('');
    await page.bringToFront();
    await page.select('select[name="preset"]', '12m');
    await settled(page);
    expect(new URL(page.url()).search).toBe('');
    expectClean(g);
    expectClean(again);
  });

  it('changing the window and the service types changes the URL and the numbers, and a reload keeps them', async () => {
    const g = await open('?window=all');
    const { page } = g;
    const allTime = await text(page, '[data-view="top"] .summary');

    // The last month of the demo history, as a custom window.
    const last = (await api<{ songUsage: { lastSung: number }[] }>('{ songUsage(sort: LAST_SUNG, limit: 1) { lastSung } }'))
      .songUsage[0].lastSung;
    const to = new Date(last).toISOString().slice(0, 10);
    const fromDate = new Date(last);
    fromDate.setUTCMonth(fromDate.getUTCMonth() - 1);
    const from = fromDate.toISOString().slice(0, 10);

    // Date inputs type by locale; set the value and fire the change the browser would.
    for (const [name, value] of [['from', from], ['to', to]]) {
      await page.$eval(
        `input[name="${name}"]`,
        (el, v) => {
          (el as HTMLInputElement).value = v as string;
          el.dispatchEvent(new Event('change', { bubbles: true }));
        },
        value,
      );
      await settled(page);
    }
    let url = new URL(page.url());
    expect(url.searchParams.get('from')).toBe(from);
    expect(url.searchParams.get('to')).toBe(to);
    expect(await page.$eval('select[name="preset"]', (e) => (e as HTMLSelectElement).value)).toBe('custom');

    const windowed = await topSongs({ from, to });
    expect(await text(page, '[data-view="top"] .summary')).toContain(
      `Most sung: ${windowed[0].song.name}, ${windowed[0].timesSung} time`,
    );
    expect(await text(page, '[data-view="top"] .summary')).not.toBe(allTime);

    // Sunday mornings only.
    await click(page, 'input[name="serviceType"][value="SUN_PM"]');
    await settled(page);
    await click(page, 'input[name="serviceType"][value="WED"]');
    await settled(page);
    url = new URL(page.url());
    expect(url.searchParams.getAll('serviceType')).toEqual(['SUN_AM']);
    const morning = await topSongs({ from, to, serviceTypes: ['SUN_AM'] });
    const rows = await tableRows(page, 'top');
    expect(rows.map((r) => [r[0], Number(r[1])])).toEqual(morning.map((u) => [u.song.name, u.timesSung]));
    const windowedSummary = await text(page, '[data-view="top"] .summary');

    // Shareable: the same URL in a fresh page shows the same state and numbers.
    const again = await open(url.search);
    expect(await text(again.page, '[data-view="top"] .summary')).toBe(windowedSummary);
    expect(await again.page.$eval('input[name="from"]', (e) => (e as HTMLInputElement).value)).toBe(from);
    expect(
      await again.page.$$eval('input[name="serviceType"]:checked', (els) => els.map((e) => (e as HTMLInputElement).value)),
    ).toEqual(['SUN_AM']);

    await page.bringToFront();
    // The 3-month preset writes its dates: today and the day after the same date 3 months ago (UTC).
    await page.select('select[name="preset"]', '3m');
    await settled(page);
    const now = new Date();
    url = new URL(page.url());
    expect(url.searchParams.get('to')).toBe(now.toISOString().slice(0, 10));
    expect(url.searchParams.get('from')).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    // Back to all time through the preset: the dates leave the URL, which says all time.
    await page.select('select[name="preset"]', 'all');
    await settled(page);
    url = new URL(page.url());
    expect(url.searchParams.has('from')).toBe(false);
    expect(url.searchParams.has('to')).toBe(false);
    expect(url.searchParams.get('window')).toBe('all');
    await shoot(g, 'window');
    expectClean(g);
    expectClean(again);
  });

  it('marks the timeline buckets the window cuts short as partial, and only those', async () => {
    const marked = async (query: string) => {
      const g = await open(query);
      const rows = await tableRows(g.page, 'timeline');
      const bars = (await chartSeries(g.page, 'timeline'))[0].data as (number | { value: number; partial?: boolean })[];
      expectClean(g);
      return {
        page: g.page,
        table: rows.map((r) => /partial/.test(r[0])),
        chart: bars.map((b) => typeof b === 'object' && b.partial === true),
        values: bars.map((b) => (typeof b === 'object' ? b.value : b)),
        counts: rows.map((r) => Number(r[1])),
      };
    };
    // 10 January to 20 March: January and March are cut, February is whole (as the API says too).
    const months = await marked('?from=2026-01-10&to=2026-03-20&bucket=MONTH');
    expect(months.table).toEqual([true, false, true]);
    expect(months.chart).toEqual([true, false, true]);
    const cut = (await api<{ usageTimeline: { partial: boolean }[] }>('{ usageTimeline(from: "2026-01-10", to: "2026-03-20", bucket: MONTH) { partial } }'))
      .usageTimeline;
    expect(cut.map((b) => b.partial)).toEqual(months.chart);
    expect(months.values).toEqual(months.counts);
    expect(await text(months.page, '[data-view="timeline"] .summary')).toMatch(/partial/);
    // Whole months: nothing is partial.
    const whole = await marked('?from=2026-01-01&to=2026-03-31&bucket=MONTH');
    expect(whole.table).toEqual([false, false, false]);
    expect(whole.chart).toEqual([false, false, false]);
    expect(await text(whole.page, '[data-view="timeline"] .summary')).not.toMatch(/partial/);
    // Weeks from Wednesday 7 January (ISO weeks start on Monday) to Sunday 1 February.
    const weeks = await marked('?from=2026-01-07&to=2026-02-01&bucket=WEEK');
    expect(weeks.table).toEqual([true, false, false, false]);

    // The rule itself (the page's own module): an open start cuts nothing; an open end cuts only
    // the bucket under way on `today`; days are the service zone's.
    await weeks.page.evaluate("import('/insights/assets/js/buckets.js').then((m) => { window.insightsBuckets = m; })");
    const r = await weeks.page.evaluate(() => {
      const m = (window as any).insightsBuckets;
      const ny = (iso: string) => Date.parse(iso); // instants of New York midnights, written with their offset
      const starts = [ny('2026-09-01T00:00:00-04:00'), ny('2026-10-01T00:00:00-04:00'), ny('2026-11-01T00:00:00-04:00')];
      const whole = starts.map((start) => ({ start, partial: false }));
      const open = m.coverage(whole, 'MONTH', { from: null, to: null }, '2026-11-22', 'America/New_York');
      const past = m.coverage(whole, 'MONTH', { from: null, to: null }, '2027-01-05', 'America/New_York');
      return { open, past: past.map((c: { partial: boolean }) => c.partial), week: m.bucketDays(ny('2026-11-02T00:00:00-05:00'), 'WEEK', 'America/New_York') };
    });
    expect(r.open.map((c: { partial: boolean }) => c.partial)).toEqual([false, false, true]);
    expect(r.open[2]).toMatchObject({ first: '2026-11-01', last: '2026-11-30', from: '2026-11-01', to: '2026-11-22' });
    expect(r.past).toEqual([false, false, false]);
    expect(r.week).toEqual({ first: '2026-11-02', last: '2026-11-08' });
  });

  it('applies a typed date only when it is complete: no request for a half-typed year, no flash of a wrong window', async () => {
    const g = await open('?from=2026-01-01&to=2026-03-31');
    const { page } = g;
    const windows: string[] = [];
    page.on('request', (r) => {
      if (!r.url().endsWith('/graphql')) return;
      const query = JSON.parse(r.postData() ?? '{}').query as string;
      if (query.includes('songUsage')) windows.push(/from: "([^"]*)"/.exec(query)?.[1] ?? 'open');
    });
    // Every notice shown, however briefly.
    await page.evaluate(() => {
      const notice = document.querySelector('#notice') as HTMLElement;
      const seen: string[] = ((window as any).noticesSeen = []);
      new MutationObserver(() => {
        if (!notice.hidden && notice.textContent) seen.push(notice.textContent);
      }).observe(notice, { childList: true, subtree: true, attributes: true, characterData: true });
    });
    // The keys of a date in the order this browser's locale puts a date input's fields.
    const keysFor = (y: number, m: number, d: number) =>
      page.evaluate(
        (t) =>
          new Intl.DateTimeFormat(navigator.language, { timeZone: 'UTC', day: '2-digit', month: '2-digit', year: 'numeric' })
            .formatToParts(t)
            .filter((p) => p.type !== 'literal')
            .map((p) => p.value)
            .join(''),
        Date.UTC(y, m - 1, d),
      );

    // Typing 15 Feb 2025 passes through 0002-02-15, 0020-02-15 and 0202-02-15 on the way.
    await page.focus('input[name="from"]');
    await page.keyboard.type(await keysFor(2025, 2, 15), { delay: 60 });
    await page.waitForFunction(() => location.search.includes('from=2025-02-15'), { polling: 50, timeout: 10_000 });
    await settled(page);
    expect(windows).toEqual(['2025-02-15']);
    expect(await page.evaluate(() => (window as any).noticesSeen)).toEqual([]);

    // A finished window that ends before it starts is refused once, without a request.
    await page.focus('input[name="to"]');
    await page.keyboard.type(await keysFor(2024, 12, 31), { delay: 60 });
    await page.keyboard.press('Tab');
    await page.waitForFunction(() => !(document.querySelector('#notice') as HTMLElement).hidden, { polling: 50, timeout: 10_000 });
    // Days written as the date inputs write them: in the browser's language (American English here).
    expect(await page.evaluate(() => navigator.language)).toBe('en-US');
    expect(await text(page, '#notice')).toMatch(/cannot end \(Dec 31, 2024\) before it starts \(Feb 15, 2025\)/);
    expect(windows).toEqual(['2025-02-15']);
    expect(new URL(page.url()).searchParams.get('to')).toBe('2026-03-31');
    expect(g.errors).toEqual([]);
  });

  it("clicking a song's bar opens its story; the keyboard reaches it too", async () => {
    const g = await open('?window=all');
    const { page } = g;
    const [first, second] = await topSongs();

    // A real mouse click on the top bar, where ECharts drew it.
    const point = await page.$eval('[data-chart="top"]', (el) => {
      const chart = (window as any).echarts.getInstanceByDom(el);
      const [x, y] = chart.convertToPixel({ seriesIndex: 0 }, [0, 0]);
      const box = el.getBoundingClientRect();
      return { x: box.left + x + 8, y: box.top + y };
    });
    await page.mouse.click(point.x, point.y);
    await settled(page);
    expect(new URL(page.url()).searchParams.get('song')).toBe(String(first.song.id));
    expect(await page.$eval('#story', (e) => (e as HTMLElement).hidden)).toBe(false);
    expect(await text(page, '#story-h')).toBe(first.song.name);

    const usage = (
      await api<{ song: { usage: { timesSung: number; asOpener: number; asCloser: number } } }>(
        `{ song(id: ${first.song.id}) { usage { timesSung asOpener asCloser } } }`,
      )
    ).song.usage;
    const stats = await page.$$eval('#story .stats > div', (els) =>
      Object.fromEntries(els.map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent])),
    );
    expect(stats['Times sung']).toBe(String(usage.timesSung));
    expect(stats['Opened a service']).toMatch(new RegExp(`^${usage.asOpener} time`));
    expect(stats['Closed a service']).toMatch(new RegExp(`^${usage.asCloser} time`));
    for (const view of ['story-strip', 'story-with']) {
      const size = await chartSize(page, view);
      expect(size.width).toBeGreaterThan(100);
      expect(size.height).toBeGreaterThan(50);
    }
    const withApi = (
      await api<{ songsSungWith: { song: { name: string }; together: number }[] }>(
        `{ songsSungWith(songId: ${first.song.id}, limit: 10) { song { name } together } }`,
      )
    ).songsSungWith.filter((p) => p.together > 0);
    expect((await tableRows(page, 'story-with')).map((r) => [r[0], Number(r[1])])).toEqual(
      withApi.map((p) => [p.song.name, p.together]),
    );
    await shoot(g, 'story', '#story');

    // Keyboard: focus the top chart, move to the second song, Enter.
    await page.focus('[data-chart="top"]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await settled(page);
    expect(new URL(page.url()).searchParams.get('song')).toBe(String(second.song.id));
    expect(await text(page, '#story-h')).toBe(second.song.name);

    // The heat map too: the first arrow press lands on the strongest pair, Enter opens its first song.
    const strongest = await page.$eval('[data-table="pairs"] tbody tr [data-song-id]', (b) => b.getAttribute('data-song-id'));
    await page.focus('[data-chart="pairs"]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await settled(page);
    expect(new URL(page.url()).searchParams.get('song')).toBe(strongest);

    // A song named in a table opens its story as well; Close removes it from the URL.
    await click(page, '[data-view="top"] .table-toggle');
    await click(page, `[data-table="top"] [data-song-id="${first.song.id}"]`);
    await settled(page);
    expect(await text(page, '#story-h')).toBe(first.song.name);
    await click(page, '[data-action="close-story"]');
    await settled(page);
    expect(new URL(page.url()).searchParams.has('song')).toBe(false);
    expect(await page.$eval('#story', (e) => (e as HTMLElement).hidden)).toBe(true);
    expectClean(g);
  });

  it("the song story's first sung is the first time ever, with the window's count beside it", async () => {
    // A song introduced well before the window: its first time in the window is not its first time.
    const [, song] = await topSongs();
    type U = { timesSung: number; firstSung: number; lastSung: number };
    const ever = (await api<{ song: { usage: U } }>(`{ song(id: ${song.song.id}) { usage { timesSung firstSung lastSung } } }`)).song.usage;
    const from = new Date(ever.firstSung + 120 * 86_400_000).toISOString().slice(0, 10);
    const to = new Date(ever.lastSung).toISOString().slice(0, 10);
    const inWindow = (await api<{ song: { usage: U } }>(`{ song(id: ${song.song.id}) { usage(from: "${from}", to: "${to}") { timesSung firstSung } } }`)).song.usage;
    expect(inWindow.firstSung).toBeGreaterThan(ever.firstSung);

    const g = await open(`?from=${from}&to=${to}&song=${song.song.id}`);
    const { page } = g;
    const stats = await page.$$eval('#story .stats > div', (els) =>
      els.map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent] as [string, string]),
    );
    // Dates as the page writes them (the browser's language, the service zone: UTC here), in the browser's own ICU.
    const day = (ms: number) =>
      page.evaluate((t) => new Intl.DateTimeFormat(navigator.language, { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' }).format(t), ms);
    const labels = stats.map(([dt]) => dt);
    const at = labels.indexOf('First sung');
    expect(stats[at][1]).toBe(await day(ever.firstSung));
    expect(stats[at + 1]).toEqual(['Times sung in the window', String(inWindow.timesSung)]);
    expect(await text(page, '#story .story-note')).toMatch(/first and last sung are of all time/i);
    expectClean(g);
  });

  it('never cuts a song title mid-word on a chart axis, on a desktop or a phone', async () => {
    // Each category's drawn label, as ECharts laid it out (its lines are the text's TSpans).
    const drawn = (page: Page, view: string) =>
      page.$eval(`[data-chart="${view}"]`, (el) => {
        const chart = (window as any).echarts.getInstanceByDom(el);
        const option = chart.getOption();
        const names = [...option.yAxis, ...option.xAxis].filter((a: any) => a.type === 'category').flatMap((a: any) => a.data);
        const lines = new Map<unknown, string[]>();
        const outside: string[] = [];
        for (const e of chart.getZr().storage.getDisplayList(true)) {
          if (e.type !== 'tspan' || !e.parent) continue;
          lines.set(e.parent, [...(lines.get(e.parent) ?? []), String(e.style.text)]);
          // Drawn past the canvas edge, a label loses its first or last letters ("learer, My God").
          const box = e.getBoundingRect().clone();
          box.applyTransform(e.getComputedTransform());
          if (box.x < -0.5 || box.x + box.width > el.clientWidth + 0.5) outside.push(String(e.style.text));
        }
        return { names: names as string[], labels: [...lines.values()].map((l) => l.join(' ').trim()), outside };
      });
    const cutMidWord = ({ names, labels, outside }: { names: string[]; labels: string[]; outside: string[] }) => [
      ...outside.map((l) => `"${l}" drawn past the edge`),
      ...names.flatMap((name) => {
        // The labels that are (shortened) beginnings of this title; numbers are values, not titles.
        const shown = labels.filter((l) => !/^\d+$/.test(l)).map((l) => l.replace(/(\.\.\.|…)$/, '').trimEnd()).filter((l) => l && name.startsWith(l));
        if (!shown.length) return [`${name}: not drawn`];
        return shown.filter((l) => l.length < name.length && name[l.length] !== ' ').map((l) => `${name}: "${l}"`);
      }),
    ];
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const g = await open('?window=all&weeks=4&song=15', viewport);
      for (const view of ['top', 'often', 'rotation', 'new', 'pairs', 'story-with']) {
        expect([viewport.width, view, cutMidWord(await drawn(g.page, view))]).toEqual([viewport.width, view, []]);
      }
      expectClean(g);
    }
  });

  it('on a phone, every timeline label lies inside the chart, and the heat map names two-word titles whole', async () => {
    // The default window, as a phone opens the page (a report had its last month label clipped).
    const g = await open('', { width: 390, height: 844 });
    const labels = (view: string) =>
      g.page.$eval(`[data-chart="${view}"]`, (el) => {
        const chart = (window as any).echarts.getInstanceByDom(el);
        const out: { text: string; left: number; right: number }[] = [];
        for (const e of chart.getZr().storage.getDisplayList(true)) {
          if (e.type !== 'tspan') continue;
          const box = e.getBoundingRect().clone();
          box.applyTransform(e.getComputedTransform());
          out.push({ text: String(e.style.text), left: box.x, right: box.x + box.width });
        }
        return { width: el.clientWidth, out };
      });
    const timeline = await labels('timeline');
    const months = timeline.out.filter((l) => /^[A-Z][a-z]{2} \d{4}$/.test(l.text));
    expect(months.length).toBeGreaterThan(1);
    for (const l of months) expect([l.text, l.left >= -0.5 && l.right <= timeline.width + 0.5]).toEqual([l.text, true]);
    const pairs = (await labels('pairs')).out.map((l) => l.text);
    for (const title of ['Amazing Grace', 'In Christ Alone', 'Cornerstone']) if (pairs.some((t) => title.startsWith(t.replace(/…$/, '')))) expect(pairs).toContain(title);
    expect(pairs.filter((t) => t === 'Amazing Grace').length).toBe(2);
    await shoot(g, 'phone-timeline', '[data-chart="timeline"]');
    expectClean(g);
  });

  it('on a phone, the controls leave the first screen to the charts, and no legend covers a chart', async () => {
    const g = await open('', { width: 390, height: 844 });
    const { page } = g;
    const box = (sel: string) => page.$eval(sel, (e) => e.getBoundingClientRect().toJSON() as DOMRect);
    // The window and types read as one line; the top chart starts on the first screen.
    expect((await box('#controls')).height).toBeLessThan(844 * 0.15);
    expect((await box('[data-chart="top"]')).top).toBeLessThan(844 * 0.6);
    expect(await text(page, '#window-text')).toMatch(/^Last 12 months/);
    // One tap away, the controls work as on a desktop.
    await page.click('[data-action="toggle-controls"]');
    expect(await page.$eval('[data-action="toggle-controls"]', (b) => b.getAttribute('aria-expanded'))).toBe('true');
    await page.select('select[name="preset"]', 'all');
    await settled(page);
    expect(new URL(page.url()).search).toBe('?window=all');
    await shoot(g, 'phone-controls');

    // Every drawn element of a chart that is not its legend stays clear of the legend.
    const underLegend = (view: string) =>
      page.$eval(`[data-chart="${view}"]`, (el) => {
        const chart = (window as any).echarts.getInstanceByDom(el);
        const legend = chart.getViewOfComponentModel(chart.getModel().getComponent('legend')).group;
        const inLegend = (e: any) => {
          for (let p = e; p; p = p.parent) if (p === legend) return true;
          return false;
        };
        const rect = (e: any) => {
          const r = e.getBoundingRect().clone();
          r.applyTransform(e.getComputedTransform());
          return r;
        };
        const elements = chart.getZr().storage.getDisplayList(true).filter((e: any) => !e.invisible && !e.ignore);
        const legendBoxes = elements.filter(inLegend).map(rect);
        return elements
          .filter((e: any) => !inLegend(e))
          .filter((e: any) => legendBoxes.some((b: any) => b.intersect(rect(e))))
          .map((e: any) => `${e.type} ${String(e.style?.text ?? '')}`.trim());
      });
    for (const view of ['top', 'timeline']) expect([view, await underLegend(view)]).toEqual([view, []]);
    expectClean(g);
  });

  it('shows the songs sung in more than a chosen share of the last services (overuse at a glance), from the API', async () => {
    type Often = { services: number; songs: { song: { name: string }; timesSung: number; share: number }[] };
    const often = async (args: string) =>
      (await api<{ songsSungOften: Often }>(`{ songsSungOften(${args}) { services songs { song { name } timesSung share } } }`)).songsSungOften;
    const shown = async (page: Page) => ({
      rows: (await tableRows(page, 'often')).map((r) => [r[0], Number(r[1])]),
      bars: ((await chartSeries(page, 'often'))[0].data as number[]).map(Number),
    });

    // All time: the run ends at the latest service; the defaults are more than 50% of the last 12.
    const g = await open('?window=all');
    const { page } = g;
    const defaults = await often('lastServices: 12, moreThanPercent: 50');
    expect(defaults.songs.length).toBeGreaterThan(0);
    let seen = await shown(page);
    expect(seen.rows).toEqual(defaults.songs.map((s) => [s.song.name, s.timesSung]));
    expect(seen.bars).toEqual(defaults.songs.map((s) => Math.round(s.share * 100)));
    expect(await text(page, '[data-view="often"] .summary')).toMatch(
      new RegExp(`^${defaults.songs.length} songs? sung in more than 50% of the last 12 services`),
    );

    // A lower share and a longer run: in the URL, and the API's answer for them.
    for (const [name, value] of [['share', '25'], ['last', '24']]) {
      await page.$eval(
        `input[name="${name}"]`,
        (el, v) => {
          (el as HTMLInputElement).value = v as string;
          el.dispatchEvent(new Event('change', { bubbles: true }));
        },
        value,
      );
      await settled(page);
    }
    const url = new URL(page.url());
    expect([url.searchParams.get('share'), url.searchParams.get('last')]).toEqual(['25', '24']);
    const wider = await often('lastServices: 24, moreThanPercent: 25');
    expect(wider.songs.length).toBeGreaterThan(defaults.songs.length);
    seen = await shown(page);
    expect(seen.rows).toEqual(wider.songs.map((s) => [s.song.name, s.timesSung]));

    // A window's end ends the run, and its service types count.
    const dated = await open('?from=2025-01-01&to=2025-06-30&serviceType=SUN_AM&share=40&last=8');
    const then = await often('to: "2025-06-30", serviceTypes: [SUN_AM], lastServices: 8, moreThanPercent: 40');
    expect((await shown(dated.page)).rows).toEqual(then.songs.map((s) => [s.song.name, s.timesSung]));

    // Values it cannot use are explained and replaced by the defaults.
    const bad = await open('?share=100&last=0');
    expect(await text(bad.page, '#notice')).toContain('"100" is not a share');
    expect(await text(bad.page, '#notice')).toContain('"0" is not a number of services');
    expect(new URL(bad.page.url()).search).toBe('');
    expectClean(g);
    expectClean(dated);
    expectClean(bad);
  });

  it('names the pair score for people ("Together score"), with a one-line explanation', async () => {
    const g = await open('?window=all&song=1');
    const { page } = g;
    const pairs = (await api<{ songsSungWith: { song: { name: string }; jaccard: number }[] }>('{ songsSungWith(songId: 1, limit: 10) { song { name } jaccard } }'))
      .songsSungWith;
    for (const view of ['pairs', 'story-with']) {
      const headers = await page.$$eval(`[data-table="${view}"] thead th`, (ths) => ths.map((th) => (th.textContent ?? '').trim()));
      expect(headers).toContain('Together score');
      expect(headers.join(' ')).not.toMatch(/jaccard/i);
      const note = await text(page, `[data-table="${view}"] .table-note`);
      expect(note).toMatch(/^Together score: /);
      expect(note.split('\n')).toHaveLength(1);
    }
    const column = (await page.$$eval('[data-table="story-with"] thead th', (ths) => ths.map((th) => th.textContent))).indexOf('Together score');
    expect((await tableRows(page, 'story-with')).map((r) => r[column])).toEqual(pairs.map((p) => p.jaccard.toFixed(2)));
    expectClean(g);
  });

  it('reads on a phone: one column, no sideways scrolling, charts drawn', async () => {
    const g = await open('', { width: 390, height: 844 });
    const { page } = g;
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    for (const view of ['top', 'timeline', 'pairs']) {
      const size = await chartSize(page, view);
      expect(size.width).toBeGreaterThan(200);
      expect(size.width).toBeLessThanOrEqual(390);
    }
    await shoot(g, 'phone');
    await shoot(g, 'phone-top', '[data-view="top"]');
    await shoot(g, 'phone-pairs', '[data-view="pairs"]');
    expectClean(g);
  });

  it('on a phone, a table wider than its box shows it can scroll, and the keyboard can scroll it', async () => {
    const g = await open('', { width: 390, height: 844 });
    const { page } = g;
    await click(page, '[data-view="pairs"] .table-toggle');
    const wrap = '[data-table="pairs"]';
    const state = () =>
      page.$eval(wrap, (e) => ({
        wider: e.scrollWidth > e.clientWidth,
        background: getComputedStyle(e).backgroundImage,
        tabindex: e.getAttribute('tabindex'),
        role: e.getAttribute('role'),
        label: e.getAttribute('aria-label'),
        scrolled: e.scrollLeft,
      }));
    const before = await state();
    expect(before).toMatchObject({ wider: true, tabindex: '0', role: 'region', label: 'Table of the songs sung together', scrolled: 0 });
    // The cue: shadows at the edges (radial gradients), covered where there is nothing to scroll to.
    expect(before.background.match(/radial-gradient/g)).toHaveLength(2);
    await shoot(g, 'phone-table', '[data-view="pairs"]');
    await page.focus(wrap);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((sel: string) => (document.querySelector(sel) as HTMLElement).scrollLeft > 0, { timeout: 5000 }, wrap);
    expectClean(g);
  });

  it('an empty window says so and offers the way out; a bad link is explained', async () => {
    const g = await open('?from=1990-01-01&to=1990-12-31');
    const { page } = g;
    const status = await text(page, '[data-view="top"] .status');
    expect(status).toMatch(/no services took place in the window/i);
    expect(status).toContain('Show all time');
    await shoot(g, 'empty');
    await click(page, '[data-view="top"] .status button');
    await settled(page);
    expect(new URL(page.url()).search).toBe('?window=all');
    expect(await text(page, '[data-view="top"] .summary')).toMatch(/^Most sung: /);

    const bad = await open('?from=yesterday&serviceType=FRIDAY');
    expect(await text(bad.page, '#notice')).toContain('"yesterday" is not a date');
    expect(await text(bad.page, '#notice')).toContain('"FRIDAY" is not a service type');
    expect(new URL(bad.page.url()).search).toBe('');

    const gone = await open('?song=99999');
    expect(await text(gone.page, '#story .stats')).toContain('There is no song with id 99999');
    expect(await gone.page.$eval('[data-view="story-strip"]', (e) => (e as HTMLElement).hidden)).toBe(true);
    expectClean(g);
    expectClean(gone);
    expectClean(bad);
  });

  it('shows a loading state while answers are slow', async () => {
    const g = await guardedPage(browser);
    pages.push(g);
    await g.page.emulateNetworkConditions({ offline: false, download: -1, upload: -1, latency: 600 });
    await g.page.goto(`${base}/insights`, { waitUntil: 'domcontentloaded' });
    await g.page.waitForFunction(() => Number(document.body.dataset.pending) > 0, { polling: 20, timeout: 15_000 });
    expect(await text(g.page, '[data-view="top"] .status')).toBe('Loading…');
    expect(await g.page.$eval('[data-view="top"]', (e) => e.getAttribute('aria-busy'))).toBe('true');
    await settled(g.page);
    expect(await g.page.$eval('[data-view="top"] .status', (e) => (e as HTMLElement).hidden)).toBe(true);
    expect(await g.page.$eval('[data-view="top"]', (e) => e.hasAttribute('aria-busy'))).toBe(false);
    expectClean(g);
  });

  it("shows the API's errors plainly, in the view that asked, with a way to try again", async () => {
    // A real server whose cost limit refuses the heavier analytics (10,000 each) but not the lighter ones.
    const strict = await startTestServer({ SQLITE_PATH: server.dbPath, GRAPHQL_MAX_COST: '600' });
    try {
      const g = await open('', undefined, strict.url.replace('localhost', '127.0.0.1'));
      const top = await text(g.page, '[data-view="top"] .status.error');
      expect(top).toContain('Could not load the top songs: Query Cost limit of 600 exceeded');
      expect(await g.page.$eval('[data-view="top"] .status.error button', (b) => b.textContent)).toBe('Try again');
      expect(await text(g.page, '[data-view="timeline"] .status.error')).toContain('Could not load the timeline');
      expect(await g.page.$eval('[data-chart="top"]', (e) => (e as HTMLElement).hidden)).toBe(true);
      // The page itself did not break: the only errors are the refused answers (HTTP 400).
      expect(g.errors.length).toBeGreaterThan(0);
      for (const e of g.errors) expect(e).toMatch(/HTTP 400 .*\/graphql|status of 400/);
      expect(g.blocked).toEqual([]);
      await shoot(g, 'error');
    } finally {
      await strict.close();
    }
  });

  it('keeps its state in the URL: presets, month arithmetic and round trips (the page\'s own module)', async () => {
    const g = await open('?from=1990-01-01&to=1990-01-02');
    // As a string: the test's own transpiler would otherwise rewrite import() into require().
    await g.page.evaluate("import('/insights/assets/js/state.js').then((m) => { window.insightsState = m; })");
    const r = await g.page.evaluate(() => {
      const m = (window as any).insightsState;
      const today = '2026-11-22';
      const parsed = m.readState('?from=2025-03-01&to=2025-01-01&serviceType=wed,SUN_AM&serviceType=SUN_AM&weeks=8&song=7&bucket=week', today);
      const fallback = m.readState('', today);
      return {
        clamp: [m.addMonths('2025-05-31', -3), m.addMonths('2024-05-31', -3), m.addMonths('2025-01-31', 1)],
        threeMonths: m.presetWindow('3m', '2026-11-22'),
        twelveMonths: m.presetWindow('12m', '2026-02-28'),
        presets: [
          m.presetOf({ from: null, to: null }, '2026-11-22'),
          m.presetOf(m.presetWindow('3m', '2026-11-22'), '2026-11-22'),
          m.presetOf({ from: '2026-01-01', to: null }, '2026-11-22'),
        ],
        parsed,
        written: m.writeState(parsed, today),
        allTypes: m.writeState({ ...parsed, serviceTypes: ['SUN_AM', 'SUN_PM', 'WED'], weeks: 12, song: null, bucket: null }, today),
        bad: m.readState('?from=2025-02-30&weeks=0&song=x&bucket=DAY&window=ever', today).problems.length,
        fallback,
        fallbackWritten: m.writeState(fallback, today),
        allTime: m.readState('?window=all', today),
        allTimeWritten: m.writeState(m.readState('?window=all', today), today),
        openEnd: m.writeState(m.readState('?from=2026-01-01', today), today),
        buckets: [
          m.effectiveBucket({ from: '2025-01-01', to: '2025-03-31', bucket: null }),
          m.effectiveBucket({ from: '2024-01-01', to: '2025-03-31', bucket: null }),
          m.effectiveBucket({ from: null, to: null, bucket: null }),
        ],
      };
    });
    expect(r.clamp).toEqual(['2025-02-28', '2024-02-29', '2025-02-28']);
    expect(r.threeMonths).toEqual({ from: '2026-08-23', to: '2026-11-22' });
    expect(r.twelveMonths).toEqual({ from: '2025-03-01', to: '2026-02-28' });
    expect(r.presets).toEqual(['all', '3m', 'custom']);
    expect(r.parsed).toMatchObject({ from: '2025-01-01', to: '2025-03-01', serviceTypes: ['SUN_AM', 'WED'], weeks: 8, song: 7, bucket: 'WEEK' });
    expect(r.parsed.problems).toHaveLength(1);
    expect(r.written).toBe('?from=2025-01-01&to=2025-03-01&serviceType=SUN_AM&serviceType=WED&bucket=WEEK&weeks=8&song=7');
    expect(r.allTypes).toBe('?from=2025-01-01&to=2025-03-01');
    expect(r.bad).toBe(5);
    // No window in the URL is the last 12 months, and is written as none; all time is window=all.
    expect(r.fallback).toMatchObject({ from: '2025-11-23', to: '2026-11-22', problems: [] });
    expect(r.fallbackWritten).toBe('');
    expect(r.allTime).toMatchObject({ from: null, to: null, problems: [] });
    expect(r.allTimeWritten).toBe('?window=all');
    expect(r.openEnd).toBe('?from=2026-01-01');
    expect(r.buckets).toEqual(['WEEK', 'MONTH', 'MONTH']);
    expectClean(g);
  });

  it('with no services recorded yet, says how to add some', async () => {
    const fresh = await startTestServer();
    try {
      const g = await open('', undefined, fresh.url.replace('localhost', '127.0.0.1'));
      const status = await text(g.page, '[data-view="top"] .status.empty');
      expect(status).toContain('no services have been recorded');
      expect(status).toContain('npm run seed');
      expect(await text(g.page, '[data-view="timeline"] .status.empty')).toContain('no services have been recorded');
      expect(await text(g.page, '[data-view="rotation"] .status.empty')).toMatch(/^No songs yet/);
      expect(await text(g.page, '[data-view="new"] .status.empty')).toContain('no services have been recorded');
      expect(await text(g.page, '[data-view="often"] .status.empty')).toContain('no services have been recorded');
      await shoot(g, 'no-data');
      expectClean(g);
    } finally {
      await fresh.close();
    }
  });
});
