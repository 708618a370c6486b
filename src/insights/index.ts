import fs from 'node:fs';
import path from 'node:path';
import express, { type Response } from 'express';
import { nameRoute } from '../observability/logging';

/** The page's own files: a top-level folder, so src/ (tsx) and dist/ (tsc) both find it. */
export const PUBLIC_DIR = path.resolve(__dirname, '../../public/insights');
/** ECharts' self-contained UMD build, served from node_modules: no CDN, no bundler. */
const ECHARTS_DIR = path.dirname(require.resolve('echarts'));
const ECHARTS_FILE = '/echarts.min.js';

/**
 * Everything from this origin only. No inline script or style: the page's code is in files, and
 * ECharts sets styles through the CSSOM (allowed) and draws tooltips as canvas rich text.
 */
export const INSIGHTS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function strictCsp(res: Response) {
  // helmet leaves CSP off app-wide (the Sandbox needs a CDN); this page gets its own.
  res.setHeader('Content-Security-Policy', INSIGHTS_CSP);
}

/**
 * GET /insights (the page) and /insights/assets/* (its scripts and styles). The page fetches from
 * /graphql only (its Export CSV link is a download of the REST report, not a fetch); the one
 * server-side value it gets is the zone its dates are shown in.
 */
export function insightsRouter(serviceTimeZone: string): express.Router {
  const page = fs
    .readFileSync(path.join(PUBLIC_DIR, 'index.html'), 'utf8')
    .replace('__SERVICE_TIME_ZONE__', escapeHtml(serviceTimeZone));
  const router = express.Router({ strict: true });
  // Revalidated on every load (ETag, 304): after an upgrade no browser mixes old and new modules.
  // Unknown asset names fall through to the app's JSON 404.
  const assets = { maxAge: 0, etag: true, lastModified: true } as const;

  router.get('/insights', (_req, res) => {
    strictCsp(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(page);
  });
  router.get('/insights/', (req, res) => res.redirect(301, req.originalUrl.replace('/insights/', '/insights')));
  // Static files match no Express route: without a name they would be counted as `unmatched`.
  router.use('/insights/assets', nameRoute('/insights/assets/*'), (_req, res, next) => {
    strictCsp(res);
    next();
  });
  // express.static, not res.sendFile: sendFile follows the app's `etag` setting, which is off.
  const echarts = express.static(ECHARTS_DIR, { ...assets, index: false });
  router.use('/insights/assets', (req, res, next) => (req.path === ECHARTS_FILE ? echarts(req, res, next) : next()));
  router.use('/insights/assets', express.static(path.join(PUBLIC_DIR, 'assets'), { ...assets, index: false }));
  return router;
}
