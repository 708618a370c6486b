import fs from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/**
 * Real headless Chromium for tests, driven by puppeteer-core (which downloads no browser). The
 * executable is CHROMIUM_PATH or the first of the usual install paths; .ci/run installs Debian's
 * `chromium` when missing. Without one, `describeWithBrowser` skips its tests and says why.
 */
const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

export const ARTIFACTS_DIR = path.join(__dirname, '..', '..', 'test-artifacts');

export function findChromium(): { path?: string; reason?: string } {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    return fs.existsSync(fromEnv) ? { path: fromEnv } : { reason: `CHROMIUM_PATH=${fromEnv} does not exist` };
  }
  const found = CANDIDATES.find((p) => fs.existsSync(p));
  if (found) return { path: found };
  return { reason: `no Chromium found (set CHROMIUM_PATH, or install one: apt-get install chromium); looked in ${CANDIDATES.join(', ')}` };
}

/**
 * `describe` when a browser exists; otherwise a skipped block and one plain line saying why, or,
 * with CI=true, a failing test saying what is missing.
 */
export function describeWithBrowser(name: string, body: (chromiumPath: string) => void): void {
  const { path: found, reason } = findChromium();
  if (found) {
    describe(name, () => body(found));
    return;
  }
  // With CI=true (.ci/run installs Chromium) a missing browser is a failure, as for Redis and
  // Neo4j: CI must not pass with the browser tests quietly skipped.
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs Chromium', () => {
        throw new Error(`${name}: ${reason} (CI=true: the browser tests must run)`);
      });
    });
    return;
  }
  // An honest skip: the environment lacks the browser these tests need.
  console.warn(`SKIPPED "${name}": ${reason}`);
  describe.skip(`${name} (SKIPPED: ${reason})`, () => body(''));
}

export function launchBrowser(executablePath: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    // Containers run tests as root, where Chromium's sandbox cannot start; /dev/shm is small there.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
  });
}

export interface GuardedPage {
  page: Page;
  /** Requests to any host not allowed, which were aborted. */
  blocked: string[];
  /** console.error calls, uncaught page errors, CSP violations and answers of 400 or more. */
  errors: string[];
}

/**
 * A page that may reach only `allowedHosts` (by hostname; data: and blob: URLs load no network)
 * and records every console error, uncaught exception and Content-Security-Policy violation.
 */
export async function guardedPage(browser: Browser, allowedHosts: string[] = ['127.0.0.1']): Promise<GuardedPage> {
  const page = await browser.newPage();
  const blocked: string[] = [];
  const errors: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || allowedHosts.includes(url.hostname)) {
      void request.continue();
      return;
    }
    blocked.push(request.url());
    void request.abort('blockedbyclient');
  });
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`HTTP ${response.status()} ${response.url()}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${(error as Error).message ?? String(error)}`));
  // Chromium reports CSP violations to the DevTools log only; surface them as an event we can see.
  await page.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`),
    );
  });
  return { page, blocked, errors };
}

/** A PNG of the page in test-artifacts/ (git-ignored), for looking at what a test saw. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file as `${string}.png`, fullPage: true });
  return file;
}
