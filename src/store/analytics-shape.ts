import type { ServiceType } from '../generated/graphql';
import type { AnalyticsWindow, SungOftenRecord, UsageStats } from './analytics-types';
import type { SongRecord } from './types';

/** Aggregates of one song as both stores' statements return them (numbers already converted). */
export interface UsageColumns {
  times: number;
  first: number | null;
  last: number | null;
  openers: number;
  closers: number;
  /** Per service type: count and last date. Types outside the window's filter are zero. */
  perType: Record<ServiceType, { times: number; last: number | null }>;
}

export function usageStats(c: UsageColumns, window: AnalyticsWindow): UsageStats {
  return {
    timesSung: c.times,
    firstSung: c.first,
    lastSung: c.last,
    byServiceType: window.serviceTypes.map((serviceType) => ({
      serviceType,
      timesSung: c.perType[serviceType].times,
      lastSung: c.perType[serviceType].last,
    })),
    asOpener: c.openers,
    asCloser: c.closers,
  };
}

/** Open bounds as the widest integers, so one statement serves open and closed windows. */
export const boundsOf = (w: { from: number | null; to: number | null }) => ({
  from: w.from ?? Number.MIN_SAFE_INTEGER,
  to: w.to ?? Number.MAX_SAFE_INTEGER,
});

/** Statements page with LIMIT -1 meaning "no limit" (SQLite) or a large integer (Cypher). */
export const NO_LIMIT = 2 ** 31 - 1;

/**
 * A sungOften answer from both stores' rows: the share is divided here, once, so both stores (and
 * every client) get the same double for the same counts.
 */
export function sungOften(
  run: { services: number; first: number | null; last: number | null },
  songs: { song: SongRecord; times: number; last: number }[],
): SungOftenRecord {
  return {
    services: run.services,
    firstService: run.first,
    lastService: run.last,
    songs: songs.map((s) => ({ song: s.song, timesSung: s.times, share: s.times / run.services, lastSung: s.last })),
  };
}
