/**
 * The planning page (/plan) in headless Chromium, on the demo data (`npm run seed` into a new
 * store of the run's kind), against a real server: sign in, create next Sunday's service, build its setlist
 * with the keyboard alone (Tab, typing, Enter, Alt+arrows, Delete), save it and compare with what
 * the API answers; suggestions that follow the choice; an expired session that asks to sign in
 * again and keeps the work; a phone's screen. Screenshots go to test-artifacts/plan-*.png; with
 * PLAN_DOCS_SCREENSHOT=1 the desktop one also goes to docs/plan.png for the README.
 */
import fs from 'node:fs';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import type { Browser, Page } from 'puppeteer-core';
import { PAGE_CSP } from '../../src/http/pages';
import { startDemoServer } from '../helpers/demo-server';
import { ADMIN, JWT_SECRET, type TestServer } from '../helpers/server';
import { describeWithBrowser, guardedPage, launchBrowser, screenshot, type GuardedPage } from '../helpers/browser';

const ROOT = path.resolve(__dirname, '..', '..');

describeWithBrowser('Plan page (headless Chromium, demo data)', (chromiumPath) => {
  let server: TestServer;
  let browser: Browser;
  let base: string;
  const pages: GuardedPage[] = [];

  beforeAll(async () => {
    // The suite asks faster than a person does: a larger budget, the limiter still on.
    server = await startDemoServer({ RATE_LIMIT_POINTS: '30000' });
    base = server.url.replace('localhost', '127.0.0.1');
    browser = await launchBrowser(chromiumPath);
  }, 120_000);

  afterAll(async () => {
    for (const g of pages) await g.page.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
  });

  async function open(query = '', viewport = { width: 1280, height: 900 }): Promise<GuardedPage> {
    const g = await guardedPage(browser);
    pages.push(g);
    await g.page.setViewport(viewport);
    await g.page.goto(`${base}/plan${query}`, { waitUntil: 'load' });
    return g;
  }

  /** Press Tab (at most 60 times) until the focused element matches `selector`. */
  async function tabTo(page: Page, selector: string) {
    for (let i = 0; i < 60; i++) {
      if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${selector}`);
  }

  const setlistIds = (page: Page) => page.$$eval('#setlist li', (lis) => lis.map((li) => Number((li as HTMLElement).dataset.songId)));
  const savedIds = async (serviceId: number) => {
    const res = await server.gql(`{ service(id: ${serviceId}) { songs { id } } }`);
    return res.body.data.service.songs.map((s: { id: number }) => s.id) as number[];
  };
  const serviceIdOf = async (page: Page) => Number(new URL(page.url()).searchParams.get('service'));
  const waitSaved = (page: Page) => page.waitForFunction(() => document.getElementById('save-state')?.textContent === 'Saved', { timeout: 10_000, polling: 50 });
  const suggestionsFor = (page: Page, ids: number[]) =>
    page.waitForFunction((want) => document.getElementById('suggestions')?.dataset.for === want, { timeout: 10_000, polling: 50 }, ids.join(','));

  async function signIn(page: Page) {
    await page.waitForSelector('#sign-in:not([hidden])');
    await page.keyboard.type(ADMIN.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
  }

  /** Type into the search field and take the first result with Enter, once it is the one named. */
  async function addBySearch(page: Page, q: string, name: string) {
    await tabTo(page, '#search');
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    await page.keyboard.type(q);
    await page.waitForFunction((n) => document.querySelector('#results li .song-name')?.firstChild?.textContent === n, { timeout: 10_000, polling: 50 }, name);
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => [...document.querySelectorAll('#setlist .song-name')].some((e) => e.firstChild?.textContent === n), { timeout: 10_000, polling: 50 }, name);
  }

  it('is served with the pages\' strict policy, and linked from / and from /insights (and back)', async () => {
    const page = await server.raw('GET', '/plan');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(page.text).toContain('href="/insights"');
    const js = await server.raw('GET', '/plan/assets/js/plan.js');
    expect([js.status, js.headers.get('content-security-policy')]).toEqual([200, PAGE_CSP]);
    expect((await server.raw('GET', '/', { headers: { accept: 'text/html' } })).text).toContain('href="/plan"');
    expect((await server.raw('GET', '/insights')).text).toContain('href="/plan"');
    expect((await server.raw('GET', '/plan/assets/nothing.js')).status).toBe(404);
  });

  let planned: number;

  it('signs in, creates next Sunday\'s service and builds its setlist with the keyboard alone; what it saves is what the API answers', async () => {
    const { page, errors, blocked } = await open();
    await signIn(page);
    await page.waitForSelector('#planner:not([hidden])');
    // The date field starts at the next Sunday; the type at Sunday morning.
    await tabTo(page, '#create-form button[type="submit"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#work:not([hidden])');
    planned = await serviceIdOf(page);
    expect(planned).toBeGreaterThan(0);
    expect(await page.$eval('#service-text', (e) => e.textContent)).toMatch(/^Planning .+ · Sunday morning$/);

    await addBySearch(page, 'amazing', 'Amazing Grace');
    await addBySearch(page, 'in christ', 'In Christ Alone');
    await addBySearch(page, 'redman', '10,000 Reasons');
    await addBySearch(page, 'cornerst', 'Cornerstone');
    expect(await setlistIds(page)).toEqual([1, 32, 31, 33]);
    // Beside each: its last sung date and how often in the last 12 services.
    await page.waitForFunction(() => [...document.querySelectorAll('#setlist .song-meta')].every((e) => / of the last 12 services$/.test(e.textContent ?? '')), { timeout: 10_000, polling: 50 });
    expect(await page.$eval('#setlist li:first-child .song-meta', (e) => e.textContent)).toMatch(/^John Newton · last sung .+ · \d+ of the last 12 services$/);

    // Cornerstone up two places, then 10,000 Reasons (now last) removed.
    await tabTo(page, '#setlist li:nth-child(4)');
    await page.keyboard.down('Alt');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.up('Alt');
    expect(await setlistIds(page)).toEqual([1, 33, 32, 31]);
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.songId)).toBe('33');
    await tabTo(page, '#setlist li:nth-child(4)');
    await page.keyboard.press('Delete');
    expect(await setlistIds(page)).toEqual([1, 33, 32]);
    expect(await page.$eval('#save-state', (e) => e.textContent)).toBe('Unsaved changes');

    // A suggestion for this choice, taken with Enter.
    await suggestionsFor(page, [1, 33, 32]);
    const first = await page.$eval('#suggestions > li:first-child .song-name', (e) => e.firstChild!.textContent);
    await tabTo(page, '#suggestions > li:first-child button');
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => [...document.querySelectorAll('#setlist .song-name')].some((e) => e.firstChild?.textContent === n), { timeout: 10_000, polling: 50 }, first);

    await tabTo(page, '#save');
    await page.keyboard.press('Enter');
    await waitSaved(page);
    const onPage = await setlistIds(page);
    expect(onPage).toHaveLength(4);
    expect(await savedIds(planned)).toEqual(onPage);
    // Reloaded, the page shows what was saved.
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('#work:not([hidden])');
    await page.waitForFunction((n) => document.querySelectorAll('#setlist li').length === n, { timeout: 10_000, polling: 50 }, onPage.length);
    expect(await setlistIds(page)).toEqual(onPage);
    // The token stays in this tab's session storage: never in the URL or localStorage.
    expect(page.url()).not.toMatch(/eyJ/);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await page.evaluate(() => JSON.parse(sessionStorage.getItem('plan.session') ?? '{}').token)).toMatch(/^eyJ/);
    await suggestionsFor(page, onPage);
    await screenshot(page, 'plan-desktop');
    if (process.env.PLAN_DOCS_SCREENSHOT === '1') await page.screenshot({ path: path.join(ROOT, 'docs', 'plan.png') as `${string}.png` });
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('suggestions follow the choice: none already chosen, sung too often, or of the week; each with reasons', async () => {
    const { page, errors } = await open(`?service=${planned}`);
    await signIn(page);
    await page.waitForSelector('#work:not([hidden])');
    const chosen = await setlistIds(page);
    await suggestionsFor(page, chosen);
    const shown = async () => page.$$eval('#suggestions > li', (lis) => lis.map((li) => ({ name: li.querySelector('.song-name')?.firstChild?.textContent, reasons: li.querySelectorAll('.reasons li').length })));
    const before = await shown();
    expect(before.length).toBeGreaterThan(0);
    for (const s of before) expect(s.reasons).toBeGreaterThan(0);
    const api = await server.gql(`{ suggestSongs(serviceId: ${planned}, chosen: [${chosen.join(',')}], limit: 8) { song { name } } }`);
    expect(before.map((s) => s.name)).toEqual(api.body.data.suggestSongs.map((s: { song: { name: string } }) => s.song.name));
    // Remove the first song with the mouse: the suggestions are asked again for the new choice.
    await page.click('#setlist li:first-child .actions button:last-child');
    await suggestionsFor(page, chosen.slice(1));
    const after = await server.gql(`{ suggestSongs(serviceId: ${planned}, chosen: [${chosen.slice(1).join(',')}], limit: 8) { song { name } } }`);
    expect((await shown()).map((s) => s.name)).toEqual(after.body.data.suggestSongs.map((s: { song: { name: string } }) => s.song.name));
    expect(errors).toEqual([]);
  });

  it('an expired session asks to sign in again, keeps the setlist, and saves it after', async () => {
    const { page, errors } = await open(`?service=${planned}`);
    await signIn(page);
    await page.waitForSelector('#work:not([hidden])');
    await page.waitForFunction(() => document.getElementById('save-state')?.textContent === 'Unsaved changes' || document.getElementById('save-state')?.textContent === 'Saved', { polling: 50 });
    // The token expires while the leader works.
    const expired = jwt.sign({ role: 'ADMIN', tv: 0, sub: '1', exp: Math.floor(Date.now() / 1000) - 60 }, JWT_SECRET);
    await page.evaluate((t) => sessionStorage.setItem('plan.session', JSON.stringify({ token: t, username: 'admin', expiresAt: 0 })), expired);
    await addBySearch(page, 'goodness', 'Goodness of God');
    const wanted = await setlistIds(page);
    await page.click('#save');
    await page.waitForSelector('#sign-in:not([hidden])');
    expect(await page.$eval('#sign-in-why', (e) => e.textContent)).toMatch(/session has ended.*setlist is kept/);
    expect(await setlistIds(page)).toEqual(wanted);
    await signIn(page);
    await waitSaved(page);
    expect(await savedIds(planned)).toEqual(wanted);
    // The one refusal was the expired token's.
    expect(errors.filter((e) => !/HTTP 401 .*\/graphql$/.test(e))).toEqual([]);
  });

  it('shows a setlist saved elsewhere as it changes (setlistChanged over WebSocket), and keeps unsaved changes made here', async () => {
    const { page, errors, blocked } = await open(`?service=${planned}`);
    await signIn(page);
    await page.waitForSelector('#work:not([hidden])');
    await waitSaved(page);
    const before = await setlistIds(page);
    // Saved through the REST API, by someone else: the page shows it without a reload.
    const elsewhere = [...before].reverse();
    const token = await server.adminToken();
    expect((await server.api('PUT', `/services/${planned}/songs`, { token, body: { songIds: elsewhere } })).status).toBe(200);
    await page.waitForFunction((want) => [...document.querySelectorAll('#setlist li')].map((li) => (li as HTMLElement).dataset.songId).join() === want, { timeout: 10_000, polling: 50 }, elsewhere.join());
    expect(await page.$eval('#notice', (e) => e.textContent)).toMatch(/changed elsewhere/);
    expect(await page.$eval('#save-state', (e) => e.textContent)).toBe('Saved');
    await screenshot(page, 'plan-live-update');
    // With changes of its own, the page keeps them and says the saved one moved on.
    await tabTo(page, '#setlist li:nth-child(1)');
    await page.keyboard.press('Delete');
    const mine = await setlistIds(page);
    expect((await server.api('PUT', `/services/${planned}/songs`, { token, body: { songIds: before } })).status).toBe(200);
    await page.waitForFunction(() => /saved elsewhere/.test(document.getElementById('notice')?.textContent ?? ''), { timeout: 10_000, polling: 50 });
    expect(await setlistIds(page)).toEqual(mine);
    expect(await page.$eval('#save-state', (e) => e.textContent)).toBe('Unsaved changes');
    expect(errors).toEqual([]);
    expect(blocked).toEqual([]);
  });

  it('works on a 390×844 phone: one column, nothing wider than the screen', async () => {
    const { page, errors } = await open(`?service=${planned}`, { width: 390, height: 844 });
    await signIn(page);
    await page.waitForSelector('#work:not([hidden])');
    await suggestionsFor(page, await setlistIds(page));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const boxes = await page.$$eval('#setlist li:first-child button, #save, #search', (els) => els.map((e) => e.getBoundingClientRect().right));
    for (const right of boxes) expect(right).toBeLessThanOrEqual(390);
    // The suggestions sit below the setlist, not beside it.
    const [setlist, suggestions] = await page.$$eval('.setlist, .suggestions', (els) => els.map((e) => e.getBoundingClientRect().top));
    expect(suggestions).toBeGreaterThan(setlist);
    await screenshot(page, 'plan-phone');
    expect(errors).toEqual([]);
    expect(fs.existsSync(path.join(ROOT, 'test-artifacts', 'plan-phone.png'))).toBe(true);
  });
});
