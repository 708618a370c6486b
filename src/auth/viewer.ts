import type { Store, UserRecord } from '../store/types';
import type { Credentials } from './credentials';

export { bearerToken } from './credentials';

/**
 * Who is asking, for one request. The token only names a user; the role comes from the store on
 * every request, so a demotion, a deletion or a password change takes effect at once. Resolved
 * lazily: a public read never touches the users table.
 */
export class Viewer {
  private cached?: Promise<UserRecord | null>;

  constructor(
    private readonly credentials: Credentials,
    private readonly store: Store,
  ) {}

  /** Was any credential presented (valid or not)? Lets errors say "invalid" rather than "missing". */
  get presentedToken(): boolean {
    return this.credentials.bearer !== undefined;
  }

  /** Was an Authorization header sent that is not `Bearer <token>` (such as a bare JWT)? */
  get wrongScheme(): boolean {
    return this.credentials.bearer === null;
  }

  user(): Promise<UserRecord | null> {
    this.cached ??= this.resolve();
    return this.cached;
  }

  private async resolve(): Promise<UserRecord | null> {
    const claims = this.credentials.claims();
    if (!claims) return null;
    const current = await this.store.credentialsById(claims.sub);
    if (!current || current.tokenVersion !== claims.tv) return null;
    return { id: current.id, username: current.username, role: current.role };
  }
}
