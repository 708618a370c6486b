import type Database from 'better-sqlite3';
import type { ChangeEvent, EventKind } from '../../events/changes';
import { afterAttempt, DISABLED_REASON, type Attempt, type ClaimedDelivery, type DeliveryRecord, type DeliveryStatus, type Redelivery, type WebhookInput, type WebhookPatch, type WebhookRecord } from '../../webhooks/records';
import { WEBHOOK_SQL, type WebhookStatementName } from './webhook-statements';

interface WebhookRow {
  id: number;
  url: string;
  events: string;
  description: string | null;
  enabled: number;
  created_at: number;
  failing_since: number | null;
  disabled_reason: string | null;
}
interface DeliveryRow {
  webhook_id: number;
  event_seq: number;
  type: EventKind;
  status: DeliveryStatus;
  attempts: number;
  due_at: number | null;
  last_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
}

/** An event's id: its outbox row's number, zero-padded so that ids compare as strings in order. */
export const sqliteEventId = (seq: number) => `evt_${String(seq).padStart(16, '0')}`;
/**
 * The row number of an id this store issued. An id of another form (a Neo4j store's, after a
 * migration) names no event of this store: it reads as past every event.
 */
export function sqliteEventSeq(id: string): number {
  const digits = /^evt_(\d{1,16})$/.exec(id);
  return digits ? Number(digits[1]) : Number.MAX_SAFE_INTEGER;
}

const toWebhook = (r: WebhookRow): WebhookRecord => ({
  id: r.id,
  url: r.url,
  events: JSON.parse(r.events),
  description: r.description,
  enabled: r.enabled === 1,
  createdAt: r.created_at,
  failingSince: r.failing_since,
  disabledReason: r.disabled_reason,
});

const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  webhookId: r.webhook_id,
  eventId: sqliteEventId(r.event_seq),
  eventType: r.type,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.due_at,
  lastAttemptAt: r.last_attempt_at,
  lastResponseCode: r.last_status,
  lastError: r.last_error,
});


/**
 * Webhook endpoints and deliveries on the SQLite file (./webhook-statements.ts). Each method runs
 * inside the transaction its caller (./store.ts) opened.
 */
export class SqliteWebhooks {
  private readonly stmts = new Map<WebhookStatementName, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  private stmt(name: WebhookStatementName): Database.Statement {
    let s = this.stmts.get(name);
    if (!s) this.stmts.set(name, (s = this.db.prepare(WEBHOOK_SQL[name])));
    return s;
  }

  /** With an event, in its write's transaction: a delivery per enabled endpoint asking for it. */
  fanOut(seq: number, type: string, at: number): void {
    this.stmt('fanOutEvent').run({ seq, type, at });
  }

  create(input: WebhookInput, now: number): WebhookRecord {
    return toWebhook(this.stmt('insertWebhook').get({ ...input, events: JSON.stringify(input.events), now }) as WebhookRow);
  }

  list(): WebhookRecord[] {
    return (this.stmt('listWebhooks').all() as WebhookRow[]).map(toWebhook);
  }

  byId(id: number): WebhookRecord | null {
    const row = this.stmt('webhookById').get(id) as WebhookRow | undefined;
    return row ? toWebhook(row) : null;
  }

  update(id: number, patch: WebhookPatch, now: number): WebhookRecord | null {
    const row = this.stmt('updateWebhook').get({
      id,
      url: patch.url ?? null,
      events: patch.events ? JSON.stringify(patch.events) : null,
      setDescription: patch.description === undefined ? 0 : 1,
      description: patch.description ?? null,
      enabled: patch.enabled === undefined ? null : patch.enabled ? 1 : 0,
    }) as WebhookRow | undefined;
    if (row && patch.enabled === false) this.stmt('pauseDeliveries').run(id);
    if (row && patch.enabled === true) this.stmt('resumeDeliveries').run({ id, now });
    return row ? toWebhook(row) : null;
  }

  delete(id: number): boolean {
    return this.stmt('deleteWebhook').run(id).changes > 0;
  }

  rotate(id: number, secret: string, previousUntil: number): WebhookRecord | null {
    const row = this.stmt('rotateSecret').get({ id, secret, previousUntil }) as WebhookRow | undefined;
    return row ? toWebhook(row) : null;
  }

  deliveries(webhookId: number, limit: number, offset: number) {
    const items = (this.stmt('deliveriesOf').all({ id: webhookId, limit, offset }) as DeliveryRow[]).map(toDelivery);
    return { items, totalCount: this.stmt('countDeliveries').pluck().get(webhookId) as number };
  }

  redeliver(webhookId: number, what: Redelivery, now: number, limit: number): number | null {
    if (!this.byId(webhookId)) return null;
    if ('eventId' in what) return this.stmt('redeliverOne').run({ id: webhookId, seq: sqliteEventSeq(what.eventId), now }).changes;
    return this.stmt('redeliverSince').run({ id: webhookId, since: sqliteEventSeq(what.since), now, limit }).changes;
  }

  claim(now: number, owner: string, until: number, limit: number): ClaimedDelivery[] {
    type Due = DeliveryRow & WebhookRow & { event_at: number; event_data: string; secret: string; previous_secret: string | null };
    const rows = this.stmt('dueDeliveries').all({ now, limit }) as Due[];
    const webhooks = new Map<number, WebhookRecord | null>();
    return rows.map((r) => {
      this.stmt('leaseDelivery').run({ owner, until, id: r.webhook_id, seq: r.event_seq });
      if (!webhooks.has(r.webhook_id)) webhooks.set(r.webhook_id, this.byId(r.webhook_id));
      const delivery = toDelivery(r);
      const event = { id: delivery.eventId, type: r.type, timestamp: r.event_at, data: JSON.parse(r.event_data) } as ChangeEvent;
      return { delivery, event, webhook: webhooks.get(r.webhook_id)!, secrets: [r.secret, ...(r.previous_secret ? [r.previous_secret] : [])] };
    });
  }

  finish(webhookId: number, eventId: string, owner: string, a: Attempt): { disabled: boolean } {
    const changed = this.stmt('finishDelivery').run({ id: webhookId, seq: sqliteEventSeq(eventId), owner, ...afterAttempt(a) }).changes;
    // Its lease ran out and another worker took it: that worker reports the outcome.
    if (changed === 0) return { disabled: false };
    const before = this.byId(webhookId);
    const after = this.stmt('recordOutcome').get({
      id: webhookId,
      delivered: a.delivered ? 1 : 0,
      at: a.at,
      before: a.disableIfFailingBefore,
      reason: DISABLED_REASON,
    }) as { enabled: number } | undefined;
    const disabled = before?.enabled === true && after?.enabled === 0;
    if (disabled) this.stmt('pauseDeliveries').run(webhookId);
    return { disabled };
  }
}
