import { assertId } from '../../domain/validation';
import type { ChangeEvent, EventKind } from '../../events/changes';
import type { Resolvers } from '../../generated/graphql';
import type { ServiceRecord, SongRecord } from '../../store/types';
import type { GraphQLContext } from '../context';

/** Events a subscriber has not taken yet; past this the oldest are dropped (a client that stopped reading). */
export const SUBSCRIBER_BUFFER = 100;

/**
 * The events `wanted` as an async iterator, from the moment it is made until the subscriber
 * leaves (graphql-js calls `return`), holding at most SUBSCRIBER_BUFFER not taken yet.
 */
export function eventsOf(ctx: GraphQLContext, wanted: (e: ChangeEvent) => boolean): AsyncIterableIterator<ChangeEvent> {
  const queue: ChangeEvent[] = [];
  let waiting: ((r: IteratorResult<ChangeEvent>) => void) | undefined;
  let done = false;
  const stop = ctx.changes.listen((e) => {
    if (done || !wanted(e)) return;
    if (waiting) {
      const take = waiting;
      waiting = undefined;
      take({ value: e, done: false });
      return;
    }
    queue.push(e);
    if (queue.length > SUBSCRIBER_BUFFER) queue.shift();
  });
  const finish = (): Promise<IteratorResult<ChangeEvent>> => {
    done = true;
    stop();
    queue.length = 0;
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
    return Promise.resolve({ value: undefined, done: true });
  };
  return {
    next: () => {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: finish,
    throw: async (err) => {
      await finish();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

const SERVICE_KINDS: readonly EventKind[] = ['service.created', 'service.updated', 'service.deleted'];
const SONG_KINDS: readonly EventKind[] = ['song.created', 'song.updated', 'song.deleted', 'songs.merged'];

/** Each event is sent with the records as they are when it is sent (the loaders start afresh). */
const fresh =
  <T>(pick: (e: ChangeEvent) => T) =>
  (e: ChangeEvent, _args: unknown, ctx: GraphQLContext): T => {
    ctx.forgetLoaded();
    return pick(e);
  };

export const subscriptionResolvers: Resolvers = {
  Subscription: {
    setlistChanged: {
      subscribe: (_, { serviceId }, ctx) => {
        assertId(serviceId);
        return eventsOf(ctx, (e) => e.type === 'setlist.changed' && e.data.service.id === serviceId);
      },
      // `setlist` is the one the write left (the event's), even when the next write came first.
      resolve: (e: ChangeEvent, _args: unknown, ctx: GraphQLContext) => {
        ctx.forgetLoaded();
        const { service, setlist } = (e as Extract<ChangeEvent, { type: 'setlist.changed' }>).data;
        ctx.loaders.setlist.prime(service.id, setlist.map((p) => p.song));
        return service;
      },
    },
    serviceChanged: {
      subscribe: (_, __, ctx) => eventsOf(ctx, (e) => SERVICE_KINDS.includes(e.type)),
      resolve: fresh((e) => (e.data as { service: ServiceRecord }).service),
    },
    songChanged: {
      subscribe: (_, __, ctx) => eventsOf(ctx, (e) => SONG_KINDS.includes(e.type)),
      resolve: fresh((e) => (e.data as { song: SongRecord }).song),
    },
  },
};
