import neo4j, { type Driver, type ManagedTransaction, type Record as Neo4jRecord } from 'neo4j-driver';
import { artistKey } from '../../domain/artists';
import { usernameKey } from '../keys';
import {
  SnapshotError,
  assembleSnapshot,
  checkSnapshot,
  sequenceFloor,
  snapshotCounts,
} from '../snapshot';
import type {
  DateRange,
  LinkResult,
  ServiceInput,
  ServicePatch,
  Snapshot,
  SnapshotCounts,
  SongInput,
  SongPatch,
  Store,
  UserInput,
  UserPatch,
  UserRecord,
} from '../types';
import { Neo4jAnalytics } from './analytics';
import { NEO4J_TIMEOUTS, isUniquenessViolation, toStoreError } from './driver';
import { CYPHER, PARAMS, type StatementName } from './statements';
import {
  checkParams,
  fromInt,
  groupByIndex,
  placeByIndex,
  toCredentials,
  toInt,
  toService,
  toSong,
  toUser,
} from './values';

type Tx = Pick<ManagedTransaction, 'run'>;

/** Run one named statement with parameters checked against its declaration. */
async function run(tx: Tx, name: StatementName, params: Record<string, unknown> = {}): Promise<Neo4jRecord[]> {
  checkParams(name, PARAMS[name], params);
  const result = await tx.run(CYPHER[name], params);
  return result.records;
}

/** The single row of a statement that always returns one (aggregations, RETURN 1). */
async function one(tx: Tx, name: StatementName, params: Record<string, unknown> = {}): Promise<Neo4jRecord> {
  const [row] = await run(tx, name, params);
  if (!row) throw new Error(`Cypher statement ${name} returned no row`);
  return row;
}

// Sorted so that concurrent writers MERGE shared Artist nodes in one order and cannot deadlock on them.
const distinctKeys = (artists: string[]) => [...new Set(artists.map(artistKey))].sort();
const orNull = <T, U>(value: T | undefined, map: (v: T) => U): U | null => (value === undefined ? null : map(value));

/** Imports send rows in slices so no single statement builds an unbounded parameter list. */
const IMPORT_BATCH = 1000;
function* slices<T>(items: T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += IMPORT_BATCH) yield items.slice(i, i + IMPORT_BATCH);
}

const SEQUENCE_NAMES = { song: 'Song', service: 'Service', user: 'User', link: 'PERFORMED_IN' } as const;

export interface Neo4jStoreOptions {
  database?: string;
  transactionTimeoutMs?: number;
}

/**
 * The graph store. It owns its driver (one per process: the driver is the connection pool) and
 * runs every call as a managed transaction, which the driver retries on transient failures; the
 * work functions therefore only read and write the database, with no other side effects.
 */
export class Neo4jStore implements Store {
  readonly kind = 'neo4j' as const;

  constructor(
    private readonly driver: Driver,
    private readonly options: Neo4jStoreOptions = {},
  ) {}

  // Analytics (./analytics.ts), each one read transaction.
  private readonly analytics = new Neo4jAnalytics((work) => this.read(work));
  songUsage: Store['songUsage'] = (q) => this.analytics.songUsage(q);
  usageOfSongs: Store['usageOfSongs'] = (ids, w) => this.analytics.usageOfSongs(ids, w);
  songsSungWith: Store['songsSungWith'] = (id, w, limit) => this.analytics.songsSungWith(id, w, limit);
  serviceSpan: Store['serviceSpan'] = (types) => this.analytics.serviceSpan(types);
  usageTimeline: Store['usageTimeline'] = (buckets, types, songId) => this.analytics.usageTimeline(buckets, types, songId);
  artistUsage: Store['artistUsage'] = (w, page) => this.analytics.artistUsage(w, page);

  private async transact<T>(
    mode: 'READ' | 'WRITE',
    work: (tx: Tx) => Promise<T>,
    timeoutMs = this.options.transactionTimeoutMs ?? NEO4J_TIMEOUTS.transactionTimeoutMs,
  ): Promise<T> {
    const session = this.driver.session({
      database: this.options.database,
      defaultAccessMode: mode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE,
      // One bookmark manager for every session: on a cluster, a read that follows a write (even
      // from another request) waits for that write, so a client always reads its own changes.
      bookmarkManager: this.driver.executeQueryBookmarkManager,
    });
    try {
      const config = { timeout: timeoutMs };
      return await (mode === 'READ' ? session.executeRead(work, config) : session.executeWrite(work, config));
    } catch (err) {
      throw toStoreError(err);
    } finally {
      // Closing a session whose connection died can itself fail; the original error matters more.
      await session.close().catch(() => undefined);
    }
  }

  private read<T>(work: (tx: Tx) => Promise<T>) {
    return this.transact('READ', work);
  }

  private write<T>(work: (tx: Tx) => Promise<T>) {
    return this.transact('WRITE', work);
  }

  // Songs

  async listSongs() {
    return (await this.read((tx) => run(tx, 'listSongs'))).map(toSong);
  }

  async songsByIds(ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'songsByIds', { ids: ids.map(toInt) }));
    return placeByIndex(ids.length, rows, toSong);
  }

  async songsByArtistKey(key: string) {
    return (await this.read((tx) => run(tx, 'songsByArtistKey', { artistKey: key }))).map(toSong);
  }

  createSong(input: SongInput) {
    return this.write(async (tx) =>
      toSong(
        await one(tx, 'createSong', {
          name: input.name,
          artists: input.artists,
          artistKeys: distinctKeys(input.artists),
        }),
      ),
    );
  }

  updateSong(id: number, patch: SongPatch) {
    return this.write(async (tx) => {
      const [row] = await run(tx, 'updateSong', { id: toInt(id), name: patch.name ?? null, artists: patch.artists ?? null });
      if (!row) return null;
      if (patch.artists !== undefined) {
        await run(tx, 'setSongArtists', { rows: [{ id: toInt(id), artistKeys: distinctKeys(patch.artists) }] });
      }
      return toSong(row);
    });
  }

  deleteSong(id: number) {
    // DETACH DELETE takes the PERFORMED_IN and BY edges with the song.
    return this.write(async (tx) => fromInt((await one(tx, 'deleteSong', { id: toInt(id) })).get('deleted'), 'count') > 0);
  }

  // Services

  async listServices() {
    return (await this.read((tx) => run(tx, 'listServices'))).map(toService);
  }

  async servicesByIds(ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'servicesByIds', { ids: ids.map(toInt) }));
    return placeByIndex(ids.length, rows, toService);
  }

  async servicesInRange(range: DateRange) {
    const rows = await this.read((tx) => run(tx, 'servicesInRange', { min: toInt(range.min), max: toInt(range.max) }));
    return rows.map(toService);
  }

  createService(input: ServiceInput) {
    return this.write(async (tx) =>
      toService(await one(tx, 'createService', { date: toInt(input.date), serviceType: input.serviceType })),
    );
  }

  updateService(id: number, patch: ServicePatch) {
    return this.write(async (tx) => {
      const [row] = await run(tx, 'updateService', {
        id: toInt(id),
        date: orNull(patch.date, toInt),
        serviceType: patch.serviceType ?? null,
      });
      return row ? toService(row) : null;
    });
  }

  deleteService(id: number) {
    return this.write(
      async (tx) => fromInt((await one(tx, 'deleteService', { id: toInt(id) })).get('deleted'), 'count') > 0,
    );
  }

  // PERFORMED_IN

  async setlistsForServices(serviceIds: readonly number[]) {
    if (serviceIds.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'setlists', { ids: serviceIds.map(toInt) }));
    return groupByIndex(serviceIds.length, rows, toSong);
  }

  async servicesForSongs(songIds: readonly number[]) {
    if (songIds.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'servicesForSongs', { ids: songIds.map(toInt) }));
    return groupByIndex(songIds.length, rows, toService);
  }

  /** Which record is missing, checked in the caller's write transaction. */
  private async targets(tx: Tx, serviceId: number, songIds: readonly number[]): Promise<LinkResult> {
    const distinct = [...new Set(songIds)];
    const row = await one(tx, 'linkTargets', { serviceId: toInt(serviceId), songIds: distinct.map(toInt) });
    if (!row.get('service')) return 'no-service';
    return fromInt(row.get('songs'), 'count') < distinct.length ? 'no-song' : 'ok';
  }

  /** Take `count` link seqs (and the lock that serialises link writes); returns the first minus one. */
  private async reserveLinkSeqs(tx: Tx, count: number): Promise<number> {
    return fromInt((await one(tx, 'reserveLinkSeqs', { count: toInt(count) })).get('base'), 'link seq');
  }

  linkSong(serviceId: number, songId: number, position?: number) {
    return this.write(async (tx): Promise<LinkResult> => {
      const found = await this.targets(tx, serviceId, [songId]);
      if (found !== 'ok') return found;
      const base = await this.reserveLinkSeqs(tx, 1);
      await run(tx, 'linkSong', {
        serviceId: toInt(serviceId),
        songId: toInt(songId),
        position: orNull(position, toInt),
        seq: toInt(base + 1),
      });
      return 'ok';
    });
  }

  unlinkSong(serviceId: number, songId: number) {
    return this.write(async (tx): Promise<LinkResult | 'not-linked'> => {
      const found = await this.targets(tx, serviceId, [songId]);
      if (found !== 'ok') return found;
      const row = await one(tx, 'unlinkSong', { serviceId: toInt(serviceId), songId: toInt(songId) });
      return fromInt(row.get('removed'), 'count') > 0 ? 'ok' : 'not-linked';
    });
  }

  replaceSetlist(serviceId: number, songIds: readonly number[]) {
    return this.write(async (tx): Promise<LinkResult> => {
      const found = await this.targets(tx, serviceId, songIds);
      if (found !== 'ok') return found;
      const base = await this.reserveLinkSeqs(tx, songIds.length);
      await run(tx, 'clearSetlist', { serviceId: toInt(serviceId) });
      await run(tx, 'fillSetlist', { serviceId: toInt(serviceId), songIds: songIds.map(toInt), base: toInt(base) });
      return 'ok';
    });
  }

  // Users

  async listUsers() {
    return (await this.read((tx) => run(tx, 'listUsers'))).map(toUser);
  }

  async usersByIds(ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'usersByIds', { ids: ids.map(toInt) }));
    return placeByIndex(ids.length, rows, toUser);
  }

  async credentialsByUsername(username: string) {
    const [row] = await this.read((tx) => run(tx, 'credentialsByKey', { usernameKey: usernameKey(username) }));
    return row ? toCredentials(row) : null;
  }

  async credentialsById(id: number) {
    const [row] = await this.read((tx) => run(tx, 'credentialsById', { id: toInt(id) }));
    return row ? toCredentials(row) : null;
  }

  async createUser(input: UserInput) {
    try {
      return await this.write(async (tx) => {
        const [row] = await run(tx, 'createUser', {
          username: input.username,
          usernameKey: usernameKey(input.username),
          passwordHash: input.passwordHash,
          role: input.role,
        });
        return row ? toUser(row) : null;
      });
    } catch (err) {
      // A concurrent create of the same name got past the check first; the constraint caught it.
      if (isUniquenessViolation(err)) return null;
      throw err;
    }
  }

  /** Caller must hold the users lock (lockUsers) so the count cannot change before commit. */
  private async isLastAdmin(tx: Tx, role: unknown): Promise<boolean> {
    if (role !== 'ADMIN') return false;
    return fromInt((await one(tx, 'countAdmins')).get('admins'), 'count') <= 1;
  }

  async updateUser(id: number, patch: UserPatch) {
    try {
      return await this.write(async (tx): Promise<UserRecord | null | 'conflict' | 'last-admin'> => {
        const demoting = patch.role === 'USER';
        if (demoting) await run(tx, 'lockUsers');
        const [current] = await run(tx, 'userRole', { id: toInt(id) });
        if (!current) return null;
        const key = orNull(patch.username, usernameKey);
        if (key !== null) {
          const taken = await one(tx, 'userKeyTaken', { id: toInt(id), usernameKey: key });
          if (fromInt(taken.get('taken'), 'count') > 0) return 'conflict';
        }
        if (demoting && (await this.isLastAdmin(tx, current.get('role')))) return 'last-admin';
        const row = await one(tx, 'updateUser', {
          id: toInt(id),
          username: patch.username ?? null,
          usernameKey: key,
          passwordHash: patch.passwordHash ?? null,
          role: patch.role ?? null,
        });
        return toUser(row);
      });
    } catch (err) {
      if (isUniquenessViolation(err)) return 'conflict';
      throw err;
    }
  }

  deleteUser(id: number) {
    return this.write(async (tx): Promise<boolean | 'last-admin'> => {
      await run(tx, 'lockUsers');
      const [current] = await run(tx, 'userRole', { id: toInt(id) });
      if (!current) return false;
      if (await this.isLastAdmin(tx, current.get('role'))) return 'last-admin';
      return fromInt((await one(tx, 'deleteUser', { id: toInt(id) })).get('deleted'), 'count') > 0;
    });
  }

  // Snapshots

  async exportSnapshot(): Promise<Snapshot> {
    const snapshot = await this.read(async (tx): Promise<Snapshot> => {
      const songs = (await run(tx, 'listSongs')).map(toSong);
      const services = (await run(tx, 'exportServices')).map(toService);
      const links = (await run(tx, 'exportLinks')).map((r) => ({
        serviceId: fromInt(r.get('serviceId'), 'service id'),
        songId: fromInt(r.get('songId'), 'song id'),
        position: fromInt(r.get('position'), 'position'),
        seq: fromInt(r.get('seq'), 'link seq'),
      }));
      const users = (await run(tx, 'exportUsers')).map(toCredentials);
      const issued = new Map(
        (await run(tx, 'exportSequences')).map((r) => [r.get('name') as string, fromInt(r.get('value'), 'sequence')]),
      );
      return assembleSnapshot(
        { songs, services, links, users },
        {
          song: issued.get(SEQUENCE_NAMES.song),
          service: issued.get(SEQUENCE_NAMES.service),
          user: issued.get(SEQUENCE_NAMES.user),
          link: issued.get(SEQUENCE_NAMES.link),
        },
      );
    });
    // Neo4j reads are read-committed, even within one transaction: a write landing between the
    // statements above can leave a link to a song this export missed. Refuse rather than copy it.
    try {
      checkSnapshot(snapshot);
    } catch (err) {
      throw new SnapshotError(
        `the database changed while it was being exported (${(err as Error).message}); stop writers and retry`,
      );
    }
    return snapshot;
  }

  async importSnapshot(snapshot: Snapshot): Promise<SnapshotCounts> {
    checkSnapshot(snapshot);
    const floor = sequenceFloor(snapshot);
    // One transaction: all or nothing. Allow it far longer than a request's transaction.
    return this.transact(
      'WRITE',
      async (tx) => {
        for (const part of slices(snapshot.songs)) {
          await run(tx, 'importSongs', {
            rows: part.map((s) => ({ id: toInt(s.id), name: s.name, artists: s.artists })),
          });
          await run(tx, 'setSongArtists', {
            rows: part.map((s) => ({ id: toInt(s.id), artistKeys: distinctKeys(s.artists) })),
          });
        }
        for (const part of slices(snapshot.services)) {
          await run(tx, 'importServices', {
            rows: part.map((v) => ({ id: toInt(v.id), date: toInt(v.date), serviceType: v.serviceType })),
          });
        }
        for (const part of slices(snapshot.users)) {
          await run(tx, 'importUsers', {
            rows: part.map((u) => ({
              id: toInt(u.id),
              username: u.username,
              usernameKey: usernameKey(u.username),
              passwordHash: u.passwordHash,
              role: u.role,
              tokenVersion: toInt(u.tokenVersion),
            })),
          });
        }
        for (const part of slices(snapshot.links)) {
          await run(tx, 'importLinks', {
            rows: part.map((l) => ({
              serviceId: toInt(l.serviceId),
              songId: toInt(l.songId),
              position: toInt(l.position),
              seq: toInt(l.seq),
            })),
          });
        }
        await run(tx, 'raiseSequences', {
          rows: (Object.keys(SEQUENCE_NAMES) as (keyof typeof SEQUENCE_NAMES)[]).map((k) => ({
            name: SEQUENCE_NAMES[k],
            value: toInt(floor[k]),
          })),
        });
        return snapshotCounts(snapshot);
      },
      10 * 60_000,
    );
  }

  async ping() {
    await this.read((tx) => one(tx, 'ping'));
  }

  async close() {
    await this.driver.close();
  }
}
