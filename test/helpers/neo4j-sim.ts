/**
 * A stand-in for a Neo4j server that knows only this project's statements: each named statement
 * of src/store/neo4j/statements.ts is re-implemented here in plain TypeScript over in-memory maps.
 *
 * What it honestly checks: the adapter's TypeScript. Parameters must match their declarations
 * (names and types, Integers where INTEGER is declared: checked by the store and again here),
 * Integer columns come back as driver Integers and must be converted, every row must have exactly
 * the columns the statement's final RETURN names, and the adapter's flows (which statements in
 * which order, count checks, rollbacks) run under the store contract suite.
 *
 * What it does NOT check, and must never be cited for: the Cypher's semantics. These functions
 * encode what each statement is MEANT to do; a wrong ORDER BY, SET or WHERE in the Cypher passes
 * here unchanged. The Cypher text is pinned by test/neo4j.tck.test.ts's snapshots, linted by
 * `npm run lint:cypher`, and executed only by `npm run test:neo4j` against a real Neo4j. Nor are
 * locks or concurrency checked: transactions here run one at a time.
 */
import neo4j, { Neo4jError, Record as Neo4jRecord, isInt, type Driver, type Integer } from 'neo4j-driver';
import { ANALYTICS_CYPHER } from '../../src/store/neo4j/analytics-statements';
import { CYPHER, USAGE_TYPES, type StatementName as StoreStatementName } from '../../src/store/neo4j/statements';
import { ANALYTICS_STATEMENTS } from './neo4j-sim-analytics';

/** The store's statements and its analytics statements (./neo4j-sim-analytics.ts). */
type StatementName = StoreStatementName | keyof typeof ANALYTICS_CYPHER;
const ALL_CYPHER: Record<StatementName, string> = { ...CYPHER, ...ANALYTICS_CYPHER };

type Params = Record<string, unknown>;
type Row = Record<string, unknown>;

/** `usage`: the maintained usage properties (statements.ts), as last written; absent ones are null. */
/** `ccliNumber` and `copyright` are absent (undefined) when not recorded, as properties are. */
interface SongNode {
  id: number;
  name: string;
  artists: string[];
  keys: string[];
  usage: Usage;
  ccliNumber?: string;
  copyright?: string;
}
type Usage = Record<string, number | null>;
interface ServiceNode { id: number; date: number; serviceType: string }
interface UserNode {
  id: number;
  username: string;
  usernameKey: string;
  passwordHash: string;
  role: string;
  tokenVersion: number;
}
interface Link { serviceId: number; songId: number; position: number; seq: number }

interface Graph {
  songs: Map<number, SongNode>;
  services: Map<number, ServiceNode>;
  users: Map<number, UserNode>;
  links: Map<string, Link>;
  sequences: Map<string, number>;
}

const emptyGraph = (): Graph => ({
  songs: new Map(),
  services: new Map(),
  users: new Map(),
  links: new Map(),
  sequences: new Map(),
});

const num = (v: unknown): number => {
  if (!isInt(v)) throw new TypeError(`simulated Neo4j: expected an Integer parameter, got ${typeof v}`);
  return v.toNumber();
};
const int = (n: number): Integer => neo4j.int(n);
const nums = (v: unknown) => (v as unknown[]).map(num);
const linkKey = (serviceId: number, songId: number) => `${serviceId}/${songId}`;

const songRow = (s: SongNode | undefined) => ({
  id: s ? int(s.id) : null,
  name: s?.name ?? null,
  artists: s ? [...s.artists] : null,
});
const licensingRow = (s: SongNode | undefined) => ({ ccliNumber: s?.ccliNumber ?? null, copyright: s?.copyright ?? null });
/** SET or CREATE with null removes the property (it is not stored as null). */
const property = (v: unknown) => (v === null ? undefined : (v as string));
const serviceRow = (v: ServiceNode | undefined) => ({
  id: v ? int(v.id) : null,
  date: v ? int(v.date) : null,
  serviceType: v?.serviceType ?? null,
});
const userRow = (u: UserNode | undefined) => ({ id: u ? int(u.id) : null, username: u?.username ?? null, role: u?.role ?? null });
const credentialsRow = (u: UserNode) => ({ ...userRow(u), passwordHash: u.passwordHash, tokenVersion: int(u.tokenVersion) });

const byId = <T extends { id: number }>(m: Map<number, T>) => [...m.values()].sort((a, b) => a.id - b.id);
const servicesByDate = (list: ServiceNode[]) => [...list].sort((a, b) => a.date - b.date || a.id - b.id);

function next(g: Graph, name: string, by = 1): number {
  const value = (g.sequences.get(name) ?? 0) + by;
  g.sequences.set(name, value);
  return value;
}

function setlistOf(g: Graph, serviceId: number): Link[] {
  return [...g.links.values()]
    .filter((l) => l.serviceId === serviceId)
    .sort((a, b) => a.position - b.position || a.seq - b.seq);
}

/** What createSong and importSongs (on create) write: counts 0, dates absent. */
const zeroUsage = (): Usage =>
  Object.fromEntries([...USAGE_TYPES.map(([, p]) => p), 'usage'].flatMap((p) => ['Times', 'Openers', 'Closers'].map((f) => [`${p}${f}`, 0])));

/**
 * refreshSongUsage, honestly: the song's usage recomputed from the simulated links and services
 * (not from the test reference), so a write path that forgets to refresh leaves it stale and the
 * all-time analytics, which read only these properties, answer wrong.
 */
function recomputeUsage(g: Graph, songId: number): Usage {
  const mine = [...g.links.values()]
    .filter((l) => l.songId === songId)
    .map((l) => {
      const setlist = setlistOf(g, l.serviceId);
      const v = g.services.get(l.serviceId)!;
      return { date: v.date, type: v.serviceType, opener: setlist[0] === l, closer: setlist[setlist.length - 1] === l };
    });
  const usage: Usage = {};
  const kinds: [string, (t: string) => boolean][] = [
    ...USAGE_TYPES.map(([type, prefix]): [string, (t: string) => boolean] => [prefix, (t) => t === type]),
    ['usage', (t) => USAGE_TYPES.some(([type]) => type === t)],
  ];
  for (const [prefix, ofType] of kinds) {
    const links = mine.filter((m) => ofType(m.type));
    const dates = links.map((m) => m.date);
    usage[`${prefix}Times`] = links.length;
    usage[`${prefix}First`] = dates.length ? Math.min(...dates) : null;
    usage[`${prefix}Last`] = dates.length ? Math.max(...dates) : null;
    usage[`${prefix}Openers`] = links.filter((m) => m.opener).length;
    usage[`${prefix}Closers`] = links.filter((m) => m.closer).length;
  }
  return usage;
}

function inRange(g: Graph, p: Params): ServiceNode[] {
  const inside = (v: ServiceNode) => v.date >= num(p.min) && v.date <= num(p.max);
  return servicesByDate([...g.services.values()].filter(inside).filter(ofTypes(p)));
}

function performancesOf(g: Graph, songId: number, p: Params): ServiceNode[] {
  const services = [...g.links.values()].filter((l) => l.songId === songId).map((l) => g.services.get(l.serviceId)!);
  return servicesByDate(services.filter(ofTypes(p)));
}

function deleteLinks(g: Graph, keep: (l: Link) => boolean) {
  for (const [k, l] of g.links) if (!keep(l)) g.links.delete(k);
}

function uniqueUsernameKey(g: Graph, key: string, id: number) {
  for (const u of g.users.values()) {
    if (u.usernameKey === key && u.id !== id) {
      throw new Neo4jError(
        'simulated uniqueness constraint failure',
        'Neo.ClientError.Schema.ConstraintValidationFailed' as never,
        '22N41',
        'simulated',
      );
    }
  }
}

// Paging as the Cypher does it: SKIP/LIMIT, list slices [offset..end], keysets on (key, id).
const skipLimit = <T>(list: T[], p: Params) => list.slice(num(p.offset), num(p.offset) + num(p.limit));
const total = (n: number) => ({ total: int(n) });
const desc = <T>(cmp: (a: T, b: T) => number) => (a: T, b: T) => -cmp(a, b);
const byName = (a: SongNode, b: SongNode) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id);
const byDate = (a: ServiceNode, b: ServiceNode) => a.date - b.date || a.id - b.id;
const songsSorted = (g: Graph, cmp: (a: SongNode, b: SongNode) => number) => [...g.songs.values()].sort(cmp);
const ofTypes = (p: Params) => (v: ServiceNode) => (p.serviceTypes as string[]).includes(v.serviceType);
/** Rows strictly after (key, id) in an order: ties on the key are broken by id, as in the Cypher. */
const afterKey = <T extends { id: number }>(list: T[], cmp: (a: T, b: T) => number, probe: T) =>
  list.filter((x) => cmp(x, probe) > 0);
const songProbe = (p: Params): SongNode => ({ id: num(p.id), name: (p.key as string) ?? '', artists: [], keys: [], usage: {} });
const serviceProbe = (p: Params): ServiceNode => ({ id: num(p.id), date: num(p.key), serviceType: '' });

/**
 * A stand-in for Lucene with `standard-folding` over name, artists and CCLI number: words folded (NFKD, marks
 * removed, lower case), every `+word` required (optional words only rank, and are ignored here
 * unless none is required), `word*` a prefix; score = matching fields. It reads
 * only the query shape luceneQuery() writes.
 */
function fulltext(g: Graph, query: string): { song: SongNode; score: number }[] {
  const all = query.split(' ').map((t) => ({ word: t.replace(/^\+/, '').replace(/\*$/, ''), prefix: t.endsWith('*'), required: t.startsWith('+') }));
  const terms = all.some((t) => t.required) ? all.filter((t) => t.required) : all;
  const words = (text: string) => (text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const hit = (text: string, t: { word: string; prefix: boolean }) =>
    words(text).some((w) => (t.prefix ? w.startsWith(t.word) : w === t.word));
  const out: { song: SongNode; score: number }[] = [];
  for (const song of g.songs.values()) {
    const fields = [song.name, song.artists.join(' '), song.ccliNumber ?? ''];
    if (!terms.every((t) => fields.some((f) => hit(f, t)))) continue;
    const others = fields.slice(1).reduce((n, f) => n + terms.filter((t) => hit(f, t)).length, 0);
    out.push({ song, score: terms.filter((t) => hit(song.name, t)).length * 2 + others });
  }
  return out.sort((a, b) => b.score - a.score || a.song.id - b.song.id);
}

const STORE_STATEMENTS: Record<StoreStatementName, (g: Graph, p: Params) => Row[]> = {
  exportSongs: (g) => byId(g.songs).map(songRow),
  songsPageIdAsc: (g, p) => skipLimit(byId(g.songs), p).map(songRow),
  songsPageIdDesc: (g, p) => skipLimit(byId(g.songs).reverse(), p).map(songRow),
  songsPageNameAsc: (g, p) => skipLimit(songsSorted(g, byName), p).map(songRow),
  songsPageNameDesc: (g, p) => skipLimit(songsSorted(g, desc(byName)), p).map(songRow),
  songsAfterIdAsc: (g, p) => byId(g.songs).filter((s) => s.id > num(p.id)).slice(0, num(p.limit)).map(songRow),
  songsAfterIdDesc: (g, p) => byId(g.songs).reverse().filter((s) => s.id < num(p.id)).slice(0, num(p.limit)).map(songRow),
  songsAfterNameAsc: (g, p) => afterKey(songsSorted(g, byName), byName, songProbe(p)).slice(0, num(p.limit)).map(songRow),
  songsAfterNameDesc: (g, p) =>
    afterKey(songsSorted(g, desc(byName)), desc(byName), songProbe(p)).slice(0, num(p.limit)).map(songRow),
  countSongs: (g) => [total(g.songs.size)],
  searchSongs: (g, p) => skipLimit(fulltext(g, p.query as string), p).map((r) => songRow(r.song)),
  countSearch: (g, p) => [total(fulltext(g, p.query as string).length)],
  songsLicensing: (g, p) =>
    nums(p.ids).map((id, i) => {
      const s = g.songs.get(id);
      return { i: int(i), id: s ? int(s.id) : null, ...licensingRow(s) };
    }),
  songsByIds: (g, p) => nums(p.ids).map((id, i) => ({ i: int(i), ...songRow(g.songs.get(id)) })),
  songsByArtistKey: (g, p) => skipLimit(byId(g.songs).filter((s) => s.keys.includes(p.artistKey as string)), p).map(songRow),
  countByArtistKey: (g, p) => [total(byId(g.songs).filter((s) => s.keys.includes(p.artistKey as string)).length)],
  createSong: (g, p) => {
    const s: SongNode = {
      id: next(g, 'Song'),
      name: p.name as string,
      artists: p.artists as string[],
      keys: p.artistKeys as string[],
      usage: zeroUsage(),
      ccliNumber: property(p.ccliNumber),
      copyright: property(p.copyright),
    };
    g.songs.set(s.id, s);
    return [songRow(s)];
  },
  updateSong: (g, p) => {
    const s = g.songs.get(num(p.id));
    if (!s) return [];
    s.name = (p.name as string | null) ?? s.name;
    s.artists = (p.artists as string[] | null) ?? s.artists;
    if (p.setCcliNumber) s.ccliNumber = property(p.ccliNumber);
    if (p.setCopyright) s.copyright = property(p.copyright);
    return [songRow(s)];
  },
  setSongArtists: (g, p) => {
    let songs = 0;
    for (const row of p.rows as Row[]) {
      const s = g.songs.get(num(row.id));
      if (s) s.keys = [...(row.artistKeys as string[])];
      if (s) songs++;
    }
    return [{ songs: int(songs) }];
  },
  refreshSongUsage: (g, p) => {
    let refreshed = 0;
    for (const id of nums(p.ids)) {
      const s = g.songs.get(id);
      if (!s) continue;
      s.usage = recomputeUsage(g, id);
      refreshed++;
    }
    return [{ refreshed: int(refreshed) }];
  },
  deleteSong: (g, p) => {
    const id = num(p.id);
    const deleted = g.songs.delete(id) ? 1 : 0;
    deleteLinks(g, (l) => l.songId !== id);
    return [{ deleted: int(deleted) }];
  },

  servicesPageDateAsc: (g, p) => skipLimit([...g.services.values()].filter(ofTypes(p)).sort(byDate), p).map(serviceRow),
  servicesPageDateDesc: (g, p) =>
    skipLimit([...g.services.values()].filter(ofTypes(p)).sort(desc(byDate)), p).map(serviceRow),
  servicesAfterDateAsc: (g, p) =>
    afterKey([...g.services.values()].filter(ofTypes(p)).sort(byDate), byDate, serviceProbe(p))
      .slice(0, num(p.limit))
      .map(serviceRow),
  servicesAfterDateDesc: (g, p) =>
    afterKey([...g.services.values()].filter(ofTypes(p)).sort(desc(byDate)), desc(byDate), serviceProbe(p))
      .slice(0, num(p.limit))
      .map(serviceRow),
  countServices: (g) => [total(g.services.size)],
  countServicesOfTypes: (g, p) => [total([...g.services.values()].filter(ofTypes(p)).length)],
  servicesByIds: (g, p) => nums(p.ids).map((id, i) => ({ i: int(i), ...serviceRow(g.services.get(id)) })),
  servicesInRange: (g, p) => skipLimit(inRange(g, p), p).map(serviceRow),
  countInRange: (g, p) => [total(inRange(g, p).length)],
  createService: (g, p) => {
    const v = { id: next(g, 'Service'), date: num(p.date), serviceType: p.serviceType as string };
    g.services.set(v.id, v);
    return [serviceRow(v)];
  },
  updateService: (g, p) => {
    const v = g.services.get(num(p.id));
    if (!v) return [];
    if (p.date !== null) v.date = num(p.date);
    v.serviceType = (p.serviceType as string | null) ?? v.serviceType;
    return [serviceRow(v)];
  },
  deleteService: (g, p) => {
    const id = num(p.id);
    const deleted = g.services.delete(id) ? 1 : 0;
    deleteLinks(g, (l) => l.serviceId !== id);
    return [{ deleted: int(deleted) }];
  },

  setlists: (g, p) =>
    nums(p.ids).flatMap((serviceId, i) =>
      skipLimit(setlistOf(g, serviceId), p).map((l) => ({ i: int(i), ...songRow(g.songs.get(l.songId)) })),
    ),
  // A row per existing service only (MATCH, not OPTIONAL MATCH).
  setlistCounts: (g, p) =>
    nums(p.ids).flatMap((serviceId, i) => (g.services.has(serviceId) ? [{ i: int(i), ...total(setlistOf(g, serviceId).length) }] : [])),
  servicesForSongs: (g, p) =>
    nums(p.ids).flatMap((songId, i) => skipLimit(performancesOf(g, songId, p), p).map((v) => ({ i: int(i), ...serviceRow(v) }))),
  // The song's maintained usage counts as last written (a stale one answers wrong), per asked type.
  servicesForSongsCounts: (g, p) =>
    nums(p.ids).flatMap((songId, i) => {
      const song = g.songs.get(songId);
      if (!song) return [];
      const types = p.serviceTypes as string[];
      const sum = USAGE_TYPES.reduce((n, [type, prefix]) => n + (types.includes(type) ? (song.usage[`${prefix}Times`] as number) : 0), 0);
      return [{ i: int(i), ...total(sum) }];
    }),
  lockServices: (g, p) => [{ locked: int(nums(p.serviceIds).filter((id) => g.services.has(id)).length) }],
  lockSongs: (g, p) => [{ locked: int(nums(p.songIds).filter((id) => g.songs.has(id)).length) }],
  linkOrders: (g, p) =>
    nums(p.serviceIds).flatMap((serviceId) =>
      setlistOf(g, serviceId).map((l) => ({ serviceId: int(serviceId), songId: int(l.songId), position: int(l.position) })),
    ),
  servicesOfSong: (g, p) =>
    [...g.links.values()]
      .filter((l) => l.songId === num(p.id))
      .map((l) => l.serviceId)
      .sort((a, b) => a - b)
      .map((id) => ({ serviceId: int(id) })),
  placeLinks: (g, p) => {
    let placed = 0;
    for (const row of p.rows as Row[]) {
      const link = g.links.get(linkKey(num(row.serviceId), num(row.songId)));
      if (!link) continue;
      link.position = num(row.position);
      placed++;
    }
    return [{ placed: int(placed) }];
  },
  createLinks: (g, p) => {
    const serviceId = num(p.serviceId);
    const rows = p.rows as Row[];
    if (!g.services.has(serviceId)) return [{ created: int(0) }];
    const base = next(g, 'PERFORMED_IN', rows.length) - rows.length;
    let created = 0;
    rows.forEach((row, i) => {
      const songId = num(row.songId);
      if (!g.songs.has(songId)) return;
      // CREATE, not MERGE: Neo4j would add a second relationship; the adapter must never ask.
      if (g.links.has(linkKey(serviceId, songId))) throw new Error(`simulated createLinks: ${songId} is already linked`);
      g.links.set(linkKey(serviceId, songId), { serviceId, songId, position: num(row.position), seq: base + i + 1 });
      created++;
    });
    return [{ created: int(created) }];
  },
  unlinkSong: (g, p) => [{ removed: int(g.links.delete(linkKey(num(p.serviceId), num(p.songId))) ? 1 : 0) }],
  clearSetlist: (g, p) => {
    const serviceId = num(p.serviceId);
    const before = g.links.size;
    deleteLinks(g, (l) => l.serviceId !== serviceId);
    return [{ removed: int(before - g.links.size) }];
  },

  listUsers: (g) => byId(g.users).map(userRow),
  usersByIds: (g, p) => nums(p.ids).map((id, i) => ({ i: int(i), ...userRow(g.users.get(id)) })),
  credentialsByKey: (g, p) => [...g.users.values()].filter((u) => u.usernameKey === p.usernameKey).map(credentialsRow),
  credentialsById: (g, p) => {
    const u = g.users.get(num(p.id));
    return u ? [credentialsRow(u)] : [];
  },
  createUser: (g, p) => {
    if ([...g.users.values()].some((u) => u.usernameKey === p.usernameKey)) return [];
    const u = {
      id: next(g, 'User'),
      username: p.username as string,
      usernameKey: p.usernameKey as string,
      passwordHash: p.passwordHash as string,
      role: p.role as string,
      tokenVersion: 0,
    };
    g.users.set(u.id, u);
    return [userRow(u)];
  },
  lockUsers: (g) => {
    if (!g.sequences.has('User')) g.sequences.set('User', 0);
    return [{ locked: int(1) }];
  },
  userRole: (g, p) => {
    const u = g.users.get(num(p.id));
    return u ? [{ role: u.role }] : [];
  },
  userKeyTaken: (g, p) => [
    { taken: int([...g.users.values()].filter((u) => u.usernameKey === p.usernameKey && u.id !== num(p.id)).length) },
  ],
  countAdmins: (g) => [{ admins: int([...g.users.values()].filter((u) => u.role === 'ADMIN').length) }],
  updateUser: (g, p) => {
    const u = g.users.get(num(p.id));
    if (!u) return [];
    if (p.usernameKey !== null) uniqueUsernameKey(g, p.usernameKey as string, u.id);
    u.username = (p.username as string | null) ?? u.username;
    u.usernameKey = (p.usernameKey as string | null) ?? u.usernameKey;
    if (p.passwordHash !== null) {
      u.passwordHash = p.passwordHash as string;
      u.tokenVersion += 1;
    }
    u.role = (p.role as string | null) ?? u.role;
    return [userRow(u)];
  },
  deleteUser: (g, p) => [{ deleted: int(g.users.delete(num(p.id)) ? 1 : 0) }],

  exportLicensing: (g) =>
    byId(g.songs)
      .filter((s) => s.ccliNumber !== undefined || s.copyright !== undefined)
      .map((s) => ({ songId: int(s.id), ...licensingRow(s) })),
  exportServices: (g) => byId(g.services).map(serviceRow),
  exportLinks: (g) =>
    [...g.links.values()]
      .sort((a, b) => a.seq - b.seq)
      .map((l) => ({ serviceId: int(l.serviceId), songId: int(l.songId), position: int(l.position), seq: int(l.seq) })),
  exportUsers: (g) => byId(g.users).map(credentialsRow),
  exportSequences: (g) => [...g.sequences].map(([name, value]) => ({ name, value: int(value) })),
  importSongs: (g, p) => {
    for (const row of p.rows as Row[]) {
      const id = num(row.id);
      const s = g.songs.get(id) ?? { id, name: '', artists: [], keys: [], usage: zeroUsage() };
      s.name = row.name as string;
      s.artists = row.artists as string[];
      s.ccliNumber = property(row.ccliNumber);
      s.copyright = property(row.copyright);
      g.songs.set(id, s);
    }
    return [{ written: int((p.rows as Row[]).length) }];
  },
  importServices: (g, p) => {
    for (const row of p.rows as Row[]) {
      g.services.set(num(row.id), { id: num(row.id), date: num(row.date), serviceType: row.serviceType as string });
    }
    return [{ written: int((p.rows as Row[]).length) }];
  },
  importUsers: (g, p) => {
    for (const row of p.rows as Row[]) {
      uniqueUsernameKey(g, row.usernameKey as string, num(row.id));
      g.users.set(num(row.id), {
        id: num(row.id),
        username: row.username as string,
        usernameKey: row.usernameKey as string,
        passwordHash: row.passwordHash as string,
        role: row.role as string,
        tokenVersion: num(row.tokenVersion),
      });
    }
    return [{ written: int((p.rows as Row[]).length) }];
  },
  importLinks: (g, p) => {
    let written = 0;
    for (const row of p.rows as Row[]) {
      const serviceId = num(row.serviceId);
      const songId = num(row.songId);
      if (!g.services.has(serviceId) || !g.songs.has(songId)) continue;
      g.links.set(linkKey(serviceId, songId), { serviceId, songId, position: num(row.position), seq: num(row.seq) });
      written++;
    }
    return [{ written: int(written) }];
  },
  raiseSequences: (g, p) => {
    for (const row of p.rows as Row[]) {
      const name = row.name as string;
      g.sequences.set(name, Math.max(g.sequences.get(name) ?? 0, num(row.value)));
    }
    return [{ raised: int((p.rows as Row[]).length) }];
  },
  ping: () => [{ ok: int(1) }],
};

/** The column names of a statement's final RETURN, as the store will read them. */
export function returnColumns(cypher: string): string[] | null {
  const at = cypher.lastIndexOf('RETURN ');
  if (at < 0) return null;
  let clause = cypher.slice(at + 'RETURN '.length).replace(/^DISTINCT /, '');
  clause = clause.split(/\sORDER BY\s/)[0];
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of clause) {
    if ('([{'.includes(ch)) depth++;
    if (')]}'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) {
      items.push(current);
      current = '';
    } else current += ch;
  }
  items.push(current);
  return items.map((item) => {
    const alias = /\sAS\s+([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(item.trim());
    return alias ? alias[1] : item.trim();
  });
}

const STATEMENTS: Record<StatementName, (g: Graph, p: Params) => Row[]> = { ...STORE_STATEMENTS, ...ANALYTICS_STATEMENTS };

const byText = new Map<string, StatementName>(
  (Object.entries(ALL_CYPHER) as [StatementName, string][]).map(([name, text]) => [text, name]),
);
if (byText.size !== Object.keys(ALL_CYPHER).length) {
  throw new Error('two statements in src/store/neo4j/statements.ts have the same text');
}

function execute(g: Graph, query: string, params: Params): Neo4jRecord[] {
  const name = byText.get(query);
  if (!name) throw new Error(`simulated Neo4j: not one of the store's statements:\n${query}`);
  const rows = STATEMENTS[name](g, params);
  const columns = returnColumns(query);
  if (columns === null && rows.length > 0) throw new Error(`simulated ${name} returned rows but the Cypher has no RETURN`);
  for (const row of rows) {
    const keys = Object.keys(row);
    if (columns === null || keys.join() !== columns.join()) {
      throw new Error(`simulated ${name} returns {${keys.join(', ')}} but the Cypher returns {${columns?.join(', ')}}`);
    }
  }
  return rows.map((row) => new Neo4jRecord(Object.keys(row), Object.values(row)));
}

function clone(g: Graph): Graph {
  return structuredClone(g);
}

/**
 * A Driver with just what Neo4jStore uses. Transactions run one at a time (a server's locks would
 * order the conflicting ones; here all are ordered) and roll back when the work throws.
 */
export function simulatedDriver(): Driver & { statementsRun: Set<StatementName> } {
  let graph = emptyGraph();
  let queue: Promise<unknown> = Promise.resolve();
  const statementsRun = new Set<StatementName>();

  const transaction = <T>(work: (tx: { run: (q: string, p?: Params) => Promise<{ records: Neo4jRecord[] }> }) => Promise<T>) => {
    const result = queue.then(async () => {
      const before = clone(graph);
      const tx = {
        run: async (query: string, params: Params = {}) => {
          const name = byText.get(query);
          if (name) statementsRun.add(name);
          return { records: execute(graph, query, params) };
        },
      };
      try {
        return await work(tx);
      } catch (err) {
        graph = before;
        throw err;
      }
    });
    queue = result.catch(() => undefined);
    return result;
  };

  const driver = {
    statementsRun,
    session: () => ({
      executeRead: transaction,
      executeWrite: transaction,
      close: async () => undefined,
    }),
    close: async () => undefined,
    reset: () => {
      graph = emptyGraph();
    },
  };
  return driver as unknown as Driver & { statementsRun: Set<StatementName> };
}

export function resetSimulatedDriver(driver: Driver): void {
  (driver as unknown as { reset(): void }).reset();
}
