import { DateTime, type DateTimeUnit } from 'luxon';
import type { TimelineBucket } from '../../generated/graphql';
import { badParameter } from './window';

const UNIT: Record<TimelineBucket, DateTimeUnit> = { WEEK: 'week', MONTH: 'month', QUARTER: 'quarter', YEAR: 'year' };

/** A timeline longer than this is refused: 10,000 weeks is about 190 years. */
export const MAX_BUCKETS = 10_000;

const DAY_MS = 86_400_000;
/** The shortest a bucket can be (a day may have 23 hours), to refuse a huge span before walking it. */
const SHORTEST_MS: Record<TimelineBucket, number> = { WEEK: 7 * DAY_MS - 3_600_000, MONTH: 28 * DAY_MS - 3_600_000, QUARTER: 89 * DAY_MS - 3_600_000, YEAR: 365 * DAY_MS - 3_600_000 };

const tooMany = () =>
  badParameter('bucket', `the window spans more than ${MAX_BUCKETS} buckets of this size; choose a larger bucket or a shorter window`);

/** One calendar bucket: inclusive epoch-ms bounds. */
export interface Bucket {
  start: number;
  end: number;
}

/**
 * Whether a window (inclusive bounds, null when open) cuts `bucket`: a timeline's first and last
 * buckets count only what lies inside the window (docs/API.md, the timeline's edge buckets), so
 * such a bucket covers less than its calendar period.
 */
export const isPartial = (bucket: Bucket, window: { from: number | null; to: number | null }): boolean =>
  (window.from !== null && window.from > bucket.start) || (window.to !== null && window.to < bucket.end);

/**
 * The calendar buckets in `zone` from the one holding `first` to the one holding `last`. Luxon's
 * `startOf('week')` is the ISO week (Monday), and its calendar arithmetic keeps local midnight
 * across daylight-saving changes, so a bucket may be 23 or 25 hours longer or shorter.
 */
export function bucketsBetween(first: number, last: number, bucket: TimelineBucket, zone: string): Bucket[] {
  const unit = UNIT[bucket];
  if ((last - first) / SHORTEST_MS[bucket] > MAX_BUCKETS) throw tooMany();
  const out: Bucket[] = [];
  let start = DateTime.fromMillis(first, { zone }).startOf(unit);
  while (start.toMillis() <= last) {
    if (out.length >= MAX_BUCKETS) throw tooMany();
    const next = start.plus({ [`${unit}s`]: 1 }).startOf(unit);
    out.push({ start: start.toMillis(), end: next.toMillis() - 1 });
    start = next;
  }
  return out;
}
