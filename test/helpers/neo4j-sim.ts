/**
 * A stand-in for a Neo4j server that knows only this project's statements: each named statement
 * of src/store/neo4j/statements.ts is re-implemented here in plain TypeScript over in-memory
 * maps. It lets the contract suite drive Neo4jStore without a server, which checks the adapter's
 * own code (parameters and their declared types, Integer conversion both ways, the column names
 * it reads, batch ordering, transaction flows and rollbacks) but NOT the Cypher itself: that is
 * the linter's job here, and a real Neo4j's in `NEO4J_URI=... npm run test:neo4j`.
 *
 * To keep the two from drifting, every row returned must have exactly the columns the Cypher
 * statement's final RETURN names, and Integer columns come back as neo4j Integers.
 */
import neo4j, { Neo4jError, Record as Neo4jRecord, isInt, type Driver, type Integer } from 'neo4j-driver';
import { ANALYTICS_CYPHER } from '../../src/store/neo4j/analytics-statements';
import { CYPHER, type StatementName as StoreStatementName } from '../../src/store/neo4j/statements';
import { ANALYTICS_STATEMENTS } from './neo4j-sim-analytics';

/** The store's statements and its analytics statements (./neo4j-sim-analytics.ts). */
type StatementName = StoreStatementName | keyof typeof ANALYTICS_CYPHER;
const ALL_CYPHER: Record<StatementName, string> = { ...CYPHER, ...ANALYTICS_CYPHER };

type Params = Record<string, unknown>;
type Row = Record<string, unknown>;

interface SongNode { id: number; name: string; artists: string[]; keys: string[] }
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

const STORE_STATEMENTS: Record<StoreStatementName, (g: Graph, p: Params) => Row[]> = {
  listSongs: (g) => byId(g.songs).map(songRow),
  songsByIds: (g, p) => nums(p.ids).map((id, i) => ({ i: int(i), ...songRow(g.songs.get(id)) })),
  songsByArtistKey: (g, p) => byId(g.songs).filter((s) => s.keys.includes(p.artistKey as string)).map(songRow),
  createSong: (g, p) => {
    const s = { id: next(g, 'Song'), name: p.name as string, artists: p.artists as string[], keys: p.artistKeys as string[] };
    g.songs.set(s.id, s);
    return [songRow(s)];
  },
  updateSong: (g, p) => {
    const s = g.songs.get(num(p.id));
    if (!s) return [];
    s.name = (p.name as string | null) ?? s.name;
    s.artists = (p.artists as string[] | null) ?? s.artists;
    return [songRow(s)];
  },
  setSongArtists: (g, p) => {
    for (const row of p.rows as Row[]) {
      const s = g.songs.get(num(row.id));
      if (s) s.keys = [...(row.artistKeys as string[])];
    }
    return [];
  },
  deleteSong: (g, p) => {
    const id = num(p.id);
    const deleted = g.songs.delete(id) ? 1 : 0;
    deleteLinks(g, (l) => l.songId !== id);
    return [{ deleted: int(deleted) }];
  },

  listServices: (g) => servicesByDate([...g.services.values()]).map(serviceRow),
  servicesByIds: (g, p) => nums(p.ids).map((id, i) => ({ i: int(i), ...serviceRow(g.services.get(id)) })),
  servicesInRange: (g, p) =>
    servicesByDate([...g.services.values()].filter((v) => v.date >= num(p.min) && v.date <= num(p.max))).map(serviceRow),
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
      setlistOf(g, serviceId).map((l) => ({ i: int(i), ...songRow(g.songs.get(l.songId)) })),
    ),
  servicesForSongs: (g, p) =>
    nums(p.ids).flatMap((songId, i) =>
      servicesByDate([...g.links.values()].filter((l) => l.songId === songId).map((l) => g.services.get(l.serviceId)!)).map(
        (v) => ({ i: int(i), ...serviceRow(v) }),
      ),
    ),
  linkTargets: (g, p) => [
    {
      service: g.services.has(num(p.serviceId)),
      songs: int(new Set(nums(p.songIds).filter((id) => g.songs.has(id))).size),
    },
  ],
  reserveLinkSeqs: (g, p) => [{ base: int(next(g, 'PERFORMED_IN', num(p.count)) - num(p.count)) }],
  linkSong: (g, p) => {
    const serviceId = num(p.serviceId);
    const songId = num(p.songId);
    if (!g.services.has(serviceId) || !g.songs.has(songId)) return [];
    const position = p.position === null ? null : num(p.position);
    const existing = g.links.get(linkKey(serviceId, songId));
    if (existing) {
      existing.position = position ?? existing.position;
      return [{ position: int(existing.position) }];
    }
    const end = Math.max(0, ...setlistOf(g, serviceId).map((l) => l.position)) + 1;
    const link = { serviceId, songId, position: position ?? end, seq: num(p.seq) };
    g.links.set(linkKey(serviceId, songId), link);
    return [{ position: int(link.position) }];
  },
  unlinkSong: (g, p) => [{ removed: int(g.links.delete(linkKey(num(p.serviceId), num(p.songId))) ? 1 : 0) }],
  clearSetlist: (g, p) => {
    const serviceId = num(p.serviceId);
    deleteLinks(g, (l) => l.serviceId !== serviceId);
    return [];
  },
  fillSetlist: (g, p) => {
    const serviceId = num(p.serviceId);
    if (!g.services.has(serviceId)) return [{ linked: int(0) }];
    let linked = 0;
    nums(p.songIds).forEach((songId, i) => {
      if (!g.songs.has(songId)) return;
      const key = linkKey(serviceId, songId);
      const link = g.links.get(key) ?? { serviceId, songId, position: 0, seq: num(p.base) + i + 1 };
      link.position = i + 1;
      g.links.set(key, link);
      linked++;
    });
    return [{ linked: int(linked) }];
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
  lockUsers: () => [],
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
      const s = g.songs.get(id) ?? { id, name: '', artists: [], keys: [] };
      s.name = row.name as string;
      s.artists = row.artists as string[];
      g.songs.set(id, s);
    }
    return [];
  },
  importServices: (g, p) => {
    for (const row of p.rows as Row[]) {
      g.services.set(num(row.id), { id: num(row.id), date: num(row.date), serviceType: row.serviceType as string });
    }
    return [];
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
    return [];
  },
  importLinks: (g, p) => {
    for (const row of p.rows as Row[]) {
      const serviceId = num(row.serviceId);
      const songId = num(row.songId);
      if (!g.services.has(serviceId) || !g.songs.has(songId)) continue;
      g.links.set(linkKey(serviceId, songId), { serviceId, songId, position: num(row.position), seq: num(row.seq) });
    }
    return [];
  },
  raiseSequences: (g, p) => {
    for (const row of p.rows as Row[]) {
      const name = row.name as string;
      g.sequences.set(name, Math.max(g.sequences.get(name) ?? 0, num(row.value)));
    }
    return [];
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
