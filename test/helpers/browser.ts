/**
 * Headless Chromium for page tests: puppeteer-core drives the system's Chromium (Debian's
 * /usr/bin/chromium, or CHROMIUM_PATH). Every page is guarded: a request to any host but
 * 127.0.0.1 is aborted and recorded, console errors and page exceptions are collected, and
 * screenshots go to test-artifacts/ (git-ignored).
 */
import fs from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** False when no browser is installed: browser suites skip, saying so. */
export const browserAvailable = fs.existsSync(CHROMIUM_PATH);
export const ARTIFACTS_DIR = path.resolve(__dirname, '../../test-artifacts');

export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-extensions'],
  });
}

export interface GuardedPage {
  page: Page;
  /** console.error messages and uncaught exceptions, in order. */
  errors: string[];
  /** URLs the page tried to reach off 127.0.0.1 (all aborted). */
  offHost: string[];
  screenshot(name: string, opts?: { fullPage?: boolean; path?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function openGuardedPage(
  browser: Browser,
  viewport: { width: number; height: number } = { width: 1280, height: 900 },
): Promise<GuardedPage> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const errors: string[] = [];
  const offHost: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1') {
      void req.continue();
      return;
    }
    offHost.push(req.url());
    void req.abort('blockedbyclient');
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()} ${msg.location()?.url ?? ''}`.trim());
  });
  page.on('pageerror', (err) => errors.push(`exception: ${(err as Error).message ?? String(err)}`));
  return {
    page,
    errors,
    offHost,
    async screenshot(name, opts = {}) {
      fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
      const file = opts.path ?? path.join(ARTIFACTS_DIR, `${name}.png`);
      await page.screenshot({ path: file as `${string}.png`, fullPage: opts.fullPage ?? false });
      return file;
    },
    close: () => page.close(),
  };
}
