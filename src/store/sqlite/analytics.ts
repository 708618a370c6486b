import type { SongRhythmData } from '../../domain/analytics/rotation';
import type Database from 'better-sqlite3';
import type { ServiceType } from '../../generated/graphql';
import { boundsOf, NO_LIMIT, sungOften, usageStats, type UsageColumns } from '../analytics-shape';
import type {
  AnalyticsWindow,
  ArtistUsageRecord,
  PairingRecord,
  SongUsageQuery,
  SongTimesByType,
  SongUsageRecord,
  SungOftenQuery,
  UsageBucketRecord,
} from '../analytics-types';
import type { SongRecord } from '../types';
import { USAGE_TYPES } from './analytics-schema';
import { ANALYTICS_SQL, type AnalyticsStatementName } from './analytics-statements';

interface StatsRow {
  times: number;
  first: number | null;
  last: number | null;
  openers: number;
  closers: number;
  sun_am: number;
  sun_am_last: number | null;
  sun_pm: number;
  sun_pm_last: number | null;
  wed: number;
  wed_last: number | null;
}
type SongRow = { id: number; name: string; artists: string };

const toSong = (r: SongRow): SongRecord => ({ id: r.id, name: r.name, artists: JSON.parse(r.artists) });

const columns = (r: StatsRow): UsageColumns => ({
  times: r.times,
  first: r.first,
  last: r.last,
  openers: r.openers,
  closers: r.closers,
  perType: {
    SUN_AM: { times: r.sun_am, last: r.sun_am_last },
    SUN_PM: { times: r.sun_pm, last: r.sun_pm_last },
    WED: { times: r.wed, last: r.wed_last },
  },
});

const isAllTime = (w: AnalyticsWindow) => w.from === null && w.to === null;
const everyType = (w: AnalyticsWindow) => USAGE_TYPES.every(([type]) => w.serviceTypes.includes(type));

const windowParams = (w: AnalyticsWindow) => ({
  ...boundsOf(w),
  allTime: isAllTime(w) ? 1 : 0,
  types: JSON.stringify(w.serviceTypes),
  ...Object.fromEntries(USAGE_TYPES.map(([type, col]) => [col, w.serviceTypes.includes(type) ? 1 : 0])),
  allTypes: everyType(w) ? 1 : 0,
  // The set of types as the timeline's mask: bit i for USAGE_TYPES[i].
  mask: USAGE_TYPES.reduce((m, [type], i) => (w.serviceTypes.includes(type) ? m | (1 << i) : m), 0),
});

/** All time with every type asked: the statement that reads the index in the report's order. */
const INDEXED_ORDER: Partial<Record<SongUsageQuery['sort'], AnalyticsStatementName>> = {
  TIMES_SUNG: 'songUsageByTimes',
  LAST_SUNG: 'songUsageByLastDesc',
  LEAST_RECENTLY_SUNG: 'songUsageByLast',
  FIRST_SUNG: 'songUsageByFirst',
};

function usageStatement(q: SongUsageQuery): AnalyticsStatementName {
  return (isAllTime(q.window) && everyType(q.window) && INDEXED_ORDER[q.sort]) || 'songUsage';
}

/** Whether the numbers are in ascending order. */
function ascending(xs: readonly number[]): boolean {
  for (let i = 1; i < xs.length; i++) if (xs[i - 1] > xs[i]) return false;
  return true;
}

/**
 * The analytics reads of the SQLite store (src/store/sqlite/analytics-statements.ts), run by
 * SqliteStore through its error guard (hence synchronous, like better-sqlite3).
 */
export class SqliteAnalytics {
  private readonly stmts = new Map<AnalyticsStatementName, Database.Statement>();
  private readonly rawStmts = new Map<AnalyticsStatementName, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  private all<T>(name: AnalyticsStatementName, params: Record<string, unknown>): T[] {
    let s = this.stmts.get(name);
    if (!s) this.stmts.set(name, (s = this.db.prepare(ANALYTICS_SQL[name])));
    return s.all(params) as T[];
  }

  /** Every row carries the full count; a page past the end has none, so ask for the first row. */
  private total(name: AnalyticsStatementName, params: { offset: number }, rows: { total: number }[]): number {
    if (rows.length || params.offset === 0) return rows[0]?.total ?? 0;
    return this.all<{ total: number }>(name, { ...params, offset: 0, limit: 1 })[0]?.total ?? 0;
  }

  /**
   * A usage statement's rows as arrays (better-sqlite3's raw mode), read by column position: the
   * full all-time report is ~19,000 rows of 15 columns at the bench's largest size, and building
   * one keyed object per row before the record costs more than the statement itself. The song's
   * licensing details come with it (SongUsageRecord.licensing).
   */
  private usageRows(name: AnalyticsStatementName, params: Record<string, unknown>, window: AnalyticsWindow) {
    let s = this.rawStmts.get(name);
    if (!s) this.rawStmts.set(name, (s = this.db.prepare(ANALYTICS_SQL[name]).raw(true)));
    const at = Object.fromEntries(s.columns().map((c, i) => [c.name, i])) as Record<string, number>;
    const perType = window.serviceTypes.map((type) => {
      const col = USAGE_TYPES.find(([t]) => t === type)![1];
      return [type, at[col], at[`${col}_last`]] as const;
    });
    const rows = s.all(params) as unknown[][];
    return {
      total: rows.length ? (rows[0][at.total] as number) : null,
      items: rows.map((r): SongUsageRecord => ({
        song: { id: r[at.id] as number, name: r[at.name] as string, artists: JSON.parse(r[at.artists] as string) },
        licensing: { ccliNumber: r[at.ccli_number] as string | null, copyright: r[at.copyright] as string | null },
        timesSung: r[at.times] as number,
        firstSung: r[at.first] as number | null,
        lastSung: r[at.last] as number | null,
        byServiceType: perType.map(([serviceType, times, last]) => ({
          serviceType,
          timesSung: r[times] as number,
          lastSung: r[last] as number | null,
        })),
        asOpener: r[at.openers] as number,
        asCloser: r[at.closers] as number,
      })),
    };
  }

  songUsage(q: SongUsageQuery) {
    const params = {
      ...windowParams(q.window),
      includeUnsung: q.includeUnsung ? 1 : 0,
      lastBefore: q.lastBefore ?? null,
      firstFrom: q.firstIn ? boundsOf(q.firstIn).from : null,
      firstTo: q.firstIn ? boundsOf(q.firstIn).to : null,
      sort: q.sort,
      limit: q.limit ?? NO_LIMIT,
      offset: q.offset ?? 0,
    };
    const statement = usageStatement(q);
    const { items, total } = this.usageRows(statement, params, q.window);
    return { items, total: total ?? this.total(statement, params, []) };
  }

  usageOfSongs(songIds: readonly number[], window: AnalyticsWindow) {
    const rows = this.all<StatsRow & { id: number }>(isAllTime(window) ? 'usageOfSongsAllTime' : 'usageOfSongs', {
      ...windowParams(window),
      songIds: JSON.stringify(songIds),
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return songIds.map((id) => usageStats(columns(byId.get(id)!), window));
  }

  songRhythms(songIds: readonly number[], range: { min: number; max: number }): SongRhythmData[] {
    const params = { songIds: JSON.stringify(songIds), ...range };
    const out: SongRhythmData[] = songIds.map(() => ({ dates: [], lastBefore: null }));
    for (const r of this.all<{ i: number; dates: string; last_before: number | null }>('songRhythms', params)) {
      // A JSON array of whole ms (parsed natively: faster than splitting text in JavaScript).
      // json_group_array promises no order; the index range gives it ascending, checked here.
      const dates = JSON.parse(r.dates) as number[];
      out[r.i] = { dates: ascending(dates) ? dates : dates.sort((a, b) => a - b), lastBefore: r.last_before };
    }
    return out;
  }

  songTimesByType(songIds: readonly number[]): SongTimesByType[] {
    const out: SongTimesByType[] = new Array(songIds.length);
    for (const r of this.all<{ i: number; sun_am: number; sun_pm: number; wed: number }>('songTimesByType', { songIds: JSON.stringify(songIds) })) {
      out[r.i] = { SUN_AM: r.sun_am, SUN_PM: r.sun_pm, WED: r.wed };
    }
    return out;
  }

  songsSungWith(songId: number, window: AnalyticsWindow, limit: number): PairingRecord[] {
    const statement = !isAllTime(window) ? 'songsSungWith' : everyType(window) ? 'songsSungWithAllTypes' : 'songsSungWithAllTime';
    const rows = this.all<SongRow & { together: number; jaccard: number }>(statement, {
      ...windowParams(window),
      songId,
      limit,
    });
    return rows.map((r) => ({ song: toSong(r), together: r.together, jaccard: r.jaccard }));
  }

  serviceSpan(serviceTypes: ServiceType[]) {
    const [row] = this.all<{ first: number | null; last: number | null }>('serviceSpan', {
      types: JSON.stringify(serviceTypes),
    });
    return row.first === null || row.last === null ? null : { first: row.first, last: row.last };
  }

  usageTimeline(buckets: readonly { start: number; end: number }[], window: AnalyticsWindow, songId: number | null) {
    return this.all<{ start: number; services: number; performances: number; distinct_songs: number }>('usageTimeline', {
      ...windowParams(window),
      buckets: JSON.stringify(buckets.map((b) => [b.start, b.end])),
      songId,
    }).map((r): UsageBucketRecord => ({
      start: r.start,
      services: r.services,
      performances: r.performances,
      distinctSongs: r.distinct_songs,
    }));
  }

  songsOfLastServices(q: Omit<SungOftenQuery, 'moreThanPercent'>): number[] {
    const params = { ...windowParams({ from: null, to: q.to, serviceTypes: q.serviceTypes }), lastServices: q.lastServices };
    return this.all<{ id: number }>('songsOfLastServices', params).map((r) => r.id);
  }

  songsSungOften(q: SungOftenQuery) {
    const rows = this.all<SongRow & { services: number; first_service: number | null; last_service: number | null; times: number; last: number }>(
      'songsSungOften',
      {
        ...windowParams({ from: null, to: q.to, serviceTypes: q.serviceTypes }),
        lastServices: q.lastServices,
        moreThanPercent: q.moreThanPercent,
      },
    );
    const [head] = rows;
    return sungOften(
      { services: head.services, first: head.first_service, last: head.last_service },
      rows.filter((r) => r.id !== null).map((r) => ({ song: toSong(r), times: r.times, last: r.last })),
    );
  }

  artistUsage(window: AnalyticsWindow, page: { limit?: number; offset?: number }) {
    const params = { ...windowParams(window), limit: page.limit ?? NO_LIMIT, offset: page.offset ?? 0 };
    const rows = this.all<ArtistUsageRecord & { times: number; total: number }>('artistUsage', params);
    return {
      items: rows.map((r) => ({ artist: r.artist, timesSung: r.times, songs: r.songs })),
      total: this.total('artistUsage', params, rows),
    };
  }
}
