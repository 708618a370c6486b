/**
 * The server side of bench:peers' Neo4j comparison (bench/peers-neo4j.ts), in its own process so
 * that the load generator does not share its event loop. On the Neo4j database NEO4J_URI names
 * (loaded by the parent with a history), it serves the same graph two ways:
 *
 *   this service     startServer(loadConfig(STORE=neo4j)), the real app at its defaults (the cost
 *                    limit included), request rate limits off as in every peer bench
 *   @neo4j/graphql   Neo4j's own GraphQL library (7) over type definitions of the graph this service
 *                    writes: Song and Service nodes joined by PERFORMED_IN, whose `position` is the
 *                    setlist order. On the same HTTP stack as this service: Express 5,
 *                    express.json() and Apollo Server 5 (src/graphql/express-handler.ts)
 *
 * Over IPC, as bench/peer-server.ts: `{ type: 'cpu' }` answers this process's CPU time (one server
 * is under load at a time), 'shutdown' stops it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { Neo4jGraphQL } from '@neo4j/graphql';
import express from 'express';
import neo4j from 'neo4j-driver';
import { loadConfig } from '../src/config';
import { apolloHandler } from '../src/graphql/express-handler';
import { createLogger } from '../src/logger';
import { startServer } from '../src/server';
import { answerCpu } from './peer-cpu';

export interface Neo4jPeersReady {
  type: 'ready';
  pid: number;
  urls: { service: string; library: string };
}

/** The graph as this service writes it (src/store/neo4j/), in the library's terms. */
export const TYPE_DEFS = /* GraphQL */ `
  type Song @node {
    id: Int!
    name: String!
    artists: [String!]!
    services: [Service!]! @relationship(type: "PERFORMED_IN", direction: OUT, properties: "PerformedIn")
  }
  type Service @node {
    id: Int!
    date: BigInt!
    serviceType: String!
    songs: [Song!]! @relationship(type: "PERFORMED_IN", direction: IN, properties: "PerformedIn")
  }
  type PerformedIn @relationshipProperties {
    position: Int!
  }
`;

const listening = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function main() {
  const { NEO4J_URI: uri, NEO4J_USER: user = 'neo4j', NEO4J_PASSWORD: password = '', NEO4J_DATABASE: database } = process.env;
  if (!uri) throw new Error('NEO4J_URI is not set');
  const config = loadConfig({
    STORE: 'neo4j',
    NEO4J_URI: uri,
    NEO4J_USER: user,
    NEO4J_PASSWORD: password,
    ...(database ? { NEO4J_DATABASE: database } : {}),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-secret-that-is-at-least-32-characters-long',
    RATE_LIMIT: 'off',
  });
  const service = await startServer(config, createLogger(config.logLevel));

  const driver = neo4j.driver(uri, neo4j.auth.basic(user, password));
  const schema = await new Neo4jGraphQL({ typeDefs: TYPE_DEFS, driver }).getSchema();
  const apollo = new ApolloServer({ schema });
  await apollo.start();
  const app = express();
  app.post('/graphql', express.json(), apolloHandler(apollo, async () => (database ? { sessionConfig: { database } } : {})));
  const library = http.createServer(app);
  await new Promise<void>((resolve) => library.listen(0, '127.0.0.1', resolve));

  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    library.closeAllConnections();
    await new Promise<void>((resolve) => library.close(() => resolve()));
    await apollo.stop();
    await driver.close();
    await service.close();
    process.exit(0);
  };
  process.on('message', (msg: { type?: string; collect?: boolean } | string) => {
    if (msg === 'shutdown') void shutdown();
    else if (typeof msg === 'object' && msg?.type === 'cpu') answerCpu(msg);
  });
  process.on('disconnect', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  const ready: Neo4jPeersReady = { type: 'ready', pid: process.pid, urls: { service: service.url, library: listening(library) } };
  process.send?.(ready);
}

main().catch((err) => {
  console.error('Neo4j peer bench server failed:', err);
  process.exit(1);
});
