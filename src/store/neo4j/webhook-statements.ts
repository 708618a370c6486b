import type { Statement } from './statements';

/**
 * Webhook endpoints and their deliveries (./webhooks.ts, docs/API.md Webhooks):
 *
 *   (:Webhook {id, url, events, description, enabled, secret, previousSecret?, previousUntil?,
 *              createdAt, failingSince?, disabledReason?})
 *   (:Delivery {webhookId, eventId, eventType, status, attempts, dueAt?, leaseOwner?, leaseUntil?,
 *               lastAttemptAt?, lastStatus?, lastError?})   one event for one endpoint
 *
 * A delivery names its endpoint and event by id, with no relationship: a relationship would lock
 * the endpoint's node in every write that records an event for it. `dueAt` is when it is tried
 * next: absent once delivered or failed for good, and while its endpoint is disabled; the end of
 * its lease while a worker holds it (due again only if that worker never reports). The worker's
 * claim so seeks only deliveries it may send in the delivery_due index, and stops at its batch.
 */
/** An endpoint's pending deliveries (its part of the delivery_key index), bound as `d`. */
const PENDING_OF = (w: string) => `MATCH (d:Delivery)
  WHERE d.webhookId = ${w}.id AND d.eventId > '' AND d.status = 'PENDING'`;
const WEBHOOK = `w.id AS id, w.url AS url, w.events AS events, w.description AS description, w.enabled AS enabled,
  w.createdAt AS createdAt, w.failingSince AS failingSince, w.disabledReason AS disabledReason`;
const DELIVERY = `d.webhookId AS webhookId, d.eventId AS eventId, d.eventType AS eventType, d.status AS status,
  d.attempts AS attempts, d.dueAt AS dueAt, d.lastAttemptAt AS lastAttemptAt, d.lastStatus AS lastStatus, d.lastError AS lastError`;
/** Queued (again): due now, its tries counted from nought, held by no one. */
const REQUEUE = `SET d.eventType = e.type, d.status = 'PENDING', d.attempts = 0, d.dueAt = CASE WHEN w.enabled THEN $now ELSE null END,
  d.leaseOwner = null, d.leaseUntil = null`;

export const WEBHOOK_STATEMENTS = {
  createWebhook: {
    params: { url: 'STRING', events: 'LIST<STRING>', description: 'STRING?', secret: 'STRING', now: 'INTEGER' },
    cypher: `
MERGE (q:Sequence {name: 'Webhook'})
  ON CREATE SET q.value = 0
SET q.value = q.value + 1
CREATE (w:Webhook {id: q.value, url: $url, events: $events, description: $description, enabled: true, secret: $secret, createdAt: $now})
RETURN ${WEBHOOK}`,
  },
  listWebhooks: {
    params: {},
    cypher: `
MATCH (w:Webhook)
RETURN ${WEBHOOK}
ORDER BY w.id`,
  },
  webhookById: {
    params: { id: 'INTEGER' },
    cypher: `
MATCH (w:Webhook {id: $id})
RETURN ${WEBHOOK}`,
  },
  /** Enabling clears the failure record; disabling by hand leaves no reason. */
  updateWebhook: {
    params: {
      id: 'INTEGER', url: 'STRING?', events: 'LIST<STRING>?', setDescription: 'BOOLEAN', description: 'STRING?',
      setEnabled: 'BOOLEAN', enabled: 'BOOLEAN', now: 'INTEGER',
    },
    cypher: `
MATCH (w:Webhook {id: $id})
SET w.url = coalesce($url, w.url), w.events = coalesce($events, w.events),
    w.description = CASE WHEN $setDescription THEN $description ELSE w.description END,
    w.failingSince = CASE WHEN $setEnabled AND $enabled THEN null ELSE w.failingSince END,
    w.disabledReason = CASE WHEN $setEnabled THEN null ELSE w.disabledReason END,
    w.enabled = CASE WHEN $setEnabled THEN $enabled ELSE w.enabled END
WITH w
CALL (w) {
  ${PENDING_OF('w')} AND $setEnabled
  SET d.dueAt = CASE WHEN $enabled THEN coalesce(d.dueAt, $now) ELSE null END
}
RETURN ${WEBHOOK}`,
  },
  deleteWebhook: {
    params: { id: 'INTEGER' },
    cypher: `
MATCH (w:Webhook {id: $id})
CALL (w) {
  MATCH (d:Delivery)
  WHERE d.webhookId = w.id AND d.eventId > ''
  DELETE d
}
DELETE w
RETURN count(*) AS deleted`,
  },
  rotateWebhookSecret: {
    params: { id: 'INTEGER', secret: 'STRING', previousUntil: 'INTEGER' },
    cypher: `
MATCH (w:Webhook {id: $id})
SET w.previousSecret = w.secret, w.previousUntil = $previousUntil, w.secret = $secret
RETURN ${WEBHOOK}`,
  },
  /** An endpoint's deliveries, newest event first: the delivery_key index in reverse order. */
  deliveriesOf: {
    params: { id: 'INTEGER', offset: 'INTEGER', limit: 'INTEGER' },
    cypher: `
MATCH (d:Delivery)
WHERE d.webhookId = $id AND d.eventId > ''
RETURN ${DELIVERY}
ORDER BY d.webhookId DESC, d.eventId DESC
SKIP $offset
LIMIT $limit`,
  },
  countDeliveries: {
    params: { id: 'INTEGER' },
    cypher: `
MATCH (d:Delivery)
WHERE d.webhookId = $id AND d.eventId > ''
RETURN count(d) AS total`,
  },
  redeliverOne: {
    params: { id: 'INTEGER', eventId: 'STRING', now: 'INTEGER' },
    cypher: `
MATCH (w:Webhook {id: $id})
MATCH (e:Event {id: $eventId})
MERGE (d:Delivery {webhookId: w.id, eventId: e.id})
${REQUEUE}
RETURN count(d) AS queued`,
  },
  /** The endpoint's kinds after $since, in id order: the Event(id) index from $since on. */
  redeliverSince: {
    params: { id: 'INTEGER', since: 'STRING', now: 'INTEGER', limit: 'INTEGER' },
    cypher: `
MATCH (w:Webhook {id: $id})
CALL (w) {
  MATCH (e:Event)
  WHERE e.id > $since AND e.type IN w.events
  WITH e
  ORDER BY e.id
  LIMIT $limit
  MERGE (d:Delivery {webhookId: w.id, eventId: e.id})
  ${REQUEUE}
  RETURN count(d) AS queued
}
RETURN queued`,
  },
  /**
   * The worker's claim: deliveries due by $now (the delivery_due index, soonest first) of enabled
   * endpoints, each write-locked and then read again (status and lease were not read before the
   * lock, so they are the last committed), so two workers never hold one delivery: the one that
   * locks second sees the first's lease.
   */
  claimDeliveries: {
    params: { now: 'INTEGER', owner: 'STRING', until: 'INTEGER', limit: 'INTEGER' },
    cypher: `
MATCH (d:Delivery)
WHERE d.dueAt <= $now
WITH d
ORDER BY d.dueAt
LIMIT $limit
MATCH (w:Webhook {id: d.webhookId})
WHERE w.enabled
SET d._lock = true
REMOVE d._lock
WITH d, w
WHERE d.status = 'PENDING' AND coalesce(d.leaseUntil, 0) < $now
SET d.leaseOwner = $owner, d.leaseUntil = $until, d.dueAt = $until
WITH d, w
MATCH (e:Event {id: d.eventId})
RETURN ${DELIVERY}, e.at AS eventAt, e.data AS eventData,
  [w.secret] + CASE WHEN w.previousUntil > $now THEN [w.previousSecret] ELSE [] END AS secrets`,
  },
  /** A try's outcome on a delivery this owner holds, then on its endpoint (locked first). */
  finishDelivery: {
    params: {
      id: 'INTEGER', eventId: 'STRING', owner: 'STRING', status: 'STRING', nextAt: 'INTEGER?', at: 'INTEGER',
      code: 'INTEGER?', error: 'STRING?', delivered: 'BOOLEAN', before: 'INTEGER', reason: 'STRING',
    },
    cypher: `
MATCH (d:Delivery {webhookId: $id, eventId: $eventId})
WHERE d.leaseOwner = $owner
SET d.status = $status, d.attempts = d.attempts + 1, d.dueAt = $nextAt, d.leaseOwner = null, d.leaseUntil = null,
    d.lastAttemptAt = $at, d.lastStatus = $code, d.lastError = $error
WITH d
MATCH (w:Webhook {id: d.webhookId})
SET w._lock = true
REMOVE w._lock
WITH w, w.enabled AS was, coalesce(w.failingSince, $at) AS since
SET w.failingSince = CASE WHEN $delivered THEN null ELSE since END,
    w.enabled = CASE WHEN NOT $delivered AND since < $before THEN false ELSE w.enabled END,
    w.disabledReason = CASE WHEN NOT $delivered AND since < $before THEN $reason ELSE w.disabledReason END
WITH w, was
CALL (w, was) {
  ${PENDING_OF('w')} AND was AND NOT w.enabled
  SET d.dueAt = null
}
RETURN was, w.enabled AS enabled`,
  },
} as const satisfies Record<string, Statement>;
