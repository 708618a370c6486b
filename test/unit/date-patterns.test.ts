/**
 * The date patterns the OpenAPI document states (src/domain/date-patterns.ts) are exact: a string
 * matches if and only if a calendar (Luxon) says it is a real date, time and offset. Checked over
 * generated strings that are mostly near misses (day 00–32, month 00–13, hour 00–25, offsets
 * beyond ±14:00), against an oracle that does not use the patterns.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import {
  BOUND_PATTERN,
  DATE_TIME_PATTERN,
  DAY_PATTERN,
  EPOCH_MS_PATTERN,
  SERVICE_DATE_TEXT_PATTERN,
  SERVICE_DATE_TIME_PATTERN,
} from '../../src/domain/date-patterns';
import { parseBound, parseServiceDate, parseTimestamp } from '../../src/domain/dates';

const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const pad = (n: number, w: number) => String(n).padStart(w, '0');

const dayParts = fc.record({
  year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(1899, 1900, 2000, 2100, 2200, 2201, 2024, 2023)),
  month: fc.integer({ min: 0, max: 13 }),
  day: fc.integer({ min: 0, max: 32 }),
});
const timeParts = fc.record({
  hour: fc.integer({ min: 0, max: 25 }),
  minute: fc.integer({ min: 0, max: 61 }),
  second: fc.option(fc.integer({ min: 0, max: 61 })),
  fraction: fc.option(fc.stringMatching(/^[0-9]{1,10}$/)),
  zone: fc.oneof(
    fc.constantFrom('Z', 'z'),
    fc.record({ sign: fc.constantFrom('+', '-'), h: fc.integer({ min: 0, max: 16 }), m: fc.option(fc.integer({ min: 0, max: 61 })), colon: fc.boolean() }),
  ),
  t: fc.constantFrom('T', 't'),
});

type Day = { year: number; month: number; day: number };
type Time = typeof timeParts extends fc.Arbitrary<infer T> ? T : never;
const dayText = (d: Day) => `${pad(d.year, 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}`;
const zoneText = (z: Time['zone']) =>
  typeof z === 'string' ? z : `${z.sign}${pad(z.h, 2)}${z.m === null ? '' : `${z.colon ? ':' : ''}${pad(z.m, 2)}`}`;
const timeText = (t: Time) =>
  `${t.t}${pad(t.hour, 2)}:${pad(t.minute, 2)}${t.second === null ? '' : `:${pad(t.second, 2)}${t.fraction === null ? '' : `.${t.fraction}`}`}${zoneText(t.zone)}`;

/** The oracle: a real calendar day, a real time, an offset in −12:00…+14:00 with minutes 00–59. */
const realDay = (d: Day) => DateTime.fromObject(d, { zone: 'utc' }).isValid;
function realTime(t: Time): boolean {
  if (t.hour > 23 || t.minute > 59 || (t.second ?? 0) > 59) return false;
  if (t.second !== null && t.fraction !== null && t.fraction.length > 9) return false;
  if (typeof t.zone === 'string') return true;
  const m = t.zone.m ?? 0;
  if (m > 59) return false;
  const offset = (t.zone.sign === '-' ? -1 : 1) * (t.zone.h * 60 + m);
  return offset >= -720 && offset <= 840;
}

const matches = (pattern: string, text: string) => new RegExp(pattern).test(text);

test('DAY_PATTERN matches exactly the real calendar days, leap years included', () => {
  fc.assert(
    fc.property(dayParts, (d) => {
      expect([dayText(d), matches(DAY_PATTERN, dayText(d))]).toEqual([dayText(d), realDay(d)]);
    }),
    { numRuns: RUNS },
  );
  expect(['2000-02-29', '2024-02-29', '0000-02-29', '1600-02-29'].every((x) => matches(DAY_PATTERN, x))).toBe(true);
  expect(['1900-02-29', '2100-02-29', '2023-02-29', '2024-04-31', '2024-13-01', '2024-00-10'].some((x) => matches(DAY_PATTERN, x))).toBe(false);
});

test('DATE_TIME_PATTERN matches exactly the real date-times with a real offset', () => {
  fc.assert(
    fc.property(dayParts, timeParts, (d, t) => {
      const text = `${dayText(d)}${timeText(t)}`;
      expect([text, matches(DATE_TIME_PATTERN, text)]).toEqual([text, realDay(d) && realTime(t)]);
      // A query bound is any of the three forms.
      expect([text, matches(BOUND_PATTERN, text)]).toEqual([text, realDay(d) && realTime(t)]);
    }),
    { numRuns: RUNS },
  );
});

test('a string parseBound reads is one BOUND_PATTERN matches, and the other way round', () => {
  const candidates = fc.oneof(
    fc.tuple(dayParts, timeParts).map(([d, t]) => `${dayText(d)}${timeText(t)}`),
    dayParts.map(dayText),
    fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }).map(String),
    fc.string({ maxLength: 30 }),
    dayParts.map((d) => ` ${dayText(d)}`),
  );
  fc.assert(
    fc.property(candidates, (text) => {
      let read = true;
      try {
        parseBound(text, 'UTC');
      } catch {
        read = false;
      }
      expect([text, read]).toEqual([text, matches(BOUND_PATTERN, text)]);
    }),
    { numRuns: RUNS },
  );
  expect(matches(EPOCH_MS_PATTERN, '999999999999999')).toBe(true);
  expect(matches(EPOCH_MS_PATTERN, '9999999999999999')).toBe(false);
});

test('a body date string parseTimestamp reads is one SERVICE_DATE_TIME_PATTERN matches: calendar date in 1900-2200', () => {
  fc.assert(
    fc.property(dayParts, timeParts, (d, t) => {
      const text = `${dayText(d)}${timeText(t)}`;
      let read = true;
      try {
        parseTimestamp(text);
      } catch {
        read = false;
      }
      const expected = realDay(d) && realTime(t) && d.year >= 1900 && d.year <= 2200;
      expect([text, read, matches(SERVICE_DATE_TIME_PATTERN, text)]).toEqual([text, expected, expected]);
    }),
    { numRuns: RUNS },
  );
});

test('a body date string parseServiceDate reads (a date-time or a day alone) is one SERVICE_DATE_TEXT_PATTERN matches', () => {
  fc.assert(
    fc.property(dayParts, fc.option(timeParts), (d, t) => {
      const text = `${dayText(d)}${t ? timeText(t) : ''}`;
      let read: unknown;
      try {
        read = parseServiceDate(text);
      } catch {
        read = undefined;
      }
      const expected = realDay(d) && (t === null || realTime(t)) && d.year >= 1900 && d.year <= 2200;
      expect([text, read !== undefined, matches(SERVICE_DATE_TEXT_PATTERN, text)]).toEqual([text, expected, expected]);
      // A day alone is carried as the day, for the service type's usual time.
      if (expected && t === null) expect(read).toEqual({ serviceDay: text });
    }),
    { numRuns: RUNS },
  );
});
