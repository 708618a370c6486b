/**
 * The delivery worker (src/webhooks/worker.ts) on a real SQLite store and a real receiver, driven
 * one round at a time: a 3xx is a failure and is not followed; an endpoint failing for longer than
 * the threshold (0 here, three days in the service) is disabled at its next failure, which is
 * logged as a warning and counted in the metrics /metrics serves.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { Metrics } from '../../src/observability/metrics';
import { SqliteStore } from '../../src/store/sqlite/store';
import { DeliveryWorker } from '../../src/webhooks/worker';

let dir: string;
let store: SqliteStore;
let server: http.Server;
const hits: string[] = [];
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhooks-worker-'));
  store = new SqliteStore(path.join(dir, 'songs.db'));
  hits.length = 0;
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/moved') {
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
    } else if (req.url === '/elsewhere') res.end('ok');
    else {
      res.statusCode = 500;
      res.end('down');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  await store.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const url = (p: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${p}`;
const SECRET = 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3';
const targets = { allowPrivate: true, resolve: async () => [] };

test('a redirect is a failed try, not followed', async () => {
  const w = await store.createWebhook({ url: url('/moved'), events: ['song.created'], description: null, secret: SECRET }, Date.now());
  await store.createSong({ name: 'A', artists: [] });
  const metrics = new Metrics();
  const worker = new DeliveryWorker({ store, targets, log: pino({ level: 'silent' }), metrics, retryDelaysMs: [60_000] });
  expect(await worker.tick()).toBe(1);
  expect(hits).toEqual(['/moved']);
  expect((await store.deliveriesOf(w.id, 1, 0)).items[0]).toMatchObject({ status: 'PENDING', attempts: 1, lastResponseCode: 302, lastError: 'HTTP 302' });
  expect(await metrics.registry.getSingleMetricAsString('webhook_delivery_attempts_total')).toMatch(/webhook_delivery_attempts_total\{outcome="failed"\} 1/);
});

test('an endpoint failing past the threshold is disabled at its next failure: logged, counted, shown', async () => {
  const w = await store.createWebhook({ url: url('/down'), events: ['song.created'], description: null, secret: SECRET }, Date.now());
  await store.createSong({ name: 'A', artists: [] });
  const lines: { level: number; msg: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const metrics = new Metrics();
  const worker = new DeliveryWorker({ store, targets, log, metrics, retryDelaysMs: [0, 0, 0], disableAfterMs: 0 });
  // The first failure starts the failure record; the next, later, finds it older than 0 ms.
  expect(await worker.tick()).toBe(1);
  expect(await store.webhookById(w.id)).toMatchObject({ enabled: true, failingSince: expect.any(Number) });
  await new Promise((resolve) => setTimeout(resolve, 5));
  expect(await worker.tick()).toBe(1);
  expect(await store.webhookById(w.id)).toMatchObject({ enabled: false, disabledReason: 'every delivery failed for three days' });
  expect(await metrics.registry.getSingleMetricAsString('webhook_endpoints_disabled_total')).toMatch(/webhook_endpoints_disabled_total 1/);
  expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual(['webhook endpoint disabled: every delivery failed for three days']);
  // Its delivery waits: nothing more is sent.
  expect(await worker.tick()).toBe(0);
  expect(hits).toEqual(['/down', '/down']);
});
