import type Database from 'better-sqlite3';
import { SONG_PAIR_TOTALS_FILL, SONG_PAIRS_FILL, SONG_USAGE_FILL } from './analytics-schema';
import { fillTimelineCounts } from './timeline-schema';

/**
 * The triggers that keep the derived analytics tables (song_usage, song_pairs and their totals,
 * timeline_periods' counts) in step with each link and service. The copies on performed_in (date, type, setlist
 * ends), the guards and the search and row-count triggers are not among them: they stay on.
 */
const DERIVED_TRIGGERS = [
  'performed_in_copied_in',
  'performed_in_copied_out',
  'performed_in_paired_in',
  'performed_in_paired_out',
  'performed_in_ends',
  'song_pairs_total_in',
  'song_pairs_total_changed',
  'song_pairs_total_out',
  'timeline_link_copied_in',
  'timeline_link_copied_out',
  'timeline_link_deleted',
  'timeline_service_inserted',
  'timeline_service_deleted',
  'timeline_service_changed',
];

/**
 * Run `write` (a bulk load, inside the caller's transaction) with the derived tables' triggers
 * off, then recompute those tables in a few set-wide statements and put the triggers back exactly
 * as they were (their text is read from sqlite_master). Kept per link, the derived tables cost
 * about 0.1 ms a link (a snapshot of a million links: minutes); recomputed, seconds.
 *
 * SQLite's schema changes are transactional: other connections never see the triggers gone (they
 * read the last commit, and cannot write while this transaction holds the write lock), and a
 * failure rolls the triggers back with the data.
 */
export function withDerivedRebuilt<T>(db: Database.Database, write: () => T): T {
  if (!db.inTransaction) throw new Error('withDerivedRebuilt must run inside a write transaction');
  const ddl = db
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(DERIVED_TRIGGERS)) as { name: string; sql: string }[];
  if (ddl.length !== DERIVED_TRIGGERS.length) {
    const missing = DERIVED_TRIGGERS.filter((n) => !ddl.some((d) => d.name === n));
    throw new Error(`derived-table triggers missing from the schema: ${missing.join(', ')}`);
  }
  for (const { name } of ddl) db.exec(`DROP TRIGGER ${name}`);
  const result = write();
  db.exec(SONG_USAGE_FILL);
  db.exec(SONG_PAIRS_FILL);
  db.exec(SONG_PAIR_TOTALS_FILL);
  fillTimelineCounts(db);
  for (const { sql } of ddl) db.exec(sql);
  return result;
}
