import type { Response } from 'express';

/**
 * The policy of the pages the process serves itself (/insights, /plan): everything from this
 * origin only, no inline script or style (their code is in files; ECharts sets styles through the
 * CSSOM, which is allowed, and draws tooltips as canvas rich text).
 */
export const PAGE_CSP = [
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

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** helmet leaves CSP off app-wide (the Sandbox needs a CDN); each page gets this one. */
export function strictCsp(res: Response) {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
}
