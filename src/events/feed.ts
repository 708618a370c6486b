import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import type { Logger } from 'pino';
import type { Store } from '../store/types';
import { KEY_NAMESPACE, safeRedisUrl } from '../limits/limiter-store';
import type { ChangeEvent } from './changes';

/**
 * Change events as they are recorded, for live subscribers in this process (GraphQL subscriptions:
 * src/graphql/subscriptions.ts). Read from the outbox every store records them in, so a write made
 * through any replica reaches every replica's subscribers:
 *
 * - alone (no REDIS_URL), each process reads the outbox every `pollMs`;
 * - with Redis, one replica at a time reads it (a lease in Redis, renewed on each read, taken over
 *   within `leaseMs` when it dies) and publishes each event on a Redis channel every replica
 *   listens to, so the store is read once however many replicas there are.
 *
 * An event is delivered to a subscriber at most once, and only while it is connected: what must
 * not be missed goes by webhook (src/webhooks). On Neo4j an event's id is the time its
 * transaction began, so one that commits late can sort before one already read: each read goes
 * back `lookbackMs` and passes over the ids it has sent.
 */
export interface FeedOptions {
  store: Store;
  log: Logger;
  redisUrl?: string;
  pollMs?: number;
  lookbackMs?: number;
  leaseMs?: number;
}

export type Listener = (event: ChangeEvent) => void;

const CHANNEL = `${KEY_NAMESPACE}:events`;
const LEADER_KEY = `${KEY_NAMESPACE}:events-reader`;
const PAGE = 500;

export class EventFeed {
  private readonly listeners = new Set<Listener>();
  private readonly pollMs: number;
  private readonly lookbackMs: number;
  private readonly leaseMs: number;
  private readonly me = randomUUID();
  /** The last event read before the look-back window, and the ids sent since (with when). */
  private anchor: string | undefined;
  /** Not reading: no one to read for (see `read`); the next read starts from the newest event. */
  private idle = true;
  private readonly sent = new Map<string, number>();
  private started = false;
  private timer?: NodeJS.Timeout;
  private reading?: Promise<void>;
  private publisher?: Redis;
  private subscriber?: Redis;

  constructor(private readonly o: FeedOptions) {
    this.pollMs = o.pollMs ?? 200;
    this.lookbackMs = o.lookbackMs ?? 5000;
    this.leaseMs = o.leaseMs ?? 2000;
  }

  /** Called for each event from now on; the returned function stops it. */
  listen(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listening(): number {
    return this.listeners.size;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.o.redisUrl) {
      const options = { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false } as const;
      this.publisher = new Redis(this.o.redisUrl, options);
      this.subscriber = new Redis(this.o.redisUrl, { ...options, enableOfflineQueue: true });
      for (const r of [this.publisher, this.subscriber]) {
        r.on('error', (err) => this.o.log.warn({ err: err.message, redis: safeRedisUrl(this.o.redisUrl!) }, 'event feed: Redis unavailable'));
      }
      this.subscriber.on('message', (_channel, message: string) => this.fromRedis(message));
      await this.subscriber.subscribe(CHANNEL).catch((err: Error) => this.o.log.warn({ err: err.message }, 'event feed: could not subscribe'));
    }
    this.schedule();
  }

  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    await this.reading;
    this.subscriber?.disconnect();
    this.publisher?.disconnect();
  }

  private schedule() {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.reading = this.read().finally(() => this.schedule());
    }, this.pollMs);
    this.timer.unref();
  }

  /**
   * One read of the outbox, by the replica that leads (with Redis) or, alone, only while someone
   * here listens: a process with no subscriber reads nothing. Reading again after a pause starts
   * from the newest event: a subscriber sees what happens after it subscribed.
   */
  private async read(): Promise<void> {
    try {
      const reading = this.publisher ? await this.lead() : this.listeners.size > 0;
      if (!reading) {
        this.idle = true;
        return;
      }
      if (this.idle) {
        this.idle = false;
        // A replica taking the lease over reads on from the last event relayed to it; one that
        // was relayed none, or a process alone that paused, from the newest.
        if (!this.publisher || (this.anchor === undefined && this.sent.size === 0)) {
          this.anchor = (await this.o.store.lastEventId()) ?? undefined;
          this.sent.clear();
          return;
        }
      }
      for (const event of await this.newEvents()) {
        if (this.publisher) await this.publisher.publish(CHANNEL, JSON.stringify(event));
        else this.emit(event);
      }
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message }, 'event feed: could not read the events; trying again');
    }
  }

  /** Whether this replica reads the outbox now: it holds the lease in Redis, or took it. */
  private async lead(): Promise<boolean> {
    const taken = await this.publisher!.set(LEADER_KEY, this.me, 'PX', this.leaseMs, 'NX');
    if (taken === 'OK') return true;
    // Renewed only by its holder (a check and a set in one step).
    const renewed = await this.publisher!.eval(
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end",
      1,
      LEADER_KEY,
      this.me,
      String(this.leaseMs),
    );
    return renewed === 1;
  }

  /** The events after the anchor not sent yet, in id order; the window moves on. */
  private async newEvents(): Promise<ChangeEvent[]> {
    const now = Date.now();
    const fresh: ChangeEvent[] = [];
    let after = this.anchor;
    for (;;) {
      const page = await this.o.store.eventsAfter(after, PAGE);
      for (const e of page) {
        if (this.sent.has(e.id)) continue;
        this.sent.set(e.id, now);
        fresh.push(e);
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1].id;
    }
    this.forget(now);
    return fresh;
  }

  /**
   * Ids sent before the look-back window no longer need remembering: the anchor moves past them.
   * The map keeps the order they were sent in, so this stops at the first one still in the window.
   */
  private forget(now: number) {
    for (const [id, at] of this.sent) {
      if (at > now - this.lookbackMs) break;
      this.sent.delete(id);
      if (this.anchor === undefined || id > this.anchor) this.anchor = id;
    }
  }

  private fromRedis(message: string) {
    let event: ChangeEvent;
    try {
      event = JSON.parse(message) as ChangeEvent;
    } catch {
      return;
    }
    // A replica that leads later reads on from what it was sent.
    const now = Date.now();
    this.sent.set(event.id, now);
    this.forget(now);
    this.emit(event);
  }

  private emit(event: ChangeEvent) {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.o.log.warn({ err }, 'event feed: a listener failed');
      }
    }
  }
}
