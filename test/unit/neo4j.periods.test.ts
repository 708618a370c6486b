/**
 * The pure part of the Neo4j store's maintained timeline periods (src/store/neo4j/periods.ts):
 * which periods hold a date, which bucket range is a period, and what a write's transitions do
 * to the periods (periodDeltas). What the deltas do on a server is test/neo4j/neo4j.usage.test.ts.
 */
import { bucketsBetween } from '../../src/domain/analytics/buckets';
import type { Driver } from 'neo4j-driver';
import { periodAt, periodDeltas, periodsAt, periodsOfDates, type PeriodDelta } from '../../src/store/neo4j/periods';
import { Neo4jStore } from '../../src/store/neo4j/store';

const ZONE = 'Europe/London';
const DAY = 86_400_000;
/** Tuesday 14 November 2023, 12:00 UTC; the next day is in the same week. */
const TUE = Date.UTC(2023, 10, 14, 12);
const WED = TUE + DAY;
const NEXT_WEEK = TUE + 7 * DAY;

const week = (rows: PeriodDelta[], date: number) => rows.find((r) => r.kind === 'WEEK' && r.start <= date && date <= r.end);
const strip = (r: PeriodDelta | undefined) =>
  r && { services: r.services, links: r.links, songIds: r.songIds, beforeBits: r.beforeBits, afterBits: r.afterBits };

describe('periods', () => {
  it('are the timeline buckets holding a date, one per kind, keyed by kind and instants', () => {
    const got = periodsAt(TUE, ZONE);
    expect(got.map((p) => p.kind)).toEqual(['WEEK', 'MONTH', 'QUARTER', 'YEAR']);
    for (const p of got) {
      const [b] = bucketsBetween(TUE, TUE, p.kind, ZONE);
      expect(p).toEqual({ key: `${p.kind}:${b.start}:${b.end}`, kind: p.kind, start: b.start, end: b.end });
    }
  });

  it('periodAt: a range is a period only when it is exactly one in the zone', () => {
    for (const kind of ['WEEK', 'MONTH', 'QUARTER', 'YEAR'] as const) {
      // Across the autumn clock change: the October 2023 month and its week are 25 hours longer.
      for (const b of bucketsBetween(Date.UTC(2023, 8, 1), Date.UTC(2024, 0, 1), kind, ZONE)) {
        expect(periodAt(b.start, b.end, ZONE)).toMatchObject({ kind, start: b.start, end: b.end });
        expect(periodAt(b.start + 1, b.end, ZONE)).toBeNull(); // an edge bucket cut by the window
        expect(periodAt(b.start, b.end - 1, ZONE)).toBeNull();
      }
    }
    const [utcWeek] = bucketsBetween(TUE, TUE, 'WEEK', 'UTC');
    expect(periodAt(utcWeek.start, utcWeek.end, 'America/New_York')).toBeNull(); // another zone's bucket
  });

  it('a store refuses a zone that is not an IANA time zone, before any period is made in it', () => {
    expect(() => new Neo4jStore({} as Driver, { serviceTimeZone: 'Mars/Olympus' })).toThrow('SERVICE_TIME_ZONE "Mars/Olympus" is not an IANA time zone');
    expect(() => new Neo4jStore({} as Driver, { serviceTimeZone: ZONE })).not.toThrow();
  });

  it('periodsOfDates: the distinct periods of many dates, sorted by key', () => {
    const got = periodsOfDates([TUE, WED, NEXT_WEEK, TUE], ZONE);
    expect(got.map((p) => p.key)).toEqual([...new Set([...periodsAt(TUE, ZONE), ...periodsAt(NEXT_WEEK, ZONE)].map((p) => p.key))].sort());
  });
});

describe('periodDeltas', () => {
  const state = (songIds: number[], serviceType = 'SUN_AM', date = TUE) => ({ songIds, serviceType, date });

  it('a new service enters its four periods; one deleted leaves them with its links', () => {
    const created = periodDeltas({ transitions: [{ serviceId: 1, before: null, after: state([], 'WED') }] }, ZONE);
    expect(created.rows.map((r) => r.key)).toEqual(periodsAt(TUE, ZONE).map((p) => p.key).sort());
    for (const r of created.rows) expect(strip(r)).toEqual({ services: [0, 0, 1], links: [0, 0, 0], songIds: [], beforeBits: [], afterBits: [] });
    expect(created.serviceIds).toEqual([1]);

    const deleted = periodDeltas({ transitions: [{ serviceId: 1, before: state([3, 2], 'SUN_PM'), after: null }] }, ZONE);
    for (const r of deleted.rows) {
      expect(strip(r)).toEqual({ services: [0, -1, 0], links: [0, -2, 0], songIds: [2, 3], beforeBits: [2, 2], afterBits: [0, 0] });
    }
  });

  it('a song deleted with two links in one week leaves that week once (per song over all transitions, not per link)', () => {
    const { rows, serviceIds } = periodDeltas(
      {
        transitions: [
          { serviceId: 1, before: state([5, 6], 'SUN_AM', TUE), after: state([6], 'SUN_AM', TUE) },
          { serviceId: 2, before: state([5], 'WED', WED), after: state([], 'WED', WED) },
          { serviceId: 3, before: state([5], 'WED', NEXT_WEEK), after: state([], 'WED', NEXT_WEEK) },
        ],
        deletedSongs: [5],
      },
      ZONE,
    );
    expect(serviceIds).toEqual([1, 2, 3]);
    // Song 5 was there through SUN_AM and WED, and is not after; song 6 stays (not listed).
    expect(strip(week(rows, TUE))).toEqual({ services: [0, 0, 0], links: [-1, 0, -1], songIds: [5], beforeBits: [5], afterBits: [0] });
    expect(strip(week(rows, NEXT_WEEK))).toEqual({ services: [0, 0, 0], links: [0, 0, -1], songIds: [5], beforeBits: [4], afterBits: [0] });
  });

  it('a service moved to another week and type moves its services, links and songs between the periods', () => {
    const { rows } = periodDeltas({ transitions: [{ serviceId: 4, before: state([1, 2], 'SUN_AM', TUE), after: state([1, 2], 'WED', NEXT_WEEK) }] }, ZONE);
    expect(strip(week(rows, TUE))).toEqual({ services: [-1, 0, 0], links: [-2, 0, 0], songIds: [1, 2], beforeBits: [1, 1], afterBits: [0, 0] });
    expect(strip(week(rows, NEXT_WEEK))).toEqual({ services: [0, 0, 1], links: [0, 0, 2], songIds: [1, 2], beforeBits: [0, 0], afterBits: [4, 4] });
    // Same month, quarter and year: the service and its songs change type there only.
    const month = rows.find((r) => r.kind === 'MONTH')!;
    expect(strip(month)).toEqual({ services: [-1, 0, 1], links: [-2, 0, 2], songIds: [1, 2], beforeBits: [1, 1], afterBits: [4, 4] });
  });

  it('a move inside one week leaves the week out; a reorder or a no-op changes nothing', () => {
    const moved = periodDeltas({ transitions: [{ serviceId: 4, before: state([1], 'SUN_AM', TUE), after: state([1], 'SUN_AM', WED) }] }, ZONE);
    expect(moved.rows).toEqual([]);
    const reordered = periodDeltas({ transitions: [{ serviceId: 4, before: state([1, 2]), after: state([2, 1]) }] }, ZONE);
    expect(reordered).toEqual({ rows: [], serviceIds: [] });
  });

  it('a setlist replaced keeps the songs that stay out of the song rows, and counts the links', () => {
    const { rows } = periodDeltas({ transitions: [{ serviceId: 4, before: state([1, 2, 3]), after: state([3, 4]) }] }, ZONE);
    for (const r of rows) {
      expect(strip(r)).toEqual({ services: [0, 0, 0], links: [-1, 0, 0], songIds: [1, 2, 4], beforeBits: [1, 1, 0], afterBits: [0, 0, 1] });
    }
  });

  it('songs of two services of one period are OR-ed over the write (an import of two services)', () => {
    const { rows } = periodDeltas(
      {
        transitions: [
          { serviceId: 7, before: null, after: state([1], 'SUN_AM', TUE) },
          { serviceId: 8, before: null, after: state([1], 'SUN_PM', WED) },
        ],
      },
      ZONE,
    );
    expect(strip(week(rows, TUE))).toEqual({ services: [1, 1, 0], links: [1, 1, 0], songIds: [1], beforeBits: [0], afterBits: [3] });
  });
});
