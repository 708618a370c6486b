/**
 * The suggestion score (src/domain/analytics/suggestions.ts), counted by hand: each part, its
 * weight, the reasons in words, the order, and the service's day and week in its time zone.
 */
import { DateTime } from 'luxon';
import { bySuggestionOrder, rhythmRangeOf, scoreCandidate, SUGGESTION_WEIGHTS, targetOf } from '../../src/domain/analytics/suggestions';

const ZONE = 'America/New_York';
const WEEK = 7 * 86_400_000;
const local = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toMillis();
const sunday = targetOf(null, local('2026-11-29T10:30'), 'SUN_AM', ZONE);
const amazingGrace = { id: 1, name: 'Amazing Grace', timesSung: 95 };

describe('the service a suggestion is for', () => {
  it('its day starts at local midnight; its week runs Monday to Sunday in the service time zone', () => {
    expect(sunday.dayStart).toBe(local('2026-11-29T00:00'));
    expect(sunday.week).toEqual({ min: local('2026-11-23T00:00'), max: local('2026-11-30T00:00') - 1 });
    // 23:30 on a Sunday is still that week here, though it is Monday in UTC.
    const late = targetOf(7, local('2026-11-29T23:30'), 'SUN_PM', ZONE);
    expect(late.week).toEqual(sunday.week);
    expect(late.serviceId).toBe(7);
    expect(targetOf(null, local('2026-11-30T00:00'), 'WED', ZONE).week.min).toBe(local('2026-11-30T00:00'));
  });

  it('rotation reads the 52 weeks before its day, not the day itself', () => {
    expect(rhythmRangeOf(sunday)).toEqual({ min: sunday.dayStart - 52 * WEEK, max: sunday.dayStart - 1 });
  });
});

describe('a candidate\'s score', () => {
  it('adds its weighted parts: fit with the chosen songs, due, the service type, new', () => {
    expect(SUGGESTION_WEIGHTS).toEqual({ fit: 0.4, due: 0.3, serviceType: 0.15, new: 0.15 });
    // Every 4 weeks, last 9 weeks ago: due, and past twice its interval, so the whole due weight.
    const dates = [21, 17, 13, 9].map((w) => sunday.dayStart - w * WEEK);
    const s = scoreCandidate(sunday, [amazingGrace], { together: [42], timesSung: 20, timesOfType: 15, rhythm: { dates, lastBefore: dates[0] - 4 * WEEK } });
    expect(s.parts).toEqual([
      { name: 'fit', value: 0.1768 }, // 0.4 × 42/95
      { name: 'due', value: 0.3 },
      { name: 'serviceType', value: 0.1125 }, // 0.15 × 15/20
      { name: 'new', value: 0 },
    ]);
    expect(s.score).toBe(0.5893);
    expect(s.rotation.state).toBe('RESTING');
    expect(s.reasons).toEqual(['sung with Amazing Grace in 42 of its 95 services', 'last sung 9 weeks ago; usually every 4 weeks', '75% of its services were Sunday mornings']);
  });

  it('due grows from its usual interval to twice it; fit averages over the chosen songs, best two told', () => {
    const dates = [14, 10, 6].map((w) => sunday.dayStart - w * WEEK);
    const chosen = [amazingGrace, { id: 2, name: 'How Great Thou Art', timesSung: 10 }, { id: 3, name: 'Never Sung', timesSung: 0 }];
    const s = scoreCandidate(sunday, chosen, { together: [19, 5, 0], timesSung: 8, timesOfType: 0, rhythm: { dates, lastBefore: dates[0] - WEEK } });
    // (19/95 + 5/10 + 0) / 3 = 0.2333…; 6 weeks against every 4: half way to twice.
    expect(s.parts).toEqual([
      { name: 'fit', value: 0.0933 },
      { name: 'due', value: 0.15 },
      { name: 'serviceType', value: 0 },
      { name: 'new', value: 0 },
    ]);
    expect(s.score).toBe(0.2433);
    expect(s.reasons).toEqual(['sung with How Great Thou Art in 5 of its 10 services', 'sung with Amazing Grace in 19 of its 95 services', 'last sung 6 weeks ago; usually every 4 weeks']);
  });

  it('lifts new songs, and songs still being learnt by half', () => {
    const weekly = (n: number) => Array.from({ length: n }, (_, i) => sunday.dayStart - (n - i) * WEEK);
    const fresh = scoreCandidate(sunday, [], { together: [], timesSung: 2, timesOfType: 1, rhythm: { dates: weekly(2), lastBefore: null } });
    expect(fresh.rotation.state).toBe('NEW');
    expect(fresh.parts.find((p) => p.name === 'new')!.value).toBe(0.15);
    expect(fresh.score).toBe(0.225); // 0.15 + 0.15 × 1/2; sung a week ago, weekly: not due
    expect(fresh.reasons).toEqual(['new: sung 2 times, keep it going', '50% of its services were Sunday mornings']);
    const learning = scoreCandidate(sunday, [], { together: [], timesSung: 5, timesOfType: 0, rhythm: { dates: weekly(5), lastBefore: null } });
    expect(learning.rotation.state).toBe('LEARNING');
    expect(learning.score).toBe(0.075);
    expect(learning.reasons).toEqual(['being learnt: sung 5 times since it was introduced']);
  });

  it('a song that usually comes every week is told so; nothing to say is a zero score', () => {
    const dates = [5, 4, 3].map((w) => sunday.dayStart - w * WEEK);
    const weekly = scoreCandidate(sunday, [], { together: [], timesSung: 30, timesOfType: 30, rhythm: { dates, lastBefore: dates[0] - WEEK } });
    expect(weekly.reasons[0]).toBe('last sung 3 weeks ago; usually every week');
    expect(weekly.parts.find((p) => p.name === 'due')!.value).toBe(0.3);
    const nothing = scoreCandidate(sunday, [amazingGrace], { together: [0], timesSung: 0, timesOfType: 0, rhythm: { dates: [], lastBefore: null } });
    expect(nothing.score).toBe(0);
    expect(nothing.reasons).toEqual([]);
  });

  it('orders best first, ties by song id', () => {
    const rows = [{ score: 0.2, song: { id: 9 } }, { score: 0.5, song: { id: 4 } }, { score: 0.2, song: { id: 3 } }];
    expect(rows.sort(bySuggestionOrder).map((r) => r.song.id)).toEqual([4, 3, 9]);
  });
});
