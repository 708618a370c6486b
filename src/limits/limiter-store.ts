import Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** What one limiter counts: `points` per `duration` seconds per key, its keys under `keyPrefix`. */
export interface LimiterSpec {
  keyPrefix: string;
  points: number;
  duration: number;
}

/** Any logger with these two methods (pino's fit). */
export interface LimiterLog {
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
}

/**
 * Where the service's counters live (login failures, request budgets). Without REDIS_URL, each
 * process counts in its own memory: right for one instance. With it, every instance counts in one
 * Redis (rate-limiter-flexible's RateLimiterRedis), so N instances allow what one would and a
 * lockout holds wherever the next attempt lands. Redis is not needed to serve: while it is down
 * (or does not answer within COMMAND_TIMEOUT_MS) each limiter falls back to its insurance limiter,
 * a RateLimiterMemory with the same spec, and the switch, and the way back, are logged once each.
 */
export interface LimiterStore {
  /** Whether counts are shared by every instance (REDIS_URL set). */
  readonly shared: boolean;
  limiter(spec: LimiterSpec): RateLimiterAbstract;
  close(): Promise<void>;
}

/** Every key the service writes to Redis starts with this. */
export const KEY_NAMESPACE = 'worship-records';
/** A limiter call waits this long for Redis, then counts in memory. */
export const COMMAND_TIMEOUT_MS = 500;

/** For logs: the URL without the password it may carry. */
export function safeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(unparseable REDIS_URL)';
  }
}

const memory = (spec: LimiterSpec) => new RateLimiterMemory({ ...spec, keyPrefix: `${KEY_NAMESPACE}:${spec.keyPrefix}` });

export function memoryLimiterStore(): LimiterStore {
  return { shared: false, limiter: memory, close: async () => undefined };
}

/**
 * The limiters of this process: in Redis at `redisUrl` (with insurance), or in memory without it.
 * The Redis client never queues commands while disconnected (they fail at once, so the insurance
 * answers at once) and reconnects on its own, backing off to 2 s.
 */
export function createLimiterStore(redisUrl: string | undefined, log: LimiterLog): LimiterStore {
  if (!redisUrl) return memoryLimiterStore();
  const where = safeRedisUrl(redisUrl);
  const redis = new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });

  // 'shared' while Redis answers; 'memory' once it failed us, until it is ready again; 'closed'
  // once this process let go of it (its own disconnect is no outage and is not logged as one).
  let state: 'starting' | 'shared' | 'memory' | 'closed' = 'starting';
  const toMemory = (reason: string) => {
    if (state === 'memory' || state === 'closed') return;
    state = 'memory';
    log.warn(
      { event: 'limits_in_memory', redis: where, reason },
      `Redis at ${where} is unavailable (${reason}): login and request limits are counted in this process's memory (insurance limiter) until it is back`,
    );
  };
  redis.on('ready', () => {
    if (state === 'closed') return;
    const was = state;
    state = 'shared';
    log.info(
      { event: 'limits_shared', redis: where },
      was === 'memory'
        ? `Redis at ${where} is back: login and request limits are shared by every instance again`
        : `Redis at ${where} is ready: login and request limits are shared by every instance`,
    );
  });
  // ioredis reports each failed reconnection; one line per outage is enough.
  redis.on('error', (err: Error) => toMemory(err.message));
  redis.on('close', () => state === 'shared' && toMemory('connection closed'));

  /**
   * The in-memory fallback of one limiter. Used when the client is not connected (then the switch
   * is logged already) or when a connected Redis did not answer in time (then it is logged here).
   */
  const reason = 'not connected, or no answer in time';
  class Insurance extends RateLimiterMemory {
    override async consume(...args: Parameters<RateLimiterMemory['consume']>) {
      toMemory(reason);
      return super.consume(...args);
    }

    override async get(...args: Parameters<RateLimiterMemory['get']>) {
      toMemory(reason);
      return super.get(...args);
    }

    override async delete(...args: Parameters<RateLimiterMemory['delete']>) {
      toMemory(reason);
      return super.delete(...args);
    }
  }

  return {
    shared: true,
    limiter: (spec) =>
      new RateLimiterRedis({
        ...spec,
        keyPrefix: `${KEY_NAMESPACE}:${spec.keyPrefix}`,
        storeClient: redis,
        // While the client is not connected, go straight to the insurance.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new Insurance({ ...spec, keyPrefix: `${KEY_NAMESPACE}:${spec.keyPrefix}` }),
      }),
    close: async () => {
      state = 'closed';
      redis.disconnect();
    },
  };
}
