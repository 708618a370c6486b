import { MASKS, PERIOD_TYPES } from './periods';
import type { Statement } from './statements';

/**
 * The statements of the maintained timeline periods (./periods.ts; part of CYPHER, see the
 * "Timeline periods" paragraph of ./statements.ts).
 *
 * (:Period {key, kind, start, end, sunAmServices, sunPmServices, wedServices, sunAmLinks,
 * sunPmLinks, wedLinks, songs1..songs7}): per type the services dated in [start, end] and their
 * links; songsM the distinct songs with a link there to a service of a type in mask M (bit 0
 * SUN_AM, bit 1 SUN_PM, bit 2 WED). (:TimelineZone {name: 'timeline', zone}): the zone the
 * periods are kept in; no zone while they are (re)built, when the timeline reads links.
 */

const SERVICES = PERIOD_TYPES.map((t) => `${t.prefix}Services`);
const LINKS = PERIOD_TYPES.map((t) => `${t.prefix}Links`);
const SONGS = MASKS.map((m) => `songs${m}`);
/** The count properties of a Period. */
export const PERIOD_COUNTS = [...SERVICES, ...LINKS, ...SONGS];
export const PERIOD_PROPERTIES = ['kind', 'start', 'end', 'zone', ...PERIOD_COUNTS];

/** Lock the bound Period `p` before reading what it counts (as REFRESH_USAGE does for a song). */
const LOCK_PERIOD = `SET p._lock = true
REMOVE p._lock`;

const MERGE_PERIOD = `MERGE (p:Period {key: row.key})
  ON CREATE SET p.kind = row.kind, p.start = row.start, p.end = row.end, ${PERIOD_COUNTS.map((c) => `p.${c} = 0`).join(', ')}`;

/** Whether bit `bit` is set in integer `x` (Cypher has no bitwise operators). */
const hasBit = (x: string, bit: number) => `${x} / ${bit} % 2 = 1`;
/** Whether a song is in mask `m` given its other services' types (`others`) and `bits`. */
const meets = (m: number, bits: string) =>
  `(${PERIOD_TYPES.filter((t) => m & t.bit)
    .map((t) => `'${t.type}' IN others OR ${hasBit(bits, t.bit)}`)
    .join(' OR ')})`;

/**
 * A period holding at most this many links per song of a write's row is read from its services
 * (a week: a few services, a handful of links each) rather than sought per song and type (up to
 * three index seeks per song), which costs more than reading a link.
 */
const SCAN_LINKS_PER_SONG = 3;

/** The service types with their bits, as a Cypher list. */
const TYPE_BITS = `[${PERIOD_TYPES.map((t) => `{type: '${t.type}', bit: ${t.bit}}`).join(', ')}]`;

/**
 * Of the types in `types` (a Cypher list), those the song has a link of in the period to a service
 * other than the write's: per type a seek of performed_in_song_type (the song, the type, the
 * period's dates) that stops at the first such link.
 */
const otherTypes = (types: string, column: string) => `UNWIND ${types} AS type
    CALL (row, songId, type) {
      OPTIONAL MATCH ()-[q:PERFORMED_IN]->()
      USING INDEX SEEK q:PERFORMED_IN(songId, serviceType, date)
      WHERE q.songId = songId AND q.serviceType = type AND q.date >= row.start AND q.date <= row.end
        AND NOT q.serviceId IN $serviceIds
      WITH q
      LIMIT 1
      RETURN q IS NOT NULL AS seen
    }
    WITH type WHERE seen
    RETURN collect(type) AS ${column}`;

/**
 * A database with no zone record has had no period written since it was emptied (the migration
 * makes one, zone-less, and so does the first period write, in its zone): the timeline trusts
 * its (absent) periods in any zone. Read without a lock; created at most once (the constraint
 * on its name serialises two first writes).
 */
const RECORD_ZONE = `CALL () {
  OPTIONAL MATCH (z:TimelineZone {name: 'timeline'})
  WITH z
  WHERE z IS NULL
  MERGE (created:TimelineZone {name: 'timeline'})
    ON CREATE SET created.zone = $zone
}`;

const PERIOD_ROW = { key: 'STRING', kind: 'STRING', start: 'INTEGER', end: 'INTEGER' } as const;

export const PERIOD_STATEMENTS = {
  /**
   * Apply a write's period deltas (./periods.ts periodDeltas); `rows` sorted by key, so the
   * Period locks (the MERGE, then the SET) are taken in one order. Per song of a row, `others`
   * are the types of its links in the period to services other than `$serviceIds` (the write's
   * own services, whose links the write has changed and whose before and after the row carries).
   * Those links are the same before and after the write, so the counts read here are not the ones
   * being changed. Sought per type (otherTypes: a seek that stops at the first such link, however
   * often the song was sung there), the types the write changed for the song first: a count of
   * songs of mask M moves only when the song's bits in M went from none to some or back, so M holds
   * a changed type, and when the song has other links of every changed type nothing moves and the
   * other types are not sought (a song sung every week: one seek per period, not three). A small
   * period (SCAN_LINKS_PER_SONG, by the links it counted before the write) is read from its other
   * services instead, once for the row. The count of periods moved.
   */
  movePeriods: {
    params: {
      zone: 'STRING',
      serviceIds: 'LIST<INTEGER>',
      rows: {
        rows: {
          ...PERIOD_ROW,
          ...Object.fromEntries([...SERVICES, ...LINKS].map((c) => [c, 'INTEGER' as const])),
          songIds: 'LIST<INTEGER>',
          beforeBits: 'LIST<INTEGER>',
          afterBits: 'LIST<INTEGER>',
        },
      },
    },
    cypher: `
${RECORD_ZONE}
UNWIND $rows AS row
${MERGE_PERIOD}
${LOCK_PERIOD}
WITH p, row, ${LINKS.map((c) => `p.${c}`).join(' + ')} <= ${SCAN_LINKS_PER_SONG} * size(row.songIds) AS small
// A small period (a week): the links of its other services, read from them, once for all its songs.
CALL (row, small) {
  // No row to seek from unless small (a WHERE small here was checked after the seek).
  UNWIND CASE WHEN small THEN [row] ELSE [] END AS period
  MATCH (v:Service)
  WHERE v.date >= period.start AND v.date <= period.end AND NOT v.id IN $serviceIds
  MATCH (:Song)-[r:PERFORMED_IN]->(v)
  WHERE r.songId IN period.songIds
  RETURN collect([r.songId, r.serviceType]) AS linked
}
CALL (row, small, linked) {
  UNWIND range(0, size(row.songIds) - 1) AS k
  WITH row, small, linked, row.songIds[k] AS songId, row.beforeBits[k] AS before, row.afterBits[k] AS after
  WITH row, small, linked, songId, before, after,
       [t IN ${TYPE_BITS} WHERE before / t.bit % 2 <> after / t.bit % 2 | t.type] AS changed,
       [t IN ${TYPE_BITS} WHERE before / t.bit % 2 = after / t.bit % 2 | t.type] AS unchanged
  CALL (row, songId, small, changed) {
    ${otherTypes('CASE WHEN small THEN [] ELSE changed END', 'found')}
  }
  // Other links of every type the write changed: no count of songs moves, whatever the others.
  CALL (row, songId, small, changed, unchanged, found) {
    ${otherTypes('CASE WHEN small OR size(found) = size(changed) THEN [] ELSE unchanged END', 'more')}
  }
  WITH row, songId, before, after,
       CASE WHEN small THEN [x IN linked WHERE x[0] = songId | x[1]] ELSE found + more END AS others
  RETURN ${MASKS.map(
    (m) => `sum(CASE WHEN ${meets(m, 'after')} THEN 1 ELSE 0 END) - sum(CASE WHEN ${meets(m, 'before')} THEN 1 ELSE 0 END) AS d${m}`,
  ).join(',\n    ')}
}
SET ${[...SERVICES, ...LINKS].map((c) => `p.${c} = p.${c} + row.${c}`).join(', ')},
    ${MASKS.map((m) => `p.songs${m} = p.songs${m} + d${m}`).join(', ')}
RETURN count(p) AS moved`,
  },
  /**
   * Recompute periods from scratch (creating those missing), locked before they are read:
   * services per type through the service_date index, links per type and distinct songs per
   * mask through performed_in_date. Serves the snapshot import and the rebuild (./timeline.ts).
   */
  recomputePeriods: {
    params: { zone: 'STRING', rows: { rows: PERIOD_ROW } },
    cypher: `
${RECORD_ZONE}
UNWIND $rows AS row
${MERGE_PERIOD}
${LOCK_PERIOD}
WITH p
CALL (p) {
  OPTIONAL MATCH (v:Service)
  WHERE v.date >= p.start AND v.date <= p.end
  RETURN ${PERIOD_TYPES.map((t) => `sum(CASE WHEN v.serviceType = '${t.type}' THEN 1 ELSE 0 END) AS ${t.prefix}Services`).join(', ')}
}
CALL (p) {
  OPTIONAL MATCH ()-[r:PERFORMED_IN]->()
  WHERE r.date >= p.start AND r.date <= p.end
  WITH r.songId AS songId, ${PERIOD_TYPES.map((t) => `sum(CASE WHEN r.serviceType = '${t.type}' THEN 1 ELSE 0 END) AS ${t.prefix}`).join(', ')}
  RETURN ${PERIOD_TYPES.map((t) => `sum(${t.prefix}) AS ${t.prefix}Links`).join(', ')},
    ${MASKS.map(
      (m) =>
        `sum(CASE WHEN ${PERIOD_TYPES.filter((t) => m & t.bit)
          .map((t) => `${t.prefix} > 0`)
          .join(' OR ')} THEN 1 ELSE 0 END) AS songs${m}`,
    ).join(',\n    ')}
}
SET ${PERIOD_COUNTS.map((c) => `p.${c} = ${c}`).join(', ')}
RETURN count(p) AS recomputed`,
  },
  /** Create the periods missing (zeros; recomputed later by the rebuild); existing ones are untouched. */
  ensurePeriods: {
    params: { rows: { rows: PERIOD_ROW } },
    cypher: `
UNWIND $rows AS row
${MERGE_PERIOD}
RETURN count(p) AS ensured`,
  },
  /** Service dates after $after, ascending, through the service_date index (the rebuild's walk). */
  serviceDatesAfter: {
    params: { after: 'INTEGER', limit: 'INTEGER' },
    cypher: `
MATCH (v:Service)
WHERE v.date > $after
RETURN v.date AS date
ORDER BY date
LIMIT $limit`,
  },
  /** Periods after key $after, in key order (the period_key index). */
  periodsAfter: {
    params: { after: 'STRING', limit: 'INTEGER' },
    cypher: `
MATCH (p:Period)
WHERE p.key > $after
RETURN p.key AS key, p.kind AS kind, p.start AS start, p.end AS end
ORDER BY key
LIMIT $limit`,
  },
  deletePeriods: {
    params: { keys: 'LIST<STRING>' },
    cypher: `
UNWIND $keys AS key
MATCH (p:Period {key: key})
DELETE p
RETURN count(*) AS deleted`,
  },
  /** The zone the periods are kept in: null while (re)built; no row's zone when never recorded. */
  timelineZone: {
    params: {},
    cypher: `
OPTIONAL MATCH (z:TimelineZone {name: 'timeline'})
RETURN z IS NOT NULL AS recorded, z.zone AS zone`,
  },
  setTimelineZone: {
    params: { zone: 'STRING?' },
    cypher: `
MERGE (z:TimelineZone {name: 'timeline'})
SET z.zone = $zone
RETURN count(z) AS recorded`,
  },
} as const satisfies Record<string, Statement>;



