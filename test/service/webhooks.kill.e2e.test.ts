/**
 * Webhooks through a kill -9 (docs/operations.md, Webhooks): the real server process on a SQLite
 * file, killed while a delivery is under way and while writes are, then started again on the
 * same file. A delivery taken by the killed process goes out again once its lease runs out
 * (WEBHOOKS_LEASE_SECONDS, 2 s here), with the same webhook-id; every write that was answered has
 * its event delivered, and no event names a record that is not there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, listening, run, type Run } from '../helpers/process';
import { eventually, startReceiver, verifies, type Receiver } from '../helpers/webhook-receiver';

const ADMIN = { username: 'admin', password: 'admin-password-1' };
let dir: string;
let server: Run | undefined;
let receiver: Receiver | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhooks-kill-'));
});
afterEach(async () => {
  server?.child.kill('SIGKILL');
  await server?.exit;
  await receiver?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function start(port: number): Promise<Run> {
  const r = run({
    PORT: String(port),
    HOST: '127.0.0.1',
    SQLITE_PATH: path.join(dir, 'songs.db'),
    JWT_SECRET: 'kill-test-secret-that-is-at-least-32-characters',
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOKS_LEASE_SECONDS: '2',
    WEBHOOKS_RETRY_SCHEDULE: '0.3,0.3',
  });
  await listening(r);
  return r;
}

async function api(port: number, method: string, p: string, token?: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const login = async (port: number) => (await api(port, 'POST', '/users/login', undefined, ADMIN)).body.token as string;

async function killed(r: Run) {
  r.child.kill('SIGKILL');
  expect((await r.exit).signal).toBe('SIGKILL');
}

test('a delivery under way when the process is killed goes out again after a restart, with the same webhook-id', async () => {
  // The first request is never answered: the process is killed while it waits.
  receiver = await startReceiver(() => 200, (n) => n === 0);
  const port = await freePort();
  server = await start(port);
  const token = await login(port);
  const hook = (await api(port, 'POST', '/webhooks', token, { url: receiver.url, events: ['song.created'] })).body;
  const song = (await api(port, 'POST', '/songs', token, { name: 'Through the Kill', artists: [] })).body;
  const [first] = await receiver.waitFor(1);
  await killed(server);

  server = await start(port);
  const [, second] = await receiver.waitFor(2, 15_000);
  expect(second.id).toBe(first.id);
  expect(second.body).toBe(first.body);
  expect(JSON.parse(second.body).data.song).toEqual(song);
  expect(verifies(hook.secret, second)).toBe(true);
  // Only after the lease ran out.
  expect(second.at - first.at).toBeGreaterThanOrEqual(2000);
  const again = await login(port);
  await eventually(async () => {
    expect((await api(port, 'GET', `/webhooks/${hook.id}/deliveries`, again)).body).toMatchObject([{ eventId: first.id, status: 'DELIVERED', attempts: 1 }]);
  });
}, 60_000);

test('every write answered before a kill -9 has its event delivered after the restart, and no event names a write that did not happen', async () => {
  receiver = await startReceiver();
  const port = await freePort();
  server = await start(port);
  const token = await login(port);
  await api(port, 'POST', '/webhooks', token, { url: receiver.url, events: ['song.created'] });
  const answered: number[] = [];
  // Writers in flight when the process dies: some answered, some cut off.
  const writers = Array.from({ length: 4 }, async (_, w) => {
    for (let i = 0; ; i++) {
      try {
        const res = await api(port, 'POST', '/songs', token, { name: `Writer ${w} song ${i}`, artists: [] });
        if (res.status === 201) answered.push(res.body.id);
      } catch {
        return; // the connection died with the process
      }
    }
  });
  await eventually(async () => expect(answered.length).toBeGreaterThanOrEqual(30), 20_000);
  await killed(server);
  await Promise.all(writers);

  server = await start(port);
  const again = await login(port);
  const delivered = () => new Set(receiver!.received.map((r) => (JSON.parse(r.body) as { data: { song: { id: number } } }).data.song.id));
  await eventually(async () => {
    const got = delivered();
    expect(answered.filter((id) => !got.has(id))).toEqual([]);
  }, 20_000);
  // Each delivered event's song is there: no event of a write that was rolled back.
  for (const id of delivered()) expect((await api(port, 'GET', `/songs/${id}`, again)).status).toBe(200);
}, 90_000);
