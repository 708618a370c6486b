import fc from 'fast-check';
import { MAX_OFFSET_MINUTES, MIN_OFFSET_MINUTES, parseIsoDateTime } from '../../src/domain/iso8601';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `date` written as local time at `offset` minutes east of UTC. */
function write(ms: number, offset: number): string {
  const local = new Date(ms + offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}.${pad(local.getUTCMilliseconds(), 3)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

const instant = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 11, 31) });

describe('parseIsoDateTime', () => {
  test('any instant written at any real offset reads back as that instant', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: MIN_OFFSET_MINUTES, max: MAX_OFFSET_MINUTES }), (ms, offset) => {
        expect(parseIsoDateTime(write(ms, offset))).toBe(ms);
      }),
      { numRuns: 500 },
    );
  });

  test('any offset past -12:00..+14:00 is refused', () => {
    const outside = fc.oneof(
      fc.integer({ min: -99 * 60 - 59, max: MIN_OFFSET_MINUTES - 1 }),
      fc.integer({ min: MAX_OFFSET_MINUTES + 1, max: 99 * 60 + 59 }),
    );
    fc.assert(
      fc.property(instant, outside, (ms, offset) => {
        expect(parseIsoDateTime(write(ms, offset))).toBeNull();
      }),
    );
  });

  test('a field out of range is refused, never rolled into the next unit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1900, max: 2200 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, day) => {
          const text = `${year}-${pad(month)}-${pad(day)}T00:00:00Z`;
          const exists = new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
          expect(parseIsoDateTime(text) !== null).toBe(exists);
        },
      ),
    );
    for (const text of ['2024-01-07T24:00Z', '2024-01-07T23:60Z', '2024-01-07T23:59:60Z', '2024-00-07T10:00Z', '2024-01-07T10:00+01:60']) {
      expect(parseIsoDateTime(text)).toBeNull();
    }
  });

  test('offset forms: Z, ±hh:mm, ±hhmm, ±hh; fractions past milliseconds are dropped', () => {
    expect(parseIsoDateTime('2024-01-07T10:00Z')).toBe(Date.UTC(2024, 0, 7, 10));
    expect(parseIsoDateTime('2024-01-07T10:00:00+01')).toBe(Date.UTC(2024, 0, 7, 9));
    expect(parseIsoDateTime('2024-01-07T10:00:00-0130')).toBe(Date.UTC(2024, 0, 7, 11, 30));
    expect(parseIsoDateTime('2024-01-07T10:00:00.123999999Z')).toBe(Date.UTC(2024, 0, 7, 10, 0, 0, 123));
    expect(parseIsoDateTime('2024-01-07T10:00:00')).toBeNull();
    expect(parseIsoDateTime('2024-01-07 10:00:00Z')).toBeNull();
  });
});
