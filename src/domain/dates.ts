import { DateTime } from 'luxon';
import type { DateRange } from '../store/types';
import type { ServiceType } from '../generated/graphql';
import { DAY_PATTERN, EPOCH_MS_PATTERN, SERVICE_DATE_TIME_PATTERN, SERVICE_DAY_PATTERN } from './date-patterns';
import { parseIsoDateTime } from './iso8601';

/**
 * Service dates must fall in the years 1900–2200 (docs/API.md) as written in some offset in use
 * (−12:00…+14:00): the first instant is 1900-01-01T00:00+14:00, the last 2200-12-31T23:59:59.999
 * −12:00. So every date-time SERVICE_DATE_TIME_PATTERN admits is in range, and epoch ms have the
 * same bounds (an answer's epoch ms read back as input is accepted).
 */
export const MIN_MS = Date.UTC(1900, 0, 1) - 14 * 3_600_000;
export const MAX_MS = Date.UTC(2201, 0, 1) - 1 + 12 * 3_600_000;

const EPOCH_MS = new RegExp(EPOCH_MS_PATTERN);
const DAY = new RegExp(DAY_PATTERN);
const SERVICE_DATE_TIME = new RegExp(SERVICE_DATE_TIME_PATTERN);
const SERVICE_DAY = new RegExp(SERVICE_DAY_PATTERN);

export class DateFormatError extends Error {}

/**
 * A service date given as a calendar day alone (`2026-11-29`): which instant it is depends on the
 * service's type (its usual time, SERVICE_TIMES) and SERVICE_TIME_ZONE, so it is carried as the
 * day until both are known (`serviceInstant`). A plain object, not a class: graphql-jit copies
 * argument values, which would lose a prototype.
 */
export interface ServiceDay {
  readonly serviceDay: string;
}
export const isServiceDay = (value: unknown): value is ServiceDay =>
  typeof value === 'object' && value !== null && typeof (value as ServiceDay).serviceDay === 'string';

/** A service's usual local time of day by type (SERVICE_TIMES), as `HH:mm`. */
export type ServiceTimes = Readonly<Record<ServiceType, string>>;
export const DEFAULT_SERVICE_TIMES: ServiceTimes = { SUN_AM: '10:30', SUN_PM: '18:00', WED: '19:00' };

/** A service date as given on input: epoch ms or a date-time (`parseTimestamp`), or a calendar day alone. */
export function parseServiceDate(value: unknown): number | ServiceDay {
  // Already read (graphql-jit coerces a variable the REST facade read once more).
  if (isServiceDay(value)) return value;
  if (typeof value === 'string' && SERVICE_DAY.test(value)) return { serviceDay: value };
  return parseTimestamp(value);
}

/** The instant of a service date: a day alone at its type's usual time in `zone`. */
export function serviceInstant(date: number | ServiceDay, type: ServiceType, zone: string, times: ServiceTimes): number {
  if (!isServiceDay(date)) return date;
  const at = DateTime.fromISO(`${date.serviceDay}T${times[type]}`, { zone });
  // A time the clocks skip that day (a spring-forward gap) moves forward, as luxon does.
  if (!at.isValid) throw new DateFormatError(`'${date.serviceDay}' is not a calendar date`);
  return inRange(at.toMillis());
}

function inRange(ms: number): number {
  if (ms < MIN_MS || ms > MAX_MS) throw new DateFormatError('must be in the years 1900 to 2200');
  return ms;
}

/**
 * A service date as given on input: integer epoch milliseconds from MIN_MS to MAX_MS, or an
 * ISO-8601 date-time string with `Z` or an offset whose own calendar date is in those years
 * (SERVICE_DATE_TIME_PATTERN, exactly what the OpenAPI document states). Returns epoch ms.
 */
export function parseTimestamp(value: unknown): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new DateFormatError('must be an integer number of epoch milliseconds');
    return inRange(value);
  }
  if (typeof value === 'string') {
    const ms = SERVICE_DATE_TIME.test(value) ? parseIsoDateTime(value) : null;
    if (ms === null) {
      throw new DateFormatError(
        'must be epoch milliseconds or a valid ISO-8601 date-time with Z or an offset from -12:00 to +14:00, its date in the years 1900 to 2200',
      );
    }
    return inRange(ms);
  }
  throw new DateFormatError('must be epoch milliseconds or an ISO-8601 date-time string');
}

/** A query bound: an instant, or a whole calendar day in the service time zone. */
export type Bound = { kind: 'instant'; at: number } | { kind: 'day'; start: number; end: number };

/**
 * A date of a path or query parameter, read exactly as BOUND_PATTERN (./date-patterns.ts) states it:
 * epoch ms (at most 15 digits), a calendar day YYYY-MM-DD, or an ISO-8601 date-time; no spaces.
 */
export function parseBound(text: string, zone: string): Bound {
  if (EPOCH_MS.test(text)) {
    return { kind: 'instant', at: Number(text) };
  } else if (DAY.test(text)) {
    const day = DateTime.fromISO(text, { zone });
    if (day.isValid) {
      const start = day.startOf('day');
      // The day ends 1 ms before the next one starts, which is right on days of 23 or 25 hours.
      return { kind: 'day', start: start.toMillis(), end: start.plus({ days: 1 }).toMillis() - 1 };
    }
  } else {
    const at = parseIsoDateTime(text);
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
