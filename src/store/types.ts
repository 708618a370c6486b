import type { Role, Service, ServiceType, Song, User } from '../generated/graphql';
import type { AnalyticsStore } from './analytics-types';

/** A song as stored: the schema's Song without its relation field. */
export type SongRecord = Omit<Song, 'services' | 'usage'>;
/** A service as stored: `date` is epoch milliseconds. */
export type ServiceRecord = Omit<Service, 'songs'>;
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
}
export type SongPatch = Partial<SongInput>;

export interface ServiceInput {
  date: number;
  serviceType: ServiceType;
}
export type ServicePatch = Partial<ServiceInput>;

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
 * Outcome of a write that can fail on a missing record or a broken rule. Adapters return these
 * instead of throwing so that both stores report the same conditions the same way.
 */
export type LinkResult = 'ok' | 'no-service' | 'no-song';

/** One PERFORMED_IN link in a snapshot. `seq` is the link order: unique and increasing per store. */
export interface SnapshotLink {
  serviceId: number;
  songId: number;
  position: number;
  seq: number;
}

/**
 * Everything a store holds, for moving between stores (scripts/migrate.ts). `sequences` are the
 * highest ids ever issued, which can exceed the highest id present (deleted records): carrying
 * them over keeps ids from being reused in the target store.
 */
export interface Snapshot {
  format: 'worship-records-snapshot';
  version: 1;
  /** Ordered by id. */
  songs: SongRecord[];
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

/**
 * The storage contract. Both adapters (SQLite, Neo4j) implement it and pass the same contract
 * suite (test/store.contract.test.ts). Lists come back in the order the API promises.
 * Batch reads (`*ByIds`, `*For*`) take many keys and answer in one round trip: DataLoader uses
 * them so a request costs a constant number of store calls.
 */
export interface Store extends AnalyticsStore {
  readonly kind: 'sqlite' | 'neo4j';

  // Songs
  listSongs(): Promise<SongRecord[]>;
  /** Same length and order as `ids`; null where no song has that id. */
  songsByIds(ids: readonly number[]): Promise<(SongRecord | null)[]>;
  /** `artistKey` is already normalised with `artistKey()` (src/domain/artists.ts). */
  songsByArtistKey(artistKey: string): Promise<SongRecord[]>;
  createSong(input: SongInput): Promise<SongRecord>;
  updateSong(id: number, patch: SongPatch): Promise<SongRecord | null>;
  /** Also removes the song's performance links. False when there was no such song. */
  deleteSong(id: number): Promise<boolean>;

  // Services
  listServices(): Promise<ServiceRecord[]>;
  servicesByIds(ids: readonly number[]): Promise<(ServiceRecord | null)[]>;
  /** Ordered by date, then id. */
  servicesInRange(range: DateRange): Promise<ServiceRecord[]>;
  createService(input: ServiceInput): Promise<ServiceRecord>;
  updateService(id: number, patch: ServicePatch): Promise<ServiceRecord | null>;
  deleteService(id: number): Promise<boolean>;

  // PERFORMED_IN links
  /** Setlists of many services: position ascending, then link order. Same order as `serviceIds`. */
  setlistsForServices(serviceIds: readonly number[]): Promise<SongRecord[][]>;
  /** Services each song was performed in, by date then id. Same order as `songIds`. */
  servicesForSongs(songIds: readonly number[]): Promise<ServiceRecord[][]>;
  /**
   * Link a song to a service. Without a position a new link goes last and an existing link keeps
   * its place; with one, the link takes that position.
   */
  linkSong(serviceId: number, songId: number, position?: number): Promise<LinkResult>;
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

  // Moving between stores
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

  /** Resolves when the store answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
