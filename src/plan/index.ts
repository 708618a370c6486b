import path from 'node:path';
import fs from 'node:fs';
import express from 'express';
import { escapeHtml, strictCsp } from '../http/pages';
import { nameRoute } from '../observability/logging';

/** The page's own files: a top-level folder, so src/ (tsx) and dist/ (tsc) both find it. */
export const PLAN_DIR = path.resolve(__dirname, '../../public/plan');

/**
 * GET /plan (the planning page) and /plan/assets/* (its scripts and styles): offline, under the
 * pages' strict policy, a client of the public GraphQL API with nothing of its own on the server.
 * The one server-side value it gets is the zone its dates are shown and chosen in.
 */
export function planRouter(serviceTimeZone: string): express.Router {
  const page = fs.readFileSync(path.join(PLAN_DIR, 'index.html'), 'utf8').replace('__SERVICE_TIME_ZONE__', escapeHtml(serviceTimeZone));
  const router = express.Router({ strict: true });
  router.get('/plan', (_req, res) => {
    strictCsp(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(page);
  });
  router.get('/plan/', (req, res) => res.redirect(301, req.originalUrl.replace('/plan/', '/plan')));
  router.use('/plan/assets', nameRoute('/plan/assets/*'), (_req, res, next) => {
    strictCsp(res);
    next();
  });
  // graphql-ws's own browser client (its UMD build, from the package): the live setlist.
  const wsClient = path.join(path.dirname(require.resolve('graphql-ws/package.json')), 'umd', 'graphql-ws.min.js');
  router.get('/plan/assets/vendor/graphql-ws.min.js', (_req, res) => res.sendFile(wsClient, { maxAge: 0 }));
  // Revalidated on every load (ETag, 304): after an upgrade no browser mixes old and new modules.
  router.use('/plan/assets', express.static(path.join(PLAN_DIR, 'assets'), { maxAge: 0, etag: true, lastModified: true, index: false }));
  return router;
}
