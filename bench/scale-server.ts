/**
 * One server of the scale scenario (bench/scale.ts): a fresh SQLite file (or, with `neo4j` as the
 * second argument, a new local Neo4j of its own: bench/neo4j.ts) filled from a generated snapshot
 * through `importSnapshot` (one transaction), then the real server on it. Reports its URL, the
 * import time, what the store holds and (Neo4j) how to reach the database over IPC.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startServer } from '../src/server';
import { SqliteStore } from '../src/store/sqlite/store';
import { scaleSnapshot, type SizeName } from './scale-data';
import { benchNeo4j, loadNeo4j, type BenchNeo4j } from './neo4j';

async function main() {
  const size = process.argv[2] as SizeName;
  const kind = process.argv[3] === 'neo4j' ? 'neo4j' : 'sqlite';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `songs-scale-${size}-`));
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    SQLITE_PATH: path.join(dir, 'scale.db'),
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-secret-that-is-at-least-32-characters-long',
    GRAPHQL_MAX_COST: '1000000',
    // One client drives hundreds of requests a second from one address: the rate limits (on by
    // default since they were added) would answer most of them 429. The limits have their own
    // scenario (bench/rate-limit.ts).
    RATE_LIMIT: 'off',
  };
  const config = loadConfig(env);
  const { snapshot, info } = scaleSnapshot(size);
  let importMs: number;
  let neo4j: BenchNeo4j | null = null;
  let server: Awaited<ReturnType<typeof startServer>>;
  if (kind === 'neo4j') {
    neo4j = await benchNeo4j();
    ({ importMs } = await loadNeo4j(neo4j, snapshot));
    const neo4jConfig = loadConfig({
      ...env,
      STORE: 'neo4j',
      NEO4J_URI: neo4j.uri,
      NEO4J_USER: neo4j.user,
      NEO4J_PASSWORD: neo4j.password,
      ...(neo4j.database ? { NEO4J_DATABASE: neo4j.database } : {}),
    });
    server = await startServer(neo4jConfig, createLogger(neo4jConfig.logLevel));
  } else {
    const store = new SqliteStore(config.sqlitePath);
    const started = Date.now();
    await store.importSnapshot(snapshot);
    importMs = Date.now() - started;
    server = await startServer(config, createLogger(config.logLevel), store);
  }
  const shutdown = async () => {
    await server.close();
    await neo4j?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('disconnect', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  const db = neo4j && { uri: neo4j.uri, user: neo4j.user, password: neo4j.password, database: neo4j.database };
  process.send?.({ type: 'ready', url: server.url, importMs, info, neo4j: db });
}

main().catch((err) => {
  console.error('scale server failed:', err);
  process.exit(1);
});
