import type { Statement } from './statements';

/**
 * The statements of the Neo4j write path that keeps up (./setlists.ts, ./aggregates.ts): each one
 * declared once, its parameters beside its text, part of STATEMENTS (./statements.ts).
 *
 * A write reads what it changes in one round trip (lockSetlists, under the services' locks), works
 * out every change in TypeScript, then sends them all at once (./pipeline.ts): the song locks,
 * the links, then the maintained aggregates moved by deltas in the lock order of ./lock-order.ts.
 * Nothing here reads a song's, an artist's or a period's whole history.
 */

/** The service types a Song keeps usage for, with the camelCase prefix of their properties. */
export const TYPE_PREFIXES = [
  ['SUN_AM', 'sunAm'],
  ['SUN_PM', 'sunPm'],
  ['WED', 'wed'],
] as const;
const PREFIXES = TYPE_PREFIXES.map(([, p]) => p);

/** The masks of sets of types an artist counts its songs for (bit i: TYPE_PREFIXES[i]). */
const MASKS = [1, 2, 3, 4, 5, 6, 7] as const;

/** The per-type fields of a moveUsage row (see usageDeltas in ./usage.ts). */
export const USAGE_ROW_FIELDS = ['Times', 'Openers', 'Closers', 'AddedFirst', 'AddedLast', 'RemovedFirst', 'RemovedLast'] as const;

/**
 * The first (last) date of the bound song's links of type `type` after this write, in the
 * variable `<prefix><End>`: the stored one moved by the dates the write added, unless the write
 * removed a link dated at or before it (at or after it), when it is sought again: one seek of
 * performed_in_song_type (song id, type, date) in index order, stopping at the first link. When
 * it is not, the seek is for song id -1, which no link has: the planner places a plain filter on
 * the flag above the seek, and a seek filtered to nothing would read every link of the song.
 * The hint keeps the seek whatever the statistics said when the plan was made (a plan made on an
 * empty graph scanned every link, and the plan cache kept it as the graph grew).
 */
function endAfterWrite(type: string, prefix: string, end: 'First' | 'Last'): string {
  const [cmp, order, better] = end === 'First' ? ['<=', '', '<'] : ['>=', ' DESC', '>'];
  const stored = `s.${prefix}${end}`;
  const added = `row.${prefix}Added${end}`;
  const seek = `seek${prefix}${end}`;
  return `WITH *, coalesce(row.${prefix}Removed${end} ${cmp} ${stored}, false) AS ${seek}
CALL (s, ${seek}) {
  CALL (s, ${seek}) {
    MATCH ()-[r:PERFORMED_IN]->()
    USING INDEX SEEK r:PERFORMED_IN(songId, serviceType, date)
    WHERE r.songId = CASE WHEN ${seek} THEN s.id ELSE -1 END AND r.serviceType = '${type}' AND r.date IS NOT NULL
    WITH r
    ORDER BY r.songId${order}, r.serviceType${order}, r.date${order}
    LIMIT 1
    RETURN r.date AS found
  }
  RETURN collect(found) AS sought${prefix}${end}
}
WITH *, CASE
    WHEN ${seek} THEN sought${prefix}${end}[0]
    WHEN ${added} IS NULL THEN ${stored}
    WHEN ${stored} IS NULL OR ${added} ${better} ${stored} THEN ${added}
    ELSE ${stored}
  END AS ${prefix}${end}`;
}

const bitOf = (i: number) => 1 << i;
/** Cypher: the bits of the types in which a song with these per-type times was sung. */
const bitsOf = (times: (prefix: string) => string) =>
  PREFIXES.map((p, i) => `CASE WHEN ${times(p)} > 0 THEN ${bitOf(i)} ELSE 0 END`).join(' + ');
/** Cypher: whether bits `x` meet mask `m` (Cypher has no bitwise operators). */
const meets = (x: string, m: number) =>
  `(${PREFIXES.map((_, i) => (m & bitOf(i) ? `${x} / ${bitOf(i)} % 2 = 1` : null))
    .filter(Boolean)
    .join(' OR ')})`;

/** Cypher: the key `artistKey` (src/domain/artists.ts) gives an entry, as the artists report folds it. */
export const FOLD = (x: string) => `normalize(toLower(toUpper(trim(normalize(${x}, NFC)))), NFC)`;

/**
 * Move the spelling counts of the bound song `s`'s artists by `sign` (1: its entries count, -1:
 * they stop counting): each Artist keeps `spellings` and `spellingUses`, the entries of its songs
 * that fold to its key and how many times each is used (none at zero), and `spelling`, the most
 * used (ties by spelling), worked out from those few. A unit subquery: the artists (the song's BY
 * edges) locked in key order, none of their other songs read.
 */
export const SPELLINGS = (sign: string) => `CALL (s) {
  MATCH (s)-[:BY]->(a:Artist)
  UNWIND s.artists AS entry
  WITH a, entry, ${sign} AS sign
  WHERE ${FOLD('entry')} = a.key
  WITH a, entry, sum(sign) AS uses
  ORDER BY a.key
  WITH a, collect([entry, uses]) AS changes
  SET a._lock = true
  REMOVE a._lock
  WITH a, reduce(acc = [coalesce(a.spellings, []), coalesce(a.spellingUses, [])], c IN changes |
    CASE WHEN c[0] IN acc[0]
      THEN [acc[0], [i IN range(0, size(acc[0]) - 1) | acc[1][i] + CASE WHEN acc[0][i] = c[0] THEN c[1] ELSE 0 END]]
      ELSE [acc[0] + [c[0]], acc[1] + [c[1]]]
    END) AS merged
  WITH a, merged, [i IN range(0, size(merged[0]) - 1) WHERE merged[1][i] > 0] AS kept
  SET a.spellings = [i IN kept | merged[0][i]], a.spellingUses = [i IN kept | merged[1][i]]
  WITH a
  CALL (a) {
    UNWIND range(0, size(a.spellings) - 1) AS i
    WITH a.spellings[i] AS spelling, a.spellingUses[i] AS uses
    ORDER BY uses DESC, spelling
    RETURN collect(spelling)[0] AS best
  }
  SET a.spelling = best
}`;

/** A moveUsage row: a song and, per type prefix, its deltas and the extremes of the dates added and removed. */
const USAGE_ROW = {
  id: 'INTEGER',
  ...Object.fromEntries(
    PREFIXES.flatMap((p) =>
      USAGE_ROW_FIELDS.map((f) => [`${p}${f}`, f === 'Times' || f === 'Openers' || f === 'Closers' ? 'INTEGER' : 'INTEGER?'] as const),
    ),
  ),
} as Record<string, 'INTEGER' | 'INTEGER?'>;

/** The first (last) date after the write when no link was removed: the stored one moved by the dates added. */
function endAdded(prefix: string, end: 'First' | 'Last'): string {
  const better = end === 'First' ? '<' : '>';
  const [stored, added] = [`s.${prefix}${end}`, `row.${prefix}Added${end}`];
  return `WITH *, CASE WHEN ${added} IS NULL THEN ${stored} WHEN ${stored} IS NULL OR ${added} ${better} ${stored} THEN ${added} ELSE ${stored} END AS ${prefix}${end}`;
}

/**
 * Move the maintained usage of songs (./statements.ts header) by what a write changed
 * (./usage.ts usageDeltas): per type, times, openers and closers by their deltas; first and last
 * sung from the dates added, or (`reseek`) sought again in index order when the write removed the
 * link holding them. The all-types `usage*` properties follow from the per-type ones. The caller
 * holds every row's song lock. The count of songs moved.
 */
const moveUsageCypher = (reseek: boolean) => `
UNWIND $rows AS row
MATCH (s:Song {id: row.id})
${TYPE_PREFIXES.flatMap(([type, p]) =>
  reseek ? [endAfterWrite(type, p, 'First'), endAfterWrite(type, p, 'Last')] : [endAdded(p, 'First'), endAdded(p, 'Last')],
).join('\n')}
SET ${PREFIXES.map(
  (p) => `s.${p}Times = s.${p}Times + row.${p}Times, s.${p}Openers = s.${p}Openers + row.${p}Openers,
    s.${p}Closers = s.${p}Closers + row.${p}Closers, s.${p}First = ${p}First, s.${p}Last = ${p}Last`,
).join(',\n    ')}
WITH s
CALL (s) {
  UNWIND [${PREFIXES.map((p) => `[s.${p}First, s.${p}Last]`).join(', ')}] AS ends
  RETURN min(ends[0]) AS first, max(ends[1]) AS last
}
SET s.usageTimes = ${PREFIXES.map((p) => `s.${p}Times`).join(' + ')},
    s.usageOpeners = ${PREFIXES.map((p) => `s.${p}Openers`).join(' + ')},
    s.usageClosers = ${PREFIXES.map((p) => `s.${p}Closers`).join(' + ')},
    s.usageFirst = first, s.usageLast = last
RETURN count(s) AS moved`;

export const WRITE_STATEMENTS = {
  /**
   * Write-lock services (ascending ids, so writers lock them in one order) and read what a
   * write changes: their date, type and setlist in order (song ids and positions). No row for an
   * id no service has. The first round trip of every setlist write.
   */
  lockSetlists: {
    params: { serviceIds: 'LIST<INTEGER>' },
    cypher: `
UNWIND $serviceIds AS serviceId
MATCH (v:Service {id: serviceId})
SET v._lock = true
REMOVE v._lock
// Deleted by the writer whose lock this one waited for: gone (it reads with no properties).
WITH v
WHERE v.id IS NOT NULL
CALL (v) {
  OPTIONAL MATCH (s:Song)-[r:PERFORMED_IN]->(v)
  WITH s, r
  ORDER BY r.position, r.seq
  RETURN collect(s.id) AS songIds, collect(r.position) AS positions
}
RETURN v.id AS id, v.date AS date, v.serviceType AS serviceType, songIds, positions
ORDER BY id`,
  },

  /**
   * Locked services' link changes, in one statement for all of them: the links of `$removed`
   * (service, song) deleted, `$placed` links moved to new positions, `$created` links made with
   * the seqs the store reserved for them (./link-seqs.ts: no lock every link write takes). Found
   * from the service (a handful of links), never from a song's. Counts of each.
   */
  writeLinks: {
    params: {
      removed: { rows: { serviceId: 'INTEGER', songId: 'INTEGER' } },
      placed: { rows: { serviceId: 'INTEGER', songId: 'INTEGER', position: 'INTEGER' } },
      created: { rows: { serviceId: 'INTEGER', songId: 'INTEGER', position: 'INTEGER', seq: 'INTEGER' } },
    },
    cypher: `
CALL () {
  UNWIND $removed AS row
  MATCH (:Song)-[r:PERFORMED_IN]->(:Service {id: row.serviceId})
  WHERE r.songId = row.songId
  DELETE r
  RETURN count(*) AS removed
}
CALL () {
  UNWIND $placed AS row
  MATCH (:Song)-[r:PERFORMED_IN]->(:Service {id: row.serviceId})
  WHERE r.songId = row.songId
  SET r.position = row.position
  RETURN count(*) AS placed
}
CALL () {
  UNWIND $created AS row
  MATCH (v:Service {id: row.serviceId})
  MATCH (s:Song {id: row.songId})
  CREATE (s)-[r:PERFORMED_IN {position: row.position, seq: row.seq, date: v.date, serviceType: v.serviceType,
                              songId: s.id, serviceId: v.id}]->(v)
  RETURN count(*) AS created
}
RETURN removed, placed, created`,
  },

  /** moveUsageCypher, for rows whose write removed a date: an end it removed is sought again. */
  moveUsage: {
    params: { rows: { rows: USAGE_ROW } },
    cypher: moveUsageCypher(true),
  },

  /**
   * moveUsage for rows that removed no date (a link added, an import into new services): first and
   * last only move by the dates added, so no end is sought. Kept apart because even a seek that
   * finds nothing costs, in a transaction that wrote many links, a merge of its uncommitted index
   * changes (an import part: 100,000 of them per seek).
   */
  moveUsageAdded: {
    params: { rows: { rows: USAGE_ROW } },
    cypher: moveUsageCypher(false),
  },

  /**
   * Move the maintained totals of the artists of songs (./statements.ts header), after their
   * usage moved (moveUsage): per song `times` deltas per type, and whether its usage counted for
   * its artists before the write (`was`) and after it (`is`): a song joining artists (created
   * with links, given new artists) counts in, one leaving them (deleted, its artists changed)
   * counts out, one whose setlists changed moves by its deltas. Its types sung before are worked
   * out from its usage now less the deltas. Artists in key order: the SET after the sort locks
   * them one by one in that order (./lock-order.ts). Nothing reads an artist's other songs.
   */
  moveArtists: {
    params: {
      rows: { rows: { id: 'INTEGER', sunAm: 'INTEGER', sunPm: 'INTEGER', wed: 'INTEGER', was: 'BOOLEAN', is: 'BOOLEAN' } },
    },
    cypher: `
UNWIND $rows AS row
// A seek of the song's id: a plan made once the graph had grown (the second part of a large
// import) scanned the whole song id index for each row instead.
MATCH (s:Song {id: row.id})-[:BY]->(a:Artist)
USING INDEX SEEK s:Song(id)
WITH a, ${PREFIXES.map((p) => `CASE WHEN row.was THEN s.${p}Times - row.${p} ELSE 0 END AS ${p}Before`).join(', ')},
     ${PREFIXES.map((p) => `CASE WHEN row.is THEN s.${p}Times ELSE 0 END AS ${p}After`).join(', ')}
WITH a, ${PREFIXES.map((p) => `${p}Before, ${p}After`).join(', ')},
     ${bitsOf((p) => `${p}Before`)} AS before,
     ${bitsOf((p) => `${p}After`)} AS after
WITH a, ${PREFIXES.map((p) => `sum(${p}After - ${p}Before) AS ${p}`).join(', ')},
     ${MASKS.map((m) => `sum(CASE WHEN ${meets('after', m)} THEN 1 ELSE 0 END) - sum(CASE WHEN ${meets('before', m)} THEN 1 ELSE 0 END) AS d${m}`).join(',\n     ')}
ORDER BY a.key
SET a._lock = true
REMOVE a._lock
SET ${PREFIXES.map((p) => `a.${p}Times = a.${p}Times + ${p}`).join(', ')},
    a.usageTimes = a.usageTimes + ${PREFIXES.join(' + ')},
    ${MASKS.map((m) => `a.songs${m} = a.songs${m} + d${m}`).join(', ')}
RETURN count(a) AS moved`,
  },

  /**
   * Songs joining (`sign` 1) or leaving (-1) the spelling counts of their artists (SPELLINGS
   * above): a song leaves before its artists or entries change or it goes, and joins
   * after. Every row's song locked by the caller. The count of songs.
   */
  moveSpellings: {
    params: { rows: { rows: { id: 'INTEGER', sign: 'INTEGER' } } },
    cypher: `
UNWIND $rows AS row
MATCH (s:Song {id: row.id})
${SPELLINGS('row.sign').replace('CALL (s) {', 'CALL (s, row) {')}
RETURN count(s) AS moved`,
  },

  /**
   * Reserve `$count` link seqs: the PERFORMED_IN sequence moved in a transaction of its own, so
   * its lock is held for this one statement, never by a writer (./link-seqs.ts). The new value:
   * the seqs reserved are the `$count` up to it.
   */
  reserveLinkSeqs: {
    params: { count: 'INTEGER' },
    cypher: `
MERGE (q:Sequence {name: 'PERFORMED_IN'})
  ON CREATE SET q.value = 0
SET q.value = q.value + $count
RETURN q.value AS high`,
  },
} as const satisfies Record<string, Statement>;

