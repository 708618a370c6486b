import { NO_FIRST, NO_LAST, perType as eachType, USAGE_TYPES } from './analytics-schema';

/**
 * The analytics statements of the SQLite store, one per analytic (the all-time usage report has
 * one per indexed order). A window reads performed_in's copies of the service date and type
 * (src/store/sqlite/analytics-schema.ts) through a covering index, never joining services; all
 * time reads the maintained song_usage rows. Parameters: @types is a JSON array of service types
 * and @sun_am/@sun_pm/@wed are 1 for the types asked (@allTypes when all three are); @from/@to are inclusive epoch-ms bounds (the
 * widest integers when open); @allTime is 1 when both are open.
 */

const pivot = (type: string, alias: string) =>
  `sum(iif(service_type = '${type}', times, 0)) AS ${alias}, max(iif(service_type = '${type}', last, NULL)) AS ${alias}_last`;

/** ./analytics-schema.ts's perType by column name alone, joined with commas. */
const perType = (fn: (col: string) => string, sep = ', ') => eachType((_, col) => fn(col), sep);

/**
 * The stats columns of song_usage row `u` for the types asked: per-type columns of the others
 * read as zero and NULL. With every type asked they equal the row's generated totals.
 */
const usageOf = (u: string) => `
    ${perType((c) => `iif(@${c}, ${u}.${c}_times, 0)`, ' + ')} AS times,
    nullif(min(${perType((c) => `iif(@${c}, coalesce(${u}.${c}_first, ${NO_FIRST}), ${NO_FIRST})`)}), ${NO_FIRST}) AS first,
    nullif(max(${perType((c) => `iif(@${c}, coalesce(${u}.${c}_last, ${NO_LAST}), ${NO_LAST})`)}), ${NO_LAST}) AS last,
    ${perType((c) => `iif(@${c}, ${u}.${c}_openers, 0)`, ' + ')} AS openers,
    ${perType((c) => `iif(@${c}, ${u}.${c}_closers, 0)`, ' + ')} AS closers,
    ${perType((c) => `iif(@${c}, ${u}.${c}_times, 0) AS ${c}, iif(@${c}, ${u}.${c}_last, NULL) AS ${c}_last`)}`;

/** Song totals and one pair of columns per service type, from rows per (song, service type). */
const PER_SONG = `song_id, sum(times) AS times, min(first) AS first, max(last) AS last,
    sum(openers) AS openers, sum(closers) AS closers,
    ${pivot('SUN_AM', 'sun_am')}, ${pivot('SUN_PM', 'sun_pm')}, ${pivot('WED', 'wed')}`;

/**
 * One row per song with usage in the window and types. All time reads song_usage (maintained by
 * triggers, see ./analytics-schema.ts); a window reads its range of performed_in_date_usage.
 * Exactly one branch runs: the other's WHERE is false before its first row, since @allTime is a
 * constant. `songs` optionally narrows both to some songs (then one song's history is a range of
 * performed_in_song_usage, and its row a primary-key seek).
 */
const perSong = (songs = '') => `
  SELECT * FROM (
    SELECT u.song_id, ${usageOf('u')}
    FROM song_usage u
    WHERE @allTime ${songs && `AND u.song_id IN ${songs}`}
  ) WHERE times > 0
  UNION ALL
  SELECT ${PER_SONG}
  FROM (
    SELECT song_id, service_type, count(*) AS times, min(service_date) AS first, max(service_date) AS last,
      sum(is_opener) AS openers, sum(is_closer) AS closers
    FROM performed_in INDEXED BY ${songs ? 'performed_in_song_usage' : 'performed_in_date_usage'}
    WHERE NOT @allTime AND service_date BETWEEN @from AND @to
      AND service_type IN (SELECT value FROM json_each(@types)) ${songs && `AND song_id IN ${songs}`}
    GROUP BY song_id, service_type
  )
  GROUP BY song_id`;

/** The filters of the usage report, rotation (@lastBefore) and new songs (@firstFrom/@firstTo) on row `r`. */
const usageFilter = (r: string) => `(@includeUnsung OR ${r}.times > 0)
      AND (@lastBefore IS NULL OR ${r}.last IS NULL OR ${r}.last < @lastBefore)
      AND (@firstFrom IS NULL OR ${r}.first BETWEEN @firstFrom AND @firstTo)`;

/**
 * All time, every type, one order: song_usage's index for that order is read in order and the
 * page stops the scan, so the full report costs one index walk and one song seek per row, and a
 * page or rotation only its rows. The count is one more pass over the same rows, without songs.
 * Every type is asked, so the row's generated totals are the answer.
 */
const allTimeIn = (index: string, order: string, tie = 'u.song_id') => `
    SELECT s.id, s.name, s.artists, s.ccli_number, s.copyright, u.times, u.first, u.last, u.openers, u.closers,
      ${perType((c) => `u.${c}_times AS ${c}, u.${c}_last`)},
      (SELECT count(*) FROM song_usage c WHERE ${usageFilter('c')}) AS total
    FROM song_usage u INDEXED BY ${index} CROSS JOIN songs s ON s.id = u.song_id
    WHERE ${usageFilter('u')}
    ORDER BY ${order}, ${tie}
    LIMIT @limit OFFSET @offset`;

const STAT_COLUMNS = ['times', 'first', 'last', 'openers', 'closers', 'sun_am', 'sun_am_last', 'sun_pm', 'sun_pm_last', 'wed', 'wed_last'];

/** The stats columns every usage row carries, from an aggregate row `a` (null when unsung). */
const statsColumns = `
  coalesce(a.times, 0) AS times, a.first, a.last, coalesce(a.openers, 0) AS openers,
  coalesce(a.closers, 0) AS closers, coalesce(a.sun_am, 0) AS sun_am, a.sun_am_last,
  coalesce(a.sun_pm, 0) AS sun_pm, a.sun_pm_last, coalesce(a.wed, 0) AS wed, a.wed_last`;

/** Whether service type `col` is one asked for: @allTypes, else by the @sun_am/@sun_pm/@wed flags. */
const typeFlag = (col: string) =>
  `(@allTypes OR ${USAGE_TYPES.map(([type, c]) => `(${col} = '${type}' AND @${c})`).join(' OR ')})`;

/**
 * The run songsSungOften counts and songsOfLastServices reads: the last @lastServices services of
 * the types up to @to (services_date walked backwards from @to, newest first; a later id first on
 * one date).
 */
const LAST_SERVICES_RUN = `run AS MATERIALIZED (
      SELECT id, date FROM services INDEXED BY services_date
      WHERE date <= @to AND ${typeFlag('service_type')}
      ORDER BY date DESC, id DESC
      LIMIT @lastServices
    )`;
const inTypes = (col: string) => `${col} IN (SELECT value FROM json_each(@types))`;
const inWindow = (col: string) => `${col} BETWEEN @from AND @to`;

/** @songId's links in bucket `counted`: one seek of performed_in_song_usage per type. */
const songLinks = `(SELECT count(*) FROM performed_in p INDEXED BY performed_in_song_usage
           WHERE p.song_id = @songId AND service_type IN (SELECT value FROM json_each(@types))
             AND p.service_date BETWEEN counted.lo AND counted.hi)`;

export const ANALYTICS_SQL = {
  /**
   * Usage report, rotation and new songs, in a window or for some service types (all time with
   * every type: the songUsageBy* statements below). The window function counts every page's rows.
   */
  songUsage: `
    WITH agg AS MATERIALIZED (${perSong()}),
    -- Sung songs by primary key, then (asked for) the others: never a scan of agg per song.
    usage AS (
      SELECT s.id, s.name, s.artists, s.ccli_number, s.copyright, ${STAT_COLUMNS.map((c) => `a.${c}`).join(', ')}
      FROM agg a JOIN songs s ON s.id = a.song_id
      UNION ALL
      SELECT s.id, s.name, s.artists, s.ccli_number, s.copyright, 0, NULL, NULL, 0, 0, 0, NULL, 0, NULL, 0, NULL
      FROM songs s
      WHERE @includeUnsung AND s.id NOT IN (SELECT song_id FROM agg)
    )
    SELECT *, count(*) OVER () AS total
    FROM usage
    WHERE (@lastBefore IS NULL OR last IS NULL OR last < @lastBefore)
      AND (@firstFrom IS NULL OR first BETWEEN @firstFrom AND @firstTo)
    ORDER BY
      CASE WHEN @sort = 'TIMES_SUNG' THEN times END DESC,
      CASE WHEN @sort = 'LAST_SUNG' THEN last END DESC,
      CASE WHEN @sort = 'LEAST_RECENTLY_SUNG' THEN last END ASC,
      CASE WHEN @sort = 'FIRST_SUNG' THEN first END DESC,
      CASE WHEN @sort = 'NAME' THEN name END ASC,
      -- New songs are newest first throughout: ties (songs introduced together) by id descending.
      CASE WHEN @sort = 'FIRST_SUNG' THEN id END DESC,
      id
    LIMIT @limit OFFSET @offset`,

  // All time, every service type: one statement per order, each reading its own index. NULLs sort
  // first ascending and last descending, as in songUsage's CASE orders.
  songUsageByTimes: allTimeIn('song_usage_times', 'u.times DESC'),
  songUsageByLastDesc: allTimeIn('song_usage_last_desc', 'u.last DESC'),
  songUsageByLast: allTimeIn('song_usage_last', 'u.last'),
  // New songs, newest first: song_usage_first walked backwards, so ties go by id descending too.
  songUsageByFirst: allTimeIn('song_usage_first', 'u.first DESC', 'u.song_id DESC'),

  /**
   * Store.songRhythms: per song (@songIds, in order), its links' dates within the range from its
   * range of performed_in_song_date, as one JSON array (`json_group_array`), and the last date
   * before the range (one step back from the range's start in that index). One row a song: a row
   * per date (a thousand candidates' rhythms on a dense history are thousands of dates) cost three
   * times as much, most of it in making a JavaScript object per row.
   */
  songRhythms: `
    SELECT j.key AS i,
      (SELECT json_group_array(p.service_date) FROM performed_in p INDEXED BY performed_in_song_date
        WHERE p.song_id = j.value AND p.service_date BETWEEN @min AND @max) AS dates,
      (SELECT p.service_date FROM performed_in p INDEXED BY performed_in_song_date
        WHERE p.song_id = j.value AND p.service_date < @min ORDER BY p.service_date DESC LIMIT 1) AS last_before
    FROM json_each(@songIds) j`,
  /**
   * Store.songTimesByType: per song (@songIds, in order), its maintained counts per type, one
   * primary-key read of song_usage (no figure worked out: usageOfSongsAllTime's sixteen columns
   * cost three times as much for a suggestion's candidates).
   */
  songTimesByType: `
    SELECT j.key AS i, coalesce(u.sun_am_times, 0) AS sun_am, coalesce(u.sun_pm_times, 0) AS sun_pm, coalesce(u.wed_times, 0) AS wed
    FROM json_each(@songIds) j LEFT JOIN song_usage u ON u.song_id = j.value`,
  /**
   * Song.usage over all time for a batch of songs: one primary-key read of song_usage per song (no
   * grouping: the windowed statement below unions and groups, a third of the time for the 500
   * candidates a suggestion scores).
   */
  usageOfSongsAllTime: `
    WITH a AS (
      SELECT j.value AS song_id, ${usageOf('u')}
      FROM json_each(@songIds) j LEFT JOIN song_usage u ON u.song_id = j.value
    )
    SELECT a.song_id AS id, ${statsColumns}
    FROM a`,
  /** Song.usage for a batch of songs: index lookups per song, in the window. */
  usageOfSongs: `
    WITH ids AS (SELECT DISTINCT value AS song_id FROM json_each(@songIds)),
    agg AS (${perSong('ids')})
    SELECT ids.song_id AS id, ${statsColumns}
    FROM ids LEFT JOIN agg a ON a.song_id = ids.song_id`,

  /**
   * Songs sharing services with @songId in a window. Partners are read through the setlist
   * index of each of its services (they share the service, hence its date and type); each
   * partner's own service count is an index range count.
   */
  songsSungWith: `
    WITH mine AS (
      SELECT service_id FROM performed_in INDEXED BY performed_in_song_usage
      WHERE song_id = @songId AND ${inTypes('service_type')} AND ${inWindow('service_date')}
    ),
    pairs AS (
      SELECT p.song_id, count(*) AS together
      FROM mine JOIN performed_in p ON p.service_id = mine.service_id
      WHERE p.song_id <> @songId
      GROUP BY p.song_id
    ),
    scored AS (
      SELECT song_id, together,
        CAST(together AS REAL) / ((SELECT count(*) FROM mine) + (
          SELECT count(*) FROM performed_in q INDEXED BY performed_in_song_usage
          WHERE q.song_id = pairs.song_id AND ${inTypes('q.service_type')} AND ${inWindow('q.service_date')}
        ) - together) AS jaccard
      FROM pairs
    )
    SELECT s.id, s.name, s.artists, together, jaccard
    FROM scored JOIN songs s ON s.id = scored.song_id
    ORDER BY together DESC, jaccard DESC, s.id
    LIMIT @limit`,

  /**
   * songsSungWith over all time: @songId's pairs are a primary-key range of song_pairs (kept by
   * triggers, see ./analytics-schema.ts), summed over the types asked; both songs' service counts
   * are their song_usage rows. Nothing here reads the history.
   */
  songsSungWithAllTime: `
    WITH pairs AS (
      SELECT other_id AS song_id, sum(together) AS together
      FROM song_pairs
      WHERE song_id = @songId AND ${typeFlag('service_type')}
      GROUP BY other_id
    ),
    mine AS (SELECT ${perType((c) => `iif(@${c}, ${c}_times, 0)`, ' + ')} AS times FROM song_usage WHERE song_id = @songId)
    SELECT s.id, s.name, s.artists, p.together,
      CAST(p.together AS REAL) / ((SELECT times FROM mine) + ${perType((c) => `iif(@${c}, u.${c}_times, 0)`, ' + ')} - p.together) AS jaccard
    FROM pairs p JOIN song_usage u ON u.song_id = p.song_id JOIN songs s ON s.id = p.song_id
    ORDER BY p.together DESC, jaccard DESC, s.id
    LIMIT @limit`,

  /**
   * All time, every type: @songId's pairs in song_pair_totals_order, most services together
   * first. The @limit-th count is read first (a seek and a short walk); then only the pairs with
   * at least that count are read and ordered (the page and its ties, by Jaccard index then id), so
   * a popular song's page costs the page, not every song it was ever sung with.
   */
  songsSungWithAllTypes: `
    WITH cut AS (
      SELECT together FROM song_pair_totals INDEXED BY song_pair_totals_order
      WHERE song_id = @songId
      ORDER BY together DESC
      LIMIT 1 OFFSET @limit - 1
    ),
    pairs AS (
      SELECT other_id AS song_id, together FROM song_pair_totals INDEXED BY song_pair_totals_order
      WHERE song_id = @songId AND together >= coalesce((SELECT together FROM cut), 1)
    )
    SELECT s.id, s.name, s.artists, p.together,
      CAST(p.together AS REAL) / ((SELECT times FROM song_usage WHERE song_id = @songId) + u.times - p.together) AS jaccard
    FROM pairs p JOIN song_usage u ON u.song_id = p.song_id JOIN songs s ON s.id = p.song_id
    ORDER BY p.together DESC, jaccard DESC, s.id
    LIMIT @limit`,

  /** First and last service dates of the types: two index probes. */
  serviceSpan: `
    SELECT
      (SELECT date FROM services WHERE ${inTypes('service_type')} ORDER BY date LIMIT 1) AS first,
      (SELECT date FROM services WHERE ${inTypes('service_type')} ORDER BY date DESC LIMIT 1) AS last`,

  /**
   * Counts per calendar bucket (@buckets: JSON [[start, end], ...], computed in the service time
   * zone by the caller, which SQLite cannot do), each counted only inside the window @from..@to:
   * the window filters first, so the buckets it cuts (the first and last) count the part of
   * their period inside it, and the buckets add up to the window's totals. The range counted,
   * lo..hi, is the bucket cut to the window; `start` stays the bucket's own. A range that is
   * exactly a maintained period (./timeline-schema.ts: same start and end, so the same instants
   * whatever zone or kind made it) reads its row: per type services and performances, and the
   * distinct songs of the types' @mask. Any other range (an edge bucket the window cuts, a bucket
   * of another zone), or one song's (@songId), reads its date range: all songs through
   * performed_in_date_usage (the types tested with flags, cheaper per row than a set lookup); one
   * song through performed_in_song_usage, one seek per type, where its links in a bucket are its
   * services there (one link per service and song).
   */
  usageTimeline: `
    WITH b AS (
      SELECT key AS i, json_extract(value, '$[0]') AS start,
        max(json_extract(value, '$[0]'), @from) AS lo, min(json_extract(value, '$[1]'), @to) AS hi
      FROM json_each(@buckets)
    ),
    counted AS (
      SELECT b.i, b.start, b.lo, b.hi, tp.kind IS NOT NULL AND @songId IS NULL AS kept,
        ${perType((c) => `tp.${c}_services, tp.${c}_links`)},
        CASE @mask ${[1, 2, 3, 4, 5, 6, 7].map((m) => `WHEN ${m} THEN tp.songs_${m}`).join(' ')} END AS songs
      FROM b LEFT JOIN timeline_periods tp
        ON tp.kind IN ('WEEK', 'MONTH', 'QUARTER', 'YEAR') AND tp.start = b.lo AND tp.end = b.hi
    )
    SELECT start,
      iif(kept, ${perType((c) => `iif(@${c}, ${c}_services, 0)`, ' + ')},
        iif(@songId IS NULL,
          (SELECT count(*) FROM services v WHERE v.date BETWEEN counted.lo AND counted.hi AND ${typeFlag('v.service_type')}),
          ${songLinks})) AS services,
      iif(kept, ${perType((c) => `iif(@${c}, ${c}_links, 0)`, ' + ')},
        iif(@songId IS NULL,
          (SELECT count(*) FROM performed_in p INDEXED BY performed_in_date_usage
           WHERE p.service_date BETWEEN counted.lo AND counted.hi AND ${typeFlag('p.service_type')}),
          ${songLinks})) AS performances,
      iif(kept, songs,
        iif(@songId IS NULL,
          (SELECT count(DISTINCT p.song_id) FROM performed_in p INDEXED BY performed_in_date_usage
           WHERE p.service_date BETWEEN counted.lo AND counted.hi AND ${typeFlag('p.service_type')}),
          min(1, ${songLinks}))) AS distinct_songs
    FROM counted
    ORDER BY i`,

  /**
   * A suggestion's pool: the songs of the run (below), through each service's setlist index, each
   * once by id; no song row is read.
   */
  songsOfLastServices: `
    WITH ${LAST_SERVICES_RUN}
    SELECT DISTINCT p.song_id AS id
    FROM run JOIN performed_in p INDEXED BY performed_in_setlist ON p.service_id = run.id
    ORDER BY p.song_id`,

  /**
   * Overuse at a glance: the run (LAST_SERVICES_RUN), and the songs sung in strictly more than
   * @moreThanPercent of its services, read through each service's setlist index. One row for the
   * run (its count and first and last dates) even when no song qualifies: the song columns are
   * then NULL.
   */
  songsSungOften: `
    WITH ${LAST_SERVICES_RUN},
    head AS (SELECT count(*) AS services, min(date) AS first, max(date) AS last FROM run),
    sung AS (
      SELECT p.song_id, count(*) AS times, max(run.date) AS last
      FROM run JOIN performed_in p INDEXED BY performed_in_setlist ON p.service_id = run.id
      GROUP BY p.song_id
    )
    SELECT head.services, head.first AS first_service, head.last AS last_service,
      s.id, s.name, s.artists, sung.times, sung.last
    FROM head
      LEFT JOIN sung ON sung.times * 100 > @moreThanPercent * head.services
      LEFT JOIN songs s ON s.id = sung.song_id
    ORDER BY sung.times DESC, s.id`,

  /**
   * Performances per normalised artist, through song_artist_keys (written by the store with
   * src/domain/artists.ts, so keys are exactly the ones byArtist matches). The spelling shown is
   * the most common one among all songs' entries with that key (ties: the smallest string), picked
   * with a window function from the spellings each (key, song) row keeps.
   */
  artistUsage: `
    WITH used AS MATERIALIZED (${perSong()}),
    -- The used songs' artist keys: song_artist_keys holds exactly the keys byArtist matches. All
    -- time walks the keys in order with each song's usage row; a window starts from its songs.
    totals AS MATERIALIZED (
      SELECT k.artist_key AS k, sum(u.times) AS times, count(*) AS songs
      FROM song_artist_keys k
        JOIN (SELECT song_id, ${perType((c) => `iif(@${c}, ${c}_times, 0)`, ' + ')} AS times FROM song_usage) u
        ON u.song_id = k.song_id
      WHERE @allTime AND k.artist_key <> '' AND u.times > 0
      GROUP BY k.artist_key
      UNION ALL
      SELECT k.artist_key AS k, sum(u.times) AS times, count(*) AS songs
      FROM used u JOIN song_artist_keys k INDEXED BY song_artist_keys_song ON k.song_id = u.song_id
      WHERE NOT @allTime AND k.artist_key <> ''
      GROUP BY k.artist_key
    ),
    -- Every entry with the key among all its songs (the key's rows keep their songs' entries).
    spellings AS (
      SELECT t.k, j.value AS spelling,
        row_number() OVER (PARTITION BY t.k ORDER BY count(*) DESC, j.value) AS r
      FROM totals t JOIN song_artist_keys a ON a.artist_key = t.k, json_each(a.spellings) j
      GROUP BY t.k, j.value
    )
    SELECT sp.spelling AS artist, t.times, t.songs, count(*) OVER () AS total
    FROM spellings sp JOIN totals t ON t.k = sp.k
    WHERE sp.r = 1
    ORDER BY t.times DESC, artist
    LIMIT @limit OFFSET @offset`,
} as const;

export type AnalyticsStatementName = keyof typeof ANALYTICS_SQL;
