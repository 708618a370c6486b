// Which timeline buckets the window covers only in part. The API answers whole calendar buckets
// (ISO weeks, months) from the one holding the window's start to the one holding its end, so the
// first and last can hold fewer days than the others: drawn like the rest, they read as a drop.

import { addDays, addMonths, todayIn } from './state.js';

/** The calendar days (YYYY-MM-DD) a bucket spans, from its start instant (local midnight in `zone`). */
export function bucketDays(start, bucket, zone) {
  const first = todayIn(zone, new Date(start));
  const last = bucket === 'WEEK' ? addDays(first, 6) : addDays(addMonths(first, 1), -1);
  return { first, last };
}

/**
 * For each bucket start: the days of it the window covers (`from`..`to`) and whether that is
 * less than the whole bucket. A bucket is partial when the window starts after its first day or
 * ends before its last; an open end stops at `today` only in the bucket under way (the days after
 * today have not happened yet). An open start cuts nothing.
 */
export function coverage(starts, bucket, { from, to }, today, zone) {
  return starts.map((start) => {
    const days = bucketDays(start, bucket, zone);
    const end = to ?? (days.first <= today && today < days.last ? today : null);
    const first = from && from > days.first ? from : days.first;
    const last = end && end < days.last ? end : days.last;
    return { ...days, from: first, to: last, partial: first !== days.first || last !== days.last };
  });
}
