import type { TokenClaims, TokenService } from './tokens';

/**
 * What one request presents as its credential, read from its Authorization header, with the
 * token's signature and expiry checked at most once however many layers ask (the access log's
 * user id, the viewer, the facades' access decisions): verifying an HS256 JWT is the costliest
 * step of an authenticated request before the store is asked.
 */
export class Credentials {
  /** The token; null when an Authorization header was sent without a Bearer token; undefined when none. */
  readonly bearer: string | null | undefined;
  private verified?: TokenClaims | null;

  constructor(
    authorization: string | null | undefined,
    private readonly tokens: TokenService,
  ) {
    this.bearer = bearerToken(authorization);
  }

  /** The claims of a genuine, unexpired bearer token; null for none or anything else. */
  claims(): TokenClaims | null {
    if (this.verified === undefined) this.verified = this.bearer ? this.tokens.verify(this.bearer) : null;
    return this.verified;
  }
}

/**
 * The token of an `Authorization: Bearer <token>` header (the scheme name in any case, RFC 7235);
 * undefined when there is no header. Any other value (another scheme, a bare JWT, garbage) is null:
 * a presented credential that is no token, so it fails where a login is needed and is ignored on
 * public routes, like any invalid token. Reading a bare header as the token would accept a
 * credential sent outside the scheme the contract names.
 */
export function bearerToken(header: string | null | undefined): string | null | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}
