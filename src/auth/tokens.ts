import jwt from 'jsonwebtoken';
import type { Role } from '../generated/graphql';

export interface TokenClaims {
  /** User id. */
  sub: number;
  role: Role;
  /** Token version: a password change bumps the user's, which retires every older token. */
  tv: number;
  iat: number;
  exp: number;
}

export interface Issued {
  token: string;
  expiresIn: number;
}

// Pinning the algorithm on both sides is what rejects `alg: none` and RS/HS confusion tokens.
const ALGORITHM = 'HS256' as const;

export class TokenService {
  constructor(
    private readonly secret: string,
    private readonly expiresIn: string,
  ) {}

  issue(user: { id: number; role: Role }, tokenVersion: number): Issued {
    const expiresIn = /^\d+$/.test(this.expiresIn) ? Number(this.expiresIn) : this.expiresIn;
    const token = jwt.sign({ role: user.role, tv: tokenVersion }, this.secret, {
      algorithm: ALGORITHM,
      subject: String(user.id),
      expiresIn: expiresIn as jwt.SignOptions['expiresIn'],
    });
    const { iat, exp } = jwt.decode(token) as { iat: number; exp: number };
    return { token, expiresIn: exp - iat };
  }

  /** The claims of a genuine, unexpired token; null for anything else. */
  verify(token: string): TokenClaims | null {
    try {
      const claims = jwt.verify(token, this.secret, { algorithms: [ALGORITHM] }) as jwt.JwtPayload;
      const sub = Number(claims.sub);
      if (!Number.isSafeInteger(sub) || typeof claims.tv !== 'number') return null;
      return { sub, role: claims.role, tv: claims.tv, iat: claims.iat!, exp: claims.exp! };
    } catch {
      return null;
    }
  }
}
