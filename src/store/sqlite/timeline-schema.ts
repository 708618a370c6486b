import type Database from 'better-sqlite3';
import { Info } from 'luxon';
import { bucketsBetween } from '../../domain/analytics/buckets';
import type { TimelineBucket } from '../../generated/graphql';
import { perType, USAGE_TYPES } from './analytics-schema';

/**
 * Maintained timeline counts: one `timeline_periods` row per calendar period (ISO week, month,
 * quarter, year in SERVICE_TIME_ZONE) that holds a service, with per service type its services and
 * performances, and for each non-empty set of service types (mask: 1 SUN_AM, 2 SUN_PM, 4 WED) the
 * distinct songs sung there in a service of those types. A timeline bucket that is exactly one of
 * these periods is one primary-key read instead of every performance in it; so the all-time
 * timeline costs its number of buckets, not the history.
 *
 * Calendar periods need the time zone, which SQLite does not have: the store makes the periods of
 * a service's date (JavaScript, luxon) before it writes the service, and the triggers below find a
 * date's period in the table and keep the counts, in the writing statement's transaction like every
 * other analytics copy (./analytics-schema.ts). A service written with no period for its date is
 * refused (timeline_period_guard), so the counts cannot silently miss it. The table records its
 * zone; a store opened with another zone rebuilds it (openTimeline).
 *
 * Distinct songs cannot be added up across types or periods, so they are kept per mask and moved by
 * a link's song alone: when a link enters (leaves) a period, whether its song has other links
 * there is looked up per type (three seeks of performed_in_song_usage), and each mask's count
 * changes when the song was (is) there in that mask's types only through this link.
 */
export const PERIOD_KINDS: readonly TimelineBucket[] = ['WEEK', 'MONTH', 'QUARTER', 'YEAR'];

/** Masks 1..7 and the types each holds. */
const MASKS = [1, 2, 3, 4, 5, 6, 7].map((m) => ({ m, types: USAGE_TYPES.filter((_, i) => m & (1 << i)) }));

/** The start of the `kind` period holding `date` (NULL when there is none). */
const periodOf = (kind: string, date: string) => `(
      SELECT p.start FROM timeline_periods p WHERE p.kind = '${kind}' AND p.start <= ${date}
      ORDER BY p.start DESC LIMIT 1)`;

/** Count service `row` (a services row, OLD or NEW) in (+) or out (-) of its periods. */
const moveService = (row: string, sign: '+' | '-') =>
  PERIOD_KINDS.map(
    (kind) => `
    UPDATE timeline_periods SET
      ${perType((t, c) => `${c}_services = ${c}_services ${sign} (${row}.service_type IS '${t}')`)}
    WHERE kind = '${kind}' AND start = ${periodOf(kind, `${row}.date`)} AND end >= ${row}.date;`,
  ).join('');

/**
 * Count link `row` (a performed_in row, OLD or NEW, with its copied date and type) in (+) or out
 * (-) of its periods. `c.others` is the mask of types in which the song has OTHER links in the
 * period (EXISTS: one seek each, however often the song is sung); the song is there in mask m
 * with the link when others or the link's type meets m, without it when others does.
 */
const moveLink = (row: string, sign: '+' | '-') => {
  const bit = USAGE_TYPES.map(([t], i) => `(${row}.service_type IS '${t}') * ${1 << i}`).join(' + ');
  return PERIOD_KINDS.map(
    (kind) => `
    UPDATE timeline_periods AS tp SET
      ${perType((t, c) => `${c}_links = ${c}_links ${sign} (${row}.service_type IS '${t}')`)},
      ${MASKS.map(({ m }) => `songs_${m} = songs_${m} ${sign} (((c.others | (${bit})) & ${m} > 0) - (c.others & ${m} > 0))`).join(',\n      ')}
    FROM (
      SELECT p.start, ${USAGE_TYPES.map(
        ([t], i) => `EXISTS (SELECT 1 FROM performed_in q INDEXED BY performed_in_song_usage
          WHERE q.song_id = ${row}.song_id AND q.service_type = '${t}'
            AND q.service_date BETWEEN p.start AND p.end AND q.id <> ${row}.id) * ${1 << i}`,
      ).join(' | ')} AS others
      FROM timeline_periods p
      WHERE p.kind = '${kind}' AND p.start = ${periodOf(kind, `${row}.service_date`)} AND p.end >= ${row}.service_date
      -- LIMIT keeps the subquery from being flattened into the SET list, which would run its
      -- lookups once per mask instead of once.
      LIMIT 1
    ) AS c
    WHERE ${row}.service_type IS NOT NULL AND tp.kind = '${kind}' AND tp.start = c.start;`,
  ).join('');
};

/** Part of SQLite migration 5 (src/store/sqlite/migrations.ts): the tables and their triggers. */
export const TIMELINE_MIGRATION = `
  CREATE TABLE timeline_periods (
    kind  TEXT NOT NULL,
    start INTEGER NOT NULL,
    end   INTEGER NOT NULL,
    ${perType((_, c) => `${c}_services INTEGER NOT NULL DEFAULT 0, ${c}_links INTEGER NOT NULL DEFAULT 0`, ',\n    ')},
    ${MASKS.map(({ m }) => `songs_${m} INTEGER NOT NULL DEFAULT 0`).join(', ')},
    PRIMARY KEY (kind, start)
  ) WITHOUT ROWID;
  -- The zone the periods were made in (one row); see openTimeline.
  CREATE TABLE timeline_zone (zone TEXT NOT NULL);

  CREATE TRIGGER timeline_period_guard BEFORE INSERT ON services
  WHEN ${PERIOD_KINDS.map((k) => `coalesce((SELECT p.end FROM timeline_periods p WHERE p.kind = '${k}' AND p.start <= NEW.date ORDER BY p.start DESC LIMIT 1), NEW.date - 1) < NEW.date`).join(' OR ')}
  BEGIN
    SELECT RAISE(ABORT, 'no timeline period for the service date: open the database through the store');
  END;
  CREATE TRIGGER timeline_period_guard_update BEFORE UPDATE OF date ON services
  WHEN ${PERIOD_KINDS.map((k) => `coalesce((SELECT p.end FROM timeline_periods p WHERE p.kind = '${k}' AND p.start <= NEW.date ORDER BY p.start DESC LIMIT 1), NEW.date - 1) < NEW.date`).join(' OR ')}
  BEGIN
    SELECT RAISE(ABORT, 'no timeline period for the service date: open the database through the store');
  END;
  CREATE TRIGGER timeline_service_inserted AFTER INSERT ON services BEGIN
    ${moveService('NEW', '+')}
  END;
  CREATE TRIGGER timeline_service_deleted AFTER DELETE ON services BEGIN
    ${moveService('OLD', '-')}
  END;
  CREATE TRIGGER timeline_service_changed AFTER UPDATE OF date, service_type ON services BEGIN
    ${moveService('OLD', '-')}
    ${moveService('NEW', '+')}
  END;
  -- A link's copies set (on insert OLD's type is NULL: nothing to move out) or changed with its service.
  CREATE TRIGGER timeline_link_copied_out AFTER UPDATE OF service_date, service_type ON performed_in
  WHEN OLD.service_type IS NOT NULL BEGIN
    ${moveLink('OLD', '-')}
  END;
  CREATE TRIGGER timeline_link_copied_in AFTER UPDATE OF service_date, service_type ON performed_in BEGIN
    ${moveLink('NEW', '+')}
  END;
  CREATE TRIGGER timeline_link_deleted AFTER DELETE ON performed_in BEGIN
    ${moveLink('OLD', '-')}
  END;
`;

/** The periods holding `date`, one per kind, in `zone`. */
function periodsAt(date: number, zone: string) {
  return PERIOD_KINDS.map((kind) => ({ kind, ...bucketsBetween(date, date, kind, zone)[0] }));
}

/** The latest `kind` period starting by @date, if it reaches it: one seek, never a scan. */
const covering = (kind: string) => `(
    SELECT end FROM (SELECT end FROM timeline_periods WHERE kind = '${kind}' AND start <= @date ORDER BY start DESC LIMIT 1)
    WHERE end >= @date)`;

/**
 * Make sure the periods holding each date exist (before the services with those dates are
 * written). A date inside the span every kind's period of the previous one covers costs nothing;
 * otherwise four seeks, and calendars are computed only for a date with a period missing.
 */
export function ensurePeriods(db: Database.Database, zone: string, dates: Iterable<number>): void {
  const known = db.prepare(`SELECT ${PERIOD_KINDS.map((k) => `${covering(k)} IS NOT NULL`).join(' AND ')}`).pluck();
  const add = db.prepare('INSERT OR IGNORE INTO timeline_periods (kind, start, end) VALUES (?, ?, ?)');
  // The instants every kind's period of the last date checked covers (a week may span two months).
  let span: { start: number; end: number } | null = null;
  for (const date of dates) {
    if (span && date >= span.start && date <= span.end) continue;
    const periods = periodsAt(date, zone);
    if (!known.get({ date })) for (const p of periods) add.run(p.kind, p.start, p.end);
    span = { start: Math.max(...periods.map((p) => p.start)), end: Math.min(...periods.map((p) => p.end)) };
  }
}

/** Rebuild every period and count from the services and links, in `zone`. */
function rebuildTimeline(db: Database.Database, zone: string): void {
  db.exec('DELETE FROM timeline_periods; DELETE FROM timeline_zone;');
  // Pages: better-sqlite3 cannot write while a read is open on the connection.
  const page = db.prepare('SELECT DISTINCT date FROM services WHERE date > ? ORDER BY date LIMIT 20000').pluck();
  for (let after = Number.MIN_SAFE_INTEGER, got: number[]; (got = page.all(after) as number[]).length; ) {
    ensurePeriods(db, zone, got);
    after = got[got.length - 1];
  }
  fillTimelineCounts(db);
  db.prepare('INSERT INTO timeline_zone (zone) VALUES (?)').run(zone);
}

/** Every period's counts recomputed from the services and links (rebuilds, bulk imports). */
export function fillTimelineCounts(db: Database.Database): void {
  db.exec(`
    UPDATE timeline_periods SET (${perType((_, c) => `${c}_services`, ', ')}) = (
      SELECT ${perType((t) => `coalesce(sum(service_type = '${t}'), 0)`, ', ')}
      FROM services v WHERE v.date BETWEEN timeline_periods.start AND timeline_periods.end);
    UPDATE timeline_periods SET (${perType((_, c) => `${c}_links`, ', ')}) = (
      SELECT ${perType((t) => `coalesce(sum(service_type = '${t}'), 0)`, ', ')}
      FROM performed_in p INDEXED BY performed_in_date_usage
      WHERE p.service_date BETWEEN timeline_periods.start AND timeline_periods.end);
    UPDATE timeline_periods SET (${MASKS.map(({ m }) => `songs_${m}`).join(', ')}) = (
      SELECT ${MASKS.map(({ m }) => `coalesce(sum((mask & ${m}) > 0), 0)`).join(', ')}
      FROM (
        SELECT ${USAGE_TYPES.map(([t], i) => `max(service_type = '${t}') * ${1 << i}`).join(' | ')} AS mask
        FROM performed_in p INDEXED BY performed_in_date_usage
        WHERE p.service_date BETWEEN timeline_periods.start AND timeline_periods.end
        GROUP BY p.song_id
      ));
  `);
}

/**
 * On opening: the periods must be in `zone`. A new database, one migrated from before the timeline
 * counts, or one last opened with another SERVICE_TIME_ZONE is rebuilt (once, in one transaction).
 */
export function openTimeline(db: Database.Database, zone: string): void {
  if (!Info.isValidIANAZone(zone)) throw new Error(`SERVICE_TIME_ZONE ${JSON.stringify(zone)} is not an IANA time zone`);
  const current = () => db.prepare('SELECT zone FROM timeline_zone').pluck().get() as string | undefined;
  if (current() === zone) return;
  db.transaction(() => {
    if (current() !== zone) rebuildTimeline(db, zone);
  }).immediate();
}
