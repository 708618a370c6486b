import { MASKS, PERIOD_TYPES } from './periods';
import { LINK_ENDS, TYPE_MASKS, USAGE_TYPES, type ParamDecl } from './statements';

/**
 * The analytics statements of the Neo4j store, one per analytic, with the parameters each takes.
 *
 * Every PERFORMED_IN relationship carries a copy of its service's `date` and `serviceType`, set by
 * the write statements that create links or change services (linkSong, fillSetlist, importLinks,
 * updateService, importServices) in the same transaction, and indexed (performed_in_date, a
 * relationship range index). A window is therefore one relationship-index range seek and the
 * analytics never read Service nodes to filter. Opener and closer are read from the service's
 * other links (a setlist is short): no link before it (after it) in position, then seq, order.
 *
 * All time (no bounds) reads no link at all: every Song carries its usage, per service type and
 * for all types together, maintained by the write transactions (see ./statements.ts). The
 * `...AllTime` statements read those properties; over all three types, the usage report's orders
 * by times sung, last sung (either way) and first sung are written so that the planner can read
 * the range indexes song_usage_times, song_usage_last and song_usage_first in order and stop
 * after the page (one statement per order: an ORDER BY on a CASE of $sort cannot be
 * index-backed). The plans are pinned by EXPLAIN on a real server (test/neo4j/neo4j.plans.test.ts).
 *
 * $from/$to are inclusive epoch-ms bounds (the widest integers when open); $serviceTypes is never
 * empty. Paged statements return the full count as `total` on every row.
 */

/**
 * The run songsSungOften counts and songsOfLastServices reads: the last $lastServices services of
 * the types up to $to (the Service.date index from $to backwards; a later id first on one date).
 */
const LAST_SERVICES = `MATCH (v:Service)
WHERE v.date <= $to AND v.serviceType IN $serviceTypes
WITH v
ORDER BY v.date DESC, v.id DESC
LIMIT $lastServices`;

const IN_WINDOW = (r: string) => `${r}.date >= $from AND ${r}.date <= $to AND ${r}.serviceType IN $serviceTypes`;

/**
 * The links `r` of song `songId` in the window, as a seek of performed_in_song (songId, date,
 * serviceId): equality on the song's id, a range on the date. The hint holds the planner to a
 * seek: without it, on a small graph it picked performed_in_date (every song's links in the
 * window), and with USING INDEX alone a scan of the whole index, a plan then kept in the plan
 * cache as the graph grew (db hits 2.8M instead of 25k). It needs a predicate on each of the
 * index's properties, hence `serviceId IS NOT NULL` (every link carries it).
 */
const SONG_WINDOW_SEEK = (r: string, songId: string) => `USING INDEX SEEK ${r}:PERFORMED_IN(songId, date, serviceId)
WHERE ${r}.songId = ${songId} AND ${r}.serviceId IS NOT NULL AND ${IN_WINDOW(r)}`;

/** Whether link `r` of service `v` opens (closes) its setlist (shared with REFRESH_USAGE, the usage migration's recomputation). */
const ENDS = LINK_ENDS;

const perType = (type: string, alias: string) =>
  `sum(CASE WHEN r.serviceType = '${type}' THEN 1 ELSE 0 END) AS ${alias},
  max(CASE WHEN r.serviceType = '${type}' THEN r.date END) AS ${alias}Last`;

const STATS = `count(r) AS times, min(r.date) AS first, max(r.date) AS last,
  sum(CASE WHEN opener THEN 1 ELSE 0 END) AS openers, sum(CASE WHEN closer THEN 1 ELSE 0 END) AS closers,
  ${perType('SUN_AM', 'sunAm')}, ${perType('SUN_PM', 'sunPm')}, ${perType('WED', 'wed')}`;

/** A song's maintained count of links (services) of the asked types. */
const askedTimes = (s: string) =>
  USAGE_TYPES.map(([type, p]) => `CASE WHEN '${type}' IN $serviceTypes THEN coalesce(${s}.${p}Times, 0) ELSE 0 END`).join(' + ');
/** A pair's (p) services together of the asked types. */
/**
 * One side of a song's pairs for songsSungWithAllTypes, a page in index order: those it starts
 * (`songId`, off sung_with_together) or those it ends (`otherId`, off sung_with_other_together).
 */
const pairsOfSide = (side: 'songId' | 'otherId') => `
  MATCH ${side === 'songId' ? '(me:Song)-[p:SUNG_WITH]->(other:Song)' : '(other:Song)-[p:SUNG_WITH]->(me:Song)'}
  WHERE p.${side} = $songId AND p.together > 0
  WITH p, other, toFloat(p.together) / (me.usageTimes + other.usageTimes - p.together) AS jaccard
  ORDER BY p.${side} DESC, p.together DESC, jaccard DESC, other.id
  LIMIT $limit
  RETURN other, p.together AS together, jaccard`;

const ASKED_PAIR = USAGE_TYPES.map(([type, p]) => `CASE WHEN '${type}' IN $serviceTypes THEN p.${p} ELSE 0 END`).join(' + ');

const STAT_NAMES = 'times, first, last, openers, closers, sunAm, sunAmLast, sunPm, sunPmLast, wed, wedLast';
const NO_DATE = '-9007199254740991';

/**
 * The usage report's filters, order and page over rows (s, STAT_NAMES): rotation ($lastBefore),
 * new songs ($firstFrom..$firstTo), the order of $sort with ties by id, and the page of the
 * ranked rows with their count. Pages are sliced in two steps, [$offset..][..$limit]: list
 * indices are 32-bit on the server, which refuses `$offset + $limit` past 2^31 - 1 (any offset
 * with no limit, whose stand-in NO_LIMIT is 2^31 - 1).
 */
const RANKED = `WITH s, ${STAT_NAMES}
WHERE ($lastBefore IS NULL OR last IS NULL OR last < $lastBefore)
  AND ($firstFrom IS NULL OR (first >= $firstFrom AND first <= $firstTo))
WITH s, ${STAT_NAMES}
ORDER BY
  CASE $sort
    WHEN 'TIMES_SUNG' THEN -times
    WHEN 'LAST_SUNG' THEN -coalesce(last, ${NO_DATE})
    WHEN 'LEAST_RECENTLY_SUNG' THEN coalesce(last, ${NO_DATE})
    WHEN 'FIRST_SUNG' THEN -coalesce(first, ${NO_DATE})
    ELSE 0
  END,
  CASE WHEN $sort = 'NAME' THEN s.name ELSE '' END,
  CASE WHEN $sort = 'FIRST_SUNG' THEN -s.id ELSE 0 END,
  s.id
WITH collect([s.id, s.name, s.artists, ${STAT_NAMES}, s.ccliNumber, s.copyright]) AS rows
UNWIND rows[$offset..][..$limit] AS row
RETURN size(rows) AS total, row[0] AS id, row[1] AS name, row[2] AS artists, row[3] AS times,
  row[4] AS first, row[5] AS last, row[6] AS openers, row[7] AS closers, row[8] AS sunAm,
  row[9] AS sunAmLast, row[10] AS sunPm, row[11] AS sunPmLast, row[12] AS wed, row[13] AS wedLast,
  row[14] AS ccliNumber, row[15] AS copyright`;

/**
 * Artist rows (a, timesSung, songs): the spelling shown (maintained on the Artist, see
 * ./statements.ts; its key when none), the order (ties by spelling, then key) and the page with
 * its count.
 */
const ARTISTS_RANKED = `WITH coalesce(a.spelling, a.key) AS artist, a.key AS key, timesSung, songs
ORDER BY timesSung DESC, artist, key
WITH collect([artist, timesSung, songs]) AS rows
UNWIND rows[$offset..][..$limit] AS row
RETURN size(rows) AS total, row[0] AS artist, row[1] AS timesSung, row[2] AS songs`;

/**
 * The maintained usage of song `s` (./statements.ts) for the types in $serviceTypes, each type's
 * count, dates and ends, zero and null for the types not asked. `s` may be null (an unknown id in
 * usageOfSongsAllTime): it reads as never sung.
 */
const PICKED = USAGE_TYPES.map(([type, p]) => {
  const asked = `'${type}' IN $serviceTypes`;
  return `CASE WHEN ${asked} THEN coalesce(s.${p}Times, 0) ELSE 0 END AS ${p},
  CASE WHEN ${asked} THEN s.${p}First END AS ${p}First,
  CASE WHEN ${asked} THEN s.${p}Last END AS ${p}Last,
  CASE WHEN ${asked} THEN coalesce(s.${p}Openers, 0) ELSE 0 END AS ${p}Openers,
  CASE WHEN ${asked} THEN coalesce(s.${p}Closers, 0) ELSE 0 END AS ${p}Closers`;
}).join(',\n  ');
const over = (suffix: string, join: string) => USAGE_TYPES.map(([, p]) => `${p}${suffix}`).join(join);
/**
 * The asked types of PICKED combined into STAT_NAMES: counts add up (a link has one type), the
 * first date is the least of the types' first dates that exist, the last the greatest.
 */
const COMBINED = `${over('', ' + ')} AS times,
  reduce(m = null, d IN [${over('First', ', ')}] | CASE WHEN m IS NULL OR d < m THEN d ELSE m END) AS first,
  reduce(m = null, d IN [${over('Last', ', ')}] | CASE WHEN m IS NULL OR d > m THEN d ELSE m END) AS last,
  ${over('Openers', ' + ')} AS openers,
  ${over('Closers', ' + ')} AS closers,
  ${STAT_NAMES.split(', ').slice(5).join(', ')}`;

/**
 * All-time usage report over all three types, one statement per order that an index can serve.
 * The ranked list is the sung songs in the index's order, then (or, for the orders that put
 * never-sung songs first, after) the never-sung ones by id (descending for new songs, which are
 * newest first throughout): exactly RANKED's order, since a
 * never-sung song has times 0 and no dates. Each part reads at most $offset + $limit songs in
 * order; `sung` picks the index (a song is sung iff usageTimes > 0 iff it has a last and a first
 * date: the writers move them by the same links). The tie-break by id needs a sort, of
 * only the songs that tie on the index key when the planner uses a partial sort; the never-sung
 * songs are read in order off song_usage_times_id (see unsungOrder). The count is
 * two COUNT subqueries, each driven by the same index (the filters read the songs it finds).
 */
const SUNG_FILTER = `($lastBefore IS NULL OR s.usageLast < $lastBefore)
    AND ($firstFrom IS NULL OR (s.usageFirst >= $firstFrom AND s.usageFirst <= $firstTo))`;
/** Never-sung songs pass the rotation filter (no last date) and never the new-songs one (no first date). */
const UNSUNG = '$includeUnsung AND $firstFrom IS NULL AND s.usageTimes = 0';
/**
 * `unsungOrder`: how never-sung songs are ordered among themselves (default by id). Written on
 * song_usage_times_id's key (usageTimes, id), with `s.id IS NOT NULL` beside UNSUNG, so the
 * planner reads that index in order and stops after the page; ordered by id alone, the planner
 * sorts every never-sung song (a Top over the usageTimes = 0 seek).
 */
interface AllTypesOrderPlan {
  sung: string;
  order: string;
  unsungFirst: boolean;
  unsungOrder?: string;
}
const ALL_TYPES_ORDERS = {
  /** song_usage_times, read backwards from the highest count. */
  TIMES_SUNG: { sung: 's.usageTimes > 0', order: 's.usageTimes DESC, s.id', unsungFirst: false },
  /** song_usage_last, read backwards from the latest date. */
  LAST_SUNG: { sung: 's.usageLast IS NOT NULL', order: 's.usageLast DESC, s.id', unsungFirst: false },
  /** song_usage_last from the earliest date (rotation: the first rows are the ones it keeps). */
  LEAST_RECENTLY_SUNG: { sung: 's.usageLast IS NOT NULL', order: 's.usageLast, s.id', unsungFirst: true },
  /** song_usage_first backwards from the latest date (new songs, newest first: ties by id descending too). */
  FIRST_SUNG: {
    sung: 's.usageFirst IS NOT NULL',
    order: 's.usageFirst DESC, s.id DESC',
    unsungFirst: false,
    unsungOrder: 's.usageTimes DESC, s.id DESC',
  },
} as const satisfies Record<string, AllTypesOrderPlan>;
export type AllTypesOrder = keyof typeof ALL_TYPES_ORDERS;

const RETURN_MAINTAINED = `RETURN total, s.id AS id, s.name AS name, s.artists AS artists, s.usageTimes AS times,
  s.usageFirst AS first, s.usageLast AS last, s.usageOpeners AS openers, s.usageClosers AS closers,
  ${USAGE_TYPES.map(([, p]) => `s.${p}Times AS ${p}, s.${p}Last AS ${p}Last`).join(', ')},
  s.ccliNumber AS ccliNumber, s.copyright AS copyright`;

function songUsageAllTypes(sort: AllTypesOrder): string {
  const { sung, order, unsungFirst, unsungOrder = 's.usageTimes, s.id' }: AllTypesOrderPlan = ALL_TYPES_ORDERS[sort];
  const sungPart = `CALL () {
  MATCH (s:Song)
  WHERE ${sung}
    AND ${SUNG_FILTER}
  WITH s
  ORDER BY ${order}
  LIMIT $offset + $limit
  RETURN collect(s) AS sung
}`;
  const unsungPart = `CALL () {
  MATCH (s:Song)
  WHERE ${UNSUNG} AND s.id IS NOT NULL
  WITH s
  ORDER BY ${unsungOrder}
  LIMIT $offset + $limit
  RETURN collect(s) AS unsung
}`;
  return `
${unsungFirst ? `${unsungPart}\n${sungPart}` : `${sungPart}\n${unsungPart}`}
WITH ${unsungFirst ? 'unsung + sung' : 'sung + unsung'} AS ranked,
  COUNT { MATCH (s:Song) WHERE ${sung} AND ${SUNG_FILTER} }
    + COUNT { MATCH (s:Song) WHERE ${UNSUNG} } AS total
UNWIND ranked[$offset..][..$limit] AS s
${RETURN_MAINTAINED}`;
}

export const ANALYTICS_CYPHER = {
  /**
   * Usage report, rotation ($lastBefore) and new songs ($firstFrom/$firstTo). Never-sung songs are
   * read only when asked: the empty UNWIND ends that branch before any song is read. Written as
   * `WHERE $includeUnsung AND NOT EXISTS {...}`, the server tested every song first, each through
   * a seek of the whole window. USING INDEX SEEK holds the window's links to a seek of performed_in_date:
   * the planner otherwise chose, in some runs, to scan that whole index and filter it. Either way a
   * one-year report's db hits grew with the history (test/contract/analytics.contract.test.ts).
   */
  songUsage: `
CALL () {
  MATCH (s:Song)-[r:PERFORMED_IN]->(v:Service)
  USING INDEX SEEK r:PERFORMED_IN(date)
  WHERE ${IN_WINDOW('r')}
  WITH s, r, ${ENDS}
  RETURN s, ${STATS}
  UNION ALL
  UNWIND CASE WHEN $includeUnsung THEN [true] ELSE [] END AS unsungAsked
  MATCH (s:Song)
  WHERE NOT EXISTS { MATCH (s)-[r:PERFORMED_IN]->() WHERE ${IN_WINDOW('r')} }
  RETURN s, 0 AS times, null AS first, null AS last, 0 AS openers, 0 AS closers,
    0 AS sunAm, null AS sunAmLast, 0 AS sunPm, null AS sunPmLast, 0 AS wed, null AS wedLast
}
${RANKED}`,

  /**
   * All-time usage report for any types and order: every song's maintained usage of the asked
   * types, filtered, ordered and paged as songUsage does (reads every Song, no link).
   */
  songUsageAllTime: `
MATCH (s:Song)
WITH s, ${PICKED}
WITH s, ${COMBINED}
WHERE times > 0 OR $includeUnsung
${RANKED}`,
  songUsageAllTimeByTimesSung: songUsageAllTypes('TIMES_SUNG'),
  songUsageAllTimeByLastSung: songUsageAllTypes('LAST_SUNG'),
  songUsageAllTimeByLeastRecentlySung: songUsageAllTypes('LEAST_RECENTLY_SUNG'),
  songUsageAllTimeByFirstSung: songUsageAllTypes('FIRST_SUNG'),

  /**
   * Song.usage for a batch of songs, in the order of $ids: each song's links in the window are a
   * seek of performed_in_song (its id, then the date range). Expanded from the song and filtered
   * on the window, they cost every link the song ever had (a Song.usage of 100 songs over one
   * year grew 1.6x from 10 to 100 years of history).
   */
  usageOfSongs: `
UNWIND range(0, size($ids) - 1) AS i
WITH i, $ids[i] AS songId
OPTIONAL MATCH ()-[r:PERFORMED_IN]->(v:Service)
${SONG_WINDOW_SEEK('r', 'songId')}
WITH i, r, ${ENDS}
RETURN i, ${STATS}
ORDER BY i`,

  /**
   * Store.songRhythms: per song, its links' dates within the range and the last one before it,
   * each a seek of performed_in_song (the song's id, then the date) in index order, the second
   * stopping at its first link (the composite key named in the ORDER BY, as servicesForSongs's).
   */
  songRhythms: `
UNWIND range(0, size($ids) - 1) AS i
WITH i, $ids[i] AS songId
CALL (songId) {
  MATCH ()-[r:PERFORMED_IN]->()
  USING INDEX r:PERFORMED_IN(songId, date, serviceId)
  WHERE r.songId = songId AND r.date >= $min AND r.date <= $max AND r.serviceId IS NOT NULL
  WITH r
  ORDER BY r.songId, r.date, r.serviceId
  RETURN collect(r.date) AS dates
}
CALL (songId) {
  MATCH ()-[r:PERFORMED_IN]->()
  USING INDEX r:PERFORMED_IN(songId, date, serviceId)
  WHERE r.songId = songId AND r.date < $min AND r.serviceId IS NOT NULL
  WITH r
  ORDER BY r.songId DESC, r.date DESC, r.serviceId DESC
  LIMIT 1
  RETURN collect(r.date) AS before
}
RETURN i, dates, before
ORDER BY i`,

  /** Store.songTimesByType: each song's maintained counts per type (its unique seek); zeros for unknown ids. */
  songTimesByType: `
UNWIND range(0, size($ids) - 1) AS i
OPTIONAL MATCH (s:Song {id: $ids[i]})
RETURN i, coalesce(s.sunAmTimes, 0) AS sunAm, coalesce(s.sunPmTimes, 0) AS sunPm, coalesce(s.wedTimes, 0) AS wed
ORDER BY i`,

  /** All-time Song.usage: the songs' maintained usage of the asked types; zeros for unknown ids. */
  usageOfSongsAllTime: `
UNWIND range(0, size($ids) - 1) AS i
WITH i, $ids[i] AS songId
OPTIONAL MATCH (s:Song {id: songId})
WITH i, ${PICKED}
RETURN i, ${COMBINED}
ORDER BY i`,

  /**
   * In a window: the song's links there, its services' other songs, and each other song's links
   * there, each a seek of performed_in_song (a song's id, then the date range), so the cost follows
   * the window, not the songs' whole histories (expanded from the songs, the most sung song's one-
   * year answer grew 3.6x from 10 to 100 years of history).
   */
  songsSungWith: `
MATCH ()-[r:PERFORMED_IN]->(v:Service)
${SONG_WINDOW_SEEK('r', '$songId')}
WITH collect(v) AS mine
UNWIND mine AS v
MATCH (other:Song)-[:PERFORMED_IN]->(v)
WHERE other.id <> $songId
WITH size(mine) AS a, other, count(v) AS together
WITH other, together,
  toFloat(together) / (a + COUNT { MATCH ()-[q:PERFORMED_IN]->() ${SONG_WINDOW_SEEK('q', 'other.id')} } - together) AS jaccard
RETURN other.id AS id, other.name AS name, other.artists AS artists, together, jaccard
ORDER BY together DESC, jaccard DESC, id
LIMIT $limit`,

  /**
   * All time (no bounds): the same answer as songsSungWith from the song's maintained pairs
   * (SUNG_WITH, ./pairs.ts: per type, the services holding both songs) and both songs' maintained
   * usage of the asked types, so no link is read. Every pair of the song is read, either way round
   * (each pair is stored once): a subset of types has no index order (songsSungWithAllTypes serves
   * all three types).
   */
  songsSungWithAllTime: `
MATCH (me:Song {id: $songId})-[p:SUNG_WITH]-(other:Song)
WITH me, other, ${ASKED_PAIR} AS together
WHERE together > 0
WITH other, together,
  toFloat(together) / (${askedTimes('me')} + ${askedTimes('other')} - together) AS jaccard
RETURN other.id AS id, other.name AS name, other.artists AS artists, together, jaccard
ORDER BY together DESC, jaccard DESC, id
LIMIT $limit`,

  /**
   * All time, every type: the song's pairs in index order of services together, read backwards,
   * so the server reads the pairs with the most services together and sorts only those that tie
   * on that count (by Jaccard index, then id) until the page is full: it stops after the page
   * instead of reading every song ever sung with a popular one. A pair is stored once, from the
   * lower id (./pairs.ts), so the song's pairs are two ranges: those it starts (sung_with_together,
   * songId) and those it ends (sung_with_other_together, otherId), each cut after a page, then
   * merged. Each ORDER BY names its whole index key on the relationship itself (the id is one
   * value there), and the song is the pairs' own end node: ordered on projected aliases, or with
   * the song matched on its own (a product whose order is the song's), the planner sorted every
   * pair (a full Top).
   */
  songsSungWithAllTypes: `
CALL () {${pairsOfSide('songId')}
UNION ALL${pairsOfSide('otherId')}
}
WITH other, together, jaccard
ORDER BY together DESC, jaccard DESC, other.id
LIMIT $limit
RETURN other.id AS id, other.name AS name, other.artists AS artists, together, jaccard`,

  /**
   * The first and last service dates of the types: Service.date read in order from each end,
   * stopping at the first service of the types (no row when there is none). With min() and max()
   * over the type index it read every service: 31,203 db hits on the 100y history, 6 now; at 1m it
   * was most of the all-time timeline's time, which asks for the span to make its buckets.
   */
  serviceSpan: `
CALL () {
  MATCH (v:Service)
  WHERE v.date IS NOT NULL AND v.serviceType IN $serviceTypes
  RETURN v.date AS first
  ORDER BY v.date
  LIMIT 1
}
CALL () {
  MATCH (v:Service)
  WHERE v.date IS NOT NULL AND v.serviceType IN $serviceTypes
  RETURN v.date AS last
  ORDER BY v.date DESC
  LIMIT 1
}
RETURN first, last`,

  /**
   * $buckets: inclusive [startMs, endMs] calendar periods computed in the service time zone by the
   * caller. The window filters first: each bucket counts only its range inside $from..$to
   * (fromMs..toMs; only the first and last buckets are cut), so the buckets add up to the
   * window's totals; `start` stays the bucket's own.
   *
   * A bucket whose cut range is exactly a maintained period of the store's zone (`period`, worked
   * out by the caller: ./periods.ts periodAt) and no $songId reads that (:Period) (period_range:
   * its start and end), absent meaning no service there: per asked type its services and links,
   * and the distinct songs of the types' $mask. That is trusted only while the periods are kept
   * in $zone (the TimelineZone record says so, or there is none: a database this release made
   * and never rebuilt); otherwise, and for any other bucket or one song's timeline, the links of
   * the range are read.
   */
  usageTimeline: `
CALL () {
  OPTIONAL MATCH (z:TimelineZone {name: 'timeline'})
  RETURN z IS NULL OR coalesce(z.zone = $zone, false) AS trusted
}
UNWIND range(0, size($buckets) - 1) AS i
WITH trusted, i, $buckets[i] AS b
WITH i, b.startMs AS startMs,
  CASE WHEN b.startMs < $from THEN $from ELSE b.startMs END AS fromMs,
  CASE WHEN b.endMs > $to THEN $to ELSE b.endMs END AS toMs,
  trusted AND b.period AND $songId IS NULL AS kept
CALL (kept, fromMs, toMs) {
  WITH kept, fromMs, toMs
  WHERE kept
  OPTIONAL MATCH (p:Period)
  WHERE p.start = fromMs AND p.end = toMs
  RETURN ${PERIOD_TYPES.map((t) => `CASE WHEN '${t.type}' IN $serviceTypes THEN coalesce(p.${t.prefix}Services, 0) ELSE 0 END`).join('\n    + ')} AS services,
    ${PERIOD_TYPES.map((t) => `CASE WHEN '${t.type}' IN $serviceTypes THEN coalesce(p.${t.prefix}Links, 0) ELSE 0 END`).join('\n    + ')} AS performances,
    coalesce(CASE $mask ${MASKS.map((m) => `WHEN ${m} THEN p.songs${m}`).join(' ')} END, 0) AS distinctSongs
  UNION ALL
  WITH kept, fromMs, toMs
  WHERE NOT kept
  OPTIONAL MATCH (s:Song)-[r:PERFORMED_IN]->(v:Service)
  WHERE r.date >= fromMs AND r.date <= toMs AND r.serviceType IN $serviceTypes
    AND ($songId IS NULL OR s.id = $songId)
  WITH fromMs, toMs, count(r) AS performances, count(DISTINCT s) AS distinctSongs, count(DISTINCT v) AS songServices
  RETURN CASE WHEN $songId IS NULL
      THEN COUNT { MATCH (w:Service) WHERE w.date >= fromMs AND w.date <= toMs AND w.serviceType IN $serviceTypes }
      ELSE songServices END AS services,
    performances, distinctSongs
}
RETURN i, startMs AS start, services, performances, distinctSongs
ORDER BY i`,

  /** A suggestion's pool: the songs of the run (LAST_SERVICES), each once by id. */
  songsOfLastServices: `
${LAST_SERVICES}
MATCH (s:Song)-[:PERFORMED_IN]->(v)
WITH DISTINCT s.id AS id
RETURN id
ORDER BY id`,

  /**
   * Overuse at a glance: the run (LAST_SERVICES), then the songs sung in strictly more than
   * $moreThanPercent of its services, most often first. Always one row, `songs` empty when none
   * qualifies (aggregations without grouping keys answer one row on no input).
   */
  songsSungOften: `
CALL () {
  ${LAST_SERVICES.replace(/\n/g, '\n  ')}
  RETURN collect(v) AS run, min(v.date) AS firstService, max(v.date) AS lastService
}
WITH run, size(run) AS services, firstService, lastService
CALL (run, services) {
  UNWIND run AS v
  MATCH (s:Song)-[:PERFORMED_IN]->(v)
  WITH s, count(v) AS times, max(v.date) AS last
  WHERE times * 100 > $moreThanPercent * services
  WITH s, times, last
  ORDER BY times DESC, s.id
  RETURN collect([s.id, s.name, s.artists, times, last]) AS songs
}
RETURN services, firstService, lastService, songs`,

  /**
   * Counts come from the (:Artist {key}) nodes, whose keys are exactly src/domain/artists.ts's.
   * The spelling shown is the artist's maintained one (./statements.ts, moveSpellings).
   */
  artistUsage: `
MATCH (a:Artist)<-[:BY]-(s:Song)-[r:PERFORMED_IN]->()
WHERE a.key <> '' AND ${IN_WINDOW('r')}
WITH a, count(r) AS timesSung, count(DISTINCT s) AS songs
${ARTISTS_RANKED}`,

  // All-time artists: the Artists' maintained totals (./statements.ts), no song read.
  /**
   * Over every type: artist_usage_times read backwards from the highest total, cut after the
   * page (a PartialTop orders only the artists that tie on the total, by spelling then key), and
   * the total counted off the same index. Never-sung artists (usageTimes 0) are not listed.
   */
  artistUsageAllTime: `
CALL () {
  MATCH (a:Artist)
  WHERE a.usageTimes > 0 AND a.key <> ''
  WITH a
  ORDER BY a.usageTimes DESC, coalesce(a.spelling, a.key), a.key
  SKIP $offset LIMIT $limit
  RETURN collect(a) AS page
}
WITH page, COUNT { MATCH (a:Artist) WHERE a.usageTimes > 0 AND a.key <> '' } AS total
UNWIND page AS a
RETURN total, coalesce(a.spelling, a.key) AS artist, a.usageTimes AS timesSung, a.songs7 AS songs`,
  /**
   * Some types: every artist's per-type totals of the asked types, and its songs sung in any of
   * them (songs<mask>, the mask of $serviceTypes), ranked.
   */
  artistUsageAllTimeOfTypes: `
MATCH (a:Artist)
WHERE a.key <> ''
WITH a, ${USAGE_TYPES.map(([type, p]) => `CASE WHEN '${type}' IN $serviceTypes THEN a.${p}Times ELSE 0 END`).join(' + ')} AS timesSung,
  CASE ${USAGE_TYPES.map(([type], bit) => `CASE WHEN '${type}' IN $serviceTypes THEN ${1 << bit} ELSE 0 END`).join(' + ')}
    ${TYPE_MASKS.map((m) => `WHEN ${m} THEN a.songs${m}`).join(' ')}
  END AS songs
WHERE timesSung > 0
${ARTISTS_RANKED}`,
} as const;

/** The all-types, all-time usage report statement of each order an index serves. */
export const SONG_USAGE_ALL_TYPES: Record<AllTypesOrder, AnalyticsStatementName> = {
  TIMES_SUNG: 'songUsageAllTimeByTimesSung',
  LAST_SUNG: 'songUsageAllTimeByLastSung',
  LEAST_RECENTLY_SUNG: 'songUsageAllTimeByLeastRecentlySung',
  FIRST_SUNG: 'songUsageAllTimeByFirstSung',
};

export type AnalyticsStatementName = keyof typeof ANALYTICS_CYPHER;

const WINDOW = { from: 'INTEGER', to: 'INTEGER', serviceTypes: 'LIST<STRING>' } as const;
/** The usage report's filters and page (with its order as `sort` where one statement serves several). */
const ALL_TYPES_PARAMS = {
  includeUnsung: 'BOOLEAN',
  lastBefore: 'INTEGER?',
  firstFrom: 'INTEGER?',
  firstTo: 'INTEGER?',
  offset: 'INTEGER',
  limit: 'INTEGER',
} as const;

export const ANALYTICS_PARAMS = {
  songUsage: { ...WINDOW, ...ALL_TYPES_PARAMS, sort: 'STRING' },
  songUsageAllTime: { serviceTypes: 'LIST<STRING>', ...ALL_TYPES_PARAMS, sort: 'STRING' },
  songUsageAllTimeByTimesSung: ALL_TYPES_PARAMS,
  songUsageAllTimeByLastSung: ALL_TYPES_PARAMS,
  songUsageAllTimeByLeastRecentlySung: ALL_TYPES_PARAMS,
  songUsageAllTimeByFirstSung: ALL_TYPES_PARAMS,
  usageOfSongs: { ...WINDOW, ids: 'LIST<INTEGER>' },
  songRhythms: { ids: 'LIST<INTEGER>', min: 'INTEGER', max: 'INTEGER' },
  songTimesByType: { ids: 'LIST<INTEGER>' },
  usageOfSongsAllTime: { serviceTypes: 'LIST<STRING>', ids: 'LIST<INTEGER>' },
  songsSungWith: { ...WINDOW, songId: 'INTEGER', limit: 'INTEGER' },
  songsSungWithAllTime: { serviceTypes: 'LIST<STRING>', songId: 'INTEGER', limit: 'INTEGER' },
  songsSungWithAllTypes: { songId: 'INTEGER', limit: 'INTEGER' },
  serviceSpan: { serviceTypes: 'LIST<STRING>' },
  usageTimeline: {
    buckets: { rows: { startMs: 'INTEGER', endMs: 'INTEGER', period: 'BOOLEAN' } },
    ...WINDOW,
    songId: 'INTEGER?',
    zone: 'STRING',
    mask: 'INTEGER',
  },
  songsSungOften: { to: 'INTEGER', serviceTypes: 'LIST<STRING>', lastServices: 'INTEGER', moreThanPercent: 'INTEGER' },
  songsOfLastServices: { to: 'INTEGER', serviceTypes: 'LIST<STRING>', lastServices: 'INTEGER' },
  artistUsage: { ...WINDOW, offset: 'INTEGER', limit: 'INTEGER' },
  artistUsageAllTime: { offset: 'INTEGER', limit: 'INTEGER' },
  artistUsageAllTimeOfTypes: { serviceTypes: 'LIST<STRING>', offset: 'INTEGER', limit: 'INTEGER' },
} as const satisfies Record<AnalyticsStatementName, ParamDecl>;
