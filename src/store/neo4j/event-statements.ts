import type { Statement } from './statements';

/**
 * The outbox's statements (src/events/changes.ts): each write records its events in its own
 * transaction, and readers take them in id order.
 *
 * An event's id is `evt_`, the time its transaction began (13 digits of epoch ms, by the server's
 * clock, so every replica's writes are ordered by one clock) and a key the writer gives
 * (./events.ts): its process's count of recorded transactions (10 digits), the event's place in
 * its transaction (4) and the process's own random tag (8 hex digits). Ids so compare as strings
 * in time order, and in the order of one process's writes within a millisecond (the server's
 * clock counts milliseconds only); no counter node is written: a store-wide sequence would queue
 * every write on one lock.
 *
 * With each event, a delivery for each enabled webhook endpoint that asks for its kind
 * (./webhook-statements.ts): the endpoints are read, not locked, so writes never queue on them.
 */
export const EVENT_STATEMENTS = {
  recordEvents: {
    params: { rows: { rows: { key: 'STRING', type: 'STRING', data: 'STRING' } } },
    cypher: `
WITH datetime.transaction().epochMillis AS at
UNWIND $rows AS row
CREATE (e:Event {
  id: 'evt_' + right('0000000000000' + toString(at), 13) + row.key,
  type: row.type, at: at, data: row.data
})
WITH e, at
CALL (e, at) {
  MATCH (w:Webhook)
  WHERE w.enabled AND e.type IN w.events
  CREATE (:Delivery {webhookId: w.id, eventId: e.id, eventType: e.type, status: 'PENDING', attempts: 0, dueAt: at})
}
RETURN count(e) AS recorded`
  },
  /** The newest: the Event(id) index read from its end. */
  lastEventId: {
    params: {},
    cypher: `
MATCH (e:Event)
WHERE e.id > ''
RETURN e.id AS id
ORDER BY e.id DESC
LIMIT 1`,
  },
  /** A seek of the Event(id) uniqueness index in its order, stopping at $limit. */
  eventsAfter: {
    params: { after: 'STRING', limit: 'INTEGER' },
    cypher: `
MATCH (e:Event)
WHERE e.id > $after
RETURN e.id AS id, e.type AS type, e.at AS at, e.data AS data
ORDER BY e.id
LIMIT $limit`,
  },
} as const satisfies Record<string, Statement>;
