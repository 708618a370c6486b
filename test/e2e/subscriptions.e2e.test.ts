/**
 * GraphQL subscriptions over WebSocket at /graphql (docs/API.md, Subscriptions), driven by real
 * clients: graphql-ws's own client and Apollo Client's GraphQLWsLink. Writes are made over REST;
 * what a subscriber receives is the record as the write left it. Also: only subscriptions over
 * WebSocket, the same limits, a bound per client, and the request budget.
 */
import { ApolloClient, gql, InMemoryCache } from '@apollo/client/core';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server';

let s: TestServer;
let admin: string;
const clients: Client[] = [];
beforeAll(async () => {
  s = await startTestServer();
  admin = await s.adminToken();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await s.close();
});

function wsClient(server: TestServer, token?: string, lazy = true): Client {
  const client = createClient({
    lazy,
    url: `${server.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : undefined,
    retryAttempts: 0,
  });
  clients.push(client);
  return client;
}

/** The first `n` results of a subscription, or what went wrong. */
function take<T>(client: Client, query: string, variables: Record<string, unknown> | undefined, n: number) {
  const got: T[] = [];
  let started!: () => void;
  const ready = new Promise<void>((resolve) => (started = resolve));
  const done = new Promise<T[]>((resolve, reject) => {
    const stop = client.subscribe<T>(
      { query, variables },
      {
        next: (r) => {
          if (r.errors) return reject(new Error(JSON.stringify(r.errors)));
          got.push(r.data as T);
          if (got.length === n) {
            stop();
            resolve(got);
          }
        },
        error: (e) => reject(e instanceof Error ? e : new Error(JSON.stringify(e))),
        complete: () => resolve(got),
      },
    );
    // The subscription is live once the server acknowledged the connection; give it its first read.
    client.on('connected', () => setTimeout(started, 300));
  });
  return { ready, done };
}

const createSong = async (name: string) => (await s.api('POST', '/songs', { token: admin, body: { name, artists: ['Ws Artist'] } })).body;

describe('graphql-ws client', () => {
  it('gets a setlist edited over REST as it changes, with the songs as they are', async () => {
    const [a, b] = [await createSong('Live One'), await createSong('Live Two')];
    const service = (await s.api('POST', '/services', { token: admin, body: { date: '2026-05-03T10:00:00Z', serviceType: 'SUN_AM' } })).body;
    const sub = take<{ setlistChanged: { id: number; setlist: { position: number; song: { name: string } }[] } }>(
      wsClient(s, admin),
      'subscription Live($id: Int!) { setlistChanged(serviceId: $id) { id setlist { position song { name } } } }',
      { id: service.id },
      2,
    );
    await sub.ready;
    await s.api('PUT', `/services/${service.id}/songs`, { token: admin, body: { songIds: [a.id] } });
    // Another service's change is not this subscription's.
    const other = (await s.api('POST', '/services', { token: admin, body: { date: '2026-05-10T10:00:00Z', serviceType: 'SUN_AM' } })).body;
    await s.api('PUT', `/services/${other.id}/songs`, { token: admin, body: { songIds: [b.id] } });
    await s.api('PUT', `/services/${service.id}/songs/${b.id}`, { token: admin, body: { position: 1 } });
    expect(await sub.done).toEqual([
      { setlistChanged: { id: service.id, setlist: [{ position: 1, song: { name: 'Live One' } }] } },
      { setlistChanged: { id: service.id, setlist: [{ position: 1, song: { name: 'Live Two' } }, { position: 2, song: { name: 'Live One' } }] } },
    ]);
  });

  it('gets songs and services created, changed and deleted, anonymously (public, like the reads)', async () => {
    const client = wsClient(s);
    const songs = take<{ songChanged: { id: number; name: string } }>(client, 'subscription { songChanged { id name } }', undefined, 3);
    const services = take<{ serviceChanged: { id: number; serviceType: string } }>(client, 'subscription { serviceChanged { id serviceType } }', undefined, 2);
    await Promise.all([songs.ready, services.ready]);
    const song = await createSong('Watched');
    await s.api('PUT', `/songs/${song.id}`, { token: admin, body: { name: 'Watched Again' } });
    await s.api('DELETE', `/songs/${song.id}`, { token: admin });
    const service = (await s.api('POST', '/services', { token: admin, body: { date: '2026-06-07T10:00:00Z', serviceType: 'SUN_PM' } })).body;
    await s.api('PUT', `/services/${service.id}`, { token: admin, body: { serviceType: 'WED' } });
    expect(await songs.done).toEqual([
      { songChanged: { id: song.id, name: 'Watched' } },
      { songChanged: { id: song.id, name: 'Watched Again' } },
      { songChanged: { id: song.id, name: 'Watched Again' } },
    ]);
    expect(await services.done).toEqual([
      { serviceChanged: { id: service.id, serviceType: 'SUN_PM' } },
      { serviceChanged: { id: service.id, serviceType: 'WED' } },
    ]);
  });

  it('serves only subscriptions, within the same limits, and refuses a bad argument in the contract\'s shape', async () => {
    const client = wsClient(s);
    const errorsOf = (query: string) =>
      new Promise<unknown>((resolve) => {
        client.subscribe({ query }, { next: (r) => resolve(r.errors), error: (e) => resolve(e), complete: () => resolve('completed') });
      });
    expect(await errorsOf('{ songs { id } }')).toEqual([
      expect.objectContaining({ message: 'Only subscriptions are served over WebSocket: send queries and mutations over HTTP', extensions: { code: 'BAD_REQUEST' } }),
    ]);
    expect(await errorsOf('subscription { nothing }')).toEqual([expect.objectContaining({ extensions: { code: 'BAD_REQUEST' } })]);
    const deep = `subscription { songChanged { services { songs { services { songs { services { songs { services { songs { services { songs { id } } } } } } } } } } } }`;
    expect(await errorsOf(deep)).toEqual([expect.objectContaining({ message: expect.stringMatching(/depth limit/i) })]);
    expect(await errorsOf('subscription { setlistChanged(serviceId: -1) { id } }')).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) }),
    ]);
  });
});

describe('Apollo Client', () => {
  it('gets a song change through GraphQLWsLink', async () => {
    const client = wsClient(s, admin);
    const apollo = new ApolloClient({ link: new GraphQLWsLink(client), cache: new InMemoryCache() });
    const got = new Promise<unknown>((resolve, reject) => {
      const sub = apollo.subscribe({ query: gql`subscription { songChanged { id name artists } }` }).subscribe({
        next: (r) => {
          sub.unsubscribe();
          resolve(r.data);
        },
        error: reject,
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const song = await createSong('Via Apollo');
    expect(await got).toEqual({ songChanged: { __typename: 'Song', id: song.id, name: 'Via Apollo', artists: ['Ws Artist'] } });
    apollo.stop();
  });
});

describe('bounds', () => {
  it('holds at most 20 subscriptions per client at once', async () => {
    const client = wsClient(s, admin);
    const stops: (() => void)[] = [];
    for (let i = 0; i < 20; i++) stops.push(client.subscribe({ query: 'subscription { songChanged { id } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined }));
    const refused = await new Promise<unknown>((resolve) => {
      client.subscribe({ query: 'subscription { songChanged { id } }' }, { next: (r) => resolve(r.errors), error: resolve, complete: () => resolve('completed') });
    });
    expect(refused).toEqual([expect.objectContaining({ message: 'At most 20 subscriptions at once per client: complete one first', extensions: { code: 'RATE_LIMITED' } })]);
    // One completed: room for another.
    stops[0]();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await new Promise<unknown>((resolve) => {
      const stop = client.subscribe({ query: 'subscription { songChanged { id } }' }, { next: () => resolve('event'), error: resolve, complete: () => resolve('completed') });
      setTimeout(() => {
        stop();
        resolve('held');
      }, 500);
    });
    expect(again).toBe('held');
    for (const stop of stops) stop();
  });

  it('charges each connection and subscription to the request budget', async () => {
    const tight = await startTestServer({ RATE_LIMIT_POINTS: '3', RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_ANALYTICS_WEIGHT: '1', RATE_LIMIT_CSV_WEIGHT: '1' });
    try {
      // One connection held open throughout (a lazy client reconnects for each subscription).
      const client = wsClient(tight, undefined, false);
      const outcome = () =>
        new Promise<unknown>((resolve) => {
          const stop = client.subscribe({ query: 'subscription { songChanged { id } }' }, { next: (r) => resolve(r.errors), error: resolve, complete: () => resolve('completed') });
          setTimeout(() => {
            stop();
            resolve('held');
          }, 400);
        });
      // The connection (1) and two subscriptions (2) spend the 3 points; the next is refused.
      expect(await outcome()).toBe('held');
      expect(await outcome()).toBe('held');
      expect(await outcome()).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) }) })]);
    } finally {
      await tight.close();
    }
  });
});
