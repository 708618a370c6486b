import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Metrics } from '../observability/metrics';
import type { Store } from '../store/types';
import type { ClaimedDelivery } from './records';
import { DISABLE_AFTER_MS, nextAttemptAt, RETRY_DELAYS_MS } from './schedule';
import { send, DEFAULT_SEND_LIMITS, type SendLimits } from './send';
import { signedHeaders } from './signing';
import { checkTarget, TargetRefused, type TargetPolicy } from './targets';

export interface WorkerOptions {
  store: Store;
  targets: TargetPolicy;
  log: Logger;
  metrics?: Metrics;
  /** The waits after each failed try (default: the Standard Webhooks schedule, ./schedule.ts). */
  retryDelaysMs?: readonly number[];
  /** How often the store is asked for due deliveries. */
  pollMs?: number;
  /** Deliveries taken at once (and sent at once). */
  batch?: number;
  /** How long a taken delivery is this worker's: longer than a try can last. */
  leaseMs?: number;
  /** An endpoint failing this long is disabled at its next failure (default ./schedule.ts: three days). */
  disableAfterMs?: number;
  send?: SendLimits;
}

/**
 * The body a receiver gets, by the Standard Webhooks specification: `type`, `timestamp` (when the
 * change was made, ISO-8601) and `data`, the records as the write left them.
 */
export const payloadOf = (c: ClaimedDelivery['event']) => JSON.stringify({ type: c.type, timestamp: new Date(c.timestamp).toISOString(), data: c.data });

/**
 * Delivers webhooks: every `pollMs` it takes the due deliveries (a lease in the store, so that of
 * several replicas one at a time holds each, and a replica killed mid-delivery lets go of it when
 * the lease runs out), sends each signed, and records the try: delivered on a 2xx, otherwise
 * tried again by the schedule until it is spent. The `webhook-id` is the event's id on every try
 * and redelivery, so a receiver can tell a repeat.
 */
export class DeliveryWorker {
  readonly owner = `worker-${randomUUID()}`;
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;
  private readonly delays: readonly number[];
  private readonly pollMs: number;
  private readonly batch: number;
  private readonly leaseMs: number;

  constructor(private readonly o: WorkerOptions) {
    this.delays = o.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.pollMs = o.pollMs ?? 200;
    this.batch = o.batch ?? 20;
    this.leaseMs = o.leaseMs ?? 60_000;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops taking deliveries; resolves when the ones under way are recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => this.schedule(this.pollMs));
    }, ms);
    this.timer.unref();
  }

  /** One round: take what is due and deliver it. How many were tried. */
  async tick(now = Date.now()): Promise<number> {
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.o.store.claimDeliveries(now, this.owner, now + this.leaseMs, this.batch);
    } catch (err) {
      this.o.log.warn({ err }, 'webhooks: could not read the due deliveries; trying again');
      return 0;
    }
    await Promise.all(claimed.map((c) => this.deliver(c)));
    return claimed.length;
  }

  private async deliver(c: ClaimedDelivery): Promise<void> {
    const { delivery, event, webhook } = c;
    const at = Date.now();
    const body = payloadOf(event);
    let code: number | null = null;
    let error: string | null = null;
    try {
      const target = await checkTarget(webhook.url, this.o.targets);
      const result = await send(target, { ...signedHeaders(c.secrets, event.id, new Date(at), body) }, body, this.o.send ?? DEFAULT_SEND_LIMITS);
      if ('status' in result) {
        code = result.status;
        if (code < 200 || code > 299) error = `HTTP ${code}${result.body ? `: ${result.body.slice(0, 200)}` : ''}`;
      } else error = result.error;
    } catch (err) {
      error = err instanceof TargetRefused ? `target refused: ${err.message}` : `could not send: ${(err as Error).message}`;
    }
    const delivered = error === null;
    const attempts = delivery.attempts + 1;
    const next = delivered ? null : nextAttemptAt(attempts, at, this.delays);
    this.o.metrics?.webhookAttempts.inc({ outcome: delivered ? 'delivered' : 'failed' });
    const line = { webhookId: webhook.id, eventId: event.id, eventType: event.type, attempt: attempts, code, error };
    if (!delivered) this.o.log.info(line, next === null ? 'webhook delivery failed for good' : 'webhook delivery failed; tried again later');
    if (!delivered && next === null) this.o.metrics?.webhookFailedDeliveries.inc();
    try {
      const { disabled } = await this.o.store.finishAttempt(webhook.id, event.id, this.owner, {
        at,
        delivered,
        responseCode: code,
        error,
        nextAttemptAt: next,
        disableIfFailingBefore: at - (this.o.disableAfterMs ?? DISABLE_AFTER_MS),
      });
      if (disabled) {
        this.o.metrics?.webhookEndpointsDisabled.inc();
        this.o.log.warn({ webhookId: webhook.id, url: webhook.url }, 'webhook endpoint disabled: every delivery failed for three days');
      }
    } catch (err) {
      // Not recorded: the lease runs out and the delivery is tried again (at least once).
      this.o.log.warn({ err, ...line }, 'webhooks: could not record a try; it will be made again');
    }
  }
}
