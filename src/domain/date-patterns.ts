/**
 * The text forms of a date this API reads, as exact regular expressions: a string matches if and
 * only if the parsers (./dates.ts, ./iso8601.ts) read it, field ranges and calendar included (no
 * Feb 30, Feb 29 only in leap years, hour 00–23, offsets −12:00…+14:00). The parsers test these
 * very patterns, and the OpenAPI document states them (src/rest/openapi.ts), so a generated client
 * and the service agree on every string. Written without flags or lookarounds, in the subset of
 * regex syntax that ECMAScript, Python and JSON Schema tools read alike.
 */

/** Any four-digit year, and its leap years (divisible by 4, centuries only by 400; 0000 is one). */
const ANY_YEAR = '[0-9]{4}';
const ANY_LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';

/** The years of a service date (1900–2200, ./dates.ts), and its leap years (not 1900, 2100, 2200). */
const SERVICE_YEAR = '(?:19[0-9]{2}|2[01][0-9]{2}|2200)';
const SERVICE_LEAP_YEAR = '(?:19(?:0[48]|[2468][048]|[13579][26])|20(?:[02468][048]|[13579][26])|21(?:0[48]|[2468][048]|[13579][26]))';

/** A calendar date YYYY-MM-DD of the given years: every month's days, Feb 29 in leap years only. */
const calendarDate = (year: string, leapYear: string) =>
  `(?:${year}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)|${leapYear}-02-29)`;

/** A time to the minute, seconds and up to nine fraction digits optional (digits past ms are dropped). */
const TIME = '[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\\.[0-9]{1,9})?)?';

/** `Z`, or an offset in use on Earth: −12:00 to +14:00, minutes 00–59, the colon optional. */
const OFFSET = '(?:[Zz]|-(?:0[0-9]|1[01])(?::?[0-5][0-9])?|-12(?::?00)?|\\+(?:0[0-9]|1[0-3])(?::?[0-5][0-9])?|\\+14(?::?00)?)';

const exact = (source: string) => `^${source}$`;

/** Epoch milliseconds as text: at most 15 digits, so every one is a safe integer. */
const EPOCH_MS = '-?[0-9]{1,15}';

export const EPOCH_MS_PATTERN = exact(EPOCH_MS);
/** A whole calendar day (a query bound: any year). */
export const DAY_PATTERN = exact(calendarDate(ANY_YEAR, ANY_LEAP_YEAR));
/** An ISO-8601 date-time naming one instant (a query bound: any year). */
export const DATE_TIME_PATTERN = exact(`${calendarDate(ANY_YEAR, ANY_LEAP_YEAR)}${TIME}${OFFSET}`);
/** An ISO-8601 date-time of a service date in a request body: its calendar date in 1900–2200. */
export const SERVICE_DATE_TIME_PATTERN = exact(`${calendarDate(SERVICE_YEAR, SERVICE_LEAP_YEAR)}${TIME}${OFFSET}`);
/** A service date given as a calendar day alone (1900–2200): the service's usual time is filled in. */
export const SERVICE_DAY_PATTERN = exact(calendarDate(SERVICE_YEAR, SERVICE_LEAP_YEAR));
/** A service date's text forms in a request body: a calendar day, or a date-time naming an instant. */
export const SERVICE_DATE_TEXT_PATTERN = exact(`${calendarDate(SERVICE_YEAR, SERVICE_LEAP_YEAR)}(?:${TIME}${OFFSET})?`);
/** What a date in a path or query parameter may be: epoch ms, a day, or a date-time. */
export const BOUND_PATTERN = exact(`(?:${EPOCH_MS}|${calendarDate(ANY_YEAR, ANY_LEAP_YEAR)}(?:${TIME}${OFFSET})?)`);
