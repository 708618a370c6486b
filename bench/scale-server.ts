/**
 * One server of the scale scenario (bench/scale.ts): a fresh SQLite file filled from a generated
 * snapshot through `importSnapshot` (one transaction), then the real server on it. Reports its
 * URL, the import time and what the store holds over IPC.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startServer } from '../src/server';
import { SqliteStore } from '../src/store/sqlite/store';
import { scaleSnapshot, type SizeName } from './scale-data';

async function main() {
  const size = process.argv[2] as SizeName;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `songs-scale-${size}-`));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SQLITE_PATH: path.join(dir, 'scale.db'),
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-secret-that-is-at-least-32-characters-long',
    GRAPHQL_MAX_COST: '1000000',
  });
  const { snapshot, info } = scaleSnapshot(size);
  const store = new SqliteStore(config.sqlitePath);
  const started = Date.now();
  await store.importSnapshot(snapshot);
  const importMs = Date.now() - started;
  const server = await startServer(config, createLogger(config.logLevel), store);
  const shutdown = async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('disconnect', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  process.send?.({ type: 'ready', url: server.url, importMs, info });
}

main().catch((err) => {
  console.error('scale server failed:', err);
  process.exit(1);
});
