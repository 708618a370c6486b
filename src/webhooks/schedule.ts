/**
 * When a delivery is tried again (docs/API.md, Webhooks): the Standard Webhooks schedule
 * (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after each failure) with two daily
 * tries after it, so a receiver down over a weekend still gets its events: ten tries over about
 * three days (75 h 35 min 5 s from the first to the last).
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait after the n-th failed try (index n - 1); after the last, the delivery has failed. */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 24 * HOUR, 24 * HOUR] as const;

/** Every try of one delivery: the first and one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** When to try again after `attempts` failed tries, or null when none is left. */
export function nextAttemptAt(attempts: number, now: number, delays: readonly number[] = RETRY_DELAYS_MS): number | null {
  const delay = delays[attempts - 1];
  return delay === undefined ? null : now + delay;
}

/** An endpoint whose tries have all failed for this long (none succeeding since) is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * HOUR;
