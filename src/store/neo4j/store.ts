import { Info } from 'luxon';
import neo4j, { type Driver, type Record as Neo4jRecord } from 'neo4j-driver';
import { luceneQuery } from '../../domain/search';
import { SERVICE_AFTER, SERVICE_PAGE, SONG_AFTER, SONG_PAGE, SONG_SERVICES } from '../list-statements';
import { ALL_SERVICE_TYPES } from '../paging';
import { mergeGains, orderAfterMerge } from '../../domain/song-merge';
import { CatalogueError, setlistProblem } from '../catalogue';
import { usernameKey } from '../keys';
import {
  SnapshotError,
  assembleSnapshot,
  checkSnapshot,
} from '../snapshot';
import type {
  CatalogueBatch,
  DateRange,
  KeysetPage,
  KeysetResult,
  LinkResult,
  LinkSongResult,
  Page,
  Paged,
  ServiceFilter,
  ServiceQuery,
  ServiceInput,
  MergeRefused,
  ServicePatch,
  SlotTaken,
  SongRecord,
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
import { isMergeRefused } from '../types';
import { Neo4jAnalytics } from './analytics';
import { moveArtists } from './aggregates';
import { LinkSeqs } from './link-seqs';
import * as setlists from './setlists';
import { StoreUnavailableError } from '../../errors';
import { changes, type NewEvent } from '../../events/changes';
import { NEO4J_EVENT_ID, recordEvents, toEvent } from './events';
import { webhooks } from './webhooks';
import type { Attempt, Redelivery, WebhookInput, WebhookPatch } from '../../webhooks/records';
import { Batches } from './setlist-batches';
import * as transfer from './transfer';
import { createSongParams, distinctKeys, SEQUENCE_NAMES } from './transfer';
import { openTimeline } from './timeline';
import { artistsIn, artistsOut } from './usage';
import { NEO4J_TIMEOUTS, isSlotViolation, isUniquenessViolation, toStoreError } from './driver';
import { run, type Tx } from './run';
import type { StatementName } from './statements';
import {
  fromInt,
  groupByIndex,
  placeByIndex,
  toCredentials,
  toLicensing,
  toService,
  toSong,
  toUser,
} from './values';
import { RolledBack, WritePlan, wrote } from './write-plan';



/** The single row of a statement that always returns one (aggregations, RETURN 1). */
async function one(tx: Tx, name: StatementName, params: Record<string, unknown> = {}): Promise<Neo4jRecord> {
  const [row] = await run(tx, name, params);
  if (!row) throw new Error(`Cypher statement ${name} returned no row`);
  return row;
}

/** Per-parent pages of a relation: its rows grouped by batch index, and each one's total. */
function pagesOf<T>(size: number, items: Neo4jRecord[], totals: Neo4jRecord[], map: (r: Neo4jRecord) => T): Paged<T>[] {
  const out = groupByIndex(size, items, map).map((g) => ({ items: g, totalCount: 0 }));
  for (const row of totals) out[fromInt(row.get('i'), 'batch index')].totalCount = totalOf(row);
  return out;
}

/** The count a statement returns in `column` (its one row). */
async function count(tx: Tx, name: StatementName, column: string, params: Record<string, unknown> = {}) {
  return fromInt((await one(tx, name, params)).get(column), `${name}.${column}`);
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


const orNull = <T, U>(value: T | undefined, map: (v: T) => U): U | null => (value === undefined ? null : map(value));

/** SKIP/LIMIT parameters; no limit is the largest safe integer (Cypher has no "no limit" value). */
const limits = (page: Page = {}) => ({ offset: page.offset ?? 0, limit: page.limit ?? Number.MAX_SAFE_INTEGER });
const typesParam = (filter: ServiceFilter = {}) => [...(filter.serviceTypes ?? ALL_SERVICE_TYPES)];
const totalOf = (row: Neo4jRecord) => fromInt(row.get('total'), 'count');

type Params = Record<string, unknown>;


export interface Neo4jStoreOptions {
  database?: string;
  transactionTimeoutMs?: number;
  /** SERVICE_TIME_ZONE: the zone of the maintained timeline periods (./periods.ts). Default UTC. */
  serviceTimeZone?: string;
}

/** How often a write that asks to run again (setlists.RunAgain) is run before it fails. */
const RUN_AGAIN_ATTEMPTS = 5;

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
  /** Link seqs from blocks this process reserves (./link-seqs.ts). */
  private readonly seqs = new LinkSeqs(async (count) =>
    fromInt((await this.write((tx) => one(tx, 'reserveLinkSeqs', { count: count }))).get('high'), 'link seq'),
  );
  /** Setlist writes that arrive together share a transaction (./setlist-batches.ts). */
  private readonly setlistWrites = new Batches<setlists.SetlistWrite, setlists.SetlistOutcome>(
    (writes) => this.transact('WRITE', (tx) => setlists.changeSetlists(tx, this.deps, writes), undefined, false),
    async (write) => {
      // Alone, a write rolled back with an answer (RolledBack: 'no-song') answers it.
      const answer: setlists.SetlistOutcome[] | setlists.SetlistOutcome = await this.write((tx) => setlists.changeSetlists(tx, this.deps, [write]));
      return Array.isArray(answer) ? answer[0] : answer;
    },
    (err) => err instanceof StoreUnavailableError,
  );
  /** A write that makes one record and its one event, recorded in its transaction. */
  private async recorded<T>(tx: Tx, record: T, event: (record: T) => NewEvent): Promise<T> {
    await recordEvents(tx, [event(record)]);
    return record;
  }

  // Webhooks (./webhooks.ts)

  createWebhook(input: WebhookInput, now: number) {
    return this.write((tx) => webhooks.create(tx, input, now));
  }

  listWebhooks() {
    return this.read((tx) => webhooks.list(tx));
  }

  webhookById(id: number) {
    return this.read((tx) => webhooks.byId(tx, id));
  }

  updateWebhook(id: number, patch: WebhookPatch, now: number) {
    return this.write((tx) => webhooks.update(tx, id, patch, now));
  }

  deleteWebhook(id: number) {
    return this.write((tx) => webhooks.delete(tx, id));
  }

  rotateWebhookSecret(id: number, secret: string, previousUntil: number) {
    return this.write((tx) => webhooks.rotate(tx, id, secret, previousUntil));
  }

  deliveriesOf(webhookId: number, limit: number, offset: number) {
    return this.read((tx) => webhooks.deliveries(tx, webhookId, limit, offset));
  }

  redeliver(webhookId: number, what: Redelivery, now: number, limit: number) {
    return this.write((tx) => webhooks.redeliver(tx, webhookId, what, now, limit));
  }

  claimDeliveries(now: number, owner: string, leaseUntil: number, limit: number) {
    return this.write((tx) => webhooks.claim(tx, now, owner, leaseUntil, limit));
  }

  finishAttempt(webhookId: number, eventId: string, owner: string, attempt: Attempt) {
    return this.write((tx) => webhooks.finish(tx, webhookId, eventId, owner, attempt));
  }

  async lastEventId() {
    const [row] = await this.read((tx) => run(tx, 'lastEventId'));
    return row ? (row.get('id') as string) : null;
  }

  async eventsAfter(after: string | undefined, limit: number) {
    // An id of another form (a SQLite store's, after a migration) names no event here.
    if (after !== undefined && !NEO4J_EVENT_ID.test(after)) return [];
    const rows = await this.read((tx) => run(tx, 'eventsAfter', { after: after ?? '', limit }));
    return rows.map(toEvent);
  }

  private get deps(): setlists.SetlistDeps {
    return { zone: this.zone, seqs: this.seqs };
  }

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
  songRhythms: Store['songRhythms'] = (ids, range) => this.analytics.songRhythms(ids, range);
  songTimesByType: Store['songTimesByType'] = (ids) => this.analytics.songTimesByType(ids);
  songsOfLastServices: Store['songsOfLastServices'] = (q) => this.analytics.songsOfLastServices(q);

  private async transact<T>(
    mode: 'READ' | 'WRITE',
    work: (tx: Tx) => Promise<T>,
    timeoutMs = this.options.transactionTimeoutMs ?? NEO4J_TIMEOUTS.transactionTimeoutMs,
    /** A write rolled back with an answer (RolledBack) answers it; a batch's is thrown instead. */
    answerRolledBack = true,
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
      for (let attempt = 1; ; attempt++) {
        try {
          return await (mode === 'READ' ? session.executeRead(work, config) : session.executeWrite(work, config));
        } catch (err) {
          // A write that found what it read changed before its locks (setlists.RunAgain): from the start.
          if (!(err instanceof setlists.RunAgain) || attempt >= RUN_AGAIN_ATTEMPTS) throw err;
        }
      }
    } catch (err) {
      if (err instanceof RolledBack && answerRolledBack) return err.outcome as T;
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

  /**
   * A page and its count, read in one transaction. The two statements are sent before either is
   * awaited, so they travel in one round trip (each round trip also costs this process a socket
   * write and the server a turn: a read's CPU here followed its number of round trips).
   */
  private paged<T>(page: [StatementName, Params], count: [StatementName, Params], map: (r: Neo4jRecord) => T) {
    return this.read(async (tx): Promise<Paged<T>> => {
      const [rows, total] = await Promise.all([run(tx, ...page), one(tx, ...count)]);
      return { items: rows.map(map), totalCount: totalOf(total) };
    });
  }

  /** A keyset page: one row more than asked says whether another page follows. */
  private keyset<T>(name: StatementName, params: Params, count: [StatementName, Params], page: KeysetPage, map: (r: Neo4jRecord) => T) {
    return this.read(async (tx): Promise<KeysetResult<T>> => {
      // In one round trip, as paged's.
      const [rows, total] = await Promise.all([run(tx, name, { ...params, limit: page.first + 1 }), one(tx, ...count)]);
      return {
        items: rows.slice(0, page.first).map(map),
        hasNextPage: rows.length > page.first,
        totalCount: totalOf(total),
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
    const params = { ids: ids, ...where };
    // In one round trip, as paged's.
    const [items, totals] = await this.read((tx) => Promise.all([run(tx, rows, { ...params, ...limits(page) }), run(tx, counts, params)]));
    return pagesOf(ids.length, items, totals, map);
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
    if (!page.after) return this.keyset(SONG_PAGE[sort], { offset: 0 }, ['countSongs', {}], page, toSong);
    const { key, id } = page.after;
    const params = sort.startsWith('ID') ? { id: id } : { key, id: id };
    return this.keyset(SONG_AFTER[sort], params, ['countSongs', {}], page, toSong);
  }

  async songsByIds(ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'songsByIds', { ids: ids }));
    return placeByIndex(ids.length, rows, toSong);
  }

  async licensingOfSongs(ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'songsLicensing', { ids: ids }));
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
    // A new song counts no usage yet; its entries count for its artists' spellings (createSong).
    return this.write(async (tx) => this.recorded(tx, toSong((await run(tx, 'createSong', createSongParams(input)))[0]), changes.songCreated));
  }

  /**
   * One round trip, the song locked first: when its artists change, its entries leave their
   * spellings before it changes and its usage leaves the artists it had; both join the new ones
   * after. Nothing reads an artist's other songs.
   */
  updateSong(id: number, patch: SongPatch) {
    return this.write(async (tx) => {
      const song = await this.patchSong(tx, id, patch);
      return song && this.recorded(tx, song, changes.songUpdated);
    });
  }

  private async patchSong(tx: Tx, id: number, patch: SongPatch): Promise<SongRecord | null> {
    const plan = new WritePlan().lockSongs([id], null);
    const artists = patch.artists !== undefined;
    if (artists) plan.locking('artists', 'moveSpellings', { rows: [{ id, sign: -1 }] });
    let updated: Neo4jRecord | undefined;
    plan.onSongs([id], 'updateSong', {
      id,
      name: patch.name ?? null,
      artists: patch.artists ?? null,
      setCcliNumber: patch.ccliNumber !== undefined,
      ccliNumber: patch.ccliNumber ?? null,
      setCopyright: patch.copyright !== undefined,
      copyright: patch.copyright ?? null,
    }, (rows) => {
      updated = rows[0];
    });
    if (artists) {
      moveArtists(plan, artistsOut([id]));
      plan.locking('artists', 'setSongArtists', { rows: [{ id, artistKeys: distinctKeys(patch.artists!) }] }, wrote('setSongArtists', 'songs', 1));
      moveArtists(plan, artistsIn([id]));
      plan.locking('artists', 'moveSpellings', { rows: [{ id, sign: 1 }] }, wrote('moveSpellings', 'moved', 1));
    }
    await plan.send(tx);
    return toSong(updated!);
  }

  deleteSong(id: number) {
    return this.write((tx) => setlists.deleteSong(tx, this.deps, id));
  }

  /**
   * In one transaction: the merged songs' setlists change as one setlist write (changeSetlists:
   * their services locked, then every song of them and the songs named; links and aggregates by
   * the transitions), then each merged song, now without links, is deleted (setlists.deleteSong),
   * then the kept song gains its details. What the kept song gains is worked out again from the
   * songs as read under their locks; a song deleted, or a merged song linked to another service,
   * between the first read and the locks sends the transaction round again. Its later plans take
   * artist locks after the first plan's period locks, against the writers' order: a deadlock with
   * a writer is detected by Neo4j and retried by the driver (an admin's rare write).
   */
  mergeSongs(keepId: number, mergeIds: readonly number[]) {
    const ids = [keepId, ...mergeIds];
    const merged = new Set(mergeIds);
    const details = async (tx: Tx) => {
      const [songs, licensing] = await Promise.all([run(tx, 'songsByIds', { ids }), run(tx, 'songsLicensing', { ids })]);
      return mergeGains(ids, placeByIndex(ids.length, songs, toSong), placeByIndex(ids.length, licensing, toLicensing));
    };
    return this.write(async (tx): Promise<SongRecord | MergeRefused> => {
      const first = await details(tx);
      if (isMergeRefused(first)) return first;
      const servicesOf = async (id: number) => (await run(tx, 'servicesOfSong', { id })).map((r) => fromInt(r.get('serviceId'), 'service id'));
      const services = [...new Set((await Promise.all(mergeIds.map(servicesOf))).flat())];
      try {
        const writes = services.map((serviceId) => ({
          serviceId,
          next: (current: readonly number[]) => ({ order: orderAfterMerge(current, keepId, merged), outcome: 'ok' as const }),
          alsoLock: ids,
        }));
        const outcomes = writes.length > 0 ? await setlists.changeSetlists(tx, this.deps, writes, false) : [];
        if (writes.length === 0) await new WritePlan().lockSongs(ids, 'no-song').send(tx);
        if (outcomes.some((o) => o !== 'ok')) throw new setlists.RunAgain('a service of a merged song went away before its lock');
      } catch (err) {
        if (err instanceof RolledBack && err.outcome === 'no-song') throw new setlists.RunAgain('a merged song went away before its lock');
        throw err;
      }
      for (const id of mergeIds) {
        if ((await servicesOf(id)).length > 0) throw new setlists.RunAgain(`song ${id} was linked beside its merge`);
      }
      const gains = await details(tx);
      if (isMergeRefused(gains)) throw new setlists.RunAgain('a song of the merge changed before its lock');
      for (const id of mergeIds) await setlists.deleteSong(tx, this.deps, id, false);
      const kept = (await this.patchSong(tx, keepId, gains))!;
      return this.recorded(tx, kept, (song) => changes.songsMerged(song, mergeIds));
    });
  }

  /**
   * On opening with migrations on (./connect.ts): make sure the timeline periods are kept in this
   * store's zone, rebuilding them when not (./timeline.ts). Whether it rebuilt.
   */
  openTimeline(): Promise<boolean> {
    return openTimeline((work) => this.transact('WRITE', work, LONG_TRANSACTION_MS), this.zone);
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
      return this.keyset(SERVICE_PAGE[sort], { serviceTypes, offset: 0 }, this.serviceCount(query), page, toService);
    }
    const params = { serviceTypes, key: page.after.key as number, id: page.after.id };
    return this.keyset(SERVICE_AFTER[sort], params, this.serviceCount(query), page, toService);
  }

  async servicesByIds(ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'servicesByIds', { ids: ids }));
    return placeByIndex(ids.length, rows, toService);
  }

  servicesInRange(range: DateRange, filter: ServiceFilter, page: Page) {
    const where = { min: range.min, max: range.max, serviceTypes: typesParam(filter) };
    return this.paged(['servicesInRange', { ...where, ...limits(page) }], ['countInRange', where], toService);
  }

  createService(input: ServiceInput) {
    return this.inSlot(
      () => input,
      () => this.write(async (tx) => this.recorded(tx, await setlists.createService(tx, this.deps, input), changes.serviceCreated)),
    );
  }

  updateService(id: number, patch: ServicePatch) {
    const slot = async () => {
      const [before] = await this.servicesByIds([id]);
      return before && { date: patch.date ?? before.date, serviceType: patch.serviceType ?? before.serviceType };
    };
    return this.inSlot(slot, () =>
      this.write((tx) => setlists.updateService(tx, this.deps, id, patch)),
    );
  }

  /**
   * A service write that may take a date and type another service holds: the service_slot
   * constraint refuses it, and the holder is read after. Should the holder (or the service being
   * moved) be gone by then, deleted in between, the write is tried once more.
   */
  private async inSlot<T>(slot: () => ServiceInput | null | Promise<ServiceInput | null>, write: () => Promise<T>, again = true): Promise<T | SlotTaken> {
    try {
      return await write();
    } catch (err) {
      if (!isSlotViolation(err)) throw err;
      const wanted = await slot();
      const holder = wanted ? await this.read((tx) => run(tx, 'serviceInSlot', { ...wanted })) : [];
      if (holder.length > 0) return { slotTakenBy: fromInt(holder[0].get('id'), 'service id') };
      if (again) return this.inSlot(slot, write, false);
      throw err;
    }
  }

  deleteService(id: number) {
    return this.write((tx) => setlists.deleteService(tx, this.deps, id));
  }

  // PERFORMED_IN

  setlistsForServices(serviceIds: readonly number[], page?: Page) {
    return this.relation(serviceIds, 'setlists', 'setlistCounts', {}, page, toSong);
  }

  /** The three statements in one transaction and one round trip. */
  async servicesWithSetlists(serviceIds: readonly number[], page?: Page) {
    if (serviceIds.length === 0) return [];
    const ids = { ids: serviceIds };
    const [services, items, totals] = await this.read((tx) =>
      Promise.all([run(tx, 'servicesByIds', ids), run(tx, 'setlists', { ...ids, ...limits(page) }), run(tx, 'setlistCounts', ids)]),
    );
    const setlists = pagesOf(serviceIds.length, items, totals, toSong);
    return placeByIndex(serviceIds.length, services, toService).map((service, i) => ({ service, setlist: setlists[i] }));
  }

  servicesForSongs(songIds: readonly number[], query?: ServiceQuery, page?: Page) {
    const rows = SONG_SERVICES[query?.sort ?? 'DATE_ASC'];
    return this.relation(songIds, rows, 'servicesForSongsCounts', { serviceTypes: typesParam(query) }, page, toService);
  }

  linkSong(serviceId: number, songId: number, position?: number) {
    return this.setlistWrites.submit(setlists.setlistWrites.link(serviceId, songId, position)) as Promise<LinkSongResult>;
  }

  unlinkSong(serviceId: number, songId: number) {
    return this.setlistWrites.submit(setlists.setlistWrites.unlink(serviceId, songId)) as Promise<LinkResult | 'not-linked'>;
  }

  replaceSetlist(serviceId: number, songIds: readonly number[]) {
    // The facades refuse these first (src/domain/validation.ts); a caller that did not is a bug.
    // Neo4j has no UNIQUE (service, song) to stop a song linked twice, which the usage counts rely
    // on (links = services), so the store refuses it too.
    const problem = setlistProblem(songIds);
    if (problem) return Promise.reject(new Error(`replaceSetlist: ${problem}`));
    return this.setlistWrites.submit(setlists.setlistWrites.replace(serviceId, songIds)) as Promise<LinkResult>;
  }

  // Users

  async listUsers() {
    return (await this.read((tx) => run(tx, 'listUsers'))).map(toUser);
  }

  async usersByIds(ids: readonly number[]) {
    if (ids.length === 0) return [];
    const rows = await this.read((tx) => run(tx, 'usersByIds', { ids: ids }));
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
    const [row] = await this.readCredentials((tx) => run(tx, 'credentialsById', { id: id }));
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
        const [current] = await run(tx, 'userRole', { id: id });
        if (!current) return null;
        const key = orNull(patch.username, usernameKey);
        if (key !== null) {
          const taken = await one(tx, 'userKeyTaken', { id: id, usernameKey: key });
          if (fromInt(taken.get('taken'), 'count') > 0) return 'conflict';
        }
        if (demoting && (await this.isLastAdmin(tx, current.get('role')))) return 'last-admin';
        const [row] = await run(tx, 'updateUser', {
          id: id,
          username: patch.username ?? null,
          usernameKey: key,
          passwordHash: patch.passwordHash ?? null,
          role: patch.role ?? null,
        });
        // Gone since userRole read it (a concurrent delete): nothing was written.
        if (!row) return null;
        const user = toUser(row);
        const before = current.get('role') as UserRecord['role'];
        if (user.role !== before) await recordEvents(tx, [changes.roleChanged(user, before)]);
        return user;
      });
    } catch (err) {
      if (isUniquenessViolation(err)) return 'conflict';
      throw err;
    }
  }

  deleteUser(id: number) {
    return this.write(async (tx): Promise<boolean | 'last-admin'> => {
      await expectWrote(tx, 'lockUsers', 'locked', 1, {});
      const [current] = await run(tx, 'userRole', { id: id });
      if (!current) return false;
      if (await this.isLastAdmin(tx, current.get('role'))) return 'last-admin';
      await expectWrote(tx, 'deleteUser', 'deleted', 1, { id: id }, false);
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
    // One transaction: all or nothing. Allow it far longer than a request's transaction.
    return this.transact('WRITE', (tx) => transfer.importSnapshot(tx, this.deps, snapshot), LONG_TRANSACTION_MS);
  }

  async ping() {
    await this.read((tx) => one(tx, 'ping'));
  }

  async close() {
    await this.driver.close();
  }

  // Importing a catalogue

  async importCatalogue(batch: CatalogueBatch) {
    try {
      // A batch is many statements in one transaction; the per-call limit is meant for one.
      return await this.transact('WRITE', (tx) => transfer.importCatalogue(tx, this.deps, batch), 60_000);
    } catch (err) {
      // The import plans around the services it found; one written since takes a slot of the batch.
      if (isSlotViolation(err)) throw new CatalogueError('a service of the batch has the date and type of a service written meanwhile');
      throw err;
    }
  }

  /**
   * Neo4j's own db.prepareForReplanning: the indexes resampled, then the query caches cleared, so
   * each statement is planned again from the store as imported (./types.ts). An admin procedure:
   * a user who may not call it gets a warning from the caller, not a failed migration.
   */
  async replanAfterImport() {
    await this.transact('READ', (tx) => run(tx, 'prepareForReplanning', { timeoutMs: REPLAN_TIMEOUT_MS }), REPLAN_TIMEOUT_MS + 10_000);
  }
}

/** How long a replanning may resample indexes (the 1m history's took well under a minute). */
const REPLAN_TIMEOUT_MS = 300_000;
