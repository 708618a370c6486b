import { isIPv6 } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { TokenService } from '../auth/tokens';
import { Credentials } from '../auth/credentials';
import type { RateLimitPolicy } from '../config';
import { AppError } from '../errors';
import type { LimiterStore } from '../limits/limiter-store';
import type { RequestScope } from '../observability/request-scope';

/** A client's budget after a charge. */
export interface Budget {
  allowed: boolean;
  /** Points per window. */
  limit: number;
  remaining: number;
  /** Seconds until the client's window ends and its points are back. */
  resetSeconds: number;
}

/**
 * Counts points per client key over a window: the one thing the service needs of a limiter
 * store. `memoryCounter` counts per process; several instances share counts by passing
 * rate-limiter-flexible's RateLimiterRedis (same options) to `flexibleCounter` instead.
 */
export interface PointCounter {
  consume(key: string, points: number): Promise<Budget>;
}

export function flexibleCounter(limiter: RateLimiterAbstract): PointCounter {
  const budget = (res: RateLimiterRes, allowed: boolean): Budget => ({
    allowed,
    limit: limiter.points,
    remaining: res.remainingPoints,
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });
  return {
    async consume(key, points) {
      try {
        return budget(await limiter.consume(key, points), true);
      } catch (err) {
        // rate-limiter-flexible rejects with the budget when it is spent, and with an Error when
        // its store fails (a Redis outage), which is no answer about the client.
        if (err instanceof RateLimiterRes) return budget(err, false);
        throw err;
      }
    },
  };
}

/**
 * Fixed windows in this process's memory: one small entry per client seen in its current window,
 * dropped when the window ends, so memory follows the number of distinct clients per window.
 */
export const memoryCounter = (points: number, windowSeconds: number): PointCounter =>
  flexibleCounter(new RateLimiterMemory({ points, duration: windowSeconds }));

/**
 * The key an address is counted under. IPv4-mapped IPv6 (`::ffff:203.0.113.9`) is the IPv4
 * address; other IPv6 addresses count by their /64 prefix, since one host or home network is
 * usually given a whole /64 and could otherwise take a fresh budget per address.
 */
export function addressKey(address: string): string {
  const plain = address.split('%')[0].toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (mapped) return mapped[1];
  if (!isIPv6(plain)) return plain;
  const groups = (part: string) => (part ? part.split(':') : []);
  // An embedded IPv4 tail (`::1.2.3.4`) fills two groups.
  const width = (gs: string[]) => gs.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const [head, tail] = plain.split('::');
  const full =
    tail === undefined
      ? groups(head)
      : [...groups(head), ...Array<string>(8 - width(groups(head)) - width(groups(tail))).fill('0'), ...groups(tail)];
  return `${full
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** The refusal both facades send: 429, code RATE_LIMITED, `Retry-After` in seconds. */
export const rateLimited = (budget: Budget) =>
  new AppError('RATE_LIMITED', `Too many requests from this client; try again in ${budget.resetSeconds} s`, {
    retryAfter: budget.resetSeconds,
  });

export const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/** The RateLimit-* headers (IETF draft 6, as express-rate-limit sends them) of a budget. */
export function budgetHeaders(budget: Budget): Record<string, string> {
  return {
    'RateLimit-Limit': String(budget.limit),
    'RateLimit-Remaining': String(budget.remaining),
    'RateLimit-Reset': String(budget.resetSeconds),
  };
}

/**
 * Runs each client's heavy requests one at a time, in arrival order, each in a later turn of the
 * event loop than the one that read it.
 *
 * Why: Node runs a request's synchronous work and all the promise callbacks it chains before it
 * reads the next socket, and it handles every socket that is ready in one pass. Eight heavy
 * requests read in one pass therefore run back to back while every other client's request waits
 * unread behind all eight (a /healthz for seconds). Started from setImmediate, one after another,
 * a heavy request runs only after the loop has read (and answered) what else was ready, so other
 * clients wait behind one heavy request at most. Holds an entry per client with a heavy request
 * in flight; the budget bounds how many of a client's requests wait.
 */
export class Turns {
  private readonly tails = new Map<string, Promise<void>>();

  /** Resolves when it is this request's turn, with the function that ends it (idempotent). */
  async take(key: string): Promise<() => void> {
    const previous = this.tails.get(key);
    let end!: () => void;
    const mine = new Promise<void>((resolve) => (end = resolve));
    const tail = previous ? previous.then(() => mine) : mine;
    this.tails.set(key, tail);
    if (previous) await previous;
    await new Promise((resolve) => setImmediate(resolve));
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (this.tails.get(key) === tail) this.tails.delete(key);
      end();
    };
  }

  /** Clients with a heavy request in flight or waiting (for tests). */
  get size(): number {
    return this.tails.size;
  }
}

/** What a request costs: 1 point, or a weight for analytics and CSV (docs/API.md, Rate limits). */
export const BASE_POINTS = 1;

const CLIENT_KEY = Symbol('rateLimitClient');

/**
 * Request rate limits per client (docs/API.md): signed-in clients by user id, the rest by address.
 * Every request is charged BASE_POINTS on arrival; what turns out heavier (an analytics route, a
 * CSV report, a GraphQL operation's analytics fields) is charged the rest of its weight once that
 * is known, so a refused request never reaches the work it would have cost.
 */
export class RequestRateLimiter {
  private readonly turns = new Turns();

  constructor(
    private readonly counter: PointCounter,
    readonly policy: RateLimitPolicy,
    private readonly tokens: TokenService,
  ) {}

  static inMemory(policy: RateLimitPolicy, tokens: TokenService): RequestRateLimiter {
    return new RequestRateLimiter(memoryCounter(policy.points, policy.windowSeconds), policy, tokens);
  }

  /** Counting in `limits`: this process's memory, or the Redis every instance shares (REDIS_URL). */
  static in(limits: LimiterStore, policy: RateLimitPolicy, tokens: TokenService): RequestRateLimiter {
    const limiter = limits.limiter({ keyPrefix: 'requests', points: policy.points, duration: policy.windowSeconds });
    return new RequestRateLimiter(flexibleCounter(limiter), policy, tokens);
  }

  /**
   * `user:<id>` for a genuine, unexpired token (its signature proves the id; the user's current
   * state does not matter for counting), `addr:<address>` for anything else, a bad token included.
   * `credentials` are the request's own (src/observability reads them first), so the token is
   * verified once per request however many layers ask.
   */
  keyOf(credentials: Credentials, address: string | undefined): string {
    const claims = credentials.claims();
    return claims ? `user:${claims.sub}` : `addr:${addressKey(address ?? 'unknown')}`;
  }

  /** The request's credentials as the first middleware read them, or read here when it did not. */
  credentialsOf(scope: RequestScope | undefined, authorization: string | null | undefined): Credentials {
    return scope?.credentials ?? new Credentials(authorization, this.tokens);
  }

  /** Charge `points` to the client; the budget after it. */
  charge(key: string, points: number): Promise<Budget> {
    return this.counter.consume(key, points);
  }

  /**
   * Express middleware charging BASE_POINTS to every request that reaches it (mount it after what
   * is never limited). A refusal is answered by `refuse`, in the facade's error shape.
   */
  middleware(refuse: (req: Request, res: Response, error: AppError) => void): RequestHandler {
    return async (req: Request, res: Response, next: NextFunction) => {
      try {
        const key = this.keyOf(this.credentialsOf(res.locals.scope as RequestScope | undefined, req.headers.authorization), req.ip);
        (res.locals as Record<symbol, string>)[CLIENT_KEY] = key;
        const budget = await this.charge(key, BASE_POINTS);
        res.set(budgetHeaders(budget));
        if (budget.allowed) return next();
        refuse(req, res, rateLimited(budget));
      } catch (err) {
        next(err);
      }
    };
  }

  /**
   * Charge the rest of a heavy request's weight to the client the middleware charged, then wait
   * for the client's turn (see Turns), which ends with the answer. Throws RATE_LIMITED when the
   * charge spends the budget; false when the client went away while it waited (nothing to do).
   */
  async chargeHeavy(res: Response, weight: number): Promise<boolean> {
    const key = (res.locals as Record<symbol, string | undefined>)[CLIENT_KEY];
    if (key === undefined) return true;
    const budget = await this.charge(key, weight - BASE_POINTS);
    res.set(budgetHeaders(budget));
    if (!budget.allowed) throw rateLimited(budget);
    const end = await this.turn(key);
    // A connection lost while waiting has closed already: waiting for its 'close' would keep the
    // client's turn forever.
    if (res.closed) {
      end();
      return false;
    }
    // 'close' follows the answer, or a connection lost before it.
    res.once('close', end);
    return true;
  }

  /** Wait for the client's turn to run a heavy request; call the result when it is answered. */
  turn(key: string): Promise<() => void> {
    return this.turns.take(key);
  }
}
