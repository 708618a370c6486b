/**
 * Analytics must not scan and join: each performed_in row carries its service's date and type
 * and whether it opens or closes its setlist, so every analytic reads one covering index.
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
    ${refreshEnds('OLD.service_id')}
  END;
  CREATE TRIGGER services_changed AFTER UPDATE OF date, service_type ON services BEGIN
    UPDATE performed_in SET service_date = NEW.date, service_type = NEW.service_type
    WHERE service_id = NEW.id;
  END;

  -- All-time analytics walk this one in song order (no sort, no join).
  CREATE INDEX performed_in_song_usage
    ON performed_in(song_id, service_type, service_date, is_opener, is_closer, service_id);
  -- Window-bounded analytics read only the window's range of this one.
  CREATE INDEX performed_in_date_usage
    ON performed_in(service_date, service_type, song_id, is_opener, is_closer, service_id);
`;
