// Which timeline buckets cover only part of their period. The API answers calendar buckets (ISO
// weeks, months) from the one holding the window's start to the one holding its end, counting only
// what lies inside the window, so the first and last can hold fewer days than the others: drawn
// like the rest, they read as a drop.

import { addDays, addMonths, todayIn } from './state.js';

/** The calendar days (YYYY-MM-DD) a bucket spans, from its start instant (local midnight in `zone`). */
export function bucketDays(start, bucket, zone) {
  const first = todayIn(zone, new Date(start));
  const last = bucket === 'WEEK' ? addDays(first, 6) : addDays(addMonths(first, 1), -1);
  return { first, last };
}

/**
 * For each bucket ({start, partial} as the API answers it): the days of it the window covers
 * (`from`..`to`) and whether that is less than the whole bucket. The API marks the buckets the
 * window cuts (`partial`: the window starts after the bucket's first day or ends before its
 * last); with an open end the page also marks the bucket under way `today`, whose later days have
 * not happened yet.
 */
export function coverage(buckets, bucket, { from, to }, today, zone) {
  return buckets.map((b) => {
    const days = bucketDays(b.start, bucket, zone);
    const underWay = !to && days.first <= today && today < days.last;
    const first = from && from > days.first ? from : days.first;
    const last = underWay ? today : to && to < days.last ? to : days.last;
    return { ...days, from: first, to: last, partial: Boolean(b.partial) || underWay };
  });
}
