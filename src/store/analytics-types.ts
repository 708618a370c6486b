import type { SongRhythmData } from '../domain/analytics/rotation';
import type { SongLicensing } from '../domain/licensing';
import type { ServiceType, SongUsageSort } from '../generated/graphql';
import type { SongRecord } from './types';

/** An analytics window as the stores take it: inclusive epoch-ms bounds, null when open. */
export interface AnalyticsWindow {
  from: number | null;
  to: number | null;
  /** Distinct and in enum order; never empty (all three when the caller gave none). */
  serviceTypes: ServiceType[];
}

export interface ServiceTypeUsageRecord {
  serviceType: ServiceType;
  timesSung: number;
  lastSung: number | null;
}

/** A song's usage without the song: what `Song.usage` batches. */
export interface UsageStats {
  timesSung: number;
  firstSung: number | null;
  lastSung: number | null;
  /** One entry per service type of the window, in enum order. */
  byServiceType: ServiceTypeUsageRecord[];
  asOpener: number;
  asCloser: number;
}

export interface SongUsageRecord extends UsageStats {
  song: SongRecord;
  /**
   * The song's licensing details, when the statement that made the row read them with it (the
   * usage reports: the song is already read there, and a second batched read of every row's
   * song cost more than the rows at 19,000 of them). Absent, they are resolved per song, batched.
   */
  licensing?: SongLicensing;
}

/**
 * The usage report and its two all-time relatives, which are the same aggregation filtered
 * differently: rotation (`lastBefore`) and new songs (`firstIn`).
 */
export interface SongUsageQuery {
  window: AnalyticsWindow;
  /** FIRST_SUNG (new songs): latest first performance first, ties by song id descending. */
  sort: SongUsageSort | 'FIRST_SUNG';
  includeUnsung: boolean;
  /** Only songs never sung, or last sung before this instant. */
  lastBefore?: number;
  /** Only songs first sung within these inclusive bounds. */
  firstIn?: { from: number | null; to: number | null };
  limit?: number;
  offset?: number;
}

export interface PairingRecord {
  song: SongRecord;
  together: number;
  jaccard: number;
}

export interface UsageBucketRecord {
  start: number;
  services: number;
  performances: number;
  distinctSongs: number;
}

/** Overuse at a glance: the last `lastServices` services of the types up to `to` (inclusive, open when null). */
export interface SungOftenQuery {
  to: number | null;
  serviceTypes: ServiceType[];
  lastServices: number;
  /** Songs sung in strictly more than this percentage of those services (0 to 99). */
  moreThanPercent: number;
}

export interface SongShareRecord {
  song: SongRecord;
  /** Services of the run in which the song was sung. */
  timesSung: number;
  /** timesSung / the run's services. */
  share: number;
  /** The latest service of the run in which it was sung. */
  lastSung: number;
}

export interface SungOftenRecord {
  /** Services in the run: `lastServices`, or fewer when fewer exist. */
  services: number;
  firstService: number | null;
  lastService: number | null;
  /** Most often first, then by song id. */
  songs: SongShareRecord[];
}

export interface ArtistUsageRecord {
  artist: string;
  timesSung: number;
  songs: number;
}

/** One page of a ranked list, with the full count (REST answers it as X-Total-Count). */
export interface Ranked<T> {
  items: T[];
  total: number;
}

/**
 * The analytics reads. Each is one statement in the database (SQL aggregation, Cypher
 * aggregation), never a whole-table read reduced in JavaScript.
 */
export interface AnalyticsStore {
  songUsage(query: SongUsageQuery): Promise<Ranked<SongUsageRecord>>;
  /** Same length and order as `songIds`; zeros for unknown songs. */
  usageOfSongs(songIds: readonly number[], window: AnalyticsWindow): Promise<UsageStats[]>;
  songsSungWith(songId: number, window: AnalyticsWindow, limit: number): Promise<PairingRecord[]>;
  /** Dates of the first and last service of these types; null when there is none. */
  serviceSpan(serviceTypes: ServiceType[]): Promise<{ first: number; last: number } | null>;
  /**
   * One row per bucket, same order; `buckets` are calendar periods (inclusive epoch-ms bounds),
   * each counted only inside the window, so a bucket the window cuts counts part of its period.
   * `start` is the bucket's own start either way.
   */
  usageTimeline(
    buckets: readonly { start: number; end: number }[],
    window: AnalyticsWindow,
    songId: number | null,
  ): Promise<UsageBucketRecord[]>;
  artistUsage(window: AnalyticsWindow, page: { limit?: number; offset?: number }): Promise<Ranked<ArtistUsageRecord>>;
  songsSungOften(query: SungOftenQuery): Promise<SungOftenRecord>;
  /**
   * The songs of the last `lastServices` services of these types up to `to` (newest first, a later
   * id first on one date, as songsSungOften's run), each once, by ascending id: a suggestion's pool
   * of candidates, which needs only their ids (songsSungOften also reads and counts every song).
   */
  songsOfLastServices(query: Omit<SungOftenQuery, 'moreThanPercent'>): Promise<number[]>;
  /**
   * Per song, in the order of `songIds`: the dates of the services holding it within `range`
   * (inclusive, every type), ascending, and its last date before `range.min` (null when none):
   * what src/domain/analytics/rotation.ts works a song's rhythm out from. Two index seeks per song
   * (the song's links in date order), so it costs what the range holds, never the song's history.
   */
  songRhythms(songIds: readonly number[], range: { min: number; max: number }): Promise<SongRhythmData[]>;
  /**
   * Per song, in the order of `songIds`: the services holding it over all time, per type (zeros
   * for an unknown song). One key read of the maintained usage per song, and nothing else: what a
   * suggestion needs of each of its hundreds of candidates, where usageOfSongs works out every
   * figure of Song.usage.
   */
  songTimesByType(songIds: readonly number[]): Promise<SongTimesByType[]>;
}

/** Services holding a song over all time, per type (Store.songTimesByType). */
export type SongTimesByType = Record<ServiceType, number>;
