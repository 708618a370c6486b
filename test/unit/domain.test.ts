import { artistKey } from '../../src/domain/artists';
import { afterRange, beforeRange, betweenRange, DateFormatError, parseBound, parseTimestamp } from '../../src/domain/dates';

describe('parseBound', () => {
  test('epoch milliseconds and ISO date-times with Z or an offset are instants', () => {
    expect(parseBound('1704621600000', 'UTC')).toEqual({ kind: 'instant', at: 1704621600000 });
    expect(parseBound('-86400000', 'UTC')).toEqual({ kind: 'instant', at: -86400000 });
    expect(parseBound('2024-01-07T10:00:00Z', 'UTC')).toEqual({ kind: 'instant', at: Date.UTC(2024, 0, 7, 10) });
    expect(parseBound('2024-01-07T10:00:00.250+02:00', 'UTC')).toEqual({ kind: 'instant', at: Date.UTC(2024, 0, 7, 8, 0, 0, 250) });
  });

  test('a date-only bound is the whole day in the service time zone', () => {
    expect(parseBound('2024-01-07', 'UTC')).toEqual({
      kind: 'day',
      start: Date.UTC(2024, 0, 7),
      end: Date.UTC(2024, 0, 8) - 1,
    });
    // New York is UTC-5 in January.
    expect(parseBound('2024-01-07', 'America/New_York')).toEqual({
      kind: 'day',
      start: Date.UTC(2024, 0, 7, 5),
      end: Date.UTC(2024, 0, 8, 5) - 1,
    });
  });

  test('days of 23 and 25 hours end one millisecond before the next day starts', () => {
    const spring = parseBound('2024-03-10', 'America/New_York');
    expect(spring.kind === 'day' && spring.end - spring.start + 1).toBe(23 * 3_600_000);
    const autumn = parseBound('2024-11-03', 'America/New_York');
    expect(autumn.kind === 'day' && autumn.end - autumn.start + 1).toBe(25 * 3_600_000);
  });

  test.each(['', 'yesterday', '2024-13-01', '2024-02-30', '2024-01-07T10:00:00', '2024-01-07 10:00Z', '1.5', '99999999999999999'])(
    '%j is not a date',
    (text) => {
      expect(() => parseBound(text, 'UTC')).toThrow(DateFormatError);
    },
  );
});

describe('ranges', () => {
  const instant = parseBound('1000', 'UTC');
  const day = parseBound('2024-01-07', 'UTC');

  test('after and before are strict; a day bound excludes the whole day', () => {
    expect(afterRange(instant).min).toBe(1001);
    expect(beforeRange(instant).max).toBe(999);
    expect(afterRange(day).min).toBe(Date.UTC(2024, 0, 8));
    expect(beforeRange(day).max).toBe(Date.UTC(2024, 0, 7) - 1);
  });

  test('between is inclusive from the start of the first day to the end of the second', () => {
    expect(betweenRange(day, day)).toEqual({ min: Date.UTC(2024, 0, 7), max: Date.UTC(2024, 0, 8) - 1 });
    expect(betweenRange(instant, instant)).toEqual({ min: 1000, max: 1000 });
    expect(() => betweenRange(parseBound('2000', 'UTC'), instant)).toThrow(/later than/);
  });
});

describe('parseTimestamp', () => {
  test('accepts integer epoch ms and ISO date-times with Z or an offset, in years 1900-2200', () => {
    expect(parseTimestamp(0)).toBe(0);
    expect(parseTimestamp('1900-01-01T00:00:00Z')).toBe(Date.UTC(1900, 0, 1));
    expect(parseTimestamp('2200-12-31T23:59:59.999Z')).toBe(Date.UTC(2201, 0, 1) - 1);
  });

  test.each([1.5, '2024-01-07', '2024-01-07T10:00:00', '1899-12-31T23:59:59Z', '2201-01-01T00:00:00Z', true, null, {}])(
    '%j is refused',
    (value) => {
      expect(() => parseTimestamp(value)).toThrow(DateFormatError);
    },
  );
});

describe('artistKey', () => {
  test('trims, NFC-normalises and folds case', () => {
    expect(artistKey('  Hillsong Worship ')).toBe(artistKey('hillsong worship'));
    expect(artistKey('Cafe\u0301 Band')).toBe(artistKey('CAF\u00c9 BAND'));
    expect(artistKey('Stra\u00dfe')).toBe(artistKey('STRASSE'));
    expect(artistKey('')).toBe('');
    expect(artistKey('A')).not.toBe(artistKey('B'));
  });
});
