import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startServer, type RunningServer } from '../../src/server';
import { SqliteStore } from '../../src/store/sqlite/store';
import type { Store } from '../../src/store/types';
import { JWT_SECRET, tempDbPath } from '../helpers/server';
import { expectSlotFree } from '../../src/store/types';

/**
 * docs/API.md: nested fields are batched per request with DataLoader, so a query over N services
 * with their songs (and those songs' services) makes a constant number of store calls, not N + 1.
 * The real SQLite store is wrapped in a Proxy that counts every method call.
 */

const calls = new Map<string, number>();
const totalCalls = () => [...calls.values()].reduce((a, b) => a + b, 0);

function counting(store: Store): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(prop), (calls.get(String(prop)) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

let server: RunningServer;
let real: SqliteStore;

beforeAll(async () => {
  real = new SqliteStore(tempDbPath());
  // Whole lists of whole lists are far over the default cost limit (each counts as 1000 items);
  // what is measured here is how they are read.
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', JWT_SECRET, GRAPHQL_MAX_COST: '1000000000000', WEBHOOKS_DELIVERY: 'off' });
  server = await startServer(config, createLogger(config.logLevel), counting(real));
});
afterAll(() => server.close());

async function post(query: string): Promise<any> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body.errors).toBeUndefined();
  return body.data;
}

const SONGS_PER_SERVICE = 4;
let day = 0;

/**
 * Seed so that the store holds exactly `n` services, each with SONGS_PER_SERVICE songs; songs are
 * shared between neighbouring services so that `Song.services` has several entries to batch.
 * Seeding goes straight to the unwrapped store, so it is not counted.
 */
async function seedServices(n: number): Promise<void> {
  for (const s of (await real.listServices({}, {})).items) await real.deleteService(s.id);
  for (const s of (await real.listSongs({}, {})).items) await real.deleteSong(s.id);
  const songs = [];
  for (let i = 0; i < n + SONGS_PER_SERVICE; i++) songs.push(await real.createSong({ name: `Song ${i}`, artists: [`Artist ${i % 3}`] }));
  for (let i = 0; i < n; i++) {
    const service = expectSlotFree(await real.createService({ date: Date.UTC(2024, 0, 7) + day++ * 86_400_000, serviceType: 'SUN_AM' }));
    expect(await real.replaceSetlist(service.id, songs.slice(i, i + SONGS_PER_SERVICE).map((s) => s.id))).toBe('ok');
  }
}

const NESTED = '{ services { id songs { id name services { id } } } }';

test.each([2, 10, 50])('services { songs { services } } over %i services makes the same few store calls', async (n) => {
  await seedServices(n);
  calls.clear();
  const data = await post(NESTED);

  // The answer is complete: every service with its whole setlist, each song with its services.
  expect(data.services).toHaveLength(n);
  for (const service of data.services) {
    expect(service.songs).toHaveLength(SONGS_PER_SERVICE);
    for (const song of service.songs) expect(song.services.length).toBeGreaterThanOrEqual(1);
  }
  expect(data.services[1].songs[0].services.map((s: { id: number }) => s.id)).toEqual([
    data.services[0].id,
    data.services[1].id,
  ]);

  // One call per level: the service list, the setlists of all services, the services of all songs.
  expect(Object.fromEntries(calls)).toEqual({ listServices: 1, setlistsForServices: 1, servicesForSongs: 1 });
  expect(totalCalls()).toBeLessThanOrEqual(4);
});

test.each([5, 40])(
  'services(limit: 20) { songs(limit: 3) { services(limit: 2) } } over %i services: one store call per level, paged per parent',
  async (n) => {
    await seedServices(n);
    calls.clear();
    const data = await post('{ services(limit: 20) { id songs(limit: 3) { id services(limit: 2, serviceTypes: [SUN_AM]) { id } } } }');
    expect(data.services).toHaveLength(Math.min(n, 20));
    for (const service of data.services) {
      // Each setlist is cut to 3 of its 4 songs by the store, per service, not overall.
      expect(service.songs).toHaveLength(3);
      for (const song of service.songs) expect(song.services.length).toBeLessThanOrEqual(2);
    }
    expect(data.services[1].songs[0].services.map((s: { id: number }) => s.id)).toEqual([
      data.services[0].id,
      data.services[1].id,
    ]);
    expect(Object.fromEntries(calls)).toEqual({ listServices: 1, setlistsForServices: 1, servicesForSongs: 1 });
  },
);

test('twelve aliased song(id:) lookups in one query are one batched store call', async () => {
  await seedServices(10);
  const ids = (await real.listSongs({}, {})).items.map((s) => s.id);
  calls.clear();
  const data = await post(`{ ${ids.map((id, i) => `s${i}: song(id: ${id}) { id services { id } }`).slice(0, 12).join(' ')} }`);
  expect(Object.keys(data)).toHaveLength(12);
  expect(Object.fromEntries(calls)).toEqual({ songsByIds: 1, servicesForSongs: 1 });
});

test('service(id) { songs } reads the service and its setlist page in one store call; a fragment or an alias pair still answers the same', async () => {
  await seedServices(3);
  const [service] = (await real.listServices({}, {})).items;
  const setlist = (await real.setlistsForServices([service.id]))[0].items;
  calls.clear();
  const paged = await post(`{ service(id: ${service.id}) { id date songs(limit: 2, offset: 1) { id name } } }`);
  expect(paged.service).toEqual({ id: service.id, date: service.date, songs: setlist.slice(1, 3).map(({ id, name }) => ({ id, name })) });
  expect(Object.fromEntries(calls)).toEqual({ servicesWithSetlists: 1 });
  calls.clear();
  const whole = await post(`{ service(id: ${service.id}) { songs { id } } }`);
  expect(whole.service.songs.map((s: { id: number }) => s.id)).toEqual(setlist.map((s) => s.id));
  expect(Object.fromEntries(calls)).toEqual({ servicesWithSetlists: 1 });
  // Not asked plainly (in a fragment, twice under aliases): each read on its own, same answers.
  calls.clear();
  const fragment = await post(`{ service(id: ${service.id}) { ...S } } fragment S on Service { songs { id } }`);
  expect(fragment).toEqual(whole);
  expect(Object.fromEntries(calls)).toEqual({ servicesByIds: 1, setlistsForServices: 1 });
  calls.clear();
  const two = await post(`{ service(id: ${service.id}) { a: songs(limit: 1) { id } b: songs { id } } }`);
  expect(two.service.b).toEqual(whole.service.songs);
  expect(two.service.a).toEqual(whole.service.songs.slice(0, 1));
  // A missing service is null either way.
  calls.clear();
  expect(await post('{ service(id: 999999) { songs { id } } }')).toEqual({ service: null });
  expect(Object.fromEntries(calls)).toEqual({ servicesWithSetlists: 1 });
});

test('REST GET /api/v1/songs is one store call', async () => {
  await seedServices(10);
  calls.clear();
  const res = await fetch(`${server.url}/api/v1/songs`);
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body).toHaveLength(10 + SONGS_PER_SERVICE);
  expect(Object.fromEntries(calls)).toEqual({ listSongs: 1 });
});

test('REST GET /api/v1/songs/forService/:id is one store call per record kind', async () => {
  await seedServices(3);
  const [service] = (await real.listServices({}, {})).items;
  calls.clear();
  const res = await fetch(`${server.url}/api/v1/songs/forService/${service.id}`);
  expect(res.status).toBe(200);
  expect(await res.json()).toHaveLength(SONGS_PER_SERVICE);
  // The parent check and the setlist: no call per song.
  expect(Object.fromEntries(calls)).toEqual({ servicesByIds: 1, setlistsForServices: 1 });
});

test.each([2, 10, 50])(
  'Song.usage over %i songs in two windows is one store call per window',
  async (n) => {
    await seedServices(n);
    calls.clear();
    const data = await post(
      `{ songs { id year: usage(from: "2000-01-01", to: "2100-12-31") { timesSung } all: usage { timesSung asOpener } } }`,
    );
    expect(data.songs).toHaveLength(n + SONGS_PER_SERVICE);
    // The year window holds every seeded service, so both windows count the same real performances.
    for (const song of data.songs) expect(song.year.timesSung).toBe(song.all.timesSung);
    expect(data.songs.reduce((sum: number, s: { all: { timesSung: number } }) => sum + s.all.timesSung, 0)).toBe(n * SONGS_PER_SERVICE);
    expect(Object.fromEntries(calls)).toEqual({ listSongs: 1, usageOfSongs: 2 });
  },
);

test.each([2, 10, 50])('licensing details of the songs of %i services are one store call on Song and Song.usage, and none beside a usage report', async (n) => {
  await seedServices(n);
  const [first] = (await real.listSongs({}, { limit: 1 })).items;
  await real.updateSong(first.id, { ccliNumber: '22025', copyright: 'Public Domain' });
  calls.clear();
  const data = await post('{ services { songs { id ccliNumber copyright } } }');
  expect(data.services[0].songs[0]).toEqual({ id: first.id, ccliNumber: '22025', copyright: 'Public Domain' });
  expect(Object.fromEntries(calls)).toEqual({ listServices: 1, setlistsForServices: 1, licensingOfSongs: 1 });

  calls.clear();
  const res = await fetch(`${server.url}/api/v1/reports/songUsage?includeUnsung=true`);
  const rows = await res.json();
  expect(rows).toHaveLength(n + SONGS_PER_SERVICE);
  expect(rows.find((r: { song: { id: number } }) => r.song.id === first.id)).toMatchObject({ ccliNumber: '22025', copyright: 'Public Domain' });
  // The report's statement reads them with its rows: no second read of every row's song.
  expect(Object.fromEntries(calls)).toEqual({ songUsage: 1 });

  calls.clear();
  const usage = await post('{ songs { usage { timesSung ccliNumber copyright } } }');
  expect(usage.songs.map((s: { usage: { ccliNumber: string | null } }) => s.usage.ccliNumber).filter(Boolean)).toEqual(['22025']);
  expect(Object.fromEntries(calls)).toEqual({ listSongs: 1, usageOfSongs: 1, licensingOfSongs: 1 });
});
