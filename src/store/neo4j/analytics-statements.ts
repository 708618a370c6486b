import type { ParamDecl } from './statements';

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
 * $from/$to are inclusive epoch-ms bounds (the widest integers when open); $serviceTypes is never
 * empty. Paged statements return the full count as `total` on every row.
 */

const IN_WINDOW = (r: string) => `${r}.date >= $from AND ${r}.date <= $to AND ${r}.serviceType IN $serviceTypes`;

/** Whether link `r` of service `v` opens (closes) its setlist. */
const ENDS = `
  r IS NOT NULL AND NOT EXISTS {
    MATCH (:Song)-[o:PERFORMED_IN]->(v)
    WHERE o.position < r.position OR (o.position = r.position AND o.seq < r.seq)
  } AS opener,
  r IS NOT NULL AND NOT EXISTS {
    MATCH (:Song)-[o:PERFORMED_IN]->(v)
    WHERE o.position > r.position OR (o.position = r.position AND o.seq > r.seq)
  } AS closer`;

const perType = (type: string, alias: string) =>
  `sum(CASE WHEN r.serviceType = '${type}' THEN 1 ELSE 0 END) AS ${alias},
  max(CASE WHEN r.serviceType = '${type}' THEN r.date END) AS ${alias}Last`;

const STATS = `count(r) AS times, min(r.date) AS first, max(r.date) AS last,
  sum(CASE WHEN opener THEN 1 ELSE 0 END) AS openers, sum(CASE WHEN closer THEN 1 ELSE 0 END) AS closers,
  ${perType('SUN_AM', 'sunAm')}, ${perType('SUN_PM', 'sunPm')}, ${perType('WED', 'wed')}`;

const STAT_NAMES = 'times, first, last, openers, closers, sunAm, sunAmLast, sunPm, sunPmLast, wed, wedLast';
const NO_DATE = '-9007199254740991';

export const ANALYTICS_CYPHER = {
  /** Usage report, rotation ($lastBefore) and new songs ($firstFrom/$firstTo). */
  songUsage: `
CALL () {
  MATCH (s:Song)-[r:PERFORMED_IN]->(v:Service)
  WHERE ${IN_WINDOW('r')}
  WITH s, r, ${ENDS}
  RETURN s, ${STATS}
  UNION ALL
  MATCH (s:Song)
  WHERE $includeUnsung AND NOT EXISTS { MATCH (s)-[r:PERFORMED_IN]->() WHERE ${IN_WINDOW('r')} }
  RETURN s, 0 AS times, null AS first, null AS last, 0 AS openers, 0 AS closers,
    0 AS sunAm, null AS sunAmLast, 0 AS sunPm, null AS sunPmLast, 0 AS wed, null AS wedLast
}
WITH s, ${STAT_NAMES}
WHERE ($lastBefore IS NULL OR last IS NULL OR last < $lastBefore)
  AND ($firstFrom IS NULL OR (first >= $firstFrom AND first <= $firstTo))
WITH s, ${STAT_NAMES}
ORDER BY
  CASE $sort
    WHEN 'TIMES_SUNG' THEN -times
    WHEN 'LAST_SUNG' THEN -coalesce(last, ${NO_DATE})
    WHEN 'LEAST_RECENTLY_SUNG' THEN coalesce(last, ${NO_DATE})
    WHEN 'FIRST_SUNG' THEN coalesce(first, ${NO_DATE})
    ELSE 0
  END,
  CASE WHEN $sort = 'NAME' THEN s.name ELSE '' END,
  s.id
WITH collect([s.id, s.name, s.artists, ${STAT_NAMES}]) AS rows
UNWIND rows[$offset..($offset + $limit)] AS row
RETURN size(rows) AS total, row[0] AS id, row[1] AS name, row[2] AS artists, row[3] AS times,
  row[4] AS first, row[5] AS last, row[6] AS openers, row[7] AS closers, row[8] AS sunAm,
  row[9] AS sunAmLast, row[10] AS sunPm, row[11] AS sunPmLast, row[12] AS wed, row[13] AS wedLast`,

  /** Song.usage for a batch of songs, in the order of $ids. */
  usageOfSongs: `
UNWIND range(0, size($ids) - 1) AS i
WITH i, $ids[i] AS songId
OPTIONAL MATCH (:Song {id: songId})-[r:PERFORMED_IN]->(v:Service)
WHERE ${IN_WINDOW('r')}
WITH i, r, ${ENDS}
RETURN i, ${STATS}
ORDER BY i`,

  songsSungWith: `
MATCH (me:Song {id: $songId})-[r:PERFORMED_IN]->(v:Service)
WHERE ${IN_WINDOW('r')}
WITH me, collect(v) AS mine
UNWIND mine AS v
MATCH (other:Song)-[:PERFORMED_IN]->(v)
WHERE other <> me
WITH size(mine) AS a, other, count(v) AS together
WITH other, together,
  toFloat(together) / (a + COUNT { MATCH (other)-[q:PERFORMED_IN]->() WHERE ${IN_WINDOW('q')} } - together) AS jaccard
RETURN other.id AS id, other.name AS name, other.artists AS artists, together, jaccard
ORDER BY together DESC, jaccard DESC, id
LIMIT $limit`,

  serviceSpan: `
MATCH (v:Service)
WHERE v.serviceType IN $serviceTypes
RETURN min(v.date) AS first, max(v.date) AS last`,

  /** $buckets: inclusive [startMs, endMs] ranges computed in the service time zone by the caller. */
  usageTimeline: `
UNWIND range(0, size($buckets) - 1) AS i
WITH i, $buckets[i].startMs AS startMs, $buckets[i].endMs AS endMs
OPTIONAL MATCH (s:Song)-[r:PERFORMED_IN]->(v:Service)
WHERE r.date >= startMs AND r.date <= endMs AND r.serviceType IN $serviceTypes
  AND ($songId IS NULL OR s.id = $songId)
WITH i, startMs, endMs, count(r) AS performances, count(DISTINCT s) AS distinctSongs, count(DISTINCT v) AS songServices
RETURN i, startMs AS start,
  CASE WHEN $songId IS NULL
    THEN COUNT { MATCH (w:Service) WHERE w.date >= startMs AND w.date <= endMs AND w.serviceType IN $serviceTypes }
    ELSE songServices END AS services,
  performances, distinctSongs
ORDER BY i`,

  /**
   * Counts come from the (:Artist {key}) nodes, whose keys are exactly src/domain/artists.ts's.
   * The spelling shown is the most common entry among the artist's songs whose Cypher-folded
   * form equals the key (NFC, trim, upper then lower case, like the JavaScript function).
   */
  artistUsage: `
MATCH (a:Artist)<-[:BY]-(s:Song)-[r:PERFORMED_IN]->()
WHERE a.key <> '' AND ${IN_WINDOW('r')}
WITH a, count(r) AS timesSung, count(DISTINCT s) AS songs
CALL (a) {
  MATCH (a)<-[:BY]-(t:Song)
  UNWIND t.artists AS spelling
  WITH a, spelling
  WHERE normalize(toLower(toUpper(trim(normalize(spelling, NFC)))), NFC) = a.key
  WITH spelling, count(*) AS uses
  ORDER BY uses DESC, spelling
  RETURN collect(spelling)[0] AS spelling
}
WITH coalesce(spelling, a.key) AS artist, timesSung, songs
ORDER BY timesSung DESC, artist
WITH collect([artist, timesSung, songs]) AS rows
UNWIND rows[$offset..($offset + $limit)] AS row
RETURN size(rows) AS total, row[0] AS artist, row[1] AS timesSung, row[2] AS songs`,
} as const;

export type AnalyticsStatementName = keyof typeof ANALYTICS_CYPHER;

const WINDOW = { from: 'INTEGER', to: 'INTEGER', serviceTypes: 'LIST<STRING>' } as const;

export const ANALYTICS_PARAMS = {
  songUsage: {
    ...WINDOW,
    includeUnsung: 'BOOLEAN',
    lastBefore: 'INTEGER?',
    firstFrom: 'INTEGER?',
    firstTo: 'INTEGER?',
    sort: 'STRING',
    offset: 'INTEGER',
    limit: 'INTEGER',
  },
  usageOfSongs: { ...WINDOW, ids: 'LIST<INTEGER>' },
  songsSungWith: { ...WINDOW, songId: 'INTEGER', limit: 'INTEGER' },
  serviceSpan: { serviceTypes: 'LIST<STRING>' },
  usageTimeline: {
    buckets: { rows: { startMs: 'INTEGER', endMs: 'INTEGER' } },
    serviceTypes: 'LIST<STRING>',
    songId: 'INTEGER?',
  },
  artistUsage: { ...WINDOW, offset: 'INTEGER', limit: 'INTEGER' },
} as const satisfies Record<AnalyticsStatementName, ParamDecl>;
