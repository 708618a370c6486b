/**
 * Every analytic computed plainly from a store's snapshot (records and links), with none of the
 * stores' machinery: the answer both stores must give exactly.
 */
import { artistKey } from '../../src/domain/artists';
import type { ServiceType } from '../../src/generated/graphql';
import type {
  AnalyticsWindow,
  ArtistUsageRecord,
  PairingRecord,
  SongUsageQuery,
  SongUsageRecord,
  SungOftenQuery,
  SungOftenRecord,
  UsageBucketRecord,
  UsageStats,
} from '../../src/store/analytics-types';
import { licensingBySong, licensingOf } from '../../src/store/snapshot';
import type { ServiceRecord, Snapshot, SongRecord } from '../../src/store/types';
import type { SongLicensing } from '../../src/domain/licensing';
import { SERVICE_TYPES } from '../../src/domain/analytics/window';
import {
  bySuggestionOrder,
  PARTNERS_PER_CHOSEN,
  POOL_SERVICES,
  rhythmRangeOf,
  scoreCandidate,
  TOO_OFTEN,
  type Scored,
  type SuggestionTarget,
} from '../../src/domain/analytics/suggestions';

interface Performance {
  song: SongRecord;
  service: ServiceRecord;
  opener: boolean;
  closer: boolean;
}

export class Reference {
  readonly performances: Performance[] = [];
  private readonly songs: SongRecord[];
  private readonly services: ServiceRecord[];
  private readonly licensing: Map<number, SongLicensing>;

  constructor(snapshot: Snapshot) {
    this.songs = snapshot.songs;
    this.licensing = licensingBySong(snapshot);
    this.services = snapshot.services;
    const songs = new Map(snapshot.songs.map((s) => [s.id, s]));
    const services = new Map(snapshot.services.map((v) => [v.id, v]));
    for (const service of snapshot.services) {
      const setlist = snapshot.links
        .filter((l) => l.serviceId === service.id)
        .sort((a, b) => a.position - b.position || a.seq - b.seq);
      setlist.forEach((l, i) =>
        this.performances.push({
          song: songs.get(l.songId)!,
          service: services.get(l.serviceId)!,
          opener: i === 0,
          closer: i === setlist.length - 1,
        }),
      );
    }
  }

  private inWindow(w: AnalyticsWindow) {
    return (p: { service: ServiceRecord }) =>
      (w.from === null || p.service.date >= w.from) &&
      (w.to === null || p.service.date <= w.to) &&
      w.serviceTypes.includes(p.service.serviceType);
  }

  /** A song's licensing details as the snapshot had them (none when it had none). */
  licensingOf(songId: number): SongLicensing {
    return licensingOf(this.licensing, songId);
  }

  /** Store.songRhythms recounted: the song's service dates in the range, and its last before it. */
  rhythm(songId: number, range: { min: number; max: number }): { dates: number[]; lastBefore: number | null } {
    const dates = this.performances.filter((p) => p.song.id === songId).map((p) => p.service.date).sort((a, b) => a - b);
    const before = dates.filter((d) => d < range.min);
    return { dates: dates.filter((d) => d >= range.min && d <= range.max), lastBefore: before.length ? before[before.length - 1] : null };
  }

  /** Store.songTimesByType recounted: the song's services of each type over all time. */
  timesByType(songId: number): Record<ServiceType, number> {
    const mine = this.performances.filter((p) => p.song.id === songId);
    return Object.fromEntries(SERVICE_TYPES.map((t) => [t, mine.filter((p) => p.service.serviceType === t).length])) as Record<ServiceType, number>;
  }

  stats(songId: number, w: AnalyticsWindow): UsageStats {
    const mine = this.performances.filter((p) => p.song.id === songId).filter(this.inWindow(w));
    const dates = mine.map((p) => p.service.date);
    const last = (list: Performance[]) => (list.length ? Math.max(...list.map((p) => p.service.date)) : null);
    return {
      timesSung: mine.length,
      firstSung: dates.length ? Math.min(...dates) : null,
      lastSung: last(mine),
      byServiceType: w.serviceTypes.map((serviceType: ServiceType) => {
        const typed = mine.filter((p) => p.service.serviceType === serviceType);
        return { serviceType, timesSung: typed.length, lastSung: last(typed) };
      }),
      asOpener: mine.filter((p) => p.opener).length,
      asCloser: mine.filter((p) => p.closer).length,
    };
  }

  songUsage(q: SongUsageQuery): { items: SongUsageRecord[]; total: number } {
    let rows = this.songs.map((song) => ({ song, licensing: this.licensingOf(song.id), ...this.stats(song.id, q.window) }));
    if (!q.includeUnsung) rows = rows.filter((r) => r.timesSung > 0);
    if (q.lastBefore !== undefined) rows = rows.filter((r) => r.lastSung === null || r.lastSung < q.lastBefore!);
    if (q.firstIn) {
      const { from, to } = q.firstIn;
      rows = rows.filter((r) => r.firstSung !== null && (from === null || r.firstSung >= from) && (to === null || r.firstSung <= to));
    }
    const nullsLow = (v: number | null) => (v === null ? -Infinity : v);
    const key: Record<SongUsageQuery['sort'], (a: SongUsageRecord, b: SongUsageRecord) => number> = {
      TIMES_SUNG: (a, b) => b.timesSung - a.timesSung,
      LAST_SUNG: (a, b) => nullsLow(b.lastSung) - nullsLow(a.lastSung),
      LEAST_RECENTLY_SUNG: (a, b) => nullsLow(a.lastSung) - nullsLow(b.lastSung),
      // New songs: newest first, and songs introduced together by id descending (newest first throughout).
      FIRST_SUNG: (a, b) => nullsLow(b.firstSung) - nullsLow(a.firstSung) || b.song.id - a.song.id,
      NAME: (a, b) => (a.song.name < b.song.name ? -1 : a.song.name > b.song.name ? 1 : 0),
    };
    rows.sort((a, b) => key[q.sort](a, b) || a.song.id - b.song.id);
    const offset = q.offset ?? 0;
    return { items: rows.slice(offset, q.limit === undefined ? undefined : offset + q.limit), total: rows.length };
  }

  songsSungWith(songId: number, w: AnalyticsWindow, limit: number): PairingRecord[] {
    const inW = this.performances.filter(this.inWindow(w));
    const servicesOf = (id: number) => new Set(inW.filter((p) => p.song.id === id).map((p) => p.service.id));
    const mine = servicesOf(songId);
    const rows: PairingRecord[] = [];
    for (const song of this.songs) {
      if (song.id === songId) continue;
      const theirs = servicesOf(song.id);
      const together = [...theirs].filter((s) => mine.has(s)).length;
      if (together > 0) rows.push({ song, together, jaccard: together / (mine.size + theirs.size - together) });
    }
    rows.sort((a, b) => b.together - a.together || b.jaccard - a.jaccard || a.song.id - b.song.id);
    return rows.slice(0, limit);
  }

  /** Store.songsOfLastServices recounted: the songs of the run songsSungOften counts, by id. */
  songsOfLastServices(q: Omit<SungOftenQuery, 'moreThanPercent'>): number[] {
    return [...new Set(this.songsSungOften({ ...q, moreThanPercent: 0 }).songs.map((s) => s.song.id))].sort((a, b) => a - b);
  }

  songsSungOften(q: SungOftenQuery): SungOftenRecord {
    const run = this.services
      .filter((v) => q.serviceTypes.includes(v.serviceType) && (q.to === null || v.date <= q.to))
      .sort((a, b) => b.date - a.date || b.id - a.id)
      .slice(0, q.lastServices);
    const inRun = new Set(run.map((v) => v.id));
    const counts = new Map<number, { song: SongRecord; times: number; last: number }>();
    for (const p of this.performances.filter((x) => inRun.has(x.service.id))) {
      const c = counts.get(p.song.id) ?? { song: p.song, times: 0, last: p.service.date };
      counts.set(p.song.id, { song: p.song, times: c.times + 1, last: Math.max(c.last, p.service.date) });
    }
    const songs = [...counts.values()]
      .filter((c) => c.times * 100 > q.moreThanPercent * run.length)
      .sort((a, b) => b.times - a.times || a.song.id - b.song.id)
      .map((c) => ({ song: c.song, timesSung: c.times, share: c.times / run.length, lastSung: c.last }));
    const dates = run.map((v) => v.date);
    return {
      services: run.length,
      firstService: dates.length ? Math.min(...dates) : null,
      lastService: dates.length ? Math.max(...dates) : null,
      songs,
    };
  }

  serviceSpan(types: ServiceType[]) {
    const dates = this.services.filter((v) => types.includes(v.serviceType)).map((v) => v.date);
    return dates.length ? { first: Math.min(...dates), last: Math.max(...dates) } : null;
  }

  /** Each bucket counts what lies in both the bucket and the window (the window filters first). */
  usageTimeline(buckets: readonly { start: number; end: number }[], window: AnalyticsWindow, songId: number | null): UsageBucketRecord[] {
    const inWindow = this.inWindow(window);
    return buckets.map(({ start, end }) => {
      const inBucket = this.inWindow({ from: start, to: end, serviceTypes: window.serviceTypes });
      const counted = (p: { service: ServiceRecord }) => inWindow(p) && inBucket(p);
      const perf = this.performances.filter(counted).filter((p) => songId === null || p.song.id === songId);
      const services =
        songId === null
          ? this.services.filter((v) => counted({ service: v })).length
          : new Set(perf.map((p) => p.service.id)).size;
      return { start, services, performances: perf.length, distinctSongs: new Set(perf.map((p) => p.song.id)).size };
    });
  }

  artistUsage(w: AnalyticsWindow, page: { limit?: number; offset?: number }): { items: ArtistUsageRecord[]; total: number } {
    const spellings = new Map<string, Map<string, number>>();
    const songsOf = new Map<string, Set<number>>();
    for (const song of this.songs) {
      for (const spelling of song.artists) {
        const k = artistKey(spelling);
        if (k === '') continue;
        const counts = spellings.get(k) ?? new Map<string, number>();
        counts.set(spelling, (counts.get(spelling) ?? 0) + 1);
        spellings.set(k, counts);
        songsOf.set(k, (songsOf.get(k) ?? new Set()).add(song.id));
      }
    }
    const perf = this.performances.filter(this.inWindow(w));
    const rows: ArtistUsageRecord[] = [];
    for (const [k, ids] of songsOf) {
      const mine = perf.filter((p) => ids.has(p.song.id));
      if (!mine.length) continue;
      const [artist] = [...spellings.get(k)!].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
      rows.push({ artist, timesSung: mine.length, songs: new Set(mine.map((p) => p.song.id)).size });
    }
    rows.sort((a, b) => b.timesSung - a.timesSung || (a.artist < b.artist ? -1 : a.artist > b.artist ? 1 : 0));
    const offset = page.offset ?? 0;
    return { items: rows.slice(offset, page.limit === undefined ? undefined : offset + page.limit), total: rows.length };
  }

  /**
   * suggestSongs recounted from the links: the candidates (the songs of the last POOL_SERVICES
   * services before the day, and each chosen song's companions), what leaves them out (chosen,
   * sung too often in the type's last services, in another service of the week) and each one's
   * facts, each counted plainly; the score itself is the shared rule (unit-tested by hand).
   */
  suggestions(target: SuggestionTarget, chosenIds: readonly number[], limit: number): (Scored & { song: SongRecord })[] {
    const allTime = { from: null, to: null, serviceTypes: [...SERVICE_TYPES] };
    const last = (n: number, types: readonly ServiceType[]) =>
      new Set(
        this.services
          .filter((v) => v.date < target.dayStart && types.includes(v.serviceType))
          .sort((a, b) => b.date - a.date || b.id - a.id)
          .slice(0, n)
          .map((v) => v.id),
      );
    const recent = last(POOL_SERVICES, SERVICE_TYPES);
    const companions = chosenIds.map((id) => new Map(this.songsSungWith(id, allTime, PARTNERS_PER_CHOSEN).map((p) => [p.song.id, p.together])));
    const candidates = new Set<number>([
      ...this.performances.filter((p) => recent.has(p.service.id)).map((p) => p.song.id),
      ...companions.flatMap((m) => [...m.keys()]),
    ]);
    const run = last(TOO_OFTEN.lastServices, [target.serviceType]);
    const inRun = new Map<number, number>();
    for (const p of this.performances) if (run.has(p.service.id)) inRun.set(p.song.id, (inRun.get(p.song.id) ?? 0) + 1);
    for (const [id, n] of inRun) if (n * 100 > TOO_OFTEN.moreThanPercent * run.size) candidates.delete(id);
    for (const p of this.performances) {
      const d = p.service.date;
      if (d >= target.week.min && d <= target.week.max && p.service.id !== target.serviceId) candidates.delete(p.song.id);
    }
    for (const id of chosenIds) candidates.delete(id);

    const timesOf = (id: number, types: readonly ServiceType[]) => this.performances.filter((p) => p.song.id === id && types.includes(p.service.serviceType)).length;
    const chosen = chosenIds.map((id) => ({ id, name: this.songs.find((s) => s.id === id)!.name, timesSung: timesOf(id, SERVICE_TYPES) }));
    return [...candidates]
      .map((id) => ({
        song: this.songs.find((s) => s.id === id)!,
        ...scoreCandidate(target, chosen, {
          together: companions.map((m) => m.get(id) ?? 0),
          timesSung: timesOf(id, SERVICE_TYPES),
          timesOfType: timesOf(id, [target.serviceType]),
          rhythm: this.rhythm(id, rhythmRangeOf(target)),
        }),
      }))
      .filter((s) => s.score > 0)
      .sort(bySuggestionOrder)
      .slice(0, limit);
  }
}
