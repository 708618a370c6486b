import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { firstSunday, SeedDayError, seedDay, WEEKS } from '../../src/cli/seed-calendar';
import { runScript } from '../helpers/process';
import { startTestServer, tempDbPath } from '../helpers/server';

/**
 * `npm run seed`: the demo history ends in the week before the day it is seeded, so the recent
 * views of the analytics and Insights have something to show whenever it is run; SEED_TODAY fixes
 * the day for reproducible data (the examples in the docs).
 */

const DAY = 86_400_000;
/** The last service of the history: Wednesday 19:30 UTC of the last week. */
const lastService = (sunday: number) => sunday + ((WEEKS - 1) * 7 + 3) * DAY + 19.5 * 3_600_000;

describe('the demo calendar', () => {
  it('ends on the last Wednesday before the seed day, whatever the weekday, and starts on a Sunday', () => {
    for (let i = 0; i < 14; i++) {
      const day = DateTime.fromISO('2026-11-19', { zone: 'utc' }).plus({ days: i });
      const sunday = firstSunday(day);
      const label = day.toISODate();
      expect([label, DateTime.fromMillis(sunday, { zone: 'utc' }).weekday]).toEqual([label, 7]);
      const last = lastService(sunday);
      expect([label, last < day.toMillis()]).toEqual([label, true]);
      expect([label, last >= day.toMillis() - 7 * DAY]).toEqual([label, true]);
    }
  });

  it('gives the same calendar for the same day: 2026-11-26 is the history of the docs, 2024-09-01 to 2026-11-25', () => {
    const day = seedDay('2026-11-26');
    expect(new Date(firstSunday(day)).toISOString()).toBe('2024-09-01T00:00:00.000Z');
    expect(new Date(lastService(firstSunday(day))).toISOString()).toBe('2026-11-25T19:30:00.000Z');
    expect(firstSunday(seedDay('2026-11-26'))).toBe(firstSunday(seedDay('2026-12-02')));
  });

  it('takes today in UTC without SEED_TODAY', () => {
    const now = Date.UTC(2031, 4, 14, 23, 59);
    expect(seedDay(undefined, now).toISODate()).toBe('2031-05-14');
    expect(seedDay('', now).toISODate()).toBe('2031-05-14');
  });

  it.each(['2026-02-30', '26-11-2026', '2026-11-26T10:00', 'yesterday', '1900-01-07', '2201-01-01'])('refuses SEED_TODAY=%s', (given) => {
    expect(() => seedDay(given)).toThrow(SeedDayError);
    expect(() => seedDay(given)).toThrow('SEED_TODAY must be a date YYYY-MM-DD in the years 1910 to 2200');
  });
});

describe('npm run seed', () => {
  const seed = (dbPath: string, env: Record<string, string> = {}) =>
    runScript('src/cli/seed.ts', [], { SQLITE_PATH: dbPath, STORE: 'sqlite', LOG_LEVEL: 'silent', ...env });

  async function history(dbPath: string) {
    const s = await startTestServer({ SQLITE_PATH: dbPath });
    try {
      const first = await s.api('GET', '/services?limit=1');
      const last = await s.api('GET', '/services?sort=-date&limit=1');
      const songs = await s.api('GET', '/songs?limit=1');
      const now = Date.now();
      const threeMonths = DateTime.fromMillis(now, { zone: 'utc' }).minus({ months: 3 }).toISODate();
      const recent = await s.api('GET', `/reports/songUsage?from=${threeMonths}&limit=5`);
      return {
        first: first.body[0],
        last: last.body[0],
        services: Number(first.headers.get('x-total-count')),
        songs: Number(songs.headers.get('x-total-count')),
        recent: recent.body as unknown[],
        now,
      };
    } finally {
      await s.close();
    }
  }

  it('ends the history within the week before today, so the last 3 months have services', async () => {
    const dbPath = tempDbPath();
    const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;
    const before = startOfDay(Date.now());
    const run = await seed(dbPath);
    // The seed day is today in UTC: the day the run started, or the next if it ran past midnight.
    const seedDays = [before, startOfDay(Date.now())];
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const h = await history(dbPath);
    expect({ songs: h.songs, services: h.services }).toEqual({ songs: 36, services: 351 });
    expect(h.last.serviceType).toBe('WED');
    expect(h.last.date).toBeLessThan(h.now);
    expect(seedDays.some((day) => h.last.date < day && h.last.date >= day - 7 * DAY)).toBe(true);
    // The same shape as ever: from a Sunday morning service, 116 weeks and 3 days before the last.
    expect(h.first).toMatchObject({ id: 1, serviceType: 'SUN_AM' });
    expect(new Date(h.first.date).getUTCDay()).toBe(0);
    expect(h.last.date - h.first.date).toBe(((WEEKS - 1) * 7 + 3) * DAY + 9.5 * 3_600_000);
    expect(h.recent.length).toBe(5);
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    expect(run.stdout.trim()).toBe(
      `Seeded 36 songs, 351 services and 1523 performances, from ${day(h.first.date)} to ${day(h.last.date)}.`,
    );
  }, 60_000);

  it('SEED_TODAY=2026-11-26 writes the history the docs show: 2024-09-01 to 2026-11-25', async () => {
    const dbPath = tempDbPath();
    const run = await seed(dbPath, { SEED_TODAY: '2026-11-26' });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Seeded 36 songs, 351 services and 1523 performances, from 2024-09-01 to 2026-11-25.');
    const h = await history(dbPath);
    expect(h.first).toEqual({ id: 1, date: Date.parse('2024-09-01T10:00:00Z'), serviceType: 'SUN_AM' });
    expect(h.last).toEqual({ id: 351, date: Date.parse('2026-11-25T19:30:00Z'), serviceType: 'WED' });
  }, 60_000);

  it('refuses a bad SEED_TODAY with one line, before it opens the store', async () => {
    const dbPath = tempDbPath();
    const run = await seed(dbPath, { SEED_TODAY: '2026-02-30' });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe('Seeding failed: SEED_TODAY must be a date YYYY-MM-DD in the years 1910 to 2200');
    expect(fs.readdirSync(path.dirname(dbPath))).toEqual([]);
  }, 30_000);
});
