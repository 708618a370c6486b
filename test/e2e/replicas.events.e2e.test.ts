/**
 * Change events across two replicas of the service on one store (docs/operations.md, Webhooks and
 * Running several instances): a subscriber connected to one replica sees the writes made through
 * the other, and each event goes to a webhook endpoint once, whichever replica delivers it
 * (both run a delivery worker). Alone each replica reads the outbox; with Redis (REDIS_URL) one
 * reads it and relays the events over Redis pub/sub, and another takes over when it stops.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { describeWithRedis, startRedis, type LocalRedis } from '../helpers/redis';
import { startTestServer, tempDbPath, type TestServer } from '../helpers/server';
import { eventually, startReceiver, type Receiver } from '../helpers/webhook-receiver';

const LOCAL = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', RATE_LIMIT: 'off' };
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

function songsSeenOn(server: TestServer) {
  const client = createClient({ url: `${server.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, lazy: false, retryAttempts: 0 });
  clients.push(client);
  const seen: string[] = [];
  client.subscribe<{ songChanged: { name: string } }>(
    { query: 'subscription { songChanged { name } }' },
    { next: (r) => r.data && seen.push(r.data.songChanged.name), error: () => undefined, complete: () => undefined },
  );
  return seen;
}

async function twoReplicas(env: Record<string, string>) {
  const dbPath = tempDbPath();
  const a = await startTestServer({ ...LOCAL, ...env, SQLITE_PATH: dbPath });
  const b = await startTestServer({ ...LOCAL, ...env, SQLITE_PATH: dbPath });
  return { a, b, token: await a.adminToken() };
}

async function bothWays(a: TestServer, b: TestServer, token: string, receiver: Receiver) {
  const hook = await a.api('POST', '/webhooks', { token, body: { url: receiver.url, events: ['song.created'] } });
  expect(hook.status).toBe(201);
  const onA = songsSeenOn(a);
  const onB = songsSeenOn(b);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const names = Array.from({ length: 10 }, (_, i) => `Replica song ${i}`);
  for (const [i, name] of names.entries()) {
    const via = i % 2 ? b : a;
    expect((await via.api('POST', '/songs', { token, body: { name, artists: [] } })).status).toBe(201);
  }
  await eventually(async () => {
    expect([...onA].sort()).toEqual([...names].sort());
    expect([...onB].sort()).toEqual([...names].sort());
  });
  // Each event to the endpoint once, though two workers deliver from the same queue.
  await eventually(async () => expect(receiver.received).toHaveLength(10));
  await new Promise((resolve) => setTimeout(resolve, 600));
  expect(new Set(receiver.received.map((r) => r.id)).size).toBe(10);
  expect(receiver.received).toHaveLength(10);
}

describe('two replicas, no Redis: each reads the outbox', () => {
  it('shows every write to subscribers of both, and delivers each event once', async () => {
    const receiver = await startReceiver();
    const { a, b, token } = await twoReplicas({});
    try {
      await bothWays(a, b, token, receiver);
    } finally {
      await b.close();
      await a.close();
      await receiver.close();
    }
  }, 30_000);
});

describeWithRedis('two replicas with Redis: one reads the outbox and relays over pub/sub', () => {
  let redis: LocalRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.close());

  it('shows every write to subscribers of both, delivers each event once, and the other takes over when the reader stops', async () => {
    const receiver = await startReceiver();
    const { a, b, token } = await twoReplicas({ REDIS_URL: redis.url });
    try {
      await bothWays(a, b, token, receiver);
      // Whichever read the outbox goes: the one left reads it within the lease.
      await a.close();
      const onB = songsSeenOn(b);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await b.api('POST', '/songs', { token: await b.adminToken(), body: { name: 'After the first went', artists: [] } });
      await eventually(async () => expect(onB).toEqual(['After the first went']), 10_000);
    } finally {
      await b.close();
      await a.close();
      await receiver.close();
    }
  }, 40_000);
});
