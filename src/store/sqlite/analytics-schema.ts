/**
 * Analytics must not scan and join: each performed_in row carries its service's date and type
 * and whether it opens or closes its setlist, so a window reads one covering index; and
 * song_usage_totals keeps each (song, service type)'s all-time count, first and last date and
 * opener/closer counts, so all-time analytics read one small table.
 *
 * Triggers keep those copies true, not the store's write code: every path that changes a
 * setlist or a service (the store's writes, cascading deletes, importSnapshot, a second process
 * on the same file) goes through them, inside the writing statement's own transaction, so the
 * copies can never be seen out of step with the rows they copy.
 */
const refreshEnds = (service: string) => `
    UPDATE performed_in SET
      is_opener = (id = (SELECT e.id FROM performed_in e WHERE e.service_id = ${service}
                         ORDER BY e.position, e.id LIMIT 1)),
      is_closer = (id = (SELECT e.id FROM performed_in e WHERE e.service_id = ${service}
                         ORDER BY e.position DESC, e.id DESC LIMIT 1))
    WHERE service_id = ${service};`;

/** Re-read first and last date of one (song, type) by two index seeks; drop the row once empty. */
const refreshBounds = (row: string) => `
    UPDATE song_usage_totals SET
      first = (SELECT min(service_date) FROM performed_in
               WHERE song_id = ${row}.song_id AND service_type = ${row}.service_type),
      last = (SELECT max(service_date) FROM performed_in
              WHERE song_id = ${row}.song_id AND service_type = ${row}.service_type)
    WHERE song_id = ${row}.song_id AND service_type = ${row}.service_type;
    DELETE FROM song_usage_totals
    WHERE song_id = ${row}.song_id AND service_type = ${row}.service_type AND times = 0;`;

/** Take link `row` out of its (song, type) totals. */
const leaveTotals = (row: string) => `
    UPDATE song_usage_totals SET
      times = times - 1, openers = openers - ${row}.is_opener, closers = closers - ${row}.is_closer
    WHERE song_id = ${row}.song_id AND service_type = ${row}.service_type;`;

export const ANALYTICS_MIGRATION = `
  ALTER TABLE performed_in ADD COLUMN service_date INTEGER;
  ALTER TABLE performed_in ADD COLUMN service_type TEXT;
  -- 1 when first (last) in setlist order: lowest (highest) position, then link order.
  ALTER TABLE performed_in ADD COLUMN is_opener INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE performed_in ADD COLUMN is_closer INTEGER NOT NULL DEFAULT 0;

  UPDATE performed_in SET (service_date, service_type) =
    (SELECT v.date, v.service_type FROM services v WHERE v.id = performed_in.service_id);
  UPDATE performed_in SET
    is_opener = (id = (SELECT e.id FROM performed_in e WHERE e.service_id = performed_in.service_id
                       ORDER BY e.position, e.id LIMIT 1)),
    is_closer = (id = (SELECT e.id FROM performed_in e WHERE e.service_id = performed_in.service_id
                       ORDER BY e.position DESC, e.id DESC LIMIT 1));

  CREATE TABLE song_usage_totals (
    song_id      INTEGER NOT NULL,
    service_type TEXT NOT NULL,
    times        INTEGER NOT NULL,
    first        INTEGER,
    last         INTEGER,
    openers      INTEGER NOT NULL,
    closers      INTEGER NOT NULL,
    PRIMARY KEY (song_id, service_type)
  ) WITHOUT ROWID;
  INSERT INTO song_usage_totals
  SELECT song_id, service_type, count(*), min(service_date), max(service_date), sum(is_opener), sum(is_closer)
  FROM performed_in GROUP BY song_id, service_type;

  -- The copy below fires performed_in_copied, which counts the new link in.
  CREATE TRIGGER performed_in_inserted AFTER INSERT ON performed_in BEGIN
    UPDATE performed_in SET (service_date, service_type) =
      (SELECT v.date, v.service_type FROM services v WHERE v.id = NEW.service_id)
    WHERE id = NEW.id;
    ${refreshEnds('NEW.service_id')}
  END;
  CREATE TRIGGER performed_in_moved AFTER UPDATE OF position, id ON performed_in BEGIN
    ${refreshEnds('NEW.service_id')}
  END;
  CREATE TRIGGER performed_in_deleted AFTER DELETE ON performed_in BEGIN
    ${leaveTotals('OLD')}
    ${refreshBounds('OLD')}
    ${refreshEnds('OLD.service_id')}
  END;
  -- A link's service date or type set (on insert) or changed (with its service): move it between
  -- totals. On insert OLD's type is NULL, which matches no row.
  CREATE TRIGGER performed_in_copied AFTER UPDATE OF service_date, service_type ON performed_in BEGIN
    ${leaveTotals('OLD')}
    INSERT INTO song_usage_totals (song_id, service_type, times, openers, closers)
    VALUES (NEW.song_id, NEW.service_type, 1, NEW.is_opener, NEW.is_closer)
    ON CONFLICT (song_id, service_type) DO UPDATE SET
      times = times + 1, openers = openers + excluded.openers, closers = closers + excluded.closers;
    ${refreshBounds('OLD')}
    ${refreshBounds('NEW')}
  END;
  CREATE TRIGGER performed_in_ends AFTER UPDATE OF is_opener, is_closer ON performed_in
  WHEN NEW.service_type IS NOT NULL BEGIN
    UPDATE song_usage_totals SET
      openers = openers + NEW.is_opener - OLD.is_opener, closers = closers + NEW.is_closer - OLD.is_closer
    WHERE song_id = NEW.song_id AND service_type = NEW.service_type;
  END;
  CREATE TRIGGER services_changed AFTER UPDATE OF date, service_type ON services BEGIN
    UPDATE performed_in SET service_date = NEW.date, service_type = NEW.service_type
    WHERE service_id = NEW.id;
  END;

  -- One song's performances (Song.usage, songsSungWith), and the totals' first/last seeks.
  CREATE INDEX performed_in_song_usage
    ON performed_in(song_id, service_type, service_date, is_opener, is_closer, service_id);
  -- Window-bounded analytics read only the window's range of this one.
  CREATE INDEX performed_in_date_usage
    ON performed_in(service_date, service_type, song_id, is_opener, is_closer, service_id);
`;
