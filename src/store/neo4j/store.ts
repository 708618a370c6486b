import { Info } from 'luxon';
import neo4j, { type Driver, type ManagedTransaction, type Record as Neo4jRecord } from 'neo4j-driver';
import { artistKey } from '../../domain/artists';
import { luceneQuery } from '../../domain/search';
import { SERVICE_AFTER, SERVICE_PAGE, SONG_AFTER, SONG_PAGE } from '../list-statements';
import { ALL_SERVICE_TYPES } from '../paging';
import {
  orderAfterLink,
  orderAfterUnlink,
  placesToWrite,
  songIds,
  type PlacedSong,
} from '../../domain/setlist';
import { usernameKey } from '../keys';
import {
  SnapshotError,
  assembleSnapshot,
  checkSnapshot,
  licensingBySong,
  licensingOf,
  sequenceFloor,
  snapshotCounts,
} from '../snapshot';
import { CatalogueError, checkSetlist } from '../catalogue';
import type {
  CatalogueBatch,
  DateRange,
  ImportedCatalogue,
  ServiceRecord,
  SongRecord,
  KeysetPage,
  KeysetResult,
  LinkResult,
  Page,
  Paged,
  ServiceFilter,
  ServiceQuery,
  ServiceInput,
  ServicePatch,
  Snapshot,
  SnapshotCounts,
  SongInput,
  SongPatch,
  SongQuery,
  SongSort,
  Store,
  UserInput,
  UserPatch,
  UserRecord,
} from '../types';
import { Neo4jAnalytics } from './analytics';
import type { SetlistState, SetlistTransition, WriteEffects } from './maintained';
import { pairDeltas } from './pairs';
import { movePeriods, openTimeline } from './timeline';
import { NEO4J_TIMEOUTS, isUniquenessViolation, toStoreError } from './driver';
import { CYPHER, PARAMS, type StatementName } from './statements';
import {
  checkParams,
  fromInt,
  groupByIndex,
  placeByIndex,
  toCredentials,
  toInt,
  toLicensing,
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

/** The count a statement returns in `column` (its one row). */
async function count(tx: Tx, name: StatementName, column: string, params: Record<string, unknown> = {}) {
  return fromInt((await one(tx, name, params)).get(column), `${name}.${column}`);
}

/**
 * Thrown inside a write transaction to roll it back while still answering `outcome`: a write that
 * did not do what it meant to must leave nothing behind, yet the caller may have a proper answer
 * (the song went away: 'no-song').
 */
class RolledBack<T> extends Error {
  constructor(
    readonly outcome: T,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * Run a write statement and check the count it returns: when it wrote other than `expected`,
 * roll back, answering `outcome` if one is given, failing (a bug or a broken invariant) otherwise.
 */
async function expectWrote(
  tx: Tx,
  name: StatementName,
  column: string,
  expected: number,
  params: Record<string, unknown>,
  ...outcome: [] | [unknown]
): Promise<void> {
  const wrote = await count(tx, name, column, params);
  if (wrote === expected) return;
  const reason = `Cypher statement ${name} wrote ${wrote} where ${expected} were meant; rolled back`;
  throw outcome.length > 0 ? new RolledBack(outcome[0], reason) : new Error(reason);
}

const ascending = (ids: readonly number[]) => [...new Set(ids)].sort((a, b) => a - b);

/** A service's setlist state (./maintained.ts) from its record and its stored setlist. */
const stateOf = (v: Pick<ServiceRecord, 'serviceType' | 'date'>, setlist: readonly PlacedSong[]): SetlistState => ({
  songIds: songIds(setlist),
  serviceType: v.serviceType,
  date: v.date,
});

/**
 * The songs whose maintained usage (./statements.ts) changes when a setlist goes from order
 * `before` to order `after` (song ids, first to last): those linked or unlinked, and those that
 * stop or start opening or closing it. A song that only moves inside the setlist keeps its
 * count, dates and ends. Ascending.
 */
export function usageChangedBy(before: readonly number[], after: readonly number[]): number[] {
  const changed = new Set<number>();
  const [was, is] = [new Set(before), new Set(after)];
  for (const id of before) if (!is.has(id)) changed.add(id);
  for (const id of after) if (!was.has(id)) changed.add(id);
  for (const end of [0, -1]) {
    const [old, now] = [before.at(end), after.at(end)];
    if (old === now) continue;
    if (old !== undefined) changed.add(old);
    if (now !== undefined) changed.add(now);
  }
  return ascending([...changed]);
}

// Sorted so that concurrent writers MERGE shared Artist nodes in one order and cannot deadlock on them.
const distinctKeys = (artists: string[]) => [...new Set(artists.map(artistKey))].sort();

/** createSong's parameters (createSong, importCatalogue): licensing details absent are null. */
const createSongParams = (input: SongInput) => ({
  name: input.name,
  artists: input.artists,
  artistKeys: distinctKeys(input.artists),
  ccliNumber: input.ccliNumber ?? null,
  copyright: input.copyright ?? null,
});
const orNull = <T, U>(value: T | undefined, map: (v: T) => U): U | null => (value === undefined ? null : map(value));

/** Imports send rows in slices so no single statement builds an unbounded parameter list. */
const IMPORT_BATCH = 1000;
function* slices<T>(items: T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += IMPORT_BATCH) yield items.slice(i, i + IMPORT_BATCH);
}

/** SKIP/LIMIT parameters; no limit is the largest safe integer (Cypher has no "no limit" value). */
const limits = (page: Page = {}) => ({ offset: toInt(page.offset ?? 0), limit: toInt(page.limit ?? Number.MAX_SAFE_INTEGER) });
const typesParam = (filter: ServiceFilter = {}) => [...(filter.serviceTypes ?? ALL_SERVICE_TYPES)];
const totalOf = (row: Neo4jRecord) => fromInt(row.get('total'), 'count');

type Params = Record<string, unknown>;

const SEQUENCE_NAMES = { song: 'Song', service: 'Service', user: 'User', link: 'PERFORMED_IN' } as const;

export interface Neo4jStoreOptions {
  database?: string;
  transactionTimeoutMs?: number;
  /** SERVICE_TIME_ZONE: the zone of the maintained timeline periods (./periods.ts). Default UTC. */
  serviceTimeZone?: string;
}

/** Transactions that may read a whole history: snapshot imports, the timeline rebuild. */
const LONG_TRANSACTION_MS = 10 * 60_000;

/**
 * The graph store. It owns its driver (one per process: the driver is the connection pool) and
 * runs every call as a managed transaction, which the driver retries on transient failures; the
 * work functions therefore only read and write the database, with no other side effects.
 */
export class Neo4jStore implements Store {
  readonly kind = 'neo4j' as const;

  private readonly zone: string;
  private readonly analytics: Neo4jAnalytics;

  constructor(
    private readonly driver: Driver,
    private readonly options: Neo4jStoreOptions = {},
  ) {
    this.zone = options.serviceTimeZone ?? 'UTC';
    // The periods' calendars would silently come out invalid (NaN instants) in an unknown zone.
    if (!Info.isValidIANAZone(this.zone)) throw new Error(`SERVICE_TIME_ZONE ${JSON.stringify(this.zone)} is not an IANA time zone`);
    this.analytics = new Neo4jAnalytics((work) => this.read(work), this.zone);
  }

  // Analytics (./analytics.ts), each one read transaction.
  songUsage: Store['songUsage'] = (q) => this.analytics.songUsage(q);
  usageOfSongs: Store['usageOfSongs'] = (ids, w) => this.analytics.usageOfSongs(ids, w);
  songsSungWith: Store['songsSungWith'] = (id, w, limit) => this.analytics.songsSungWith(id, w, limit);
  serviceSpan: Store['serviceSpan'] = (types) => this.analytics.serviceSpan(types);
  usageTimeline: Store['usageTimeline'] = (buckets, window, songId) => this.analytics.usageTimeline(buckets, window, songId);
  artistUsage: Store['artistUsage'] = (w, page) => this.analytics.artistUsage(w, page);
  songsSungOften: Store['songsSungOften'] = (q) => this.analytics.songsSungOften(q);

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
      if (err instanceof RolledBack) return err.outcome as T;
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

  /** A page and its count, read in one transaction. */
  private paged<T>(page: [StatementName, Params], count: [StatementName, Params], map: (r: Neo4jRecord) => T) {
    return this.read(
      async (tx): Promise<Paged<T>> => ({
        items: (await run(tx, ...page)).map(map),
        totalCount: totalOf(await one(tx, ...count)),
      }),
    );
  }

  /** A keyset page: one row more than asked says whether another page follows. */
  private keyset<T>(name: StatementName, params: Params, count: [StatementName, Params], page: KeysetPage, map: (r: Neo4jRecord) => T) {
    return this.read(async (tx): Promise<KeysetResult<T>> => {
      const rows = await run(tx, name, { ...params, limit: toInt(page.first + 1) });
      return {
        items: rows.slice(0, page.first).map(map),
        hasNextPage: rows.length > page.first,
        totalCount: totalOf(await one(tx, ...count)),
      };
    });
  }

  /** Per-parent pages of a relation read and their totals, in one transaction. */
  private async relation<T>(
    ids: readonly number[],
    rows: StatementName,
    counts: StatementName,
    where: Params,
    page: Page | undefined,
    map: (r: Neo4jRecord) => T,
  ): Promise<Paged<T>[]> {
    if (ids.length === 0) return [];
    const params = { ids: ids.map(toInt), ...where };
    const [items, totals] = await this.read(
      async (tx) => [await run(tx, rows, { ...params, ...limits(page) }), await run(tx, counts, params)] as const,
    );
    const groups = groupByIndex(ids.length, items, map);
    const out = groups.map((g) => ({ items: g, totalCount: 0 }));
    for (const row of totals) out[fromInt(row.get('i'), 'batch index')].totalCount = totalOf(row);
    return out;
  }

  // Songs

  listSongs(query: SongQuery, page: Page) {
    if (query.search !== undefined) {
      const q = luceneQuery(query.search);
      if (q === null) return Promise.resolve({ items: [], totalCount: 0 });
      return this.paged(['searchSongs', { query: q, ...limits(page) }], ['countSearch', { query: q }], toSong);
    }
    return this.paged([SONG_PAGE[query.sort ?? 'ID_ASC'], limits(page)], ['countSongs', {}], toSong);
  }

  songsAfter(sort: SongSort, page: KeysetPage) {
    if (!page.after) return this.keyset(SONG_PAGE[sort], { offset: toInt(0) }, ['countSongs', {}], page, toSong);
    const { key, id } = page.after;
    const params = sort.startsWith('ID') ? { id: toInt(id) } : { key, id: toInt(id) };
    return this.keyset(SONG_AFTER[sort], params, ['countSongs', {}], page, toSong);
  }

  async songsByIds(ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'songsByIds', { ids: ids.map(toInt) }));
    return placeByIndex(ids.length, rows, toSong);
  }

  async licensingOfSongs(ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'songsLicensing', { ids: ids.map(toInt) }));
    return placeByIndex(ids.length, rows, toLicensing);
  }

  songsByArtistKey(key: string, page: Page) {
    return this.paged(
      ['songsByArtistKey', { artistKey: key, ...limits(page) }],
      ['countByArtistKey', { artistKey: key }],
      toSong,
    );
  }

  createSong(input: SongInput) {
    return this.write(async (tx) => {
      const song = toSong(await one(tx, 'createSong', createSongParams(input)));
      await this.refreshArtists(tx, [song.id]);
      return song;
    });
  }

  updateSong(id: number, patch: SongPatch) {
    return this.write(async (tx) => {
      const [row] = await run(tx, 'updateSong', {
        id: toInt(id),
        name: patch.name ?? null,
        artists: patch.artists ?? null,
        setCcliNumber: patch.ccliNumber !== undefined,
        ccliNumber: patch.ccliNumber ?? null,
        setCopyright: patch.copyright !== undefined,
        copyright: patch.copyright ?? null,
      });
      if (!row) return null;
      if (patch.artists !== undefined) {
        // The artists it leaves, read before the re-pointing (updateSong's SET holds the song's lock).
        const left = await this.artistKeysOfSongs(tx, [id]);
        await expectWrote(tx, 'setSongArtists', 'songs', 1, {
          rows: [{ id: toInt(id), artistKeys: distinctKeys(patch.artists) }],
        });
        await this.refreshArtists(tx, [id], left);
      }
      return toSong(row);
    });
  }

  deleteSong(id: number) {
    return this.write(async (tx) => {
      // Lock order (see statements.ts): the song's services first, then (ascending, one statement)
      // the song and the songs of those setlists whose usage its removal changes: the songs that
      // become first or last where it was.
      const before = await this.servicesOfSong(tx, id);
      await this.lockServices(tx, before);
      const affected = (orders: PlacedSong[][]) =>
        orders.flatMap((order) => usageChangedBy(songIds(order), songIds(order).filter((s) => s !== id)).filter((s) => s !== id));
      const read = await this.orders(tx, before);
      const others = affected(read);
      // The other songs are linked to services we hold, so they exist: fewer locked means no song.
      if (!(await this.lockSongs(tx, [id, ...others]))) return false;
      // A link made between the first read and the song lock: lock its service and songs too. Out
      // of order, so it could deadlock; Neo4j detects that and the managed transaction retries. Rare.
      const services = await this.servicesOfSong(tx, id);
      const late = services.filter((v) => !before.includes(v));
      if (late.length > 0) {
        await this.lockServices(tx, late);
        await this.lockSongs(tx, affected(await this.orders(tx, late)));
      }
      // The setlists read above still hold unless the song's services changed before its lock.
      const same = late.length === 0 && services.length === before.length;
      const orders = same ? read : await this.orders(tx, services);
      const itsArtists = await this.artistKeysOfSongs(tx, [id]);
      await expectWrote(tx, 'deleteSong', 'deleted', 1, { id: toInt(id) }, false);
      // DETACH DELETE took the song's links; the setlists it was in close the gap.
      await this.placeExisting(
        tx,
        services.flatMap((serviceId, k) => {
          const rest = orders[k].filter((p) => p.songId !== id);
          return placesToWrite(rest, songIds(rest)).map((p) => ({ serviceId, ...p }));
        }),
      );
      await this.refreshUsage(tx, affected(orders));
      const facts = await this.serviceFacts(tx, services);
      await this.maintain(tx, {
        transitions: services.map((serviceId, k) => ({
          serviceId,
          before: stateOf(facts.get(serviceId)!, orders[k]),
          after: stateOf(facts.get(serviceId)!, orders[k].filter((p) => p.songId !== id)),
        })),
        deletedSongs: [id],
      });
      await this.refreshArtists(tx, affected(orders), itsArtists);
      return true;
    });
  }

  private async lockServices(tx: Tx, serviceIds: number[]) {
    if (serviceIds.length > 0) await run(tx, 'lockServices', { serviceIds: ascending(serviceIds).map(toInt) });
  }

  /** Lock these songs, ascending, in one statement; whether all of them exist. */
  private async lockSongs(tx: Tx, ids: readonly number[]): Promise<boolean> {
    const distinct = ascending(ids);
    if (distinct.length === 0) return true;
    return (await count(tx, 'lockSongs', 'locked', { songIds: distinct.map(toInt) })) === distinct.length;
  }

  /**
   * Recompute the maintained usage of these songs from their links (refreshSongUsage), after the
   * transaction's writes. Ascending, so the song locks it takes (normally already held) come in
   * order. Every song must exist: a writer refreshes songs it locked or that are linked to a
   * service it holds, which no delete can take away before it commits.
   */
  private async refreshUsage(tx: Tx, ids: readonly number[]) {
    const distinct = ascending(ids);
    for (const part of slices(distinct)) {
      await expectWrote(tx, 'refreshSongUsage', 'refreshed', part.length, { ids: part.map(toInt) });
    }
  }

  /** The date and type of services this transaction holds locked (absent ids are left out). */
  private async serviceFacts(tx: Tx, ids: readonly number[]): Promise<Map<number, ServiceRecord>> {
    const out = new Map<number, ServiceRecord>();
    for (const part of slices(ascending(ids))) {
      for (const r of await run(tx, 'servicesByIds', { ids: part.map(toInt) })) {
        if (r.get('id') !== null) out.set(fromInt(r.get('id'), 'service id'), toService(r));
      }
    }
    return out;
  }

  /**
   * Keep the aggregates that move by deltas (./maintained.ts) in step with this transaction's
   * setlist changes. Last in every write transaction, after the usage refresh: the locks it takes
   * come after every other lock (see the lock order in ./statements.ts).
   */
  private async maintain(tx: Tx, effects: WriteEffects): Promise<void> {
    await this.movePairs(tx, effects);
    await this.maintainPeriods(tx, effects);
  }

  /** Song pairs by deltas (./pairs.ts); the songs of every setlist changed are locked already. */
  private async movePairs(tx: Tx, effects: WriteEffects) {
    for (const part of slices(pairDeltas(effects))) {
      await expectWrote(tx, 'movePairs', 'moved', part.length, {
        rows: part.map((r) => ({
          songId: toInt(r.songId),
          otherId: toInt(r.otherId),
          sunAm: toInt(r.sunAm),
          sunPm: toInt(r.sunPm),
          wed: toInt(r.wed),
        })),
      });
    }
  }

  /** The keys of these songs' artists (BY), read before a write that changes or removes them. */
  private async artistKeysOfSongs(tx: Tx, ids: readonly number[]): Promise<string[]> {
    return (await run(tx, 'artistKeysOfSongs', { ids: ids.map(toInt) })).map((r) => r.get('key') as string);
  }

  /**
   * Recompute the maintained totals (refreshArtists) of these songs' artists and of the artists
   * keyed `formerKeys` (left by a song, or a deleted song's): the last statement of every write
   * transaction that changes a song's usage, artists or entries, so the artist locks come last
   * (see statements.ts). One statement locks its artists in key order; an import's thousands of
   * songs go in slices, each its own statement (an artist in two slices is recomputed twice).
   */
  private async refreshArtists(tx: Tx, songIds: readonly number[], formerKeys: readonly string[] = []) {
    const ids = [...slices(ascending(songIds))];
    const keys = [...slices([...new Set(formerKeys)].sort())];
    for (let i = 0; i < Math.max(ids.length, keys.length); i++) {
      const params = { songIds: (ids[i] ?? []).map(toInt), keys: keys[i] ?? [] };
      const row = await one(tx, 'refreshArtists', params);
      const [artists, refreshed] = ['artists', 'refreshed'].map((c) => fromInt(row.get(c), `refreshArtists.${c}`));
      if (artists !== refreshed) throw new Error(`Cypher statement refreshArtists refreshed ${refreshed} of ${artists} artists; rolled back`);
    }
  }

  /** The timeline periods (./periods.ts): one statement, periods locked in key order. */
  private async maintainPeriods(tx: Tx, effects: WriteEffects): Promise<void> {
    await movePeriods(tx, effects, this.zone);
  }

  /**
   * On opening with migrations on (./connect.ts): make sure the timeline periods are kept in this
   * store's zone, rebuilding them when not (./timeline.ts). Whether it rebuilt.
   */
  openTimeline(): Promise<boolean> {
    return openTimeline((work) => this.transact('WRITE', work, LONG_TRANSACTION_MS), this.zone);
  }

  private async servicesOfSong(tx: Tx, id: number): Promise<number[]> {
    return (await run(tx, 'servicesOfSong', { id: toInt(id) })).map((r) => fromInt(r.get('serviceId'), 'service id'));
  }

  // Services

  /** Unfiltered totals come from the count store; filtered ones from the service_type index. */
  private serviceCount(filter: ServiceFilter): [StatementName, Params] {
    return filter.serviceTypes ? ['countServicesOfTypes', { serviceTypes: typesParam(filter) }] : ['countServices', {}];
  }

  listServices(query: ServiceQuery, page: Page) {
    return this.paged(
      [SERVICE_PAGE[query.sort ?? 'DATE_ASC'], { serviceTypes: typesParam(query), ...limits(page) }],
      this.serviceCount(query),
      toService,
    );
  }

  servicesAfter(query: ServiceQuery, page: KeysetPage) {
    const sort = query.sort ?? 'DATE_ASC';
    const serviceTypes = typesParam(query);
    if (!page.after) {
      return this.keyset(SERVICE_PAGE[sort], { serviceTypes, offset: toInt(0) }, this.serviceCount(query), page, toService);
    }
    const params = { serviceTypes, key: toInt(page.after.key as number), id: toInt(page.after.id) };
    return this.keyset(SERVICE_AFTER[sort], params, this.serviceCount(query), page, toService);
  }

  async servicesByIds(ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'servicesByIds', { ids: ids.map(toInt) }));
    return placeByIndex(ids.length, rows, toService);
  }

  servicesInRange(range: DateRange, filter: ServiceFilter, page: Page) {
    const where = { min: toInt(range.min), max: toInt(range.max), serviceTypes: typesParam(filter) };
    return this.paged(['servicesInRange', { ...where, ...limits(page) }], ['countInRange', where], toService);
  }

  createService(input: ServiceInput) {
    return this.write(async (tx) => {
      const created = toService(await one(tx, 'createService', { date: toInt(input.date), serviceType: input.serviceType }));
      await this.maintain(tx, { transitions: [{ serviceId: created.id, before: null, after: stateOf(created, []) }] });
      return created;
    });
  }

  updateService(id: number, patch: ServicePatch) {
    return this.write(async (tx) => {
      // The service is locked first and read (its date and type before the change); then the songs
      // of its setlist, whose links now carry another date or type, are refreshed (ascending: the
      // refresh locks them in order).
      if (!(await this.lockService(tx, id))) return null;
      const old = (await this.serviceFacts(tx, [id])).get(id)!;
      const [row] = await run(tx, 'updateService', {
        id: toInt(id),
        date: orNull(patch.date, toInt),
        serviceType: patch.serviceType ?? null,
      });
      if (!row) return null;
      const updated = toService(row);
      if (updated.date !== old.date || updated.serviceType !== old.serviceType) {
        const [setlist] = await this.orders(tx, [id]);
        await this.refreshUsage(tx, songIds(setlist));
        await this.maintain(tx, { transitions: [{ serviceId: id, before: stateOf(old, setlist), after: stateOf(updated, setlist) }] });
        await this.refreshArtists(tx, songIds(setlist));
      }
      return updated;
    });
  }

  deleteService(id: number) {
    return this.write(async (tx) => {
      if ((await count(tx, 'lockServices', 'locked', { serviceIds: [toInt(id)] })) === 0) return false;
      const [setlist] = await this.orders(tx, [id]);
      const old = (await this.serviceFacts(tx, [id])).get(id)!;
      await expectWrote(tx, 'deleteService', 'deleted', 1, { id: toInt(id) }, false);
      // Its songs lose a link: refreshed after the delete (locking them, ascending, after the service).
      await this.refreshUsage(tx, songIds(setlist));
      await this.maintain(tx, { transitions: [{ serviceId: id, before: stateOf(old, setlist), after: null }] });
      await this.refreshArtists(tx, songIds(setlist));
      return true;
    });
  }

  // PERFORMED_IN

  setlistsForServices(serviceIds: readonly number[], page?: Page) {
    return this.relation(serviceIds, 'setlists', 'setlistCounts', {}, page, toSong);
  }

  servicesForSongs(songIds: readonly number[], filter?: ServiceFilter, page?: Page) {
    return this.relation(songIds, 'servicesForSongs', 'servicesForSongsCounts', { serviceTypes: typesParam(filter) }, page, toService);
  }

  /** Lock a service (the first lock of every setlist write); whether it exists. */
  private async lockService(tx: Tx, serviceId: number): Promise<boolean> {
    return (await count(tx, 'lockServices', 'locked', { serviceIds: [toInt(serviceId)] })) > 0;
  }

  /** The stored setlists of (locked) services, in setlist order, one list per service. */
  private async orders(tx: Tx, serviceIds: readonly number[]): Promise<PlacedSong[][]> {
    if (serviceIds.length === 0) return [];
    const rows = await run(tx, 'linkOrders', { serviceIds: serviceIds.map(toInt) });
    const index = new Map(serviceIds.map((id, i) => [id, i]));
    const out: PlacedSong[][] = serviceIds.map(() => []);
    for (const r of rows) {
      out[index.get(fromInt(r.get('serviceId'), 'service id'))!].push({
        songId: fromInt(r.get('songId'), 'song id'),
        position: fromInt(r.get('position'), 'position'),
      });
    }
    return out;
  }

  private async placeExisting(tx: Tx, rows: { serviceId: number; songId: number; position: number }[]) {
    if (rows.length === 0) return;
    await expectWrote(tx, 'placeLinks', 'placed', rows.length, {
      rows: rows.map((r) => ({ serviceId: toInt(r.serviceId), songId: toInt(r.songId), position: toInt(r.position) })),
    });
  }

  /** Last in its transaction: it takes the link-seq lock (see statements.ts). */
  private async createLinks(tx: Tx, serviceId: number, rows: PlacedSong[]) {
    if (rows.length === 0) return;
    await expectWrote(
      tx,
      'createLinks',
      'created',
      rows.length,
      { serviceId: toInt(serviceId), rows: rows.map((r) => ({ songId: toInt(r.songId), position: toInt(r.position) })) },
      'no-song',
    );
  }

  /** A locked service's setlist change from `current` to `order` (its date and type unchanged). */
  private async transition(tx: Tx, serviceId: number, current: PlacedSong[], order: readonly number[]): Promise<SetlistTransition> {
    const facts = (await this.serviceFacts(tx, [serviceId])).get(serviceId)!;
    return { serviceId, before: stateOf(facts, current), after: { ...stateOf(facts, []), songIds: order } };
  }

  /** Write `order` as positions 1..n over the stored `current` setlist of a locked service. */
  private async place(tx: Tx, serviceId: number, current: PlacedSong[], order: number[]) {
    const linked = new Set(songIds(current));
    const writes = placesToWrite(current, order);
    await this.placeExisting(tx, writes.filter((w) => linked.has(w.songId)).map((w) => ({ serviceId, ...w })));
    await this.createLinks(tx, serviceId, writes.filter((w) => !linked.has(w.songId)));
  }

  /*
   * Setlist writes: lock the service, read its setlist (stable while we hold the service), compute
   * the new order, then lock in one ascending statement the songs the write links plus every song
   * whose usage it changes (usageChangedBy), and only then write. Nothing has been written when
   * they answer other than 'ok'. The usage refresh comes last, after createLinks' sequence lock,
   * and re-takes only song locks already held.
   */

  linkSong(serviceId: number, songId: number, position?: number) {
    return this.write(async (tx): Promise<LinkResult> => {
      if (!(await this.lockService(tx, serviceId))) return 'no-service';
      const [current] = await this.orders(tx, [serviceId]);
      const order = orderAfterLink(songIds(current), songId, position);
      const changed = usageChangedBy(songIds(current), order);
      // Every song of the setlist is locked (its pairs with the new song change: ./pairs.ts). They
      // exist (linked to the service we hold): fewer locked means no song.
      if (!(await this.lockSongs(tx, [songId, ...songIds(current)]))) return 'no-song';
      await this.place(tx, serviceId, current, order);
      await this.refreshUsage(tx, changed);
      await this.maintain(tx, { transitions: [await this.transition(tx, serviceId, current, order)] });
      await this.refreshArtists(tx, changed);
      return 'ok';
    });
  }

  unlinkSong(serviceId: number, songId: number) {
    return this.write(async (tx): Promise<LinkResult | 'not-linked'> => {
      if (!(await this.lockService(tx, serviceId))) return 'no-service';
      const [current] = await this.orders(tx, [serviceId]);
      if (!current.some((p) => p.songId === songId)) return (await this.lockSongs(tx, [songId])) ? 'not-linked' : 'no-song';
      const order = orderAfterUnlink(songIds(current), songId);
      const changed = usageChangedBy(songIds(current), order);
      // Every song of the setlist: their pairs with the unlinked song change (./pairs.ts).
      if (!(await this.lockSongs(tx, songIds(current)))) return 'no-song';
      const params = { serviceId: toInt(serviceId), songId: toInt(songId) };
      await expectWrote(tx, 'unlinkSong', 'removed', 1, params, 'not-linked');
      const rest = current.filter((p) => p.songId !== songId);
      await this.place(tx, serviceId, rest, order);
      await this.refreshUsage(tx, changed);
      await this.maintain(tx, { transitions: [await this.transition(tx, serviceId, current, order)] });
      await this.refreshArtists(tx, changed);
      return 'ok';
    });
  }

  replaceSetlist(serviceId: number, songIds: readonly number[]) {
    // A song is linked at most once per service (SQLite: UNIQUE (service_id, song_id)); Neo4j has
    // no such constraint, and the usage counts rely on it (links = services). The API refuses a
    // repeated song before it gets here; the store refuses it too rather than link it twice.
    if (new Set(songIds).size !== songIds.length) return Promise.reject(new Error('replaceSetlist: a song is listed twice'));
    return this.write(async (tx): Promise<LinkResult> => {
      if (!(await this.lockService(tx, serviceId))) return 'no-service';
      const [current] = await this.orders(tx, [serviceId]);
      const changed = usageChangedBy(current.map((p) => p.songId), songIds);
      // The old setlist's songs and the new one's: the pairs of both change (./pairs.ts).
      if (!(await this.lockSongs(tx, [...songIds, ...current.map((p) => p.songId)]))) return 'no-song';
      await expectWrote(tx, 'clearSetlist', 'removed', current.length, { serviceId: toInt(serviceId) });
      await this.createLinks(tx, serviceId, songIds.map((songId, i) => ({ songId, position: i + 1 })));
      await this.refreshUsage(tx, changed);
      await this.maintain(tx, { transitions: [await this.transition(tx, serviceId, current, songIds)] });
      await this.refreshArtists(tx, changed);
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

  /**
   * Credentials (password hash, token version, role) are read in a WRITE transaction, which on a
   * cluster runs on the leader: a read transaction may go to a follower that has not applied the
   * latest commit yet, and the bookmarks that would make it wait are this process's own, so after
   * a password change or demotion acknowledged by another instance, the old password, token or
   * role would still pass here for the replication lag. On a single server both modes are alike.
   */
  private readCredentials<T>(work: (tx: Tx) => Promise<T>) {
    return this.transact('WRITE', work);
  }

  async credentialsByUsername(username: string) {
    const [row] = await this.readCredentials((tx) => run(tx, 'credentialsByKey', { usernameKey: usernameKey(username) }));
    return row ? toCredentials(row) : null;
  }

  async credentialsById(id: number) {
    const [row] = await this.readCredentials((tx) => run(tx, 'credentialsById', { id: toInt(id) }));
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
        if (demoting) await expectWrote(tx, 'lockUsers', 'locked', 1, {});
        const [current] = await run(tx, 'userRole', { id: toInt(id) });
        if (!current) return null;
        const key = orNull(patch.username, usernameKey);
        if (key !== null) {
          const taken = await one(tx, 'userKeyTaken', { id: toInt(id), usernameKey: key });
          if (fromInt(taken.get('taken'), 'count') > 0) return 'conflict';
        }
        if (demoting && (await this.isLastAdmin(tx, current.get('role')))) return 'last-admin';
        const [row] = await run(tx, 'updateUser', {
          id: toInt(id),
          username: patch.username ?? null,
          usernameKey: key,
          passwordHash: patch.passwordHash ?? null,
          role: patch.role ?? null,
        });
        // Gone since userRole read it (a concurrent delete): nothing was written.
        return row ? toUser(row) : null;
      });
    } catch (err) {
      if (isUniquenessViolation(err)) return 'conflict';
      throw err;
    }
  }

  deleteUser(id: number) {
    return this.write(async (tx): Promise<boolean | 'last-admin'> => {
      await expectWrote(tx, 'lockUsers', 'locked', 1, {});
      const [current] = await run(tx, 'userRole', { id: toInt(id) });
      if (!current) return false;
      if (await this.isLastAdmin(tx, current.get('role'))) return 'last-admin';
      await expectWrote(tx, 'deleteUser', 'deleted', 1, { id: toInt(id) }, false);
      return true;
    });
  }

  // Snapshots

  async exportSnapshot(): Promise<Snapshot> {
    const snapshot = await this.read(async (tx): Promise<Snapshot> => {
      const songs = (await run(tx, 'exportSongs')).map(toSong);
      const licensing = (await run(tx, 'exportLicensing')).map((r) => ({
        songId: fromInt(r.get('songId'), 'song id'),
        ...toLicensing(r),
      }));
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
        { songs, licensing, services, links, users },
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
    const licensing = licensingBySong(snapshot);
    // One transaction: all or nothing. Allow it far longer than a request's transaction.
    return this.transact(
      'WRITE',
      async (tx) => {
        // Artists a song already here leaves when the snapshot's version of it replaces it.
        const left = new Set<string>();
        for (const part of slices(snapshot.songs)) {
          await expectWrote(tx, 'importSongs', 'written', part.length, {
            rows: part.map((s) => ({ id: toInt(s.id), name: s.name, artists: s.artists, ...licensingOf(licensing, s.id) })),
          });
          for (const key of await this.artistKeysOfSongs(tx, part.map((s) => s.id))) left.add(key);
          await expectWrote(tx, 'setSongArtists', 'songs', part.length, {
            rows: part.map((s) => ({ id: toInt(s.id), artistKeys: distinctKeys(s.artists) })),
          });
        }
        // The services the target holds already, as they are before the import: their setlists
        // change by the links imported beside theirs (MERGE adds, never removes), and the
        // maintained aggregates move by the difference (./maintained.ts).
        const serviceIds = snapshot.services.map((v) => v.id);
        const existing = await this.serviceFacts(tx, serviceIds);
        const before = new Map<number, SetlistState>();
        const held = [...existing.keys()];
        for (const part of slices(held)) {
          const orders = await this.orders(tx, part);
          part.forEach((id, k) => before.set(id, stateOf(existing.get(id)!, orders[k])));
        }
        for (const part of slices(snapshot.services)) {
          await expectWrote(tx, 'importServices', 'written', part.length, {
            rows: part.map((v) => ({ id: toInt(v.id), date: toInt(v.date), serviceType: v.serviceType })),
          });
        }
        for (const part of slices(snapshot.users)) {
          await expectWrote(tx, 'importUsers', 'written', part.length, {
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
          await expectWrote(tx, 'importLinks', 'written', part.length, {
            rows: part.map((l) => ({
              serviceId: toInt(l.serviceId),
              songId: toInt(l.songId),
              position: toInt(l.position),
              seq: toInt(l.seq),
            })),
          });
        }
        // Usage of every imported song, and of any song already here that is linked to an
        // imported service (its links' copies or its setlist's ends may have changed). The
        // imported songs were locked above (importSongs); songs only the target holds are locked
        // here, late: a concurrent writer could deadlock with that, which Neo4j detects and
        // executeWrite retries. Imports are meant to run with writers stopped.
        const refresh = new Set(snapshot.songs.map((s) => s.id));
        const transitions: SetlistTransition[] = [];
        for (const part of slices(snapshot.services)) {
          const orders = await this.orders(tx, part.map((v) => v.id));
          part.forEach((v, k) => {
            for (const p of orders[k]) refresh.add(p.songId);
            transitions.push({ serviceId: v.id, before: before.get(v.id) ?? null, after: stateOf(v, orders[k]) });
          });
        }
        await this.refreshUsage(tx, [...refresh]);
        const kinds = Object.keys(SEQUENCE_NAMES) as (keyof typeof SEQUENCE_NAMES)[];
        await expectWrote(tx, 'raiseSequences', 'raised', kinds.length, {
          rows: kinds.map((k) => ({ name: SEQUENCE_NAMES[k], value: toInt(floor[k]) })),
        });
        // What the import changed, as any write (pairs, periods: after the sequences, as in every
        // writer's lock order): its cost follows the snapshot, not the target.
        await this.maintain(tx, { transitions });
        // Last: the sequences (the link one included) are locked above, before any artist.
        await this.refreshArtists(tx, [...refresh], [...left]);
        return snapshotCounts(snapshot);
      },
      LONG_TRANSACTION_MS,
    );
  }

  async ping() {
    await this.read((tx) => one(tx, 'ping'));
  }

  async close() {
    await this.driver.close();
  }

  // Importing a catalogue

  importCatalogue(batch: CatalogueBatch) {
    return this.transact(
      'WRITE',
      async (tx): Promise<ImportedCatalogue> => {
        const songs: SongRecord[] = [];
        for (const input of batch.songs) songs.push(toSong(await one(tx, 'createSong', createSongParams(input))));
        const services: ServiceRecord[] = [];
        const setlists: { serviceId: number; songIds: number[] }[] = [];
        for (const { service, songIds } of batch.services) {
          checkSetlist(songIds);
          const row = toService(await one(tx, 'createService', { date: toInt(service.date), serviceType: service.serviceType }));
          if (songIds.length > 0) {
            if (!(await this.lockService(tx, row.id)) || !(await this.lockSongs(tx, songIds))) {
              throw new CatalogueError('a setlist names a song that does not exist');
            }
            setlists.push({ serviceId: row.id, songIds });
          }
          services.push(row);
        }
        // Creating links takes the link-seq lock, which must come after every other lock taken.
        for (const { serviceId, songIds } of setlists) {
          await this.createLinks(tx, serviceId, songIds.map((songId, i) => ({ songId, position: i + 1 })));
        }
        // Every linked song gained links (new services); all are locked above. New songs that no
        // setlist names were created with zero usage.
        await this.refreshUsage(tx, setlists.flatMap((l) => l.songIds));
        const setlistOf = new Map(setlists.map((l) => [l.serviceId, l.songIds]));
        await this.maintain(tx, {
          transitions: services.map((v) => ({ serviceId: v.id, before: null, after: { ...stateOf(v, []), songIds: setlistOf.get(v.id) ?? [] } })),
        });
        await this.refreshArtists(tx, [...songs.map((s) => s.id), ...setlists.flatMap((l) => l.songIds)]);
        return { songs, services };
      },
      // A batch is hundreds of statements in one transaction; the per-call limit is meant for one.
      60_000,
    );
  }
}
