import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import express from 'express';
import { contentHash } from '../http/content-hash';
import { escapeHtml, strictCsp } from '../http/pages';
import { nameRoute } from '../observability/logging';

/** The page's own files: a top-level folder, so src/ (tsx) and dist/ (tsc) both find it. */
export const PUBLIC_DIR = path.resolve(__dirname, '../../public/insights');
/**
 * The page's scripts as `npm run codegen` (scripts/generated-texts.ts) bundles them into
 * src/generated, no CDN and no bundler at runtime: the page's own modules as one file
 * (insights.js), and the parts of ECharts it draws with in three ES modules, the first step (bar
 * charts; loaded with the page), the second (the other charts; asked for once the first is in) and
 * the core both import. Read from the top-level src/generated, so src/ (tsx) and dist/ (tsc) both
 * find them. Each is asked for by its content hash (`?v=`), so a browser may keep it for a year
 * (`immutable`).
 */
const GENERATED = path.resolve(__dirname, '../../src/generated');

/** Each script's name under /insights/assets, and its file under src/generated (the image copies these). */
export const GENERATED_SCRIPTS: readonly (readonly [asset: string, generated: string])[] = [
  ['/insights.js', 'insights-page.js'],
  ['/echarts-first.js', 'echarts/echarts-first.js'],
  ['/echarts-more.js', 'echarts/echarts-more.js'],
  ['/echarts-core.js', 'echarts/echarts-core.js'],
];

type Bundle = { body: Buffer; hash: string; etag: string; br?: Buffer; gzip?: Buffer };
const BUNDLES: Record<string, Bundle> = Object.fromEntries(
  GENERATED_SCRIPTS.map(([file, generated]) => {
    const body = fs.readFileSync(path.join(GENERATED, generated));
    const hash = contentHash(body);
    return [file, { body, hash, etag: `"${hash}"` }];
  }),
);
/** Where the page asks for a bundle: its path under /insights/assets with its version. */
const bundleUrl = (file: string) => `/insights/assets${file}?v=${BUNDLES[file].hash}`;

/**
 * Each bundle compressed at the highest settings, once per process and off the event loop (zlib's
 * thread pool): ECharts' first step and core are 160 KB in brotli and 185 KB in gzip on the wire,
 * less than the `compression` middleware's defaults send (Chromium asks for brotli over HTTPS only).
 * Until they are ready the middleware compresses as for any answer.
 */
let compressing = false;
function precompressBundles(): void {
  if (compressing) return;
  compressing = true;
  for (const bundle of Object.values(BUNDLES)) {
    const size = bundle.body.length;
    zlib.brotliCompress(bundle.body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size } }, (err, out) => {
      if (!err) bundle.br = out;
    });
    zlib.gzip(bundle.body, { level: 9 }, (err, out) => {
      if (!err) bundle.gzip = out;
    });
  }
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
    .replace(/\/insights\/assets(\/[a-z-]+\.js)"/g, (whole: string, file: string) => (BUNDLES[file] ? `${bundleUrl(file)}"` : whole));
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
  precompressBundles();
  // Named with the other assets (their `use` is above): one metrics route for the page's files.
  router.use('/insights/assets', (req, res, next) => {
    const bundle = BUNDLES[req.path];
    if (!bundle || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    // Asked for by this content's hash: the same bytes for as long as the URL lives. Without it
    // (a page from before an upgrade), revalidated like the other assets.
    res.setHeader('Cache-Control', req.query.v === bundle.hash ? 'public, max-age=31536000, immutable' : 'public, max-age=0');
    res.setHeader('ETag', bundle.etag);
    if (req.headers['if-none-match'] === bundle.etag) {
      res.status(304).end();
      return;
    }
    res.type('js');
    res.vary('Accept-Encoding');
    const encoding = req.acceptsEncodings('br', 'gzip', 'identity');
    const compressed = encoding === 'br' || encoding === 'gzip' ? bundle[encoding] : undefined;
    if (compressed) {
      // Already compressed: the middleware leaves an answer with a Content-Encoding alone.
      res.setHeader('Content-Encoding', encoding as string);
      res.send(compressed);
      return;
    }
    res.send(bundle.body);
  });
  router.use('/insights/assets', express.static(path.join(PUBLIC_DIR, 'assets'), { ...assets, index: false }));
  return router;
}
