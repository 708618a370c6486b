/**
 * The Insights page's "Export CSV" button in headless Chromium, against a real server on a real
 * SQLite file: clicking it downloads the usage (licensing) report of the window shown, the same
 * bytes the REST API answers for that window, and it follows the window when the controls change.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'puppeteer-core';
import { describeWithBrowser, guardedPage, launchBrowser, type GuardedPage } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

describeWithBrowser('Insights page: Export CSV (headless Chromium)', (chromiumPath) => {
  let server: TestServer;
  let browser: Browser;
  let base: string;
  let downloads: string;
  const pages: GuardedPage[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    base = server.url.replace('localhost', '127.0.0.1');
    const token = await server.adminToken();
    const song = async (name: string, ccliNumber: string, copyright: string) =>
      (await server.api('POST', '/songs', { token, body: { name, artists: ['Keith & Kristyn Getty'], ccliNumber, copyright } })).body.id;
    const [inChrist, oGreat, be] = [
      await song('In Christ Alone', '3350395', '2001 Thankyou Music'),
      await song('Ô Dieu Très Grand', '123', '© Éditions Louange'),
      await song('Be Still', '4443', 'Public Domain'),
    ];
    const service = async (date: string, serviceType: string, songIds: number[]) => {
      const v = await server.api('POST', '/services', { token, body: { date, serviceType } });
      await server.api('PUT', `/services/${v.body.id}/songs`, { token, body: { songIds } });
    };
    await service('2024-09-01T10:00:00Z', 'SUN_AM', [inChrist, oGreat]);
    await service('2024-09-04T19:00:00Z', 'WED', [be]);
    await service('2024-10-06T10:00:00Z', 'SUN_AM', [be]);
    downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'insights-export-'));
    browser = await launchBrowser(chromiumPath);
  }, 60_000);

  afterAll(async () => {
    for (const g of pages) await g.page.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    fs.rmSync(downloads, { recursive: true, force: true });
  });

  async function open(query: string): Promise<GuardedPage> {
    const g = await guardedPage(browser);
    pages.push(g);
    await g.page.setViewport({ width: 1280, height: 900 });
    const cdp = await g.page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads, eventsEnabled: true });
    await g.page.goto(`${base}/insights${query}`, { waitUntil: 'load' });
    await settled(g.page);
    return g;
  }

  const settled = (page: Page) => page.waitForFunction(() => document.body.dataset.pending === '0', { timeout: 15_000, polling: 50 });

  /** The finished download of this name (Chromium writes a .crdownload file until it is done). */
  async function downloaded(name: string): Promise<Buffer> {
    const file = path.join(downloads, name);
    for (let waited = 0; waited < 15_000; waited += 100) {
      if (fs.existsSync(file)) return fs.readFileSync(file);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no download ${name} in ${downloads}: ${fs.readdirSync(downloads).join(', ')}`);
  }

  const href = (page: Page) => page.$eval('#export-csv', (a) => (a as HTMLAnchorElement).getAttribute('href'));

  it('downloads the report of the window and service types shown, byte for byte what the API answers', async () => {
    const g = await open('?from=2024-09-01&to=2024-09-30&serviceType=SUN_AM');
    const url = '/api/v1/reports/songUsage?format=csv&from=2024-09-01&to=2024-09-30&serviceType=SUN_AM';
    expect(await href(g.page)).toBe(url);
    expect(await g.page.$eval('#export-csv', (a) => (a.textContent ?? '').trim())).toBe('Export CSV');

    await g.page.$eval('#export-csv', (e) => e.scrollIntoView({ block: 'center' }));
    await g.page.click('#export-csv');
    const file = await downloaded('song-usage_2024-09-01_2024-09-30.csv');
    const api = Buffer.from(await (await fetch(`${server.url}${url}`)).arrayBuffer());
    expect(file.equals(api)).toBe(true);
    // What a spreadsheet gets: the Sunday-morning songs of September, CCLI numbers and accents intact.
    expect([...file.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parse(file, { bom: true, columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.Song, r['CCLI #'], r.Copyright, r.Artists, r['Times sung'], r['Sunday morning']])).toEqual([
      ['In Christ Alone', '3350395', '2001 Thankyou Music', 'Keith & Kristyn Getty', '1', '1'],
      ['Ô Dieu Très Grand', '123', '© Éditions Louange', 'Keith & Kristyn Getty', '1', '1'],
    ]);
    expect(g.errors).toEqual([]);
    expect(g.blocked).toEqual([]);
  });

  it('follows the window when the controls change it', async () => {
    const g = await open('?from=2024-09-01&to=2024-09-30&serviceType=SUN_AM');
    // Every service type again: no serviceType filter in the link.
    for (const type of ['SUN_PM', 'WED']) await g.page.click(`input[name="serviceType"][value="${type}"]`);
    await settled(g.page);
    expect(await href(g.page)).toBe('/api/v1/reports/songUsage?format=csv&from=2024-09-01&to=2024-09-30');
    await g.page.select('select[name="preset"]', 'all');
    await settled(g.page);
    expect(await href(g.page)).toBe('/api/v1/reports/songUsage?format=csv');

    await g.page.$eval('#export-csv', (e) => e.scrollIntoView({ block: 'center' }));
    await g.page.click('#export-csv');
    const rows = parse(await downloaded('song-usage_all-time.csv'), { bom: true, columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.Song, r['Times sung']])).toEqual([
      ['Be Still', '2'],
      ['In Christ Alone', '1'],
      ['Ô Dieu Très Grand', '1'],
    ]);
    expect(g.errors).toEqual([]);
  });
});
