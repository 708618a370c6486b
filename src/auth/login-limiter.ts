import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../errors';

/**
 * Counts failed logins per (username, client address) and refuses further attempts once the limit
 * is reached inside the window (docs/API.md). Any rate-limiter-flexible backend fits: the
 * in-memory one suits a single process; several API processes share a RateLimiterRedis.
 */
/** What an operator wants to hear about logins (logs, metrics). Never given the password. */
export interface LoginEvents {
  failure(username: string, address: string): void;
  /** This failure used up the pair's allowance: attempts are refused until `retryAfter` seconds pass. */
  lockout(username: string, address: string, retryAfter: number): void;
  refused(username: string, address: string, retryAfter: number): void;
}

export class LoginLimiter {
  constructor(
    private readonly maxFailures: number,
    /** Configured with `points: maxFailures` and the window as `duration`. */
    private readonly limiter: RateLimiterAbstract,
    private readonly events?: LoginEvents,
  ) {}

  static inMemory(maxFailures: number, windowSeconds: number, events?: LoginEvents): LoginLimiter {
    return new LoginLimiter(maxFailures, new RateLimiterMemory({ points: maxFailures, duration: windowSeconds }), events);
  }

  private key(username: string, address: string) {
    return `${username.toLowerCase()}|${address}`;
  }

  /** Throws RATE_LIMITED (with Retry-After seconds) when this pair has used up its failures. */
  async assertAllowed(username: string, address: string): Promise<void> {
    const state = await this.limiter.get(this.key(username, address));
    if (state && state.consumedPoints >= this.maxFailures) {
      const retryAfter = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
      this.events?.refused(username, address, retryAfter);
      throw new AppError('RATE_LIMITED', 'Too many failed login attempts; try again later', { retryAfter });
    }
  }

  async recordFailure(username: string, address: string): Promise<void> {
    // consume() rejects once points run out; the count is what matters, not the rejection.
    const state = await this.limiter.consume(this.key(username, address)).catch(() => undefined);
    this.events?.failure(username, address);
    if (state && state.consumedPoints === this.maxFailures) {
      this.events?.lockout(username, address, Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
    }
  }

  async recordSuccess(username: string, address: string): Promise<void> {
    await this.limiter.delete(this.key(username, address));
  }
}
