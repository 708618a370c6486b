import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../errors';
import type { LimiterStore } from '../limits/limiter-store';

/** What an operator wants to hear about logins (logs, metrics). Never given the password. */
export interface LoginEvents {
  failure(username: string, address: string): void;
  /** This failure used up the pair's allowance: attempts are refused until `retryAfter` seconds pass. */
  lockout(username: string, address: string, retryAfter: number): void;
  refused(username: string, address: string, retryAfter: number): void;
}

/**
 * Counts failed logins per (username, client address) and refuses further attempts once the limit
 * is reached inside the window (docs/API.md). Any rate-limiter-flexible backend fits: in memory
 * for a single process; in Redis (src/limits/limiter-store.ts, REDIS_URL) so that every instance
 * shares the count and a lockout holds on all of them.
 */
export class LoginLimiter {
  constructor(
    private readonly maxFailures: number,
    /** Configured with `points: maxFailures` and the window as `duration`. */
    private readonly limiter: RateLimiterAbstract,
    private readonly events?: LoginEvents,
  ) {}

  /** Counting in `limits` (memory, or the Redis every instance shares). */
  static in(limits: LimiterStore, maxFailures: number, windowSeconds: number, events?: LoginEvents): LoginLimiter {
    return new LoginLimiter(maxFailures, limits.limiter({ keyPrefix: 'login', points: maxFailures, duration: windowSeconds }), events);
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
