/**
 * The server side of `npm run bench:peers` (bench/peers.ts), in its own process so that the load
 * generator does not share its event loop. On one temporary SQLite file, seeded by bench/seed.ts,
 * and one store instance, it serves the same schema and resolvers three ways:
 *
 *   this service   startServer(loadConfig(...)), the real app, as bench/server.ts runs it
 *   Mercurius      fastify 5 + mercurius at its defaults, POST /graphql
 *   Yoga           graphql-yoga 5 on node:http with @envelop/graphql-jit, POST /graphql
 *
 * and two references, not peers: the floor of this service's stack (Express 5, its JSON body
 * parser and graphql-jit alone) and that floor with Apollo Server 5 in front of graphql-jit as
 * this service runs it (src/graphql/express-handler.ts, src/graphql/execution.ts), nothing else:
 * what Apollo itself costs per request.
 *
 * The peers get the schema this service builds (resolvers, graphql-shield and audit included) and
 * the same per-request context, so every answer runs the same resolver code on the same store.
 * Over IPC: `{ type: 'cpu' }` answers this process's CPU time (after a full collection when asked,
 * bench/peer-cpu.ts), for CPU per request (only one of
 * the three servers is under load at a time).
 */
import fs from 'node:fs';
import http from 'node:http';
import inspector from 'node:inspector';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { useGraphQlJit } from '@envelop/graphql-jit';
import express from 'express';
import Fastify from 'fastify';
import { parse } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { createYoga } from 'graphql-yoga';
import mercurius from 'mercurius';
import { LoginLimiter } from '../src/auth/login-limiter';
import { memoryLimiterStore } from '../src/limits/limiter-store';
import { TokenService } from '../src/auth/tokens';
import { loadConfig } from '../src/config';
import { createContext, type GraphQLContext, type AppDependencies } from '../src/graphql/context';
import { documentStore } from '../src/graphql/document-store';
import { compiledExecution } from '../src/graphql/execution';
import { apolloHandler } from '../src/graphql/express-handler';
import { buildSchema } from '../src/graphql/schema';
import { createLogger } from '../src/logger';
import { startServer } from '../src/server';
import { SqliteStore } from '../src/store/sqlite/store';
import { seed, type SeedInfo } from './seed';
import { answerCpu } from './peer-cpu';
export type { CpuMessage } from './peer-cpu';

export interface PeersReady {
  type: 'ready';
  pid: number;
  urls: { service: string; mercurius: string; yoga: string; express: string; apollo: string };
  seed: SeedInfo;
}

/** The V8 CPU profile of this process between a `profile-start` and a `profile-stop` message. */
export interface ProfileMessage {
  type: 'profile';
  profile: unknown;
}

const listening = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** The context with its lazy parts as own getters, for a server that copies own properties only. */
function ownGetters(ctx: GraphQLContext): GraphQLContext {
  return Object.defineProperties({ ...ctx } as GraphQLContext, {
    loaders: { get: () => ctx.loaders, enumerable: true },
    clientAddress: { get: () => ctx.clientAddress, enumerable: true },
  });
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'songs-peers-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SQLITE_PATH: path.join(dir, 'bench.db'),
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-secret-that-is-at-least-32-characters-long',
    // The nested query reads every service's whole setlist, which the cost limit charges as 1000
    // songs each: the bench measures serving, not the limit (the peers have none).
    GRAPHQL_MAX_COST: '1000000000000',
    // Request rate limits, where the setting exists: the peers have none, and 32 connections
    // from one address would be refused.
    RATE_LIMIT: 'off',
  });
  const store = new SqliteStore(config.sqlitePath);
  const seeded = await seed(store);
  const log = createLogger(config.logLevel);
  const service = await startServer(config, log, store);

  // What the resolvers need, as src/app.ts gives them (without its metrics wrapper on the store).
  const tokens = new TokenService(config.jwtSecret, config.jwtExpiresIn);
  const deps: AppDependencies = {
    store,
    tokens,
    loginLimiter: LoginLimiter.in(memoryLimiterStore(), config.loginMaxFailures, config.loginWindowSeconds),
    serviceTimeZone: config.serviceTimeZone,
    serviceTimes: config.serviceTimes,
    log,
    webhookTargets: { allowPrivate: false, resolve: async () => [] },
    changes: { listen: () => () => undefined },
  };
  const schema = buildSchema();

  const fastify = Fastify({ logger: false });
  await fastify.register(mercurius, {
    schema,
    path: '/graphql',
    context: (request) => createContext(deps, { authorization: request.headers.authorization, clientAddress: request.ip }),
  });
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  const mercuriusUrl = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`;

  const yoga = createYoga({
    schema,
    graphqlEndpoint: '/graphql',
    logging: false,
    graphiql: false,
    landingPage: false,
    plugins: [useGraphQlJit()],
    // Yoga copies the context's own properties onto its own object, which drops getters kept on a
    // prototype (src/graphql/context.ts): it is handed them as own getters, which its copy runs.
    context: ({ request }) => ownGetters(createContext(deps, { authorization: request.headers.get('authorization'), clientAddress: 'unknown' })),
  });
  const yogaServer = http.createServer(yoga);
  await new Promise<void>((resolve) => yogaServer.listen(0, '127.0.0.1', resolve));
  // The same socket settings as this service's listener (src/server.ts).
  for (const s of [fastify.server, yogaServer]) {
    s.keepAliveTimeout = 65_000;
    s.headersTimeout = 66_000;
  }

  // The floor of the stack this service is built on: Express 5 and its JSON body parser, each
  // query compiled once by graphql-jit, no Apollo, no middleware. Not a peer: a reference.
  const compiled = new Map<string, CompiledQuery>();
  const floor = express();
  floor.set('etag', false);
  floor.post('/graphql', express.json(), async (req, res) => {
    const { query, variables } = req.body as { query: string; variables?: Record<string, unknown> };
    let c = compiled.get(query);
    if (!c) {
      const made = compileQuery(schema, parse(query));
      if (!isCompiledQuery(made)) throw new Error('not compilable');
      compiled.set(query, (c = made));
    }
    res.json(await c.query(undefined, createContext(deps, { authorization: req.headers.authorization, clientAddress: 'unknown' }), variables ?? {}));
  });
  const floorServer = await new Promise<http.Server>((resolve) => {
    const server = floor.listen(0, '127.0.0.1', () => resolve(server));
  });
  floorServer.keepAliveTimeout = 65_000;

  // The floor with Apollo Server 5 in front of graphql-jit, as this service wires it, and nothing
  // else of this service (no middleware, no limits, no plugins of its own): Apollo's own cost.
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    documentStore: documentStore(),
    csrfPrevention: false,
    stopOnTerminationSignals: false,
    plugins: [compiledExecution(), ApolloServerPluginCacheControlDisabled(), ApolloServerPluginLandingPageDisabled()],
  });
  await apollo.start();
  const withApollo = express();
  withApollo.set('etag', false);
  withApollo.post(
    '/graphql',
    express.json(),
    apolloHandler(apollo, async (req) => createContext(deps, { authorization: req.headers.authorization, clientAddress: 'unknown' })),
  );
  const apolloServer = await new Promise<http.Server>((resolve) => {
    const server = withApollo.listen(0, '127.0.0.1', () => resolve(server));
  });
  apolloServer.keepAliveTimeout = 65_000;

  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    yogaServer.closeAllConnections();
    floorServer.closeAllConnections();
    floorServer.close();
    apolloServer.closeAllConnections();
    apolloServer.close();
    await apollo.stop();
    await new Promise<void>((resolve) => yogaServer.close(() => resolve()));
    await fastify.close();
    await service.close();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  // The same profiler as npm run bench's (bench/server.ts), sampling every 100 µs.
  const session = new inspector.Session();
  session.connect();
  const post = <T = unknown>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T))));
  const profiler = {
    async start() {
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 100 });
      await post('Profiler.start');
    },
    async stop() {
      const { profile } = await post<{ profile: unknown }>('Profiler.stop');
      await post('Profiler.disable');
      return profile;
    },
  };
  process.on('message', (msg: { type?: string; collect?: boolean } | string) => {
    if (msg === 'shutdown') void shutdown();
    else if (typeof msg === 'object' && msg?.type === 'cpu') answerCpu(msg);
    else if (typeof msg === 'object' && msg?.type === 'profile-start') void profiler.start();
    else if (typeof msg === 'object' && msg?.type === 'profile-stop') void profiler.stop().then((profile) => process.send?.({ type: 'profile', profile } satisfies ProfileMessage));
  });
  process.on('disconnect', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());

  const ready: PeersReady = {
    type: 'ready',
    pid: process.pid,
    urls: { service: service.url, mercurius: mercuriusUrl, yoga: listening(yogaServer), express: listening(floorServer), apollo: listening(apolloServer) },
    seed: seeded,
  };
  if (process.send) process.send(ready);
  else console.log(JSON.stringify({ ...ready, seed: { ...seeded, songIds: undefined } }));
}

main().catch((err) => {
  console.error('peer bench server failed:', err);
  process.exit(1);
});
