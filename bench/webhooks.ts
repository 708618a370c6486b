/**
 * `npm run bench:webhooks`: how long after a write its webhook reaches a receiver, beside the write's
 * own latency. The real service (src/main.ts, its own process) on a new store, a receiver on
 * 127.0.0.1 in this process, one endpoint for `setlist.changed`; then N setlist writes
 * (PUT /api/v1/services/:id/songs), one every `--gap` ms, each leaving a different order, so each
 * delivery is matched to its write by the setlist it carries. The target (docs/performance.md):
 * a median under one second from the write's request to the delivery's arrival.
 *
 *   npm run bench:webhooks                       SQLite; 200 writes, 100 ms apart
 *   STORE=neo4j npm run bench:webhooks           also Neo4j (NEO4J_URI, or a local one it starts)
 *   npm run bench:webhooks -- --writes 50 --gap 50
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchNeo4j, benchStores, type BenchNeo4j } from './neo4j';

const ROOT = path.resolve(__dirname, '..');
const ADMIN = { username: 'bench-admin', password: 'bench-admin-password-1' };

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const round = (x: number) => Math.round(x * 10) / 10;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startService(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', require.resolve('tsx/cjs'), path.join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-webhooks-secret-that-is-at-least-32-characters',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      RATE_LIMIT: 'off',
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 600_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the service did not start');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  return { base, stop };
}

async function api(base: string, method: string, p: string, token?: string, body?: unknown) {
  const res = await fetch(`${base}/api/v1${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function measure(store: string, env: Record<string, string>, writes: number, gapMs: number) {
  const arrivals = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      const at = performance.now();
      const { data } = JSON.parse(body) as { data: { setlist: { song: { id: number } }[] } };
      arrivals.set(data.setlist.map((p) => p.song.id).join(','), at);
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const service = await startService(env);
  try {
    const token = (await api(service.base, 'POST', '/users/login', undefined, ADMIN)).token as string;
    const songs: number[] = [];
    for (let i = 0; i < 8; i++) songs.push((await api(service.base, 'POST', '/songs', token, { name: `Bench song ${i}`, artists: [] })).id);
    const serviceId = (await api(service.base, 'POST', '/services', token, { date: '2026-12-06T10:30:00Z', serviceType: 'SUN_AM' })).id as number;
    await api(service.base, 'POST', '/webhooks', token, { url: hookUrl, events: ['setlist.changed'] });
    // Each write a different order: the i-th permutation of the songs (8! of them), so every
    // delivery names its write.
    const orders = Array.from({ length: writes }, (_, i) => {
      const left = [...songs];
      const order: number[] = [];
      for (let n = i, k = left.length; k > 0; k--) {
        order.push(left.splice(n % k, 1)[0]);
        n = Math.floor(n / k);
      }
      return order;
    });
    const distinct = new Set(orders.map((o) => o.join(',')));
    const sent: { key: string; start: number; end: number }[] = [];
    let previous = '';
    for (const order of orders) {
      const key = order.join(',');
      if (key === previous) continue;
      previous = key;
      const start = performance.now();
      await api(service.base, 'PUT', `/services/${serviceId}/songs`, token, { songIds: order });
      sent.push({ key, start, end: performance.now() });
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    // Every delivery in, or 10 s after the last write.
    const until = Date.now() + 10_000;
    while (Date.now() < until && sent.some((s) => !arrivals.has(s.key))) await new Promise((resolve) => setTimeout(resolve, 50));
    // A setlist written twice (not in a row) is matched to its last write only.
    const last = new Map(sent.map((s) => [s.key, s]));
    const matched = [...last.values()].filter((s) => arrivals.has(s.key));
    const write = sent.map((s) => s.end - s.start);
    const fromRequest = matched.map((s) => arrivals.get(s.key)! - s.start);
    const fromAnswer = matched.map((s) => arrivals.get(s.key)! - s.end);
    const stats = (xs: number[]) => ({ median: round(quantile(xs, 0.5)), p95: round(quantile(xs, 0.95)), max: round(Math.max(...xs)) });
    return {
      store,
      writes: sent.length,
      distinctSetlists: distinct.size,
      delivered: matched.length,
      missing: [...last.values()].length - matched.length,
      writeMs: stats(write),
      deliveryFromRequestMs: stats(fromRequest),
      deliveryAfterAnswerMs: stats(fromAnswer),
    };
  } finally {
    await service.stop();
    receiver.close();
  }
}

async function main() {
  const { values } = parseArgs({ options: { writes: { type: 'string' }, gap: { type: 'string' }, out: { type: 'string' } } });
  const writes = Number(values.writes ?? 200);
  const gapMs = Number(values.gap ?? 100);
  const out = values.out ?? path.join(__dirname, 'webhooks-results.json');
  const loadBefore = os.loadavg().map(round);
  const results = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
  let neo4j: BenchNeo4j | undefined;
  let failed = false;
  try {
    for (const store of benchStores()) {
      let env: Record<string, string> = { SQLITE_PATH: path.join(dir, 'songs.db') };
      if (store === 'neo4j') {
        neo4j = await benchNeo4j();
        env = { STORE: 'neo4j', NEO4J_URI: neo4j.uri, NEO4J_USER: neo4j.user, NEO4J_PASSWORD: neo4j.password, ...(neo4j.database ? { NEO4J_DATABASE: neo4j.database } : {}) };
      }
      const r = await measure(store, env, writes, gapMs);
      results.push(r);
      const ok = r.missing === 0 && r.deliveryFromRequestMs.median < 1000;
      failed ||= !ok;
      console.log(
        `${store}: ${r.writes} writes, ${r.delivered} delivered (${r.missing} missing); write median ${r.writeMs.median} ms (p95 ${r.writeMs.p95}); ` +
          `delivery from the write's request median ${r.deliveryFromRequestMs.median} ms (p95 ${r.deliveryFromRequestMs.p95}, max ${r.deliveryFromRequestMs.max}), ` +
          `after its answer median ${r.deliveryAfterAnswerMs.median} ms: ${ok ? 'target met (median < 1000 ms, none missing)' : 'TARGET MISSED'}`,
      );
    }
  } finally {
    await neo4j?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const run = { date: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version, loadAvgBefore: loadBefore, loadAvgAfter: os.loadavg().map(round) }, settings: { writes, gapMs }, results };
  fs.writeFileSync(out, `${JSON.stringify(run, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
  process.exitCode = failed ? 1 : 0;
}

void main();
