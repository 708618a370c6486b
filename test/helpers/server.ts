import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startServer, type RunningServer } from '../../src/server';
import type { Store } from '../../src/store/types';
import { recordCall } from './api-calls';
import { closeNeo4jStore, openNeo4jStore, storeEnv, testStoreKind } from './test-store';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };
export const JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string;
  /** Sent as JSON unless it is already a string (for malformed-body tests). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  /** Names this server's store: its SQLite file, or (TEST_STORE=neo4j) its graph in the run's Neo4j. */
  dbPath: string;
  store: Store;
  /** Configuration variables that point a CLI run as its own process at this server's store. */
  storeEnv: Record<string, string>;
  /** The password this start generated for ADMIN_USERNAME (started with ADMIN_PASSWORD empty), as the terminal showed it. */
  adminPassword?: string;
  /** A REST call relative to /api/v1. */
  api<T = any>(method: string, path: string, opts?: CallOptions): Promise<Reply<T>>;
  /** A GraphQL POST to /graphql. */
  gql<T = any>(query: string, variables?: Record<string, unknown>, token?: string): Promise<Reply<T>>;
  /** Raw request against the server root. */
  raw<T = any>(method: string, path: string, opts?: CallOptions): Promise<Reply<T>>;
  adminToken(): Promise<string>;
  login(username: string, password: string): Promise<string>;
  /** Create a user through the API (as admin) and return its id and a token. */
  createUser(username: string, role?: 'ADMIN' | 'USER', password?: string): Promise<{ id: number; token: string }>;
  close(): Promise<void>;
}

export function tempDbPath(name = 'songs.db'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'songs-test-'));
  return path.join(dir, name);
}

/**
 * A real server on a real SQLite file, or with TEST_STORE=neo4j on the run's real Neo4j (see
 * ./test-store.ts), listening on an ephemeral loopback port; requests go over real HTTP with
 * fetch. `env` overrides any configuration variable; `log` replaces the logger. Without
 * SQLITE_PATH the store is new and empty; with one named before, it is that store again.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  /** Where log lines go (LOG_LEVEL is `silent` unless `env` sets it). */
  logDestination?: import('pino').DestinationStream,
): Promise<TestServer> {
  const dbPath = env.SQLITE_PATH ?? tempDbPath();
  const onNeo4j = testStoreKind() === 'neo4j';
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    JWT_SECRET,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    ...storeEnv(dbPath),
    ...env,
  });
  if (onNeo4j) await openNeo4jStore(dbPath, env.SQLITE_PATH !== undefined);
  let server: RunningServer;
  try {
    server = await startServer(config, createLogger(config.logLevel, logDestination));
  } catch (err) {
    if (onNeo4j) await closeNeo4jStore(dbPath);
    throw err;
  }

  async function raw(method: string, p: string, opts: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${server.url}${p}`, { method, headers, body });
    const text = await res.text();
    recordCall(method, p, res.status, { contentType: res.headers.get('content-type'), text });
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  let adminToken: string | undefined;
  let closing: Promise<void> | undefined;
  const self: TestServer = {
    url: server.url,
    adminPassword: server.adminPassword,
    dbPath,
    store: server.store,
    storeEnv: storeEnv(dbPath),
    api: (method, p, opts) => raw(method, `/api/v1${p}`, opts),
    raw,
    gql: (query, variables, token) =>
      raw('POST', '/graphql', { body: { query, variables }, token }),
    async login(username, password) {
      const res = await raw('POST', '/api/v1/users/login', { body: { username, password } });
      if (res.status !== 200) throw new Error(`login failed for ${username}: ${res.status} ${res.text}`);
      return res.body.token as string;
    },
    async adminToken() {
      adminToken ??= await self.login(ADMIN.username, ADMIN.password);
      return adminToken;
    },
    async createUser(username, role = 'USER', password = 'user-password-1') {
      const res = await raw('POST', '/api/v1/users', {
        token: await self.adminToken(),
        body: { username, password, role },
      });
      if (res.status !== 201) throw new Error(`createUser ${username}: ${res.status} ${res.text}`);
      return { id: res.body.id, token: await self.login(username, password) };
    },
    close: () =>
      (closing ??= (async () => {
        await server.close();
        if (onNeo4j) await closeNeo4jStore(dbPath);
      })()),
  };
  return self;
}
