/**
 * `npm run bench:peers`: this service's /graphql beside fastify + Mercurius and GraphQL Yoga +
 * graphql-jit serving the same schema, resolvers and store in one process (bench/peer-server.ts),
 * as throughput ratios (this / Mercurius, this / Yoga) with p50/p99 latency and server CPU per
 * request; and beside the floor of its own stack (Express 5 and graphql-jit alone) and that floor
 * with Apollo Server 5 in front of graphql-jit (what Apollo itself costs), for reference.
 * The answers to each query are compared byte for byte before anything is measured.
 *
 *   npm run bench:peers                    3 rounds of 5 s per server and query, 2 s warm-up
 *   npm run bench:peers -- --quick         1 round of 3 s, 1 s warm-up
 *   npm run bench:peers -- --only single,nested --rounds 5
 *   npm run bench:peers -- --only single --profile single   also a CPU profile of this service on it
 *   npm run bench:peers -- --only single --profile single --profile-servers service,apollo,express
 *
 *   npm run bench:peers -- --store neo4j   only the Neo4j comparison (below)
 *
 * Options: --duration <s> --rounds <n> --warmup <s> --connections <n> --out <file> --profile <id,...>
 * --profile-servers <server,...> (service; of service, mercurius, yoga, express, apollo) --store sqlite|neo4j|both (both)
 *
 * Then, on Neo4j (bench/peers-neo4j.ts), this service beside Neo4j's own GraphQL library on the
 * same database: when no Neo4j can be had (NEO4J_URI unset, and no Java 17+ and Maven for the
 * local launcher) that part says so and is left out.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PeersReady } from './peer-server';
import { localNeo4jMissing } from '../scripts/neo4j-local';
import { readTimedOptions, type TimedOptions } from './options';
import { neo4jPeers, neo4jQueries, type Neo4jPeersResult } from './peers-neo4j';
import { fire, mean, measure, printTable, round, startPeers, summary, type Run } from './peers-load';
import { formatSummary, summarize } from './profile';

const SERVERS = ['service', 'mercurius', 'yoga', 'express', 'apollo'] as const;
type ServerName = (typeof SERVERS)[number];
const LABELS: Record<ServerName, string> = { service: 'this', mercurius: 'Mercurius', yoga: 'Yoga', express: 'floor', apollo: 'floor+Apollo' };

type Options = TimedOptions & { stores: ('sqlite' | 'neo4j')[]; profileServers: ServerName[] };

function parseArgs(argv: string[]): Options {
  const { options, values } = readTimedOptions(
    argv,
    { rounds: 3, warmup: 2, quickWarmup: 1, out: path.join(__dirname, 'peers-results.json') },
    { store: { type: 'string' }, 'profile-servers': { type: 'string' } },
  );
  const store = values.store ?? 'both';
  if (store !== 'sqlite' && store !== 'neo4j' && store !== 'both') throw new Error('--store must be sqlite, neo4j or both');
  const given = values['profile-servers'];
  const profileServers = (typeof given === 'string' ? given : 'service').split(',').map((s) => s.trim());
  const unknown = profileServers.find((s) => !(SERVERS as readonly string[]).includes(s));
  if (unknown) throw new Error(`--profile-servers: no server '${unknown}' (${SERVERS.join(', ')})`);
  return { ...options, stores: store === 'both' ? ['sqlite', 'neo4j'] : [store], profileServers: profileServers as ServerName[] };
}

interface Query {
  id: string;
  title: string;
  body: string;
}

const QUERIES: Query[] = [
  { id: 'single', title: 'single record', body: JSON.stringify({ query: '{ song(id: 7) { id name artists } }' }) },
  {
    id: 'list',
    title: 'small list with variables',
    body: JSON.stringify({
      query: 'query Songs($limit: Int, $offset: Int) { songs(limit: $limit, offset: $offset) { id name artists } }',
      variables: { limit: 10, offset: 100 },
    }),
  },
  {
    id: 'nested',
    title: 'nested 200 x 5',
    body: JSON.stringify({ query: '{ services { id date serviceType songs { id name artists } } }' }),
  },
];

// ---------------------------------------------------------------------------------------------
// The check: the same bytes from all three

async function answer(url: string, body: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/**
 * Apollo Server ends every JSON body with a newline (its `prettyJSONStringify`); the peers do not.
 * That newline is the one difference allowed: every other byte must be equal.
 */
const withoutFinalNewline = (text: string) => (text.endsWith('\n') ? text.slice(0, -1) : text);

async function checkSame(ready: PeersReady, q: Query): Promise<number> {
  const answers = await Promise.all(SERVERS.map((s) => answer(ready.urls[s], q.body)));
  const [mine] = answers;
  if (mine.status !== 200 || !mine.text.startsWith('{"data":')) throw new Error(`${q.id}: this service answered ${mine.status} ${mine.text.slice(0, 300)}`);
  for (const [i, other] of answers.entries()) {
    const who = SERVERS[i];
    if (other.status !== 200) throw new Error(`${q.id}: ${who} answered ${other.status} ${other.text.slice(0, 300)}`);
    if (!other.type?.startsWith('application/json')) throw new Error(`${q.id}: ${who} answered Content-Type ${other.type}`);
    if (withoutFinalNewline(other.text) !== withoutFinalNewline(mine.text)) {
      throw new Error(`${q.id}: ${who}'s answer differs from this service's\n${other.text.slice(0, 300)}\n${mine.text.slice(0, 300)}`);
    }
  }
  return Buffer.byteLength(withoutFinalNewline(mine.text));
}

/** The comparison on SQLite, the peers in one process on one store (bench/peer-server.ts). */
async function sqlitePeers(opts: Options, chosen: Query[]) {
  const peers = await startPeers<PeersReady>('peer-server.ts');
  try {
    const bytes: Record<string, number> = {};
    for (const q of chosen) bytes[q.id] = await checkSame(peers.ready, q);
    console.log(`checked: every server answers each query with the same bytes (${chosen.map((q) => `${q.id} ${bytes[q.id]} B`).join(', ')})`);
    const load = os.loadavg()[0];
    if (load > 0.5 * os.cpus().length) console.log(`note: load average ${round(load)} before starting: rely on the ratios`);
    console.log(`bench:peers: ${opts.rounds} round(s) of ${opts.duration} s per server and query, ${opts.connections} connections, order ${SERVERS.join(' ')} per round`);

    type Summary = ReturnType<typeof summary>;
    type Result = Record<ServerName, Summary> & {
      id: string;
      title: string;
      answerBytes: number;
      /** This service's throughput over each other server's. */
      ratios: Record<ServerName, number>;
      perRoundRatios: Record<ServerName, number[]>;
      runs: Record<ServerName, Run[]>;
    };
    const results: Result[] = [];
    for (const q of chosen) {
      for (const s of SERVERS) await fire(peers.ready.urls[s], q.body, opts.warmup, opts.connections);
      const runs = Object.fromEntries(SERVERS.map((s) => [s, [] as Run[]])) as Record<ServerName, Run[]>;
      for (let i = 0; i < opts.rounds; i++) {
        for (const s of SERVERS) runs[s].push(await measure(peers, peers.ready.urls[s], q.body, opts));
      }
      const rps = (s: ServerName) => mean(runs[s].map((r) => r.rps));
      const others = SERVERS.filter((s) => s !== 'service');
      const result: Result = {
        id: q.id,
        title: q.title,
        answerBytes: bytes[q.id],
        ...(Object.fromEntries(SERVERS.map((s) => [s, summary(runs[s])])) as Record<ServerName, Summary>),
        ratios: Object.fromEntries(others.map((s) => [s, round(rps('service') / rps(s))])) as Record<ServerName, number>,
        perRoundRatios: Object.fromEntries(others.map((s) => [s, runs.service.map((r, i) => round(r.rps / runs[s][i].rps))])) as Record<ServerName, number[]>,
        runs,
      };
      results.push(result);
      console.log(`  ${q.id}: ${others.map((s) => `this/${LABELS[s]} ${result.ratios[s]} (rounds ${result.perRoundRatios[s].join(', ')})`).join('; ')}`);
      if (opts.profile?.includes(q.id)) {
        for (const s of opts.profileServers) {
          // One more run of the server alone, profiled (not counted in the figures above).
          const profile = await peers.profiled(() => fire(peers.ready.urls[s], q.body, opts.duration, opts.connections));
          const file = path.join(__dirname, 'profiles', `peers-${q.id}-${s}.cpuprofile`);
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, JSON.stringify(profile));
          console.log(`  ${q.id}: CPU profile of ${LABELS[s]} written to ${path.relative(process.cwd(), file)}`);
          console.log(formatSummary(summarize(profile, 30)));
        }
      }
    }

    console.log('');
    const all = (r: Result, f: (x: Summary) => number) => SERVERS.map((s) => f(r[s])).join(' | ');
    printTable([
      ['query', 'this/Mercurius', 'this/Yoga', 'this/floor', 'floor+Apollo/floor', 'req/s this | Merc | Yoga | floor | floor+Apollo', 'CPU ms/req', 'p50 ms', 'p99 ms', 'failures'],
      ...results.map((r) => [
        r.title,
        r.ratios.mercurius.toFixed(2),
        r.ratios.yoga.toFixed(2),
        r.ratios.express.toFixed(2),
        (r.apollo.rps / r.express.rps).toFixed(2),
        all(r, (x) => x.rps),
        all(r, (x) => x.cpuMsPerRequest),
        all(r, (x) => x.p50),
        all(r, (x) => x.p99),
        String(SERVERS.reduce((a, s) => a + r[s].failures, 0)),
      ]),
    ]);
    console.log(
      '\nratio = this service req/s / the other server\'s (mean over rounds); CPU = server process user+system time per answered request;' +
        '\nCPU, p50 and p99 columns: this service | Mercurius | Yoga | floor | floor+Apollo. floor = Express 5 + its JSON parser + graphql-jit alone (no Apollo, no middleware);' +
        '\nfloor+Apollo = the floor with Apollo Server 5 in front of graphql-jit as this service wires it, nothing else of this service: references, not peers',
    );

    const failures = results.reduce((a, r) => a + SERVERS.reduce((b, s) => b + r[s].failures, 0), 0);
    return {
      settings: { connections: opts.connections, durationSec: opts.duration, rounds: opts.rounds, warmupSec: opts.warmup, order: SERVERS.join(' ') },
      seed: { ...peers.ready.seed, songIds: undefined },
      results,
      failures,
    };
  } finally {
    await peers.stop();
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const neo4jIds = neo4jQueries({ songId: 0, popularId: 0, serviceId: 0 }).map((q) => q.id);
  const known = [...QUERIES.map((q) => q.id), ...neo4jIds];
  if (opts.only?.some((id) => !known.includes(id))) throw new Error(`--only: have ${known.join(', ')}`);
  const chosen = QUERIES.filter((q) => !opts.only || opts.only.includes(q.id));
  const neo4jOnly = opts.only?.filter((id) => neo4jIds.includes(id));
  const loadBefore = os.loadavg().map((l) => round(l));
  let exitCode = 0;
  try {
    const sqlite = opts.stores.includes('sqlite') && chosen.length > 0 ? await sqlitePeers(opts, chosen) : null;
    let neo4j: Neo4jPeersResult | { skipped: string } | null = null;
    if (opts.stores.includes('neo4j') && (!opts.only || neo4jOnly!.length > 0)) {
      const missing = process.env.NEO4J_URI ? null : localNeo4jMissing();
      if (missing) {
        console.log(`\nNeo4j comparison SKIPPED: NEO4J_URI is not set and the local launcher cannot run (${missing})`);
        neo4j = { skipped: missing };
      } else {
        neo4j = await neo4jPeers(opts, neo4jOnly);
      }
    }
    const failures = (sqlite?.failures ?? 0) + (neo4j && 'failures' in neo4j ? neo4j.failures : 0);
    if (failures) exitCode = 1;
    const cpus = os.cpus();
    const run = {
      mode: opts.quick ? 'quick' : 'full',
      date: new Date().toISOString(),
      machine: { cpus: cpus.length, cpuModel: cpus[0]?.model, node: process.version, loadAvgBefore: loadBefore, loadAvgAfter: os.loadavg().map((l) => round(l)) },
    };
    // A run of one store keeps the other's figures from the file, each part with its own run's date.
    const previous = fs.existsSync(opts.out) ? (JSON.parse(fs.readFileSync(opts.out, 'utf8')) as Record<string, unknown>) : {};
    const { neo4j: previousNeo4j, ...previousSqlite } = previous;
    const written = {
      ...(sqlite ? { ...run, ...sqlite } : previousSqlite),
      neo4j: neo4j ? { ...run, ...neo4j } : (previousNeo4j ?? null),
    };
    fs.writeFileSync(opts.out, `${JSON.stringify(written, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), opts.out)}; ${failures} failed requests`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    exitCode = 1;
  }
  process.exitCode = exitCode;
}

void main();
