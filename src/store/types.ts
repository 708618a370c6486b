import type { Role, Service, ServiceType, Song, User } from '../generated/graphql';
import type { SongLicensing } from '../domain/licensing';
import type { AnalyticsStore } from './analytics-types';
import type { ChangeEvent } from '../events/changes';
import type { WebhookStore } from '../webhooks/records';

/**
 * A song as lists and relations read it: the schema's Song without its relation fields and its
 * licensing details, which only GraphQL shows and which are read for the songs that need them
 * (`licensingOfSongs`), so that the REST records and the hot list reads stay as they were.
 */
export type SongRecord = Omit<Song, 'services' | 'usage' | 'rotation' | 'ccliNumber' | 'copyright'>;
/** A service as stored: `date` is epoch milliseconds. */
export type ServiceRecord = Omit<Service, 'songs' | 'setlist'>;
/** One place of a setlist: `position` is 1..n without gaps. */
export interface SetlistEntryRecord {
  position: number;
  song: SongRecord;
}
/** A user as it may leave the store for any reader: never a password hash. */
export type UserRecord = User;

/** Only the login and token checks ever see these. */
export interface UserCredentials extends UserRecord {
  passwordHash: string;
  /** Bumped on every password change; tokens carrying an older value are refused. */
  tokenVersion: number;
}

export interface SongInput {
  name: string;
  artists: string[];
  /** Licensing details (src/domain/licensing.ts); absent or null: none. */
  ccliNumber?: string | null;
  copyright?: string | null;
}
/** Fields absent keep their value; a licensing field given as null is removed. */
export type SongPatch = Partial<SongInput>;

export interface ServiceInput {
  date: number;
  serviceType: ServiceType;
}
export type ServicePatch = Partial<ServiceInput>;

/**
 * A service write refused because another service has the same date and type (docs/API.md: one
 * service per date and type). Each store keeps the rule with a uniqueness guard of its own (a
 * unique index, a constraint), so two writers racing for one slot cannot both win; `takenBy` is
 * the service holding it. Services that shared a slot before the rule existed keep their records:
 * only the lowest id of them holds the slot, the others are left out of the guard until their
 * date or type changes.
 */
export interface SlotTaken {
  slotTakenBy: number;
}

import type { MergeRefused } from '../domain/song-merge';
export { isMergeRefused, type MergeRefused } from '../domain/song-merge';

export const isSlotTaken = (v: unknown): v is SlotTaken =>
  typeof v === 'object' && v !== null && typeof (v as SlotTaken).slotTakenBy === 'number';

export interface UserInput {
  username: string;
  passwordHash: string;
  role: Role;
}
export interface UserPatch {
  username?: string;
  /** Setting a hash also bumps the token version. */
  passwordHash?: string;
  role?: Role;
}

/**
 * Inclusive bounds in epoch ms. Dates are whole milliseconds, so "strictly after X" is `min: X + 1`:
 * every store answers every range with one indexed statement.
 */
export interface DateRange {
  min: number;
  max: number;
}

/**
 * A page of a list: `limit` items from `offset` (0-based). No limit: every item from `offset`.
 * The stores apply it in the database (LIMIT/OFFSET, SKIP/LIMIT).
 */
export interface Page {
  limit?: number;
  offset?: number;
}

/** A page of a list and the size of the whole (filtered) list, read in one transaction. */
export interface Paged<T> {
  items: T[];
  totalCount: number;
}

/** Orders of the song list; every order ends with id so that it is total. */
export type SongSort = 'ID_ASC' | 'ID_DESC' | 'NAME_ASC' | 'NAME_DESC';
/** Orders of the service list: date, then id, both the same direction. */
export type ServiceSort = 'DATE_ASC' | 'DATE_DESC';

export interface SongQuery {
  /** Full-text search over name and artists; with it, results come by relevance, then id. */
  search?: string;
  /** Ignored with `search`. Default ID_ASC. */
  sort?: SongSort;
}

export interface ServiceFilter {
  /** Only services of these types; absent means all. */
  serviceTypes?: readonly ServiceType[];
}

export interface ServiceQuery extends ServiceFilter {
  /** Default DATE_ASC. */
  sort?: ServiceSort;
}

/**
 * Where a keyset page starts: strictly after the record with this sort key and id in the list's
 * order. `key` is the sort field's value (the name for NAME_*, the date for DATE_*, the id for ID_*).
 */
export interface Keyset {
  key: string | number;
  id: number;
}

/** A keyset page (cursor connections): `first` items after `after`, never an OFFSET scan. */
export interface KeysetPage {
  first: number;
  after?: Keyset;
}

export interface KeysetResult<T> extends Paged<T> {
  hasNextPage: boolean;
}

/**
 * Outcome of a write that can fail on a missing record or a broken rule. Adapters return these
 * instead of throwing so that both stores report the same conditions the same way.
 */
export type LinkResult = 'ok' | 'no-service' | 'no-song';
/** linkSong's answers: a new song for a setlist that holds SETLIST_MAX_SONGS is 'setlist-full' (nothing written). */
export type LinkSongResult = LinkResult | 'setlist-full';

/** One PERFORMED_IN link in a snapshot. `seq` is the link order: unique and increasing per store. */
export interface SnapshotLink {
  serviceId: number;
  songId: number;
  position: number;
  seq: number;
}

/** A song's licensing details in a snapshot: only songs that have one or both. */
export interface SnapshotLicensing extends SongLicensing {
  songId: number;
}

/**
 * Everything a store holds, for moving between stores (src/cli/migrate.ts). `sequences` are the
 * highest ids ever issued, which can exceed the highest id present (deleted records): carrying
 * them over keeps ids from being reused in the target store.
 */
export interface Snapshot {
  format: 'worship-records-snapshot';
  /** 2 since songs carry licensing details; a version 1 snapshot (none) is still read. */
  version: 1 | 2;
  /** Ordered by id. */
  songs: SongRecord[];
  /**
   * Ordered by song id; absent in version 1. Beside the songs rather than in them, so a song's
   * record keeps one shape everywhere.
   */
  licensing?: SnapshotLicensing[];
  /** Ordered by id. */
  services: ServiceRecord[];
  /** Ordered by seq. */
  links: SnapshotLink[];
  /** Ordered by id; password hashes and token versions included. */
  users: UserCredentials[];
  sequences: { song: number; service: number; user: number; link: number };
}

export interface SnapshotCounts {
  songs: number;
  services: number;
  links: number;
  users: number;
}

/** One batch of an import (npm run import): new songs, and new services with their setlists. */
export interface CatalogueBatch {
  songs: SongInput[];
  /** `songIds` are distinct ids of existing songs, in setlist order (positions 1..n). */
  services: { service: ServiceInput; songIds: number[] }[];
}

export interface ImportedCatalogue {
  /** In the order of the batch. */
  songs: SongRecord[];
  services: ServiceRecord[];
}

/**
 * The storage contract, in three parts: the records (`RecordStore`), the analytics over them
 * (`AnalyticsStore`, ./analytics-types.ts) and moving them in bulk (`TransferStore`). Both
 * adapters (SQLite, Neo4j) implement all three and pass the same contract suites
 * (test/contract/store.contract.test.ts, test/contract/analytics.contract.test.ts). Lists come back in the order the
 * API promises. Batch reads (`*ByIds`, `*For*`) take many keys and answer in one round trip:
 * DataLoader uses them so a request costs a constant number of store calls.
 */
export interface Store extends RecordStore, AnalyticsStore, TransferStore, EventStore, WebhookStore {
  readonly kind: 'sqlite' | 'neo4j';
  /** Resolves when the store answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Songs, services, their PERFORMED_IN links and users: what the API reads and writes one by one. */
export interface RecordStore {
  // Songs
  /** One page of the songs, searched and sorted; `totalCount` counts every match. */
  listSongs(query: SongQuery, page: Page): Promise<Paged<SongRecord>>;
  /** Songs in `sort` order after a keyset; `totalCount` counts the whole list. */
  songsAfter(sort: SongSort, page: KeysetPage): Promise<KeysetResult<SongRecord>>;
  /** Same length and order as `ids`; null where no song has that id. */
  songsByIds(ids: readonly number[]): Promise<(SongRecord | null)[]>;
  /** Licensing details of many songs; same length and order as `ids`, null where no song has that id. */
  licensingOfSongs(ids: readonly number[]): Promise<(SongLicensing | null)[]>;
  /** `artistKey` is already normalised with `artistKey()` (src/domain/artists.ts). */
  songsByArtistKey(artistKey: string, page: Page): Promise<Paged<SongRecord>>;
  createSong(input: SongInput): Promise<SongRecord>;
  updateSong(id: number, patch: SongPatch): Promise<SongRecord | null>;
  /** Also removes the song's performance links. False when there was no such song. */
  deleteSong(id: number): Promise<boolean>;
  /**
   * Fold the songs `mergeIds` (distinct, without `keepId`) into `keepId`, in one transaction: each
   * of their places in a setlist becomes the kept song's (a setlist then holding it twice keeps
   * the first place: src/domain/song-merge.ts orderAfterMerge), the kept song gains the licensing
   * details and artists it lacks (mergedDetails), and the merged songs are deleted; every
   * maintained aggregate moves with it. Nothing is written when it answers a refusal.
   */
  mergeSongs(keepId: number, mergeIds: readonly number[]): Promise<SongRecord | MergeRefused>;

  // Services
  listServices(query: ServiceQuery, page: Page): Promise<Paged<ServiceRecord>>;
  servicesAfter(query: ServiceQuery, page: KeysetPage): Promise<KeysetResult<ServiceRecord>>;
  servicesByIds(ids: readonly number[]): Promise<(ServiceRecord | null)[]>;
  /** Ordered by date, then id. */
  servicesInRange(range: DateRange, filter: ServiceFilter, page: Page): Promise<Paged<ServiceRecord>>;
  createService(input: ServiceInput): Promise<ServiceRecord | SlotTaken>;
  /** Null when there is no such service; SlotTaken when its new date and type are another's. */
  updateService(id: number, patch: ServicePatch): Promise<ServiceRecord | null | SlotTaken>;
  deleteService(id: number): Promise<boolean>;

  // PERFORMED_IN links
  /**
   * Setlists of many services, in setlist order (positions 1..n). Same order as `serviceIds`.
   * The page applies to each setlist separately (one statement for the whole batch).
   */
  setlistsForServices(serviceIds: readonly number[], page?: Page): Promise<Paged<SongRecord>[]>;
  /**
   * Services by id, each with a page of its setlist (as setlistsForServices answers it), read
   * together: what `service(id) { songs }` asks, in one read where a store charges for each (a
   * Neo4j transaction is a round trip and a commit). A missing service is null, its page empty.
   */
  servicesWithSetlists(serviceIds: readonly number[], page?: Page): Promise<{ service: ServiceRecord | null; setlist: Paged<SongRecord> }[]>;
  /**
   * Services each song was performed in, by date then id (the query's sort, DATE_ASC by default),
   * paged per song. Same order as `songIds`.
   */
  servicesForSongs(songIds: readonly number[], query?: ServiceQuery, page?: Page): Promise<Paged<ServiceRecord>[]>;
  /**
   * Link a song to a service. Positions are places 1..n without gaps (docs/API.md): with a
   * position p the song is inserted, or moved, there and the songs from p on move down one (a p
   * past the end puts it last); without one a new link goes last and an existing link keeps its
   * place. Unlinking and deleting a song close the gap it leaves.
   */
  linkSong(serviceId: number, songId: number, position?: number): Promise<LinkSongResult>;
  /** 'ok', or which record is missing, or 'not-linked'. */
  unlinkSong(serviceId: number, songId: number): Promise<LinkResult | 'not-linked'>;
  /** Replace a setlist with `songIds` (distinct) at positions 1..n, atomically. */
  replaceSetlist(serviceId: number, songIds: readonly number[]): Promise<LinkResult>;

  // Users
  listUsers(): Promise<UserRecord[]>;
  usersByIds(ids: readonly number[]): Promise<(UserRecord | null)[]>;
  /** Case-insensitive username lookup for login. */
  credentialsByUsername(username: string): Promise<UserCredentials | null>;
  credentialsById(id: number): Promise<UserCredentials | null>;
  /** Null when the username (ignoring case) is taken. */
  createUser(input: UserInput): Promise<UserRecord | null>;
  /**
   * 'conflict' when the new username is taken; 'last-admin' when the change would leave no ADMIN.
   * The last-admin rule is checked inside the write transaction, so two concurrent demotions can
   * never both pass.
   */
  updateUser(id: number, patch: UserPatch): Promise<UserRecord | null | 'conflict' | 'last-admin'>;
  deleteUser(id: number): Promise<boolean | 'last-admin'>;
}

/**
 * The change events each write of `RecordStore` records in its own transaction (the outbox:
 * src/events/changes.ts): a write that commits has its events, one that fails or answers a
 * refusal has none.
 */
export interface EventStore {
  /**
   * Events after the one with id `after` (from the first when absent), in id order, at most
   * `limit`. An id of another store's form names no event here: nothing follows it.
   */
  eventsAfter(after: string | undefined, limit: number): Promise<ChangeEvent[]>;
  /** The newest event's id; null when there is none. */
  lastEventId(): Promise<string | null>;
}

/** Moving records in bulk: between stores (src/cli/migrate.ts) and from files (src/cli/import.ts). */
export interface TransferStore {
  /**
   * A copy of every record and link, read in one transaction. Where the database cannot promise a
   * point-in-time read under concurrent writes (Neo4j is read-committed), a torn copy is refused.
   */
  exportSnapshot(): Promise<Snapshot>;
  /**
   * Upsert every record and link of `snapshot` by id in one transaction (nothing is deleted), then
   * raise the id sequences to at least the snapshot's, so later creates never reuse an id.
   * Importing the same snapshot twice changes nothing. Rejects an inconsistent snapshot (a link to
   * a song or service it does not contain) before writing anything.
   */
  importSnapshot(snapshot: Snapshot): Promise<SnapshotCounts>;
  /**
   * Create the batch's songs, then its services with their setlists, in ONE transaction: all of
   * it or, on any failure (a setlist naming a missing song: CatalogueError), none of it.
   */
  importCatalogue(batch: CatalogueBatch): Promise<ImportedCatalogue>;
  /**
   * After a bulk import (every part of a migration): make the database plan its statements from
   * statistics of the data as it now is. A Neo4j keeps the plans it made while the import was under
   * way, from index statistics of a store still nearly empty: after the 10y history was imported
   * into an emptied database, each setlist read scanned the whole Service(id) index (312,000 rows
   * for 200 setlists, 58 ms on the server) where a seek reads 200 (5 ms), until its plans were
   * made again. SQLite has nothing to do (it keeps no statistics this store relies on).
   */
  replanAfterImport(): Promise<void>;
}

/**
 * For callers that choose dates no other service of the type has (seeds, benches, tests): the
 * record, or a throw naming the holder.
 */
export function expectSlotFree<T>(result: T | SlotTaken): T {
  if (isSlotTaken(result)) throw new Error(`another service (${result.slotTakenBy}) has that date and type`);
  return result;
}
