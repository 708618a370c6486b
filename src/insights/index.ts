import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import express from 'express';
import { escapeHtml, strictCsp } from '../http/pages';
import { nameRoute } from '../observability/logging';

/** The page's own files: a top-level folder, so src/ (tsx) and dist/ (tsc) both find it. */
export const PUBLIC_DIR = path.resolve(__dirname, '../../public/insights');
/**
 * The parts of ECharts the page draws with, bundled by `npm run codegen` (scripts/generated-texts.ts)
 * into src/generated: no CDN, no bundler at runtime. Read from the top-level src/generated, so
 * src/ (tsx) and dist/ (tsc) both find it. The page asks for it by its content hash, so a browser
 * may keep it for a year (`immutable`).
 */
const ECHARTS_BUNDLE = fs.readFileSync(path.resolve(__dirname, '../../src/generated/echarts-insights.min.js'));
const ECHARTS_FILE = '/echarts.min.js';
const ECHARTS_HASH = crypto.createHash('sha256').update(ECHARTS_BUNDLE).digest('hex').slice(0, 16);
const ECHARTS_ETAG = `"${ECHARTS_HASH}"`;

/**
 * The bundle compressed at the highest settings, once per process and off the event loop (zlib's
 * thread pool): brotli 186 KB and gzip 218 KB on the wire, where the `compression` middleware's
 * defaults send 223 KB (Chromium asks for brotli over HTTPS only). Until they are ready the
 * middleware compresses as for any answer.
 */
const echartsCompressed: { br?: Buffer; gzip?: Buffer } = {};
let compressing = false;
function precompressEcharts(): void {
  if (compressing) return;
  compressing = true;
  const size = ECHARTS_BUNDLE.length;
  zlib.brotliCompress(ECHARTS_BUNDLE, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size } }, (err, out) => {
    if (!err) echartsCompressed.br = out;
  });
  zlib.gzip(ECHARTS_BUNDLE, { level: 9 }, (err, out) => {
    if (!err) echartsCompressed.gzip = out;
  });
}

/**
 * GET /insights (the page) and /insights/assets/* (its scripts and styles). The page fetches from
 * /graphql only (its Export CSV link is a download of the REST report, not a fetch); the one
 * server-side value it gets is the zone its dates are shown in.
 */
export function insightsRouter(serviceTimeZone: string): express.Router {
  const page = fs
    .readFileSync(path.join(PUBLIC_DIR, 'index.html'), 'utf8')
    .replace('__SERVICE_TIME_ZONE__', escapeHtml(serviceTimeZone))
    .replace(`/insights/assets${ECHARTS_FILE}"`, `/insights/assets${ECHARTS_FILE}?v=${ECHARTS_HASH}"`);
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
  precompressEcharts();
  // Named with the other assets (their `use` is above): one metrics route for the page's files.
  router.use('/insights/assets', (req, res, next) => {
    if (req.path !== ECHARTS_FILE || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    // Asked for by this content's hash: the same bytes for as long as the URL lives. Without it
    // (a page from before an upgrade), revalidated like the other assets.
    res.setHeader('Cache-Control', req.query.v === ECHARTS_HASH ? 'public, max-age=31536000, immutable' : 'public, max-age=0');
    res.setHeader('ETag', ECHARTS_ETAG);
    if (req.headers['if-none-match'] === ECHARTS_ETAG) {
      res.status(304).end();
      return;
    }
    res.type('js');
    res.vary('Accept-Encoding');
    const encoding = req.acceptsEncodings('br', 'gzip', 'identity');
    const compressed = encoding === 'br' || encoding === 'gzip' ? echartsCompressed[encoding] : undefined;
    if (compressed) {
      // Already compressed: the middleware leaves an answer with a Content-Encoding alone.
      res.setHeader('Content-Encoding', encoding as string);
      res.send(compressed);
      return;
    }
    res.send(ECHARTS_BUNDLE);
  });
  router.use('/insights/assets', express.static(path.join(PUBLIC_DIR, 'assets'), { ...assets, index: false }));
  return router;
}
