/**
 * The analytics statements of the SQLite store, one per analytic. They read performed_in's copies
 * of the service date and type (src/store/sqlite/analytics-schema.ts) through covering indexes,
 * never joining services, or (all time) the maintained totals. Parameters: @types is a JSON array of service types; @from/@to are
 * inclusive epoch-ms bounds (the widest integers when open); @allTime is 1 when both are open.
 */

const pivot = (type: string, alias: string) =>
  `sum(iif(service_type = '${type}', times, 0)) AS ${alias}, max(iif(service_type = '${type}', last, NULL)) AS ${alias}_last`;

/** Song totals and one pair of columns per service type, from rows per (song, service type). */
const PER_SONG = `song_id, sum(times) AS times, min(first) AS first, max(last) AS last,
    sum(openers) AS openers, sum(closers) AS closers,
    ${pivot('SUN_AM', 'sun_am')}, ${pivot('SUN_PM', 'sun_pm')}, ${pivot('WED', 'wed')}`;

/**
 * One row per song with usage in the window and types. All time reads song_usage_totals
 * (maintained by triggers, see ./analytics-schema.ts) in primary-key order, so grouping streams;
 * a window reads its range of performed_in_date_usage. Exactly one branch runs: the other's WHERE
 * is false before its first row, since @allTime is a constant. `songs` optionally narrows both to
 * some songs (then one song's history is a range of performed_in_song_usage).
 */
const perSong = (songs = '') => `
  SELECT ${PER_SONG}
  FROM song_usage_totals
  WHERE @allTime AND service_type IN (SELECT value FROM json_each(@types)) ${songs && `AND song_id IN ${songs}`}
  GROUP BY song_id
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

const STAT_COLUMNS = ['times', 'first', 'last', 'openers', 'closers', 'sun_am', 'sun_am_last', 'sun_pm', 'sun_pm_last', 'wed', 'wed_last'];

/** The stats columns every usage row carries, from an aggregate row `a` (null when unsung). */
const statsColumns = `
  coalesce(a.times, 0) AS times, a.first, a.last, coalesce(a.openers, 0) AS openers,
  coalesce(a.closers, 0) AS closers, coalesce(a.sun_am, 0) AS sun_am, a.sun_am_last,
  coalesce(a.sun_pm, 0) AS sun_pm, a.sun_pm_last, coalesce(a.wed, 0) AS wed, a.wed_last`;

const inTypes = (col: string) => `${col} IN (SELECT value FROM json_each(@types))`;
const inWindow = (col: string) => `${col} BETWEEN @from AND @to`;

export const ANALYTICS_SQL = {
  /** Usage report, rotation and new songs. The window function counts the rows of every page. */
  songUsage: `
    WITH agg AS MATERIALIZED (${perSong()}),
    -- Sung songs by primary key, then (asked for) the others: never a scan of agg per song.
    usage AS (
      SELECT s.id, s.name, s.artists, ${STAT_COLUMNS.map((c) => `a.${c}`).join(', ')}
      FROM agg a JOIN songs s ON s.id = a.song_id
      UNION ALL
      SELECT s.id, s.name, s.artists, 0, NULL, NULL, 0, 0, 0, NULL, 0, NULL, 0, NULL
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
      CASE WHEN @sort = 'FIRST_SUNG' THEN first END ASC,
      CASE WHEN @sort = 'NAME' THEN name END ASC,
      id
    LIMIT @limit OFFSET @offset`,

  /** Song.usage for a batch of songs: index lookups per song, in the window. */
  usageOfSongs: `
    WITH ids AS (SELECT DISTINCT value AS song_id FROM json_each(@songIds)),
    agg AS (${perSong('ids')})
    SELECT ids.song_id AS id, ${statsColumns}
    FROM ids LEFT JOIN agg a ON a.song_id = ids.song_id`,

  /**
   * Songs sharing services with @songId in the window. Partners are read through the setlist
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

  /** First and last service dates of the types: two index probes. */
  serviceSpan: `
    SELECT
      (SELECT date FROM services WHERE ${inTypes('service_type')} ORDER BY date LIMIT 1) AS first,
      (SELECT date FROM services WHERE ${inTypes('service_type')} ORDER BY date DESC LIMIT 1) AS last`,

  /**
   * Counts per calendar bucket (@buckets: JSON [[start, end], ...], computed in the service time
   * zone by the caller, which SQLite cannot do). Each bucket reads its own date range.
   */
  usageTimeline: `
    WITH b AS (
      SELECT key AS i, json_extract(value, '$[0]') AS start, json_extract(value, '$[1]') AS end
      FROM json_each(@buckets)
    )
    SELECT b.start,
      CASE WHEN @songId IS NULL
        THEN (SELECT count(*) FROM services v WHERE v.date BETWEEN b.start AND b.end AND ${inTypes('v.service_type')})
        ELSE count(DISTINCT p.service_id) END AS services,
      count(p.song_id) AS performances, count(DISTINCT p.song_id) AS distinct_songs
    FROM b LEFT JOIN performed_in p INDEXED BY performed_in_date_usage
      ON p.service_date BETWEEN b.start AND b.end AND ${inTypes('p.service_type')}
      AND (@songId IS NULL OR p.song_id = @songId)
    GROUP BY b.i
    ORDER BY b.i`,

  /**
   * Performances per normalised artist. artist_key() is src/domain/artists.ts registered as a SQL
   * function, so keys are exactly the ones byArtist matches. The spelling shown is the most
   * common one among all songs' entries with that key (ties: the smallest string), picked with a
   * window function.
   */
  artistUsage: `
    WITH used AS MATERIALIZED (${perSong()}),
    -- Each used song's distinct artist keys, reached by primary key from the used songs.
    keyed AS (
      SELECT DISTINCT artist_key(j.value) AS k, u.song_id, u.times
      FROM used u JOIN songs s ON s.id = u.song_id, json_each(s.artists) j
    ),
    totals AS MATERIALIZED (
      SELECT k, sum(times) AS times, count(*) AS songs FROM keyed WHERE k <> '' GROUP BY k
    ),
    spellings AS (
      SELECT artist_key(j.value) AS k, j.value AS spelling,
        row_number() OVER (PARTITION BY artist_key(j.value) ORDER BY count(*) DESC, j.value) AS r
      FROM songs s, json_each(s.artists) j
      WHERE artist_key(j.value) IN (SELECT k FROM totals)
      GROUP BY 1, 2
    )
    SELECT sp.spelling AS artist, t.times, t.songs, count(*) OVER () AS total
    FROM spellings sp JOIN totals t ON t.k = sp.k
    WHERE sp.r = 1
    ORDER BY t.times DESC, artist
    LIMIT @limit OFFSET @offset`,
} as const;

export type AnalyticsStatementName = keyof typeof ANALYTICS_SQL;
