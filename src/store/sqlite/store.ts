import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { artistKey } from '../../domain/artists';
import { StoreUnavailableError } from '../../errors';
import { usernameKey } from '../keys';
import { assembleSnapshot, checkSnapshot, sequenceFloor, snapshotCounts } from '../snapshot';
import type {
  DateRange,
  LinkResult,
  ServiceInput,
  ServicePatch,
  ServiceRecord,
  Snapshot,
  SnapshotCounts,
  SnapshotLink,
  SongInput,
  SongPatch,
  SongRecord,
  Store,
  UserCredentials,
  UserInput,
  UserPatch,
  UserRecord,
} from '../types';
import type { AnalyticsWindow, SongUsageQuery } from '../analytics-types';
import type { ServiceType } from '../../generated/graphql';
import { SqliteAnalytics } from './analytics';
import { migrate } from './migrations';
import { SQL, type StatementName } from './statements';

type SongRow = { id: number; name: string; artists: string };
type ServiceRow = { id: number; date: number; service_type: ServiceRecord['serviceType'] };
type CredentialsRow = UserRecord & { password_hash: string; token_version: number };
type Keyed<T> = T & { key: number };
type LinkRow = { seq: number; service_id: number; song_id: number; position: number };

const toSong = (r: SongRow): SongRecord => ({ id: r.id, name: r.name, artists: JSON.parse(r.artists) });
const toService = (r: ServiceRow): ServiceRecord => ({ id: r.id, date: r.date, serviceType: r.service_type });
const toCredentials = (r: CredentialsRow): UserCredentials => ({
  id: r.id,
  username: r.username,
  role: r.role,
  passwordHash: r.password_hash,
  tokenVersion: r.token_version,
});

const toLink = (r: LinkRow): SnapshotLink => ({
  serviceId: r.service_id,
  songId: r.song_id,
  position: r.position,
  seq: r.seq,
});

/** Order batch results like the requested ids, null where absent (DataLoader's contract). */
function byIds<T extends { id: number }>(ids: readonly number[], rows: T[]): (T | null)[] {
  const found = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => found.get(id) ?? null);
}

/** Group rows carrying a `key` column into one list per requested key, keeping row order. */
function groupBy<R, T>(keys: readonly number[], rows: Keyed<R>[], map: (r: R) => T): T[][] {
  const groups = new Map<number, T[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(row.key)?.push(map(row));
  return keys.map((k) => groups.get(k) ?? []);
}

// Conditions of the database itself (locked, I/O failure, file gone), as opposed to a bug.
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|NOTADB|CORRUPT)/;

/**
 * The embedded store. better-sqlite3 is synchronous, so each call runs to completion before the
 * next starts in this process; multi-statement writes still run in IMMEDIATE transactions so that
 * they are atomic on disk and safe against a second process on the same file.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly stmts = new Map<StatementName, Database.Statement>();

  constructor(filename: string) {
    if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
    this.db = new Database(filename);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    // WAL with NORMAL sync is durable across application crashes; only an OS crash or power loss
    // can lose the last transactions, never corrupt the file.
    this.db.pragma('synchronous = NORMAL');
    migrate(this.db);
    this.analytics = new SqliteAnalytics(this.db);
  }

  private readonly analytics: SqliteAnalytics;

  // Analytics (src/store/sqlite/analytics.ts)

  songUsage(query: SongUsageQuery) {
    return this.guard(() => this.analytics.songUsage(query));
  }

  usageOfSongs(songIds: readonly number[], window: AnalyticsWindow) {
    return this.guard(() => this.analytics.usageOfSongs(songIds, window));
  }

  songsSungWith(songId: number, window: AnalyticsWindow, limit: number) {
    return this.guard(() => this.analytics.songsSungWith(songId, window, limit));
  }

  serviceSpan(serviceTypes: ServiceType[]) {
    return this.guard(() => this.analytics.serviceSpan(serviceTypes));
  }

  usageTimeline(buckets: readonly { start: number; end: number }[], serviceTypes: ServiceType[], songId: number | null) {
    return this.guard(() => this.analytics.usageTimeline(buckets, serviceTypes, songId));
  }

  artistUsage(window: AnalyticsWindow, page: { limit?: number; offset?: number }) {
    return this.guard(() => this.analytics.artistUsage(window, page));
  }

  private stmt(name: StatementName): Database.Statement {
    let s = this.stmts.get(name);
    if (!s) {
      s = this.db.prepare(SQL[name]);
      this.stmts.set(name, s);
    }
    return s;
  }

  private all<T>(name: StatementName, ...params: unknown[]): T[] {
    return this.stmt(name).all(...params) as T[];
  }

  private get<T>(name: StatementName, ...params: unknown[]): T | undefined {
    return this.stmt(name).get(...params) as T | undefined;
  }

  private run(name: StatementName, ...params: unknown[]): Database.RunResult {
    return this.stmt(name).run(...params);
  }

  /** Run `fn` as one IMMEDIATE transaction, mapping database failures to UNAVAILABLE. */
  private write<T>(fn: () => T): Promise<T> {
    return this.guard(() => this.db.transaction(fn).immediate());
  }

  private async guard<T>(fn: () => T): Promise<T> {
    try {
      return fn();
    } catch (err) {
      const code = (err as { code?: string }).code;
      // A handle closed underneath us (shutdown in progress) is unavailability too, not a bug.
      if ((code && UNAVAILABLE_CODES.test(code)) || !this.db.open) throw new StoreUnavailableError(err);
      throw err;
    }
  }

  // Songs

  listSongs() {
    return this.guard(() => this.all<SongRow>('listSongs').map(toSong));
  }

  songsByIds(ids: readonly number[]) {
    return this.guard(() => byIds(ids, this.all<SongRow>('songsByIds', JSON.stringify(ids)).map(toSong)));
  }

  songsByArtistKey(key: string) {
    return this.guard(() => this.all<SongRow>('songsByArtistKey', key).map(toSong));
  }

  private indexArtists(songId: number, artists: string[]) {
    this.run('deleteArtistKeys', songId);
    for (const artist of artists) this.run('insertArtistKey', artistKey(artist), songId);
  }

  createSong(input: SongInput) {
    return this.write(() => {
      const row = this.get<SongRow>('insertSong', input.name, JSON.stringify(input.artists))!;
      this.indexArtists(row.id, input.artists);
      return toSong(row);
    });
  }

  updateSong(id: number, patch: SongPatch) {
    return this.write(() => {
      const artists = patch.artists === undefined ? null : JSON.stringify(patch.artists);
      const row = this.get<SongRow>('updateSong', patch.name ?? null, artists, id);
      if (!row) return null;
      if (patch.artists) this.indexArtists(id, patch.artists);
      return toSong(row);
    });
  }

  deleteSong(id: number) {
    // Links and artist keys go with the song through ON DELETE CASCADE.
    return this.write(() => this.run('deleteSong', id).changes > 0);
  }

  // Services

  listServices() {
    return this.guard(() => this.all<ServiceRow>('listServices').map(toService));
  }

  servicesByIds(ids: readonly number[]) {
    return this.guard(() =>
      byIds(ids, this.all<ServiceRow>('servicesByIds', JSON.stringify(ids)).map(toService)),
    );
  }

  servicesInRange(range: DateRange) {
    return this.guard(() => this.all<ServiceRow>('servicesInRange', range.min, range.max).map(toService));
  }

  createService(input: ServiceInput) {
    return this.write(() => toService(this.get<ServiceRow>('insertService', input.date, input.serviceType)!));
  }

  updateService(id: number, patch: ServicePatch) {
    return this.write(() => {
      const row = this.get<ServiceRow>('updateService', patch.date ?? null, patch.serviceType ?? null, id);
      return row ? toService(row) : null;
    });
  }

  deleteService(id: number) {
    return this.write(() => this.run('deleteService', id).changes > 0);
  }

  // PERFORMED_IN

  setlistsForServices(serviceIds: readonly number[]) {
    return this.guard(() =>
      groupBy(serviceIds, this.all<Keyed<SongRow>>('setlists', JSON.stringify(serviceIds)), toSong),
    );
  }

  servicesForSongs(songIds: readonly number[]) {
    return this.guard(() =>
      groupBy(songIds, this.all<Keyed<ServiceRow>>('servicesForSongs', JSON.stringify(songIds)), toService),
    );
  }

  private missing(serviceId: number, songId?: number): LinkResult {
    if (!this.get('serviceExists', serviceId)) return 'no-service';
    if (songId !== undefined && !this.get('songExists', songId)) return 'no-song';
    return 'ok';
  }

  linkSong(serviceId: number, songId: number, position?: number) {
    return this.write((): LinkResult => {
      const found = this.missing(serviceId, songId);
      if (found !== 'ok') return found;
      if (position === undefined) this.run('linkAtEnd', { serviceId, songId });
      else this.run('linkAt', serviceId, songId, position);
      return 'ok';
    });
  }

  unlinkSong(serviceId: number, songId: number) {
    return this.write((): LinkResult | 'not-linked' => {
      const found = this.missing(serviceId, songId);
      if (found !== 'ok') return found;
      return this.run('unlink', serviceId, songId).changes > 0 ? 'ok' : 'not-linked';
    });
  }

  replaceSetlist(serviceId: number, songIds: readonly number[]) {
    return this.write((): LinkResult => {
      if (!this.get('serviceExists', serviceId)) return 'no-service';
      const existing = new Set(this.stmt('songsExisting').pluck().all(JSON.stringify(songIds)) as number[]);
      if (songIds.some((id) => !existing.has(id))) return 'no-song';
      this.run('clearSetlist', serviceId);
      songIds.forEach((songId, i) => this.run('linkAt', serviceId, songId, i + 1));
      return 'ok';
    });
  }

  // Users

  listUsers() {
    return this.guard(() => this.all<UserRecord>('listUsers'));
  }

  usersByIds(ids: readonly number[]) {
    return this.guard(() => byIds(ids, this.all<UserRecord>('usersByIds', JSON.stringify(ids))));
  }

  credentialsByUsername(username: string) {
    return this.guard(() => {
      const row = this.get<CredentialsRow>('credentialsByKey', usernameKey(username));
      return row ? toCredentials(row) : null;
    });
  }

  credentialsById(id: number) {
    return this.guard(() => {
      const row = this.get<CredentialsRow>('credentialsById', id);
      return row ? toCredentials(row) : null;
    });
  }

  createUser(input: UserInput) {
    return this.write(
      () =>
        this.get<UserRecord>('insertUser', input.username, usernameKey(input.username), input.passwordHash, input.role) ??
        null,
    );
  }

  private isLastAdmin(id: number): boolean {
    const role = this.get<{ role: string }>('userRole', id)?.role;
    return role === 'ADMIN' && (this.stmt('countAdmins').pluck().get() as number) <= 1;
  }

  updateUser(id: number, patch: UserPatch) {
    return this.write((): UserRecord | null | 'conflict' | 'last-admin' => {
      if (!this.get('userRole', id)) return null;
      const key = patch.username === undefined ? null : usernameKey(patch.username);
      if (key !== null && this.get('userKeyTaken', key, id)) return 'conflict';
      if (patch.role === 'USER' && this.isLastAdmin(id)) return 'last-admin';
      return this.get<UserRecord>('updateUser', {
        username: patch.username ?? null,
        usernameKey: key,
        passwordHash: patch.passwordHash ?? null,
        role: patch.role ?? null,
        id,
      })!;
    });
  }

  deleteUser(id: number) {
    return this.write((): boolean | 'last-admin' => {
      if (this.isLastAdmin(id)) return 'last-admin';
      return this.run('deleteUser', id).changes > 0;
    });
  }

  // Snapshots

  exportSnapshot() {
    // One deferred read transaction: under WAL it sees a single consistent state of every table.
    return this.guard(() =>
      this.db.transaction((): Snapshot => {
        const songs = this.all<SongRow>('exportSongs').map(toSong);
        const services = this.all<ServiceRow>('exportServices').map(toService);
        const links = this.all<LinkRow>('exportLinks').map(toLink);
        const users = this.all<CredentialsRow>('exportUsers').map(toCredentials);
        const issued = new Map(this.all<{ name: string; seq: number }>('exportSequences').map((r) => [r.name, r.seq]));
        return assembleSnapshot(
          { songs, services, links, users },
          {
            song: issued.get('songs'),
            service: issued.get('services'),
            user: issued.get('users'),
            link: issued.get('performed_in'),
          },
        );
      })(),
    );
  }

  async importSnapshot(snapshot: Snapshot) {
    checkSnapshot(snapshot);
    return this.write((): SnapshotCounts => {
      for (const s of snapshot.songs) {
        this.run('importSong', s.id, s.name, JSON.stringify(s.artists));
        this.indexArtists(s.id, s.artists);
      }
      for (const v of snapshot.services) this.run('importService', v.id, v.date, v.serviceType);
      for (const u of snapshot.users) {
        this.run('importUser', u.id, u.username, usernameKey(u.username), u.passwordHash, u.role, u.tokenVersion);
      }
      for (const l of snapshot.links) this.run('importLink', l.seq, l.serviceId, l.songId, l.position);
      const floor = sequenceFloor(snapshot);
      const tables = { songs: floor.song, services: floor.service, users: floor.user, performed_in: floor.link };
      for (const [table, value] of Object.entries(tables)) {
        this.run('insertSequence', { name: table });
        this.run('raiseSequence', { name: table, value });
      }
      return snapshotCounts(snapshot);
    });
  }

  ping() {
    return this.guard(() => {
      this.get('ping');
    });
  }

  async close() {
    if (this.db.open) this.db.close();
  }
}
