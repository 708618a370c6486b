import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { spellingsByKey } from '../../domain/artists';
import { fts5Query } from '../../domain/search';
import { orderAfterLink, placesToWrite, songIds, wouldOverfill, type PlacedSong } from '../../domain/setlist';
import { StoreUnavailableError } from '../../errors';
import { changes, type ChangeEvent, type NewEvent } from '../../events/changes';
import type { SongLicensing } from '../../domain/licensing';
import { isMergeRefused, mergeGains, orderAfterMerge } from '../../domain/song-merge';
import { CatalogueError, checkSetlist, setlistProblem } from '../catalogue';
import { usernameKey } from '../keys';
import { SERVICE_AFTER, SERVICE_PAGE, SONG_AFTER, SONG_PAGE } from '../list-statements';
import { ALL_SERVICE_TYPES, pageEnd } from '../paging';
import { assembleSnapshot, checkSnapshot, licensingBySong, licensingOf, sequenceFloor, snapshotCounts } from '../snapshot';
import type {
  CatalogueBatch,
  DateRange,
  ImportedCatalogue,
  KeysetPage,
  KeysetResult,
  LinkResult,
  LinkSongResult,
  Page,
  Paged,
  ServiceFilter,
  ServiceQuery,
  ServiceInput,
  ServicePatch,
  ServiceRecord,
  SlotTaken,
  Snapshot,
  SnapshotCounts,
  SnapshotLink,
  SongInput,
  SongPatch,
  SongQuery,
  SongRecord,
  SongSort,
  Store,
  UserCredentials,
  UserInput,
  UserPatch,
  UserRecord,
} from '../types';
import { isSlotTaken, type MergeRefused } from '../types';
import type { AnalyticsWindow, SongUsageQuery, SungOftenQuery } from '../analytics-types';
import type { ServiceType } from '../../generated/graphql';
import { SqliteAnalytics } from './analytics';
import { SqliteWebhooks, sqliteEventId, sqliteEventSeq } from './webhooks';
import type { Redelivery, WebhookInput, WebhookPatch, WebhookStore, Attempt } from '../../webhooks/records';
import { migrate } from './migrations';
import { ensurePeriods, openTimeline } from './timeline-schema';
import { withDerivedRebuilt } from './bulk';
import { SONG_SERVICE_STATEMENTS, SQL, type StatementName } from './statements';

type SongRow = { id: number; name: string; artists: string };
type LicensingRow = { ccli_number: string | null; copyright: string | null };
type ServiceRow = { id: number; date: number; service_type: ServiceRecord['serviceType'] };
type CredentialsRow = UserRecord & { password_hash: string; token_version: number };
type Keyed<T> = T & { key: number };
type LinkRow = { seq: number; service_id: number; song_id: number; position: number };

const toSong = (r: SongRow): SongRecord => ({ id: r.id, name: r.name, artists: JSON.parse(r.artists) });
const toLicensing = (r: LicensingRow): SongLicensing => ({ ccliNumber: r.ccli_number, copyright: r.copyright });
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

/** One page per requested key from rows carrying a `key` column and per-key totals. */
function groupBy<R, T>(keys: readonly number[], rows: Keyed<R>[], totals: Keyed<{ total: number }>[], map: (r: R) => T): Paged<T>[] {
  const groups = new Map<number, T[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(row.key)?.push(map(row));
  const counts = new Map(totals.map((t) => [t.key, t.total]));
  return keys.map((k) => ({ items: groups.get(k) ?? [], totalCount: counts.get(k) ?? 0 }));
}

/** LIMIT/OFFSET parameters: -1 is SQLite's "no limit". */
const limits = (page: Page = {}) => ({ limit: page.limit ?? -1, offset: page.offset ?? 0 });
/** Parameters of a per-parent page: LIMIT/OFFSET, and `end`, the rank of its last row. */
const perParent = (page: Page = {}) => ({ ...limits(page), end: pageEnd(page) });
/** Distinct, as the relation statements join them: a repeated id or type would repeat rows. */
const typesParam = (filter: ServiceFilter = {}) => JSON.stringify([...new Set(filter.serviceTypes ?? ALL_SERVICE_TYPES)]);
const distinctIds = (ids: readonly number[]) => [...new Set(ids)];

/** No filter, or one naming every type: every link qualifies (each service has one of them). */
const everyType = (filter: ServiceFilter = {}) => ALL_SERVICE_TYPES.every((t) => filter.serviceTypes?.includes(t) ?? true);


// Conditions of the database itself (locked, I/O failure, file gone), as opposed to a bug.
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|NOTADB|CORRUPT)/;

/** How long a call waits for another connection's write lock before answering UNAVAILABLE. */
const BUSY_TIMEOUT_MS = 5_000;
/** Default of SqliteStoreOptions.migrationWaitMs (MIGRATION_WAIT_SECONDS). */
export const MIGRATION_WAIT_MS = 300_000;

/**
 * Switch the file to WAL. A new file's switch needs it to itself for a moment, and when another
 * process opens the file at that instant SQLite answers SQLITE_BUSY at once, without consulting
 * the busy timeout (it would otherwise risk a deadlock between the two). So the switch is retried
 * every 20 ms until `waitMs` has passed. It happens once, while opening, so blocking the thread
 * for those moments holds up nothing else.
 */
function enableWal(db: Database.Database, waitMs: number): void {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= until) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

export interface SqliteStoreOptions {
  /**
   * Opening waits this long for another process's migration or timeline rebuild of the same file
   * (which holds the write lock), then fails with SQLITE_BUSY.
   */
  migrationWaitMs?: number;
}

/**
 * The embedded store. better-sqlite3 is synchronous, so each call runs to completion before the
 * next starts in this process; multi-statement writes still run in IMMEDIATE transactions so that
 * they are atomic on disk and safe against a second process on the same file.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly stmts = new Map<StatementName, Database.Statement>();

  /**
   * `serviceTimeZone` (SERVICE_TIME_ZONE) is the zone of the maintained timeline periods
   * (./timeline-schema.ts); a file last opened with another zone rebuilds them on opening.
   */
  constructor(
    filename: string,
    private readonly serviceTimeZone = 'UTC',
    options: SqliteStoreOptions = {},
  ) {
    if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
    this.db = new Database(filename);
    // Set before anything takes a lock: while another process migrates the file (or rebuilds its
    // timeline), opening waits for it, up to the migration wait, instead of failing at once.
    this.db.pragma(`busy_timeout = ${options.migrationWaitMs ?? MIGRATION_WAIT_MS}`);
    enableWal(this.db, options.migrationWaitMs ?? MIGRATION_WAIT_MS);
    this.db.pragma('foreign_keys = ON');
    // WAL with NORMAL sync is durable across application crashes; only an OS crash or power loss
    // can lose the last transactions, never corrupt the file.
    this.db.pragma('synchronous = NORMAL');
    migrate(this.db);
    openTimeline(this.db, serviceTimeZone);
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.analytics = new SqliteAnalytics(this.db);
    this.webhooks = new SqliteWebhooks(this.db);
  }

  private readonly analytics: SqliteAnalytics;
  private readonly webhooks: SqliteWebhooks;

  // Webhooks (./webhooks.ts)

  createWebhook(input: WebhookInput, now: number) {
    return this.write(() => this.webhooks.create(input, now));
  }

  listWebhooks() {
    return this.guard(() => this.webhooks.list());
  }

  webhookById(id: number) {
    return this.guard(() => this.webhooks.byId(id));
  }

  updateWebhook(id: number, patch: WebhookPatch, now: number) {
    return this.write(() => this.webhooks.update(id, patch, now));
  }

  deleteWebhook(id: number) {
    return this.write(() => this.webhooks.delete(id));
  }

  rotateWebhookSecret(id: number, secret: string, previousUntil: number) {
    return this.write(() => this.webhooks.rotate(id, secret, previousUntil));
  }

  deliveriesOf(webhookId: number, limit: number, offset: number) {
    return this.guard(() => this.db.transaction(() => this.webhooks.deliveries(webhookId, limit, offset))());
  }

  redeliver(webhookId: number, what: Redelivery, now: number, limit: number) {
    return this.write(() => this.webhooks.redeliver(webhookId, what, now, limit));
  }

  claimDeliveries(now: number, owner: string, leaseUntil: number, limit: number) {
    return this.write(() => this.webhooks.claim(now, owner, leaseUntil, limit));
  }

  finishAttempt(webhookId: number, eventId: string, owner: string, attempt: Attempt) {
    return this.write(() => this.webhooks.finish(webhookId, eventId, owner, attempt));
  }

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

  usageTimeline(buckets: readonly { start: number; end: number }[], window: AnalyticsWindow, songId: number | null) {
    return this.guard(() => this.analytics.usageTimeline(buckets, window, songId));
  }

  artistUsage(window: AnalyticsWindow, page: { limit?: number; offset?: number }) {
    return this.guard(() => this.analytics.artistUsage(window, page));
  }

  songsSungOften(query: SungOftenQuery) {
    return this.guard(() => this.analytics.songsSungOften(query));
  }

  songRhythms(songIds: readonly number[], range: { min: number; max: number }) {
    return this.guard(() => this.analytics.songRhythms(songIds, range));
  }

  songsOfLastServices(query: Omit<SungOftenQuery, 'moreThanPercent'>) {
    return this.guard(() => this.analytics.songsOfLastServices(query));
  }

  songTimesByType(songIds: readonly number[]) {
    return this.guard(() => this.analytics.songTimesByType(songIds));
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

  private count(name: StatementName, params: Record<string, unknown>): number {
    return this.stmt(name).pluck().get(params) as number;
  }

  /**
   * A page and its count in one deferred read transaction: under WAL both statements see the same
   * snapshot, so the count always matches the page.
   */
  private paged<R, T>(page: [StatementName, Record<string, unknown>], count: [StatementName, Record<string, unknown>], map: (r: R) => T) {
    return this.guard(() =>
      this.db.transaction((): Paged<T> => ({
        items: this.all<R>(page[0], page[1]).map(map),
        totalCount: this.count(count[0], count[1]),
      }))(),
    );
  }

  /** A keyset page: one row more than asked says whether another page follows. */
  private keyset<R, T>(
    name: StatementName,
    params: Record<string, unknown>,
    count: [StatementName, Record<string, unknown>],
    page: KeysetPage,
    map: (r: R) => T,
  ) {
    return this.guard(() =>
      this.db.transaction((): KeysetResult<T> => {
        const rows = this.all<R>(name, { ...params, limit: page.first + 1 });
        return {
          items: rows.slice(0, page.first).map(map),
          hasNextPage: rows.length > page.first,
          totalCount: this.count(count[0], count[1]),
        };
      })(),
    );
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

  listSongs(query: SongQuery, page: Page) {
    if (query.search !== undefined) {
      const match = fts5Query(query.search);
      if (match === null) return Promise.resolve({ items: [], totalCount: 0 });
      return this.paged(['searchSongs', { match, ...limits(page) }], ['countSearch', { match }], toSong);
    }
    return this.paged([SONG_PAGE[query.sort ?? 'ID_ASC'], limits(page)], ['countSongs', {}], toSong);
  }

  songsAfter(sort: SongSort, page: KeysetPage) {
    if (!page.after) return this.keyset(SONG_PAGE[sort], { offset: 0 }, ['countSongs', {}], page, toSong);
    const params = sort.startsWith('ID') ? { id: page.after.id } : { key: page.after.key, id: page.after.id };
    return this.keyset(SONG_AFTER[sort], params, ['countSongs', {}], page, toSong);
  }

  songsByIds(ids: readonly number[]) {
    return this.guard(() => byIds(ids, this.all<SongRow>('songsByIds', JSON.stringify(ids)).map(toSong)));
  }

  licensingOfSongs(ids: readonly number[]) {
    return this.guard(() => this.licensingRows(ids));
  }

  private licensingRows(ids: readonly number[]): (SongLicensing | null)[] {
    const rows = this.all<LicensingRow & { id: number }>('songsLicensing', JSON.stringify(ids));
    const found = new Map(rows.map((r) => [r.id, toLicensing(r)]));
    return ids.map((id) => found.get(id) ?? null);
  }

  songsByArtistKey(key: string, page: Page) {
    return this.paged(['songsByArtistKey', { key, ...limits(page) }], ['countByArtistKey', { key }], toSong);
  }

  private indexArtists(songId: number, artists: string[]) {
    this.run('deleteArtistKeys', songId);
    for (const [key, spellings] of spellingsByKey(artists)) this.run('insertArtistKey', key, songId, JSON.stringify(spellings));
  }

  /** Insert one song with its artist keys (createSong, importCatalogue). */
  private insertSong(input: SongInput): SongRecord {
    const row = this.get<SongRow>('insertSong', {
      name: input.name,
      artists: JSON.stringify(input.artists),
      ccliNumber: input.ccliNumber ?? null,
      copyright: input.copyright ?? null,
    })!;
    this.indexArtists(row.id, input.artists);
    return toSong(row);
  }

  createSong(input: SongInput) {
    return this.write(() => this.recorded(this.insertSong(input), changes.songCreated));
  }

  updateSong(id: number, patch: SongPatch) {
    return this.write(() => {
      const song = this.patchSong(id, patch);
      return song && this.recorded(song, changes.songUpdated);
    });
  }

  /** Record the events of a write, in its transaction (the outbox: src/events/changes.ts). */
  private record(...events: NewEvent[]): void {
    const at = Date.now();
    for (const e of events) {
      const seq = this.stmt('insertEvent').pluck().get(e.type, at, JSON.stringify(e.data)) as number;
      this.webhooks.fanOut(seq, e.type, at);
    }
  }

  /** `record` of the one event a written record makes, answering the record. */
  private recorded<T>(record: T, event: (record: T) => NewEvent): T {
    this.record(event(record));
    return record;
  }

  /** The service's record and whole setlist as a setlist.changed event carries them. */
  private setlistChanged(serviceId: number): NewEvent {
    const service = toService(this.get<ServiceRow>('servicesByIds', JSON.stringify([serviceId]))!);
    return changes.setlistChanged(service, this.all<SongRow>('setlistOfService', serviceId).map(toSong));
  }

  lastEventId() {
    return this.guard(() => {
      const seq = this.stmt('lastEvent').pluck().get() as number | null;
      return seq === null ? null : sqliteEventId(seq);
    });
  }

  eventsAfter(after: string | undefined, limit: number) {
    return this.guard(() =>
      this.all<{ seq: number; type: string; at: number; data: string }>('eventsAfter', after === undefined ? 0 : sqliteEventSeq(after), limit).map(
        (r) => ({ id: sqliteEventId(r.seq), type: r.type, timestamp: r.at, data: JSON.parse(r.data) }) as ChangeEvent,
      ),
    );
  }

  private patchSong(id: number, patch: SongPatch): SongRecord | null {
    const artists = patch.artists === undefined ? null : JSON.stringify(patch.artists);
    const row = this.get<SongRow>('updateSong', {
      id,
      name: patch.name ?? null,
      artists,
      setCcliNumber: patch.ccliNumber === undefined ? 0 : 1,
      ccliNumber: patch.ccliNumber ?? null,
      setCopyright: patch.copyright === undefined ? 0 : 1,
      copyright: patch.copyright ?? null,
    });
    if (!row) return null;
    if (patch.artists) this.indexArtists(id, patch.artists);
    return toSong(row);
  }

  deleteSong(id: number) {
    return this.write(() => {
      const [song] = byIds([id], this.all<SongRow>('songsByIds', JSON.stringify([id])).map(toSong));
      if (!song || !this.removeSong(id)) return false;
      this.record(changes.songDeleted(song));
      return true;
    });
  }

  private removeSong(id: number): boolean {
    // Links and artist keys go with the song through ON DELETE CASCADE; the setlists it was in
    // then close the gap it leaves.
    const services = this.stmt('servicesOfSong').pluck().all(id) as number[];
    if (this.run('deleteSong', id).changes === 0) return false;
    if (services.length > 0) this.run('renumberSetlists', JSON.stringify(services));
    return true;
  }

  mergeSongs(keepId: number, mergeIds: readonly number[]) {
    return this.write((): SongRecord | MergeRefused => {
      const ids = [keepId, ...mergeIds];
      const songs = byIds(ids, this.all<SongRow>('songsByIds', JSON.stringify(ids)).map(toSong));
      const details = mergeGains(ids, songs, this.licensingRows(ids));
      if (isMergeRefused(details)) return details;
      // Each setlist a merged song is in, rewritten through the link triggers (the aggregates).
      const merged = new Set(mergeIds);
      const services = [...new Set(mergeIds.flatMap((id) => this.stmt('servicesOfSong').pluck().all(id) as number[]))];
      for (const serviceId of services) {
        const current = this.stmt('setlistSongIds').pluck().all(serviceId) as number[];
        this.run('clearSetlist', serviceId);
        this.fillSetlist(serviceId, orderAfterMerge(current, keepId, merged));
      }
      for (const id of mergeIds) this.removeSong(id);
      const kept = this.patchSong(keepId, details)!;
      this.record(changes.songsMerged(kept, mergeIds));
      return kept;
    });
  }

  // Services

  listServices(query: ServiceQuery, page: Page) {
    const types = typesParam(query);
    return this.paged(
      [SERVICE_PAGE[query.sort ?? 'DATE_ASC'], { types, ...limits(page) }],
      ['countServices', { types }],
      toService,
    );
  }

  servicesAfter(query: ServiceQuery, page: KeysetPage) {
    const sort = query.sort ?? 'DATE_ASC';
    const types = typesParam(query);
    const count: [StatementName, Record<string, unknown>] = ['countServices', { types }];
    if (!page.after) return this.keyset(SERVICE_PAGE[sort], { types, offset: 0 }, count, page, toService);
    return this.keyset(SERVICE_AFTER[sort], { types, key: page.after.key, id: page.after.id }, count, page, toService);
  }

  servicesByIds(ids: readonly number[]) {
    return this.guard(() =>
      byIds(ids, this.all<ServiceRow>('servicesByIds', JSON.stringify(ids)).map(toService)),
    );
  }

  servicesInRange(range: DateRange, filter: ServiceFilter, page: Page) {
    const where = { min: range.min, max: range.max, types: typesParam(filter) };
    return this.paged(['servicesInRange', { ...where, ...limits(page) }], ['countInRange', where], toService);
  }

  createService(input: ServiceInput) {
    return this.write((): ServiceRecord | SlotTaken => {
      this.periodsFor([input.date]);
      const made = this.inSlot(input, () => toService(this.get<ServiceRow>('insertService', input.date, input.serviceType)!));
      if (!isSlotTaken(made)) this.record(changes.serviceCreated(made));
      return made;
    });
  }

  /**
   * A service write that may take a date and type another service holds: the services_slot index
   * refuses it (the statement alone is undone; SQLite writers are serialised, so the holder read
   * after it is the one that refused it).
   */
  private inSlot<T>(slot: ServiceInput | (() => ServiceInput), write: () => T): T | SlotTaken {
    try {
      return write();
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw err;
      const { date, serviceType } = typeof slot === 'function' ? slot() : slot;
      const holder = this.get<{ id: number }>('serviceInSlot', date, serviceType);
      if (!holder) throw err;
      return { slotTakenBy: holder.id };
    }
  }

  /** The timeline periods of service dates about to be written (the triggers need them). */
  private periodsFor(dates: Iterable<number>) {
    ensurePeriods(this.db, this.serviceTimeZone, dates);
  }

  updateService(id: number, patch: ServicePatch) {
    return this.write((): ServiceRecord | null | SlotTaken => {
      if (patch.date != null) this.periodsFor([patch.date]);
      const params = { id, date: patch.date ?? null, serviceType: patch.serviceType ?? null };
      const slot = () => {
        const before = toService(this.get<ServiceRow>('servicesByIds', JSON.stringify([id]))!);
        return { date: patch.date ?? before.date, serviceType: patch.serviceType ?? before.serviceType };
      };
      const row = this.inSlot(slot, () => this.get<ServiceRow>('updateService', params));
      return row === undefined ? null : isSlotTaken(row) ? row : this.recorded(toService(row), changes.serviceUpdated);
    });
  }

  deleteService(id: number) {
    return this.write(() => {
      const [service] = byIds([id], this.all<ServiceRow>('servicesByIds', JSON.stringify([id])).map(toService));
      if (!service || this.run('deleteService', id).changes === 0) return false;
      this.record(changes.serviceDeleted(service));
      return true;
    });
  }

  // PERFORMED_IN

  setlistsForServices(serviceIds: readonly number[], page?: Page) {
    const ids = distinctIds(serviceIds);
    const rows: [StatementName, Record<string, unknown>] =
      ids.length === 1 ? ['setlist', { id: ids[0], ...limits(page) }] : ['setlists', { ids: JSON.stringify(ids), ...limits(page) }];
    return this.relation(serviceIds, rows, ['setlistCounts', { ids: JSON.stringify(ids) }], toSong);
  }

  /** Both reads on the one connection, back to back (no write of this process runs between them). */
  async servicesWithSetlists(serviceIds: readonly number[], page?: Page) {
    const [services, setlists] = await Promise.all([this.servicesByIds(serviceIds), this.setlistsForServices(serviceIds, page)]);
    return services.map((service, i) => ({ service, setlist: setlists[i] }));
  }

  servicesForSongs(songIds: readonly number[], query?: ServiceQuery, page?: Page) {
    const ids = distinctIds(songIds);
    const types = typesParam(query);
    const sort = query?.sort ?? 'DATE_ASC';
    const rows: [StatementName, Record<string, unknown>] = everyType(query)
      ? ids.length === 1
        ? [SONG_SERVICE_STATEMENTS.one[sort], { id: ids[0], ...limits(page) }]
        : [SONG_SERVICE_STATEMENTS.many[sort], { ids: JSON.stringify(ids), ...limits(page) }]
      : ids.length === 1
        ? [SONG_SERVICE_STATEMENTS.oneOfTypes[sort], { id: ids[0], types, ...perParent(page) }]
        : [SONG_SERVICE_STATEMENTS.manyOfTypes[sort], { ids: JSON.stringify(ids), types, ...perParent(page) }];
    return this.relation(songIds, rows, ['servicesForSongsCounts', { ids: JSON.stringify(ids), types }], toService);
  }

  /**
   * Per-parent pages of a relation and their totals in one read transaction: the page of one
   * parent, or of a whole batch, is one statement. Totals come from a second statement, so a
   * parent whose page is empty still has its total.
   */
  private relation<R, T>(
    keys: readonly number[],
    rows: [StatementName, Record<string, unknown>],
    totals: [StatementName, Record<string, unknown>],
    map: (r: R) => T,
  ) {
    if (keys.length === 0) return Promise.resolve([]);
    return this.guard(() =>
      this.db.transaction(() =>
        groupBy(keys, this.all<Keyed<R>>(rows[0], rows[1]), this.all<Keyed<{ total: number }>>(totals[0], totals[1]), map),
      )(),
    );
  }

  private missing(serviceId: number, songId?: number): LinkResult {
    if (!this.get('serviceExists', serviceId)) return 'no-service';
    if (songId !== undefined && !this.get('songExists', songId)) return 'no-song';
    return 'ok';
  }

  /** The setlist's song ids in order, with their stored positions. */
  private order(serviceId: number): PlacedSong[] {
    return this.all<{ song_id: number; position: number }>('setlistOrder', serviceId).map((r) => ({
      songId: r.song_id,
      position: r.position,
    }));
  }

  /** Write the positions of `order` that differ from what is stored, inserting new links. */
  private place(serviceId: number, current: PlacedSong[], order: number[]) {
    const linked = new Set(songIds(current));
    for (const { songId, position } of placesToWrite(current, order)) {
      if (linked.has(songId)) this.run('moveLink', position, serviceId, songId);
      else this.run('insertLink', serviceId, songId, position);
    }
  }

  linkSong(serviceId: number, songId: number, position?: number) {
    return this.write((): LinkSongResult => {
      const found = this.missing(serviceId, songId);
      if (found !== 'ok') return found;
      const current = this.order(serviceId);
      if (wouldOverfill(songIds(current), songId)) return 'setlist-full';
      this.place(serviceId, current, orderAfterLink(songIds(current), songId, position));
      this.record(this.setlistChanged(serviceId));
      return 'ok';
    });
  }

  unlinkSong(serviceId: number, songId: number) {
    return this.write((): LinkResult | 'not-linked' => {
      const found = this.missing(serviceId, songId);
      if (found !== 'ok') return found;
      if (this.run('unlink', serviceId, songId).changes === 0) return 'not-linked';
      const current = this.order(serviceId);
      this.place(serviceId, current, songIds(current));
      this.record(this.setlistChanged(serviceId));
      return 'ok';
    });
  }

  replaceSetlist(serviceId: number, songIds: readonly number[]) {
    // The facades refuse these first (src/domain/validation.ts); a caller that did not is a bug.
    const problem = setlistProblem(songIds);
    if (problem) return Promise.reject(new Error(`replaceSetlist: ${problem}`));
    return this.write((): LinkResult => {
      if (!this.get('serviceExists', serviceId)) return 'no-service';
      if (this.missingSong(songIds) !== undefined) return 'no-song';
      this.run('clearSetlist', serviceId);
      this.fillSetlist(serviceId, songIds);
      this.record(this.setlistChanged(serviceId));
      return 'ok';
    });
  }

  /** The first of `songIds` that names no song. */
  private missingSong(songIds: readonly number[]): number | undefined {
    const existing = new Set(this.stmt('songsExisting').pluck().all(JSON.stringify(songIds)) as number[]);
    return songIds.find((id) => !existing.has(id));
  }

  /** Link existing `songIds` at places 1..n of an empty setlist. */
  private fillSetlist(serviceId: number, songIds: readonly number[]): void {
    songIds.forEach((songId, i) => this.run('insertLink', serviceId, songId, i + 1));
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
      const before = this.get<{ role: UserRecord['role'] }>('userRole', id);
      if (!before) return null;
      const key = patch.username === undefined ? null : usernameKey(patch.username);
      if (key !== null && this.get('userKeyTaken', key, id)) return 'conflict';
      if (patch.role === 'USER' && this.isLastAdmin(id)) return 'last-admin';
      const user = this.get<UserRecord>('updateUser', {
        username: patch.username ?? null,
        usernameKey: key,
        passwordHash: patch.passwordHash ?? null,
        role: patch.role ?? null,
        id,
      })!;
      if (user.role !== before.role) this.record(changes.roleChanged(user, before.role));
      return user;
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
        const licensing = this.all<LicensingRow & { song_id: number }>('exportLicensing').map((r) => ({
          songId: r.song_id,
          ...toLicensing(r),
        }));
        const services = this.all<ServiceRow>('exportServices').map(toService);
        const links = this.all<LinkRow>('exportLinks').map(toLink);
        const users = this.all<CredentialsRow>('exportUsers').map(toCredentials);
        const issued = new Map(this.all<{ name: string; seq: number }>('exportSequences').map((r) => [r.name, r.seq]));
        return assembleSnapshot(
          { songs, licensing, services, links, users },
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
      const licensing = licensingBySong(snapshot);
      const load = () => {
        for (const s of snapshot.songs) {
          const { ccliNumber, copyright } = licensingOf(licensing, s.id);
          this.run('importSong', s.id, s.name, JSON.stringify(s.artists), ccliNumber, copyright);
          this.indexArtists(s.id, s.artists);
        }
        this.periodsFor(snapshot.services.map((v) => v.date).sort((a, b) => a - b));
        for (const v of snapshot.services) this.run('importService', { id: v.id, date: v.date, serviceType: v.serviceType });
        for (const u of snapshot.users) {
          this.run('importUser', u.id, u.username, usernameKey(u.username), u.passwordHash, u.role, u.tokenVersion);
        }
        for (const l of snapshot.links) this.run('importLink', l.seq, l.serviceId, l.songId, l.position);
      };
      // More links than the store holds: recomputing the analytics tables once (./bulk.ts) is
      // cheaper than keeping them link by link; a small import into a large store keeps them.
      if (snapshot.links.length > this.get<{ n: number }>('countLinks')!.n) withDerivedRebuilt(this.db, load);
      else load();
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

  /** Nothing to do: SQLite plans from its schema, not from statistics this store gathers (./types.ts). */
  async replanAfterImport() {}

  // Importing a catalogue

  importCatalogue(batch: CatalogueBatch) {
    return this.write((): ImportedCatalogue => {
      const songs = batch.songs.map((input) => this.insertSong(input));
      const services = batch.services.map(({ service, songIds }) => {
        checkSetlist(songIds);
        this.periodsFor([service.date]);
        const row = this.inSlot(service, () => toService(this.get<ServiceRow>('insertService', service.date, service.serviceType)!));
        if (isSlotTaken(row)) throw new CatalogueError(`a service of the batch has the date and type of service ${row.slotTakenBy}`);
        const missing = this.missingSong(songIds);
        if (missing !== undefined) throw new CatalogueError(`song ${missing} does not exist`);
        this.fillSetlist(row.id, songIds);
        return row;
      });
      return { songs, services };
    });
  }
}
