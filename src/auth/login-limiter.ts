import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../errors';

/**
 * Counts failed logins per (username, client address) and refuses further attempts once the limit
 * is reached inside the window (CONTRACT.md §5). Any rate-limiter-flexible backend fits: the
 * in-memory one suits a single process; several API processes share a RateLimiterRedis.
 */
export class LoginLimiter {
  constructor(
    private readonly maxFailures: number,
    /** Configured with `points: maxFailures` and the window as `duration`. */
    private readonly limiter: RateLimiterAbstract,
  ) {}

  static inMemory(maxFailures: number, windowSeconds: number): LoginLimiter {
    return new LoginLimiter(maxFailures, new RateLimiterMemory({ points: maxFailures, duration: windowSeconds }));
  }

  private key(username: string, address: string) {
    return `${username.toLowerCase()}|${address}`;
  }

  /** Throws RATE_LIMITED (with Retry-After seconds) when this pair has used up its failures. */
  async assertAllowed(username: string, address: string): Promise<void> {
    const state = await this.limiter.get(this.key(username, address));
    if (state && state.consumedPoints >= this.maxFailures) {
      throw new AppError('RATE_LIMITED', 'Too many failed login attempts; try again later', {
        retryAfter: Math.max(1, Math.ceil(state.msBeforeNext / 1000)),
      });
    }
  }

  async recordFailure(username: string, address: string): Promise<void> {
    // consume() rejects once points run out; the count is what matters, not the rejection.
    await this.limiter.consume(this.key(username, address)).catch(() => undefined);
  }

  async recordSuccess(username: string, address: string): Promise<void> {
    await this.limiter.delete(this.key(username, address));
  }
}
