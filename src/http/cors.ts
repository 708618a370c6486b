import { RATE_LIMIT_HEADERS } from './rate-limit';

/**
 * The CORS header lists both facades answer with (docs/API.md: Headers and CORS), in one place.
 * Joined once here rather than by `cors` on every request.
 */

/** Request headers a browser script may send to /graphql and /api/v1. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Request-Id'].join(',');

/** Response headers a browser script may read on either facade, and REST's own besides. */
export function corsExposedHeaders(facade: 'graphql' | 'rest'): string {
  const shared = ['X-Request-Id', 'Retry-After', ...RATE_LIMIT_HEADERS];
  return (facade === 'rest' ? ['Location', 'X-Total-Count', 'WWW-Authenticate', ...shared] : shared).join(',');
}
