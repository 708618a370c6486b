/**
 * The SQL of webhook endpoints and their deliveries (./webhooks.ts, docs/API.md Webhooks). A
 * delivery is one event for one endpoint, keyed by both; `due_at` is when it is tried next: NULL
 * once delivered or failed for good, and while its endpoint is disabled; the end of its lease
 * while a worker holds it (so that it is due again only if that worker never reports). The
 * worker's claim so reads only deliveries it may send, by an index, and stops at its batch.
 */
const WEBHOOK = `id, url, events, description, enabled, created_at, failing_since, disabled_reason`;
const DELIVERY = `d.webhook_id, d.event_seq, e.type, d.status, d.attempts, d.due_at, d.last_attempt_at, d.last_status, d.last_error`;
/** Does endpoint `w` ask for events of type `type`? */
const WANTS = (w: string, type: string) => `EXISTS (SELECT 1 FROM json_each(${w}.events) WHERE value = ${type})`;
/** A delivery queued (again): due now, its tries counted from nought, held by no one. */
const REQUEUE = `ON CONFLICT (webhook_id, event_seq) DO UPDATE SET
      status = 'PENDING', attempts = 0, due_at = excluded.due_at, lease_owner = NULL, lease_until = NULL`;

export const WEBHOOK_SQL = {
  /** With an event: a delivery for each enabled endpoint that asks for its type. */
  fanOutEvent: `
    INSERT INTO webhook_deliveries (webhook_id, event_seq, status, due_at)
    SELECT w.id, @seq, 'PENDING', @at FROM webhooks w WHERE w.enabled = 1 AND ${WANTS('w', '@type')}`,
  insertWebhook: `
    INSERT INTO webhooks (url, events, description, secret, created_at) VALUES (@url, @events, @description, @secret, @now)
    RETURNING ${WEBHOOK}`,
  listWebhooks: `SELECT ${WEBHOOK} FROM webhooks ORDER BY id`,
  webhookById: `SELECT ${WEBHOOK} FROM webhooks WHERE id = ?`,
  /** Enabling clears the failure record; disabling by hand leaves no reason. */
  updateWebhook: `
    UPDATE webhooks SET
      url = coalesce(@url, url), events = coalesce(@events, events),
      description = iif(@setDescription, @description, description),
      failing_since = iif(@enabled = 1, NULL, failing_since),
      disabled_reason = iif(@enabled IS NULL, disabled_reason, NULL),
      enabled = coalesce(@enabled, enabled)
    WHERE id = @id RETURNING ${WEBHOOK}`,
  deleteWebhook: 'DELETE FROM webhooks WHERE id = ?',
  rotateSecret: `
    UPDATE webhooks SET previous_secret = secret, previous_until = @previousUntil, secret = @secret
    WHERE id = @id RETURNING ${WEBHOOK}`,
  deliveriesOf: `
    SELECT ${DELIVERY} FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq
    WHERE d.webhook_id = @id ORDER BY d.event_seq DESC LIMIT @limit OFFSET @offset`,
  countDeliveries: 'SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ?',
  redeliverOne: `
    INSERT INTO webhook_deliveries (webhook_id, event_seq, status, due_at)
    SELECT w.id, e.seq, 'PENDING', iif(w.enabled = 1, @now, NULL) FROM webhooks w JOIN events e ON e.seq = @seq WHERE w.id = @id
    ${REQUEUE}`,
  redeliverSince: `
    INSERT INTO webhook_deliveries (webhook_id, event_seq, status, due_at)
    SELECT w.id, e.seq, 'PENDING', iif(w.enabled = 1, @now, NULL) FROM webhooks w JOIN events e ON e.seq > @since
    WHERE w.id = @id AND ${WANTS('w', 'e.type')}
    ORDER BY e.seq LIMIT @limit
    ${REQUEUE}`,
  /** The due deliveries of enabled endpoints no live lease holds, soonest first. */
  dueDeliveries: `
    SELECT ${DELIVERY}, e.at AS event_at, e.data AS event_data,
      w.secret, iif(w.previous_until > @now, w.previous_secret, NULL) AS previous_secret
    FROM webhook_deliveries d
    JOIN webhooks w ON w.id = d.webhook_id
    JOIN events e ON e.seq = d.event_seq
    WHERE d.due_at <= @now AND (d.lease_until IS NULL OR d.lease_until < @now) AND w.enabled = 1
    ORDER BY d.due_at LIMIT @limit`,
  leaseDelivery: 'UPDATE webhook_deliveries SET lease_owner = @owner, lease_until = @until, due_at = @until WHERE webhook_id = @id AND event_seq = @seq',
  /** An endpoint disabled: its pending deliveries wait, out of the due index; enabled: due now. */
  pauseDeliveries: "UPDATE webhook_deliveries SET due_at = NULL WHERE webhook_id = ? AND status = 'PENDING'",
  resumeDeliveries: "UPDATE webhook_deliveries SET due_at = coalesce(due_at, @now) WHERE webhook_id = @id AND status = 'PENDING'",
  finishDelivery: `
    UPDATE webhook_deliveries SET
      status = @status, attempts = attempts + 1, due_at = @nextAt, lease_owner = NULL, lease_until = NULL,
      last_attempt_at = @at, last_status = @code, last_error = @error
    WHERE webhook_id = @id AND event_seq = @seq AND lease_owner = @owner`,
  /** A success clears the failure record; a failure starts it, and disables an endpoint failing since before @before. */
  recordOutcome: `
    UPDATE webhooks SET
      failing_since = iif(@delivered, NULL, coalesce(failing_since, @at)),
      enabled = iif(NOT @delivered AND coalesce(failing_since, @at) < @before, 0, enabled),
      disabled_reason = iif(NOT @delivered AND coalesce(failing_since, @at) < @before, @reason, disabled_reason)
    WHERE id = @id RETURNING enabled`,
} as const;

export type WebhookStatementName = keyof typeof WEBHOOK_SQL;

/** Migration 11: the endpoints and their deliveries. */
export const WEBHOOKS_MIGRATION = `
  -- Secrets are kept as given: the worker signs with them (HMAC needs the secret itself).
  CREATE TABLE webhooks (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    url             TEXT NOT NULL,
    events          TEXT NOT NULL CHECK (json_valid(events)),
    description     TEXT,
    enabled         INTEGER NOT NULL DEFAULT 1,
    secret          TEXT NOT NULL,
    previous_secret TEXT,
    previous_until  INTEGER,
    created_at      INTEGER NOT NULL,
    failing_since   INTEGER,
    disabled_reason TEXT
  );
  CREATE TABLE webhook_deliveries (
    webhook_id      INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_seq       INTEGER NOT NULL REFERENCES events(seq),
    status          TEXT NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    due_at          INTEGER,
    lease_owner     TEXT,
    lease_until     INTEGER,
    last_attempt_at INTEGER,
    last_status     INTEGER,
    last_error      TEXT,
    PRIMARY KEY (webhook_id, event_seq)
  ) WITHOUT ROWID;
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries(due_at) WHERE due_at IS NOT NULL;
`;
