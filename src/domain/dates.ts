import { DateTime } from 'luxon';
import type { DateRange } from '../store/types';
import { parseIsoDateTime } from './iso8601';

/** Service dates must fall in years 1900–2200 (docs/API.md). */
export const MIN_MS = Date.UTC(1900, 0, 1);
export const MAX_MS = Date.UTC(2201, 0, 1) - 1;

const EPOCH_MS = /^-?\d{1,16}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export class DateFormatError extends Error {}

function inRange(ms: number): number {
  if (ms < MIN_MS || ms > MAX_MS) throw new DateFormatError('must be in the years 1900 to 2200');
  return ms;
}

/**
 * A service date as given on input: integer epoch milliseconds, or an ISO-8601 date-time string
 * with `Z` or an offset. Returns epoch ms.
 */
export function parseTimestamp(value: unknown): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new DateFormatError('must be an integer number of epoch milliseconds');
    return inRange(value);
  }
  if (typeof value === 'string') {
    const ms = parseIsoDateTime(value);
    if (ms === null) {
      throw new DateFormatError(
        'must be epoch milliseconds or a valid ISO-8601 date-time with Z or an offset from -12:00 to +14:00',
      );
    }
    return inRange(ms);
  }
  throw new DateFormatError('must be epoch milliseconds or an ISO-8601 date-time string');
}

/** A query bound: an instant, or a whole calendar day in the service time zone. */
type Bound = { kind: 'instant'; at: number } | { kind: 'day'; start: number; end: number };

export function parseBound(text: string, zone: string): Bound {
  const value = text.trim();
  if (EPOCH_MS.test(value)) {
    const at = Number(value);
    if (Number.isSafeInteger(at)) return { kind: 'instant', at };
  } else if (DAY.test(value)) {
    const day = DateTime.fromISO(value, { zone });
    if (day.isValid) {
      const start = day.startOf('day');
      // The day ends 1 ms before the next one starts, which is right on days of 23 or 25 hours.
      return { kind: 'day', start: start.toMillis(), end: start.plus({ days: 1 }).toMillis() - 1 };
    }
  } else {
    const at = parseIsoDateTime(value);
    if (at !== null) return { kind: 'instant', at };
  }
  throw new DateFormatError(
    `'${text}' is not a date: use epoch milliseconds, YYYY-MM-DD, or a valid ISO-8601 date-time with Z or an offset from -12:00 to +14:00`,
  );
}

const first = (b: Bound) => (b.kind === 'instant' ? b.at : b.start);
const last = (b: Bound) => (b.kind === 'instant' ? b.at : b.end);

/** Strictly after the instant, or after the end of the day. */
export const afterRange = (b: Bound): DateRange => ({ min: last(b) + 1, max: Number.MAX_SAFE_INTEGER });

/** Strictly before the instant, or before the start of the day. */
export const beforeRange = (b: Bound): DateRange => ({ min: Number.MIN_SAFE_INTEGER, max: first(b) - 1 });

/** Inclusive: from the instant or start of `a` to the instant or end of `b`. */
export function betweenRange(a: Bound, b: Bound): DateRange {
  const range = { min: first(a), max: last(b) };
  if (range.min > range.max) throw new DateFormatError('the first date is later than the second');
  return range;
}
