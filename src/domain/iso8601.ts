import { DateTime } from 'luxon';
import { DATE_TIME_PATTERN } from './date-patterns';

/**
 * An ISO-8601 / RFC 3339 date-time that names one instant: a calendar date, a time to the minute
 * (seconds and up to nine fraction digits optional), and `Z` or a numeric offset. A bare local time
 * would be ambiguous, so it is refused. EXACT (./date-patterns.ts) holds every range; DATE_TIME
 * only splits a string EXACT admitted into its fields.
 */
const EXACT = new RegExp(DATE_TIME_PATTERN);
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)$/i;

/** The offsets in use on Earth run from UTC-12:00 (Baker Island) to UTC+14:00 (Line Islands): EXACT's range. */
export const MIN_OFFSET_MINUTES = -12 * 60;
export const MAX_OFFSET_MINUTES = 14 * 60;

/**
 * Epoch milliseconds of a strictly read date-time, or null. Every field must be in its range with no
 * rollover: month 01–12, a day the month has (no Feb 30), hour 00–23 (no `24:00`), minute and second
 * 00–59 (no leap second), and an offset with minutes 00–59 within −12:00…+14:00. Digits past
 * milliseconds are dropped. Luxon alone would read `-99:99` and `24:00` as some other instant.
 */
export function parseIsoDateTime(text: string): number | null {
  const m = EXACT.test(text) ? DATE_TIME.exec(text) : null;
  if (!m) return null;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zulu, sign, offH, offM = '00'] = m;
  const offset = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM));
  // Luxon, not Date.UTC, which reads the years 0-99 as 1900-1999.
  const local = DateTime.fromObject(
    {
      year: Number(year),
      month: Number(month),
      day: Number(day),
      hour: Number(hour),
      minute: Number(minute),
      second: Number(second),
      millisecond: Number(fraction.slice(0, 3).padEnd(3, '0')),
    },
    { zone: 'utc' },
  );
  return local.toMillis() - offset * 60_000;
}
