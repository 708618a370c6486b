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
}
