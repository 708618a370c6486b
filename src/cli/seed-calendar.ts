import { DateTime } from 'luxon';

/**
 * When the demo history of `npm run seed` happens: 117 weeks of Sunday morning, Sunday evening and
 * Wednesday services, ending on the last Wednesday before the day it is seeded, so the "last 3
 * months" of any later look hold services. The same seed day always gives the same calendar.
 */

export const WEEKS = 117;
/** The week's last service is its Wednesday, this many days after its Sunday. */
const LAST_OFFSET_DAYS = 3;
const WEDNESDAY = 3; // luxon: Monday 1 ... Sunday 7

export class SeedDayError extends Error {}

/**
 * The seed day, at 00:00 UTC: `SEED_TODAY` (YYYY-MM-DD, for reproducible demo data) or today's
 * date in UTC, the zone the demo services' times are written in.
 */
export function seedDay(given: string | undefined, now: number = Date.now()): DateTime {
  if (given === undefined || given === '') return DateTime.fromMillis(now, { zone: 'utc' }).startOf('day');
  const day = /^\d{4}-\d{2}-\d{2}$/.test(given) ? DateTime.fromISO(given, { zone: 'utc' }) : undefined;
  if (!day?.isValid || day.year < 1910 || day.year > 2200) {
    throw new SeedDayError('SEED_TODAY must be a date YYYY-MM-DD in the years 1910 to 2200');
  }
  return day;
}

/** 00:00 UTC of week 0's Sunday: the last week's Wednesday is the last one before `day`. */
export function firstSunday(day: DateTime): number {
  const back = (day.weekday - WEDNESDAY + 7) % 7 || 7;
  const lastWednesday = day.minus({ days: back });
  return lastWednesday.minus({ days: LAST_OFFSET_DAYS + (WEEKS - 1) * 7 }).toMillis();
}
