import type { Record as Neo4jRecord } from 'neo4j-driver';
import type { ChangeEvent, EventKind } from '../../events/changes';
import { afterAttempt, DISABLED_REASON, type Attempt, type ClaimedDelivery, type DeliveryRecord, type DeliveryStatus, type Redelivery, type WebhookInput, type WebhookPatch, type WebhookRecord } from '../../webhooks/records';
import { NEO4J_EVENT_ID } from './events';
import { run, type Tx } from './run';
import { fromInt } from './values';


const orNullInt = (v: unknown, what: string) => (v === null || v === undefined ? null : fromInt(v, what));

const toWebhook = (r: Neo4jRecord): WebhookRecord => ({
  id: fromInt(r.get('id'), 'webhook id'),
  url: r.get('url') as string,
  events: r.get('events') as EventKind[],
  description: (r.get('description') as string | null) ?? null,
  enabled: r.get('enabled') as boolean,
  createdAt: fromInt(r.get('createdAt'), 'webhook createdAt'),
  failingSince: orNullInt(r.get('failingSince'), 'webhook failingSince'),
  disabledReason: (r.get('disabledReason') as string | null) ?? null,
});

const toDelivery = (r: Neo4jRecord): DeliveryRecord => ({
  webhookId: fromInt(r.get('webhookId'), 'delivery webhookId'),
  eventId: r.get('eventId') as string,
  eventType: r.get('eventType') as EventKind,
  status: r.get('status') as DeliveryStatus,
  attempts: fromInt(r.get('attempts'), 'delivery attempts'),
  nextAttemptAt: orNullInt(r.get('dueAt'), 'delivery dueAt'),
  lastAttemptAt: orNullInt(r.get('lastAttemptAt'), 'delivery lastAttemptAt'),
  lastResponseCode: orNullInt(r.get('lastStatus'), 'delivery lastStatus'),
  lastError: (r.get('lastError') as string | null) ?? null,
});

/** Webhook endpoints and deliveries on Neo4j (./webhook-statements.ts); each runs in the caller's transaction. */
export const webhooks = {
  async create(tx: Tx, input: WebhookInput, now: number): Promise<WebhookRecord> {
    return toWebhook((await run(tx, 'createWebhook', { ...input, now }))[0]);
  },
  async list(tx: Tx): Promise<WebhookRecord[]> {
    return (await run(tx, 'listWebhooks')).map(toWebhook);
  },
  async byId(tx: Tx, id: number): Promise<WebhookRecord | null> {
    const [row] = await run(tx, 'webhookById', { id });
    return row ? toWebhook(row) : null;
  },
  async update(tx: Tx, id: number, patch: WebhookPatch, now: number): Promise<WebhookRecord | null> {
    const [row] = await run(tx, 'updateWebhook', {
      now,
      id,
      url: patch.url ?? null,
      events: patch.events ?? null,
      setDescription: patch.description !== undefined,
      description: patch.description ?? null,
      setEnabled: patch.enabled !== undefined,
      enabled: patch.enabled ?? false,
    });
    return row ? toWebhook(row) : null;
  },
  async delete(tx: Tx, id: number): Promise<boolean> {
    const [row] = await run(tx, 'deleteWebhook', { id });
    return fromInt(row.get('deleted'), 'deleted') > 0;
  },
  async rotate(tx: Tx, id: number, secret: string, previousUntil: number): Promise<WebhookRecord | null> {
    const [row] = await run(tx, 'rotateWebhookSecret', { id, secret, previousUntil });
    return row ? toWebhook(row) : null;
  },
  async deliveries(tx: Tx, webhookId: number, limit: number, offset: number) {
    const [rows, [count]] = await Promise.all([run(tx, 'deliveriesOf', { id: webhookId, limit, offset }), run(tx, 'countDeliveries', { id: webhookId })]);
    return { items: rows.map(toDelivery), totalCount: fromInt(count.get('total'), 'delivery count') };
  },
  async redeliver(tx: Tx, webhookId: number, what: Redelivery, now: number, limit: number): Promise<number | null> {
    if (!(await webhooks.byId(tx, webhookId))) return null;
    if ('eventId' in what) {
      if (!NEO4J_EVENT_ID.test(what.eventId)) return 0;
      const [row] = await run(tx, 'redeliverOne', { id: webhookId, eventId: what.eventId, now });
      return row ? fromInt(row.get('queued'), 'queued') : 0;
    }
    // An id of another store's form names no event here: nothing follows it.
    if (!NEO4J_EVENT_ID.test(what.since)) return 0;
    const [row] = await run(tx, 'redeliverSince', { id: webhookId, since: what.since, now, limit });
    return row ? fromInt(row.get('queued'), 'queued') : 0;
  },
  async claim(tx: Tx, now: number, owner: string, until: number, limit: number): Promise<ClaimedDelivery[]> {
    const rows = await run(tx, 'claimDeliveries', { now, owner, until, limit });
    const endpoints = new Map<number, WebhookRecord>();
    const out: ClaimedDelivery[] = [];
    for (const r of rows) {
      const delivery = toDelivery(r);
      if (!endpoints.has(delivery.webhookId)) endpoints.set(delivery.webhookId, (await webhooks.byId(tx, delivery.webhookId))!);
      const event = { id: delivery.eventId, type: delivery.eventType, timestamp: fromInt(r.get('eventAt'), 'event time'), data: JSON.parse(r.get('eventData') as string) } as ChangeEvent;
      out.push({ delivery, event, webhook: endpoints.get(delivery.webhookId)!, secrets: r.get('secrets') as string[] });
    }
    return out;
  },
  async finish(tx: Tx, webhookId: number, eventId: string, owner: string, a: Attempt): Promise<{ disabled: boolean }> {
    const [row] = await run(tx, 'finishDelivery', {
      id: webhookId,
      eventId,
      owner,
      ...afterAttempt(a),
      delivered: a.delivered,
      before: a.disableIfFailingBefore,
      reason: DISABLED_REASON,
    });
    // Its lease ran out and another worker took it: that worker reports the outcome.
    if (!row) return { disabled: false };
    return { disabled: row.get('was') === true && row.get('enabled') === false };
  },
};
