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
    private readonly bearer: string | undefined,
    private readonly tokens: TokenService,
    private readonly store: Store,
  ) {}

  /** Was any credential presented (valid or not)? Lets errors say "invalid" rather than "missing". */
  get presentedToken(): boolean {
    return this.bearer !== undefined;
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

/** The token of an `Authorization: Bearer <token>` header; undefined when absent or another scheme. */
export function bearerToken(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  // Another scheme, or garbage, is still a presented credential: it must fail, not be ignored.
  return match ? match[1] : header;
}
