import type { ChangeEvent, EventKind } from '../events/changes';

/** An endpoint as stored and shown (its secrets never leave the store but to the delivery worker). */
export interface WebhookRecord {
  id: number;
  url: string;
  /** The event kinds it receives. */
  events: EventKind[];
  description: string | null;
  enabled: boolean;
  /** Epoch ms. */
  createdAt: number;
  /** Since when every try has failed (none succeeding since); null while tries succeed. */
  failingSince: number | null;
  /** Why it was disabled by the service (failing for days); null when enabled or disabled by hand. */
  disabledReason: string | null;
}

/** An endpoint in an answer: with its secret only where the schema says (create, rotate). */
export type WebhookShown = WebhookRecord & { secret?: string };

export interface WebhookInput {
  url: string;
  events: EventKind[];
  description: string | null;
  secret: string;
}

/** Fields absent keep their value. Enabling clears the failure record (failingSince, disabledReason). */
export interface WebhookPatch {
  url?: string;
  events?: EventKind[];
  description?: string | null;
  enabled?: boolean;
}

/** Why the service disabled an endpoint (the same words on both stores). */
export const DISABLED_REASON = 'every delivery failed for three days';

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

/** One event's delivery to one endpoint: the delivery log's row. */
export interface DeliveryRecord {
  webhookId: number;
  eventId: string;
  eventType: EventKind;
  status: DeliveryStatus;
  attempts: number;
  /** When it is tried next (epoch ms); null once delivered or failed for good. */
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  /** The HTTP status of the last try's answer; null when there was none (no connection, a timeout). */
  lastResponseCode: number | null;
  lastError: string | null;
}

/** A delivery the worker holds (its lease) with what it needs to send it. */
export interface ClaimedDelivery {
  delivery: DeliveryRecord;
  event: ChangeEvent;
  webhook: WebhookRecord;
  /** The secrets to sign with, newest first (two during a rotation's overlap). */
  secrets: string[];
}

/** The outcome of one try, as the worker reports it. */
export interface Attempt {
  at: number;
  delivered: boolean;
  responseCode: number | null;
  error: string | null;
  /** When to try again; null: no more tries (delivered, or the schedule is spent). */
  nextAttemptAt: number | null;
  /** Fail-since threshold: an endpoint failing since before it is disabled by this failure. */
  disableIfFailingBefore: number;
}

/**
 * What a try leaves on its delivery, the same on both stores: its status (delivered; failed for
 * good when no try is left; else pending), when it is due next (never once delivered), the answer.
 */
export function afterAttempt(a: Attempt) {
  const status: DeliveryStatus = a.delivered ? 'DELIVERED' : a.nextAttemptAt === null ? 'FAILED' : 'PENDING';
  return { status, nextAt: a.delivered ? null : a.nextAttemptAt, at: a.at, code: a.responseCode, error: a.error };
}

/** What a redelivery asks for: one event again, or every event after one. */
export type Redelivery = { eventId: string } | { since: string };

/**
 * The webhooks part of the store: endpoints, and a delivery per endpoint and event made with the
 * event, in the write's transaction (an endpoint enabled then and asking for the event's kind).
 */
export interface WebhookStore {
  createWebhook(input: WebhookInput, now: number): Promise<WebhookRecord>;
  listWebhooks(): Promise<WebhookRecord[]>;
  webhookById(id: number): Promise<WebhookRecord | null>;
  /** Disabling holds its pending deliveries; enabling makes them due at `now`. */
  updateWebhook(id: number, patch: WebhookPatch, now: number): Promise<WebhookRecord | null>;
  /** Its deliveries go with it. */
  deleteWebhook(id: number): Promise<boolean>;
  /** The new secret signs from now; the old one too, until `previousUntil`. */
  rotateWebhookSecret(id: number, secret: string, previousUntil: number): Promise<WebhookRecord | null>;
  /** Newest event first. */
  deliveriesOf(webhookId: number, limit: number, offset: number): Promise<{ items: DeliveryRecord[]; totalCount: number }>;
  /**
   * Queue again, due `now`: the event named, or every event after `since` of the endpoint's kinds
   * (at most `limit`). Null when there is no such endpoint; otherwise how many were queued.
   */
  redeliver(webhookId: number, what: Redelivery, now: number, limit: number): Promise<number | null>;
  /**
   * Take up to `limit` deliveries due by `now` of enabled endpoints that no other worker holds,
   * holding them until `leaseUntil`.
   */
  claimDeliveries(now: number, owner: string, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Record a try of a delivery this owner holds, and release it. Whether the endpoint got disabled. */
  finishAttempt(webhookId: number, eventId: string, owner: string, attempt: Attempt): Promise<{ disabled: boolean }>;
}
