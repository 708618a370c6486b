/**
 * A song's rhythm (src/domain/analytics/rotation.ts) on histories small enough to count by hand:
 * the usual interval is the median gap, the states apply in their documented order, and the
 * thresholds a query overrides change exactly what they name.
 */
import { ROTATION_DEFAULTS, rhythmWindow, rotationOf } from '../../src/domain/analytics/rotation';

const WEEK = 7 * 86_400_000;
const AS_OF = Date.UTC(2026, 10, 29, 12);
/** Dates `weeks` weeks before AS_OF, oldest first. */
const ago = (...weeks: number[]) => weeks.map((w) => AS_OF - w * WEEK).sort((a, b) => a - b);
const rot = (dates: number[], lastBefore: number | null = null, t = ROTATION_DEFAULTS) => rotationOf({ dates, lastBefore }, AS_OF, t);

test('never sung: no interval, no weeks since, not due', () => {
  expect(rot([])).toEqual({
    state: 'NEVER_SUNG',
    usualIntervalWeeks: null,
    weeksSinceLastSung: null,
    due: false,
    timesInHorizon: 0,
    asOf: AS_OF,
    horizonWeeks: 52,
  });
});

test('the usual interval is the median of the gaps between consecutive services; due once past it', () => {
  // Gaps 2, 4, 4, 10 weeks: the median is 4. Last sung 5 weeks ago: due.
  const r = rot(ago(25, 15, 11, 7, 5), ago(60)[0]);
  expect([r.usualIntervalWeeks, r.weeksSinceLastSung, r.due, r.timesInHorizon]).toEqual([4, 5, true, 5]);
  // An even number of gaps (1, 2, 4, 6): the mean of the middle two, 3. Last sung a week ago: not due.
  expect(rot(ago(14, 13, 11, 7, 1), ago(60)[0])).toMatchObject({ usualIntervalWeeks: 3, weeksSinceLastSung: 1, due: false });
  // Two services on one day (morning and evening) make a gap of none.
  expect(rot([AS_OF - 2 * WEEK, AS_OF - 2 * WEEK], ago(60)[0]).usualIntervalWeeks).toBe(0);
});

test('one service in the horizon: weeks since it, no interval, never due', () => {
  expect(rot(ago(3))).toMatchObject({ state: 'NEW', usualIntervalWeeks: null, weeksSinceLastSung: 3, due: false, timesInHorizon: 1 });
});

test('states, in their order: RETIRED, NEW, LEARNING, STAPLE, RESTING', () => {
  // Not sung within the horizon, last 104 weeks ago or more: retired.
  expect(rot([], ago(104)[0]).state).toBe('RETIRED');
  expect(rot([], ago(103)[0]).state).toBe('RESTING');
  // First sung within the horizon (nothing before it): new below 4 services, learning from 4.
  expect(rot(ago(10, 6, 2)).state).toBe('NEW');
  expect(rot(ago(12, 10, 6, 2)).state).toBe('LEARNING');
  // Sung before the horizon: a staple from 8 services within it, resting below.
  expect(rot(ago(40, 35, 30, 25, 20, 15, 10, 5), ago(60)[0]).state).toBe('STAPLE');
  expect(rot(ago(40, 35, 30, 25, 20, 15, 10), ago(60)[0]).state).toBe('RESTING');
});

test('each threshold a query overrides changes what it names', () => {
  const often = ago(40, 35, 30, 25, 20, 15, 10);
  expect(rot(often, ago(60)[0], { ...ROTATION_DEFAULTS, stapleTimes: 7 }).state).toBe('STAPLE');
  expect(rot(ago(10, 6, 2), null, { ...ROTATION_DEFAULTS, learningTimes: 3 }).state).toBe('LEARNING');
  expect(rot([], ago(30)[0], { ...ROTATION_DEFAULTS, retiredAfterWeeks: 26 }).state).toBe('RETIRED');
  expect(rot(ago(2), null, { ...ROTATION_DEFAULTS, horizonWeeks: 4 }).horizonWeeks).toBe(4);
});

test('the window a store reads: the horizon before asOf, both ends inclusive', () => {
  expect(rhythmWindow(AS_OF, 52)).toEqual({ min: AS_OF - 52 * WEEK, max: AS_OF });
});
