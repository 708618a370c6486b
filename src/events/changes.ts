import type { ServiceRecord, SongRecord, UserRecord } from '../store/types';

/**
 * Change events: what each write that changes a song, a service, a setlist or a user's role
 * records in the same transaction as the change (the outbox, in both stores), for webhooks and
 * subscriptions to send on. Their kinds and data are part of the API (docs/API.md, Change events).
 *
 * Bulk transfers (npm run import, npm run migrate) record none: they are not the API's writes, and
 * a history of a million links would be a million events nobody subscribed to.
 */
export const EVENT_KINDS = [
  'song.created',
  'song.updated',
  'song.deleted',
  'service.created',
  'service.updated',
  'service.deleted',
  'setlist.changed',
  'songs.merged',
  'user.role_changed',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** One place of a setlist as an event carries it: the song's record, not only its id. */
export interface SetlistPlace {
  position: number;
  song: SongRecord;
}

/** The data of each kind: records as they were right after the write (before it, for a delete). */
export interface EventData {
  'song.created': { song: SongRecord };
  'song.updated': { song: SongRecord };
  /** The song as it was; it also left every setlist it was in (no setlist.changed for those). */
  'song.deleted': { song: SongRecord };
  'service.created': { service: ServiceRecord };
  'service.updated': { service: ServiceRecord };
  /** The service as it was (its setlist went with it). */
  'service.deleted': { service: ServiceRecord };
  /** The service and its whole setlist after the write, in order. */
  'setlist.changed': { service: ServiceRecord; setlist: SetlistPlace[] };
  /** The kept song after the merge and the ids of the songs folded into it (now deleted). */
  'songs.merged': { song: SongRecord; mergedIds: number[] };
  'user.role_changed': { user: UserRecord; previousRole: UserRecord['role'] };
}

/** An event as a write hands it to its store, which gives it an id and a time. */
export type NewEvent = { [K in EventKind]: { type: K; data: EventData[K] } }[EventKind];

/**
 * An event as recorded. `id` is unique in its store and orders its events (by the time their
 * write's transaction began; on SQLite, whose writes are serialised, by commit); `timestamp` is
 * epoch milliseconds.
 */
export type ChangeEvent = NewEvent & { id: string; timestamp: number };

/** The events a write records, built in one place for both stores. */
export const changes = {
  songCreated: (song: SongRecord): NewEvent => ({ type: 'song.created', data: { song } }),
  songUpdated: (song: SongRecord): NewEvent => ({ type: 'song.updated', data: { song } }),
  songDeleted: (song: SongRecord): NewEvent => ({ type: 'song.deleted', data: { song } }),
  serviceCreated: (service: ServiceRecord): NewEvent => ({ type: 'service.created', data: { service } }),
  serviceUpdated: (service: ServiceRecord): NewEvent => ({ type: 'service.updated', data: { service } }),
  serviceDeleted: (service: ServiceRecord): NewEvent => ({ type: 'service.deleted', data: { service } }),
  setlistChanged: (service: ServiceRecord, songs: readonly SongRecord[]): NewEvent => ({
    type: 'setlist.changed',
    data: { service, setlist: songs.map((song, i) => ({ position: i + 1, song })) },
  }),
  songsMerged: (song: SongRecord, mergedIds: readonly number[]): NewEvent => ({ type: 'songs.merged', data: { song, mergedIds: [...mergedIds] } }),
  roleChanged: (user: UserRecord, previousRole: UserRecord['role']): NewEvent => ({ type: 'user.role_changed', data: { user, previousRole } }),
};

/** How many events one read of the outbox answers at most. */
export const MAX_EVENTS_PER_READ = 1000;

/**
 * Event ids: `evt_` and a fixed-width key, so that ids compare as strings in their store's order.
 * SQLite's key is the outbox row's sequence number; Neo4j's is built by the statement that records
 * the event (src/store/neo4j/events.ts).
 */
export const EVENT_ID = /^evt_[0-9a-f]{1,40}$/;
