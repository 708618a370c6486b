/**
 * The analytics statements (src/store/neo4j/analytics-statements.ts) for the simulated Neo4j of
 * ./neo4j-sim.ts. Each answers from the reference implementation (./analytics-reference.ts) over
 * the simulated graph, returning exactly the statement's RETURN columns with Integers where Cypher
 * returns them. It therefore checks the adapter's TypeScript (parameters, conversions, column
 * names, shaping) and NOT the Cypher, which only the linter and a real Neo4j check.
 *
 * The all-time statements (`...AllTime...`) answer from the songs' maintained usage properties as
 * the simulated refreshSongUsage last wrote them, NOT from the reference: a write path of the
 * store that forgets to refresh a song leaves them stale, and the contract suite sees it.
 */
import neo4j, { isInt, type Integer } from 'neo4j-driver';
import type { ServiceType } from '../../src/generated/graphql';
import type { AnalyticsWindow, SongUsageQuery, UsageStats } from '../../src/store/analytics-types';
import { artistKey } from '../../src/domain/artists';
import type { AnalyticsStatementName } from '../../src/store/neo4j/analytics-statements';
import { USAGE_TYPES } from '../../src/store/neo4j/statements';
import type { Snapshot } from '../../src/store/types';
import { Reference } from './analytics-reference';

type Params = Record<string, unknown>;
type Row = Record<string, unknown>;

/** What the simulated graph holds, as far as analytics read it. */
export interface AnalyticsGraph {
  /** `keys`: the song's BY edges; `usage`: its maintained usage properties (null when absent). */
  songs: Map<number, { id: number; name: string; artists: string[]; keys: string[]; usage: Record<string, number | null> }>;
  services: Map<number, { id: number; date: number; serviceType: string }>;
  links: Map<string, { serviceId: number; songId: number; position: number; seq: number }>;
}

const num = (v: unknown): number => {
  if (!isInt(v)) throw new TypeError(`simulated Neo4j: expected an Integer parameter, got ${typeof v}`);
  return v.toNumber();
};
const int = (n: number): Integer => neo4j.int(n);
const intOrNull = (n: number | null) => (n === null ? null : int(n));

function reference(g: AnalyticsGraph): Reference {
  const sorted = <T extends { id: number }>(m: Map<number, T>) => [...m.values()].sort((a, b) => a.id - b.id);
  return new Reference({
    songs: sorted(g.songs).map((s) => ({ id: s.id, name: s.name, artists: [...s.artists] })),
    services: sorted(g.services).map((v) => ({ id: v.id, date: v.date, serviceType: v.serviceType as ServiceType })),
    links: [...g.links.values()].sort((a, b) => a.seq - b.seq),
  } as Snapshot);
}

const windowOf = (p: Params): AnalyticsWindow => ({
  from: num(p.from),
  to: num(p.to),
  serviceTypes: p.serviceTypes as ServiceType[],
});

/** The stats columns of the statements: every type's count and last date, zero outside the filter. */
function statsColumns(s: UsageStats): Row {
  const type = (t: ServiceType) => s.byServiceType.find((x) => x.serviceType === t);
  const perType = (t: ServiceType) => [int(type(t)?.timesSung ?? 0), intOrNull(type(t)?.lastSung ?? null)];
  const [sunAm, sunAmLast] = perType('SUN_AM');
  const [sunPm, sunPmLast] = perType('SUN_PM');
  const [wed, wedLast] = perType('WED');
  return {
    times: int(s.timesSung),
    first: intOrNull(s.firstSung),
    last: intOrNull(s.lastSung),
    openers: int(s.asOpener),
    closers: int(s.asCloser),
    sunAm,
    sunAmLast,
    sunPm,
    sunPmLast,
    wed,
    wedLast,
  };
}

const numOrUndefined = (v: unknown) => (v === null ? undefined : num(v));

const ALL_TYPES = USAGE_TYPES.map(([type]) => type) as ServiceType[];
const prefixOf = (t: ServiceType) => USAGE_TYPES.find(([type]) => type === t)![1];

/** A song's usage of the asked types, read from its maintained properties only (zeros for none). */
function maintainedStats(g: AnalyticsGraph, songId: number, types: ServiceType[]): UsageStats {
  const usage = g.songs.get(songId)?.usage ?? {};
  const get = (t: ServiceType, field: string) => usage[`${prefixOf(t)}${field}`] ?? null;
  const dates = (field: string) => types.map((t) => get(t, field)).filter((d): d is number => d !== null);
  const sum = (field: string) => types.reduce((n, t) => n + (get(t, field) ?? 0), 0);
  return {
    timesSung: sum('Times'),
    firstSung: dates('First').length ? Math.min(...dates('First')) : null,
    lastSung: dates('Last').length ? Math.max(...dates('Last')) : null,
    byServiceType: types.map((serviceType) => ({ serviceType, timesSung: get(serviceType, 'Times') ?? 0, lastSung: get(serviceType, 'Last') })),
    asOpener: sum('Openers'),
    asCloser: sum('Closers'),
  };
}

/** The reference's filters, order and paging, over the maintained usage instead of the links. */
class Maintained extends Reference {
  constructor(private readonly g: AnalyticsGraph) {
    super({ songs: [...g.songs.values()].sort((a, b) => a.id - b.id), services: [], links: [] } as unknown as Snapshot);
  }

  override stats(songId: number, w: AnalyticsWindow): UsageStats {
    return maintainedStats(this.g, songId, w.serviceTypes);
  }
}

function allTimeUsage(g: AnalyticsGraph, p: Params, serviceTypes: ServiceType[], sort: SongUsageQuery['sort']): Row[] {
  const q: SongUsageQuery = {
    window: { from: null, to: null, serviceTypes },
    sort,
    includeUnsung: p.includeUnsung as boolean,
    lastBefore: numOrUndefined(p.lastBefore),
    firstIn: p.firstFrom === null ? undefined : { from: num(p.firstFrom), to: num(p.firstTo) },
    offset: num(p.offset),
    limit: num(p.limit),
  };
  const { items, total } = new Maintained(g).songUsage(q);
  return items.map((r) => ({ total: int(total), id: int(r.song.id), name: r.song.name, artists: r.song.artists, ...statsColumns(r) }));
}

export const ANALYTICS_STATEMENTS: Record<AnalyticsStatementName, (g: AnalyticsGraph, p: Params) => Row[]> = {
  songUsage: (g, p) => {
    const q: SongUsageQuery = {
      window: windowOf(p),
      sort: p.sort as SongUsageQuery['sort'],
      includeUnsung: p.includeUnsung as boolean,
      lastBefore: numOrUndefined(p.lastBefore),
      firstIn: p.firstFrom === null ? undefined : { from: num(p.firstFrom), to: num(p.firstTo) },
      offset: num(p.offset),
      limit: num(p.limit),
    };
    const { items, total } = reference(g).songUsage(q);
    return items.map((r) => ({
      total: int(total),
      id: int(r.song.id),
      name: r.song.name,
      artists: r.song.artists,
      ...statsColumns(r),
    }));
  },
  songUsageAllTime: (g, p) => allTimeUsage(g, p, p.serviceTypes as ServiceType[], p.sort as SongUsageQuery['sort']),
  songUsageAllTimeByTimesSung: (g, p) => allTimeUsage(g, p, ALL_TYPES, 'TIMES_SUNG'),
  songUsageAllTimeByLastSung: (g, p) => allTimeUsage(g, p, ALL_TYPES, 'LAST_SUNG'),
  songUsageAllTimeByLeastRecentlySung: (g, p) => allTimeUsage(g, p, ALL_TYPES, 'LEAST_RECENTLY_SUNG'),
  songUsageAllTimeByFirstSung: (g, p) => allTimeUsage(g, p, ALL_TYPES, 'FIRST_SUNG'),
  usageOfSongsAllTime: (g, p) =>
    (p.ids as unknown[]).map(num).map((id, i) => ({ i: int(i), ...statsColumns(maintainedStats(g, id, p.serviceTypes as ServiceType[])) })),
  usageOfSongs: (g, p) => {
    const ref = reference(g);
    return (p.ids as unknown[]).map(num).map((id, i) => ({ i: int(i), ...statsColumns(ref.stats(id, windowOf(p))) }));
  },
  songsSungWith: (g, p) =>
    reference(g)
      .songsSungWith(num(p.songId), windowOf(p), num(p.limit))
      .map((r) => ({ id: int(r.song.id), name: r.song.name, artists: r.song.artists, together: int(r.together), jaccard: r.jaccard })),
  songsSungWithAllTime: (g, p) =>
    reference(g)
      .songsSungWith(num(p.songId), { from: null, to: null, serviceTypes: p.serviceTypes as ServiceType[] }, num(p.limit))
      .map((r) => ({ id: int(r.song.id), name: r.song.name, artists: r.song.artists, together: int(r.together), jaccard: r.jaccard })),
  serviceSpan: (g, p) => {
    const span = reference(g).serviceSpan(p.serviceTypes as ServiceType[]);
    return [{ first: intOrNull(span?.first ?? null), last: intOrNull(span?.last ?? null) }];
  },
  usageTimeline: (g, p) => {
    const buckets = (p.buckets as Row[]).map((b) => ({ start: num(b.startMs), end: num(b.endMs) }));
    const songId = p.songId === null ? null : num(p.songId);
    return reference(g)
      .usageTimeline(buckets, windowOf(p), songId)
      .map((b, i) => ({ i: int(i), start: int(b.start), services: int(b.services), performances: int(b.performances), distinctSongs: int(b.distinctSongs) }));
  },
  songsSungOften: (g, p) => {
    const r = reference(g).songsSungOften({
      to: num(p.to),
      serviceTypes: p.serviceTypes as ServiceType[],
      lastServices: num(p.lastServices),
      moreThanPercent: num(p.moreThanPercent),
    });
    return [
      {
        services: int(r.services),
        firstService: intOrNull(r.firstService),
        lastService: intOrNull(r.lastService),
        songs: r.songs.map((s) => [int(s.song.id), s.song.name, s.song.artists, int(s.timesSung), int(s.lastSung)]),
      },
    ];
  },
  artistUsageAllTime: (g, p) => {
    const types = p.serviceTypes as ServiceType[];
    const rows: { artist: string; timesSung: number; songs: number }[] = [];
    const keys = new Set([...g.songs.values()].flatMap((s) => s.keys).filter((k) => k !== ''));
    for (const key of keys) {
      const songs = [...g.songs.values()].filter((s) => s.keys.includes(key));
      const sung = songs.map((s) => maintainedStats(g, s.id, types).timesSung).filter((n) => n > 0);
      if (!sung.length) continue;
      const uses = new Map<string, number>();
      for (const s of songs) for (const a of s.artists) if (artistKey(a) === key) uses.set(a, (uses.get(a) ?? 0) + 1);
      const [spelling] = [...uses].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] ?? [key];
      rows.push({ artist: spelling, timesSung: sung.reduce((a, b) => a + b, 0), songs: sung.length });
    }
    rows.sort((a, b) => b.timesSung - a.timesSung || (a.artist < b.artist ? -1 : a.artist > b.artist ? 1 : 0));
    return rows
      .slice(num(p.offset), num(p.offset) + num(p.limit))
      .map((r) => ({ total: int(rows.length), artist: r.artist, timesSung: int(r.timesSung), songs: int(r.songs) }));
  },
  artistUsage: (g, p) => {
    const { items, total } = reference(g).artistUsage(windowOf(p), { offset: num(p.offset), limit: num(p.limit) });
    return items.map((r) => ({ total: int(total), artist: r.artist, timesSung: int(r.timesSung), songs: int(r.songs) }));
  },
};
