import type { SongRhythmData } from '../../domain/analytics/rotation';
import type { ManagedTransaction, Record as Neo4jRecord } from 'neo4j-driver';
import type { ServiceType } from '../../generated/graphql';
import { boundsOf, NO_LIMIT, sungOften, usageStats, type UsageColumns } from '../analytics-shape';
import type { AnalyticsStore, AnalyticsWindow, SongTimesByType, SongUsageQuery, SungOftenQuery } from '../analytics-types';
import {
  ANALYTICS_CYPHER,
  ANALYTICS_PARAMS,
  SONG_USAGE_ALL_TYPES,
  type AllTypesOrder,
  type AnalyticsStatementName,
} from './analytics-statements';
import { periodAt, typeBit } from './periods';
import { USAGE_TYPES } from './statements';
import { encodeParams, fromInt, toLicensing, toSong } from './values';

type Tx = Pick<ManagedTransaction, 'run'>;
export type Reader = <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;

const intOrNull = (v: unknown, what: string) => (v === null || v === undefined ? null : fromInt(v, what));

const columns = (r: Neo4jRecord): UsageColumns => ({
  times: fromInt(r.get('times'), 'times'),
  first: intOrNull(r.get('first'), 'first'),
  last: intOrNull(r.get('last'), 'last'),
  openers: fromInt(r.get('openers'), 'openers'),
  closers: fromInt(r.get('closers'), 'closers'),
  perType: {
    SUN_AM: { times: fromInt(r.get('sunAm'), 'count'), last: intOrNull(r.get('sunAmLast'), 'date') },
    SUN_PM: { times: fromInt(r.get('sunPm'), 'count'), last: intOrNull(r.get('sunPmLast'), 'date') },
    WED: { times: fromInt(r.get('wed'), 'count'), last: intOrNull(r.get('wedLast'), 'date') },
  },
});

const windowParams = (w: AnalyticsWindow) => {
  const { from, to } = boundsOf(w);
  return { from: from, to: to, serviceTypes: [...w.serviceTypes] };
};

/** No bounds: the maintained per-song usage answers, and no link is read (./analytics-statements.ts). */
const isAllTime = (w: AnalyticsWindow) => w.from === null && w.to === null;
const isAllTypes = (w: AnalyticsWindow) => USAGE_TYPES.every(([type]) => w.serviceTypes.includes(type));

const total = (rows: Neo4jRecord[]) => (rows.length ? fromInt(rows[0].get('total'), 'total') : 0);

/** The analytics reads of the Neo4j store (./analytics-statements.ts), each one statement. */
export class Neo4jAnalytics implements AnalyticsStore {
  /** `zone`: the store's SERVICE_TIME_ZONE, the zone its timeline periods are kept in (./periods.ts). */
  constructor(
    private readonly read: Reader,
    private readonly zone = 'UTC',
  ) {}

  private run(name: AnalyticsStatementName, params: Record<string, unknown>): Promise<Neo4jRecord[]> {
    const encoded = encodeParams(name, ANALYTICS_PARAMS[name], params);
    return this.read(async (tx) => (await tx.run(ANALYTICS_CYPHER[name], encoded)).records);
  }

  /** Every row carries the full count; a page past the end has none, so ask for the first row. */
  private async total(name: AnalyticsStatementName, params: Record<string, unknown>, rows: Neo4jRecord[]) {
    if (rows.length || fromInt(params.offset, 'offset') === 0) return total(rows);
    return total(await this.run(name, { ...params, offset: 0, limit: 1 }));
  }

  /**
   * The statement that answers a usage report, and its parameters: in a window, the links;
   * all time, the songs' maintained usage, through the order's own index-backed statement when
   * every type is asked and one exists.
   */
  private songUsageStatement(q: SongUsageQuery): [AnalyticsStatementName, Record<string, unknown>] {
    const first = q.firstIn ? boundsOf(q.firstIn) : null;
    const params = {
      includeUnsung: q.includeUnsung,
      lastBefore: q.lastBefore === undefined ? null : q.lastBefore,
      firstFrom: first ? first.from : null,
      firstTo: first ? first.to : null,
      offset: q.offset ?? 0,
      limit: q.limit ?? NO_LIMIT,
    };
    if (!isAllTime(q.window)) return ['songUsage', { ...windowParams(q.window), ...params, sort: q.sort }];
    if (isAllTypes(q.window) && q.sort in SONG_USAGE_ALL_TYPES) return [SONG_USAGE_ALL_TYPES[q.sort as AllTypesOrder], params];
    return ['songUsageAllTime', { serviceTypes: [...q.window.serviceTypes], ...params, sort: q.sort }];
  }

  async songUsage(q: SongUsageQuery) {
    const [name, params] = this.songUsageStatement(q);
    const rows = await this.run(name, params);
    return {
      items: rows.map((r) => ({ song: toSong(r), licensing: toLicensing(r), ...usageStats(columns(r), q.window) })),
      total: await this.total(name, params, rows),
    };
  }

  async usageOfSongs(songIds: readonly number[], window: AnalyticsWindow) {
    if (songIds.length === 0) return [];
    const ids = songIds;
    const rows = isAllTime(window)
      ? await this.run('usageOfSongsAllTime', { serviceTypes: [...window.serviceTypes], ids })
      : await this.run('usageOfSongs', { ...windowParams(window), ids });
    return rows.map((r) => usageStats(columns(r), window));
  }

  async songsSungWith(songId: number, window: AnalyticsWindow, limit: number) {
    const common = { songId: songId, limit: limit };
    const rows = !isAllTime(window)
      ? await this.run('songsSungWith', { ...windowParams(window), ...common })
      : isAllTypes(window)
        ? await this.run('songsSungWithAllTypes', common)
        : await this.run('songsSungWithAllTime', { serviceTypes: [...window.serviceTypes], ...common });
    return rows.map((r) => ({
      song: toSong(r),
      together: fromInt(r.get('together'), 'together'),
      jaccard: r.get('jaccard') as number,
    }));
  }

  async serviceSpan(serviceTypes: ServiceType[]) {
    const [row] = await this.run('serviceSpan', { serviceTypes: [...serviceTypes] });
    const [first, last] = [intOrNull(row?.get('first'), 'date'), intOrNull(row?.get('last'), 'date')];
    return first === null || last === null ? null : { first, last };
  }

  async usageTimeline(buckets: readonly { start: number; end: number }[], window: AnalyticsWindow, songId: number | null) {
    if (buckets.length === 0) return [];
    const params = windowParams(window);
    const { from, to } = boundsOf(window);
    const rows = await this.run('usageTimeline', {
      buckets: buckets.map((b) => ({
        startMs: b.start,
        endMs: b.end,
        // Whether the bucket, cut to the window, is a maintained period (the store's zone).
        period: periodAt(Math.max(b.start, from), Math.min(b.end, to), this.zone) !== null,
      })),
      ...params,
      songId: songId === null ? null : songId,
      zone: this.zone,
      mask: window.serviceTypes.reduce((m, t) => m | typeBit(t), 0),
    });
    return rows.map((r) => ({
      start: fromInt(r.get('start'), 'bucket start'),
      services: fromInt(r.get('services'), 'services'),
      performances: fromInt(r.get('performances'), 'performances'),
      distinctSongs: fromInt(r.get('distinctSongs'), 'distinct songs'),
    }));
  }

  async songRhythms(songIds: readonly number[], range: { min: number; max: number }): Promise<SongRhythmData[]> {
    if (songIds.length === 0) return [];
    const rows = await this.run('songRhythms', { ids: songIds, ...range });
    return rows.map((r) => {
      const before = (r.get('before') as unknown[]).map((d) => fromInt(d, 'date'));
      return { dates: (r.get('dates') as unknown[]).map((d) => fromInt(d, 'date')), lastBefore: before[0] ?? null };
    });
  }

  async songTimesByType(songIds: readonly number[]): Promise<SongTimesByType[]> {
    if (songIds.length === 0) return [];
    const rows = await this.run('songTimesByType', { ids: songIds });
    return rows.map((r) => ({ SUN_AM: fromInt(r.get('sunAm'), 'times'), SUN_PM: fromInt(r.get('sunPm'), 'times'), WED: fromInt(r.get('wed'), 'times') }));
  }

  async songsOfLastServices(q: Omit<SungOftenQuery, 'moreThanPercent'>): Promise<number[]> {
    const rows = await this.run('songsOfLastServices', { to: boundsOf({ from: null, to: q.to }).to, serviceTypes: [...q.serviceTypes], lastServices: q.lastServices });
    return rows.map((r) => fromInt(r.get('id'), 'song id'));
  }

  async songsSungOften(q: SungOftenQuery) {
    const [row] = await this.run('songsSungOften', {
      to: boundsOf({ from: null, to: q.to }).to,
      serviceTypes: [...q.serviceTypes],
      lastServices: q.lastServices,
      moreThanPercent: q.moreThanPercent,
    });
    const songs = row.get('songs') as [unknown, string, string[] | null, unknown, unknown][];
    return sungOften(
      {
        services: fromInt(row.get('services'), 'services'),
        first: intOrNull(row.get('firstService'), 'date'),
        last: intOrNull(row.get('lastService'), 'date'),
      },
      songs.map(([id, name, artists, times, last]) => ({
        song: { id: fromInt(id, 'song id'), name, artists: [...(artists ?? [])] },
        times: fromInt(times, 'times'),
        last: fromInt(last, 'date'),
      })),
    );
  }

  async artistUsage(window: AnalyticsWindow, page: { limit?: number; offset?: number }) {
    const paging = { offset: page.offset ?? 0, limit: page.limit ?? NO_LIMIT };
    const [name, params]: [AnalyticsStatementName, Record<string, unknown>] = !isAllTime(window)
      ? ['artistUsage', { ...windowParams(window), ...paging }]
      : isAllTypes(window)
        ? ['artistUsageAllTime', paging]
        : ['artistUsageAllTimeOfTypes', { serviceTypes: [...window.serviceTypes], ...paging }];
    const rows = await this.run(name, params);
    return {
      items: rows.map((r) => ({
        artist: r.get('artist') as string,
        timesSung: fromInt(r.get('timesSung'), 'times sung'),
        songs: fromInt(r.get('songs'), 'songs'),
      })),
      total: await this.total(name, params, rows),
    };
  }
}
