/**
 * bench:peers on Neo4j: this service's /graphql beside Neo4j's own GraphQL library (@neo4j/graphql
 * 7) on the same database, the same data and the same HTTP stack (bench/neo4j-peer-server.ts).
 * The data is the 10y history of bench:analytics (1,000 songs, 1,560 services, 9,360 links),
 * imported through the store. Each read is asked in each API's own terms; the answers are compared
 * (as the same records in the same order) before anything is measured. Run by bench/peers.ts after
 * the SQLite peers when a Neo4j can be had (NEO4J_URI, wiped, or a local one: scripts/neo4j-local.ts).
 */
import os from 'node:os';
import { HISTORIES, snapshotOf } from './analytics';
import { benchNeo4j, loadNeo4j } from './neo4j';
import type { Neo4jPeersReady } from './neo4j-peer-server';
import type { TimedOptions } from './options';
import { fire, mean, measure, printTable, round, startPeers, summary, type Run } from './peers-load';

type Json = Record<string, unknown>;

/** One read, in each API's terms, and what each answer means as plain records. */
export interface Neo4jQuery {
  id: string;
  title: string;
  service: string;
  library: string;
  /** Each answer's `data` as the records it holds, in order, to compare. */
  mine: (data: Json) => unknown;
  theirs: (data: Json) => unknown;
}

interface Picks {
  /** A song in the middle of the catalogue. */
  songId: number;
  /** The most sung song. */
  popularId: number;
  /** A service with a full setlist. */
  serviceId: number;
}

const one = (list: unknown) => (Array.isArray(list) ? (list[0] ?? null) : null);
/** The library answers a BigInt as a string; this service's Timestamp is a number. */
const service = (v: Json) => ({ ...v, ...(v.date !== undefined ? { date: Number(v.date) } : {}) });
const edges = (c: unknown) => ((c as { edges: { node: Json }[] }).edges ?? []).map((e) => e.node);

export function neo4jQueries(p: Picks): Neo4jQuery[] {
  return [
    {
      id: 'neo4j-single',
      title: 'a song',
      service: `{ song(id: ${p.songId}) { id name artists } }`,
      library: `{ songs(where: { id: { eq: ${p.songId} } }) { id name artists } }`,
      mine: (d) => d.song,
      theirs: (d) => one(d.songs),
    },
    {
      id: 'neo4j-page',
      title: 'a page of 20 songs',
      service: '{ songs(limit: 20, offset: 100) { id name artists } }',
      library: '{ songs(limit: 20, offset: 100, sort: [{ id: ASC }]) { id name artists } }',
      mine: (d) => d.songs,
      theirs: (d) => d.songs,
    },
    {
      id: 'neo4j-setlist',
      title: 'a service with its setlist',
      service: `{ service(id: ${p.serviceId}) { id date serviceType songs { id name artists } } }`,
      library:
        `{ services(where: { id: { eq: ${p.serviceId} } }) { id date serviceType ` +
        'songsConnection(sort: [{ edge: { position: ASC } }]) { edges { node { id name artists } } } } }',
      mine: (d) => d.service,
      theirs: (d) => {
        const v = one(d.services) as Json | null;
        if (!v) return null;
        const { songsConnection, ...rest } = v;
        return { ...service(rest), songs: edges(songsConnection) };
      },
    },
    {
      id: 'neo4j-recent',
      title: "a popular song's 20 most recent services",
      service: `{ song(id: ${p.popularId}) { id services(limit: 20, sort: DATE_DESC) { id date serviceType } } }`,
      library: `{ songs(where: { id: { eq: ${p.popularId} } }) { id services(limit: 20, sort: [{ date: DESC }, { id: DESC }]) { id date serviceType } } }`,
      mine: (d) => d.song,
      theirs: (d) => {
        const s = one(d.songs) as Json | null;
        return s ? { ...s, services: (s.services as Json[]).map(service) } : null;
      },
    },
    {
      id: 'neo4j-services',
      title: '200 services with 20 of their songs',
      service: '{ services(limit: 200) { id date songs(limit: 20) { id name } } }',
      library:
        '{ services(limit: 200, sort: [{ date: ASC }, { id: ASC }]) { id date ' +
        'songsConnection(first: 20, sort: [{ edge: { position: ASC } }]) { edges { node { id name } } } } }',
      mine: (d) => d.services,
      theirs: (d) =>
        (d.services as Json[]).map(({ songsConnection, ...rest }) => ({ ...service(rest), songs: edges(songsConnection) })),
    },
  ];
}

const body = (query: string) => JSON.stringify({ query });

async function dataOf(url: string, query: string, who: string, id: string): Promise<Json> {
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(query) });
  const answer = (await res.json()) as { data?: Json; errors?: unknown[] };
  if (res.status !== 200 || answer.errors || !answer.data) throw new Error(`${id}: ${who} answered ${res.status} ${JSON.stringify(answer).slice(0, 400)}`);
  return answer.data;
}

/** The records of both answers, which must be equal. */
async function checkSame(ready: Neo4jPeersReady, q: Neo4jQuery): Promise<void> {
  const mine = q.mine(await dataOf(ready.urls.service, q.service, 'this service', q.id));
  const theirs = q.theirs(await dataOf(ready.urls.library, q.library, '@neo4j/graphql', q.id));
  const a = JSON.stringify(mine);
  const b = JSON.stringify(theirs);
  if (a !== b || mine === null || mine === undefined) throw new Error(`${q.id}: the answers differ\n  this service:   ${a.slice(0, 400)}\n  @neo4j/graphql: ${b.slice(0, 400)}`);
}

export interface Neo4jPeersResult {
  source: string;
  history: string;
  importMs: number;
  results: {
    id: string;
    title: string;
    /** This service's throughput over the library's (mean over rounds), and per round. */
    ratio: number;
    perRoundRatios: number[];
    service: ReturnType<typeof summary>;
    library: ReturnType<typeof summary>;
    runs: { service: Run[]; library: Run[] };
  }[];
  failures: number;
}

/** Load the 10y history into a Neo4j, serve it both ways and measure each read in turns. */
export async function neo4jPeers(opts: TimedOptions, only: string[] | undefined): Promise<Neo4jPeersResult> {
  const history = HISTORIES.find((h) => h.id === '10y')!;
  const snapshot = snapshotOf(history);
  const n = await benchNeo4j();
  try {
    console.log(`\nNeo4j: ${n.source}; importing the ${history.id} history...`);
    const { importMs } = await loadNeo4j(n, snapshot);
    const counts = new Map<number, number>();
    for (const l of snapshot.links) counts.set(l.songId, (counts.get(l.songId) ?? 0) + 1);
    const popularId = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
    const setlists = new Map<number, number>();
    for (const l of snapshot.links) setlists.set(l.serviceId, (setlists.get(l.serviceId) ?? 0) + 1);
    const serviceId = [...setlists].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
    const picks: Picks = { songId: snapshot.songs[Math.floor(snapshot.songs.length / 2)].id, popularId, serviceId };
    const queries = neo4jQueries(picks).filter((q) => !only || only.includes(q.id));

    const peers = await startPeers<Neo4jPeersReady>(
      'neo4j-peer-server.ts',
      { NEO4J_URI: n.uri, NEO4J_USER: n.user, NEO4J_PASSWORD: n.password, ...(n.database ? { NEO4J_DATABASE: n.database } : {}) },
      600,
    );
    try {
      for (const q of queries) await checkSame(peers.ready, q);
      console.log(`checked: this service and @neo4j/graphql answer each read with the same records (${queries.map((q) => q.id).join(', ')})`);
      const results: Neo4jPeersResult['results'] = [];
      const sides = [
        ['service', peers.ready.urls.service],
        ['library', peers.ready.urls.library],
      ] as const;
      for (const q of queries) {
        for (const [side, url] of sides) await fire(url, body(side === 'service' ? q.service : q.library), opts.warmup, opts.connections);
        const runs = { service: [] as Run[], library: [] as Run[] };
        for (let i = 0; i < opts.rounds; i++) {
          for (const [side, url] of sides) runs[side].push(await measure(peers, url, body(side === 'service' ? q.service : q.library), opts));
        }
        const rps = (side: 'service' | 'library') => mean(runs[side].map((r) => r.rps));
        const result = {
          id: q.id,
          title: q.title,
          ratio: round(rps('service') / rps('library')),
          perRoundRatios: runs.service.map((r, i) => round(r.rps / runs.library[i].rps)),
          service: summary(runs.service),
          library: summary(runs.library),
          runs,
        };
        results.push(result);
        console.log(`  ${q.id}: this/@neo4j/graphql ${result.ratio} (rounds ${result.perRoundRatios.join(', ')})`);
      }
      console.log('');
      printTable([
        ['read (Neo4j)', 'this/@neo4j/graphql', 'req/s this | lib', 'CPU ms/req', 'p50 ms', 'p99 ms', 'failures'],
        ...results.map((r) => [
          r.title,
          r.ratio.toFixed(2),
          `${r.service.rps} | ${r.library.rps}`,
          `${r.service.cpuMsPerRequest} | ${r.library.cpuMsPerRequest}`,
          `${r.service.p50} | ${r.library.p50}`,
          `${r.service.p99} | ${r.library.p99}`,
          String(r.service.failures + r.library.failures),
        ]),
      ]);
      console.log(`(both served by one process; CPU = that process's time per answered request; load average ${os.loadavg()[0].toFixed(2)})`);
      return {
        source: n.source,
        history: history.id,
        importMs,
        results,
        failures: results.reduce((a, r) => a + r.service.failures + r.library.failures, 0),
      };
    } finally {
      await peers.stop();
    }
  } finally {
    await n.stop();
  }
}
