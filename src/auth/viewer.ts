import type { Store, UserRecord } from '../store/types';
import type { TokenService } from './tokens';

/**
 * Who is asking, for one request. The token only names a user; the role comes from the store on
 * every request, so a demotion, a deletion or a password change takes effect at once. Resolved
 * lazily: a public read never touches the users table.
 */
export class Viewer {
  private cached?: Promise<UserRecord | null>;

  constructor(
    /** The token; null when an Authorization header was sent without a Bearer token; undefined when none. */
    private readonly bearer: string | null | undefined,
    private readonly tokens: TokenService,
    private readonly store: Store,
  ) {}

  /** Was any credential presented (valid or not)? Lets errors say "invalid" rather than "missing". */
  get presentedToken(): boolean {
    return this.bearer !== undefined;
  }

  /** Was an Authorization header sent that is not `Bearer <token>` (such as a bare JWT)? */
  get wrongScheme(): boolean {
    return this.bearer === null;
  }

  user(): Promise<UserRecord | null> {
    this.cached ??= this.resolve();
    return this.cached;
  }

  private async resolve(): Promise<UserRecord | null> {
    if (!this.bearer) return null;
    const claims = this.tokens.verify(this.bearer);
    if (!claims) return null;
    const current = await this.store.credentialsById(claims.sub);
    if (!current || current.tokenVersion !== claims.tv) return null;
    return { id: current.id, username: current.username, role: current.role };
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
