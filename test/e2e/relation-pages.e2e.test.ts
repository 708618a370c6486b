/**
 * Relation pages end to end (docs/API.md "Search, sort and paging"): a song sung in many services
 * and a long setlist, paged per parent over real HTTP against a real server on a real SQLite
 * file. REST `GET /services/withSong/<id>` and `GET /songs/forService/<id>` with limit, offset,
 * serviceType and X-Total-Count; GraphQL `Song.services` and `Service.songs` for one parent and
 * for a batch of parents; and totals that follow the writes that move links.
 */
import type { ServiceType } from '../../src/generated/graphql';
import type { ServiceRecord, SongRecord } from '../../src/store/types';
import { startTestServer, type TestServer } from '../helpers/server';

const DAY = 86_400_000;
const START = Date.UTC(2024, 0, 7, 10);
const SERVICES = 150;

let s: TestServer;
let token: string;
let popular: SongRecord;
let quiet: SongRecord;
let filler: SongRecord[];
let services: ServiceRecord[];
let big: ServiceRecord;
/** Which services hold the popular song (the oracle of these tests, kept in step with writes). */
const holding = new Set<number>();

beforeAll(async () => {
  s = await startTestServer();
  token = await s.adminToken();
  // Seeded through the store in one transaction; every read and write below goes over HTTP.
  const songs = (
    await s.store.importCatalogue({
      songs: ['Popular', 'Quiet', ...Array.from({ length: 30 }, (_, i) => `Filler ${i}`)].map((name) => ({ name, artists: [] })),
      services: [],
    })
  ).songs;
  [popular, quiet, ...filler] = songs;
  // Later ids on earlier dates; a pair of Sunday services shares each date (the id breaks the tie:
  // one service per date and type), beside a Wednesday one; the popular song opens the first of a
  // pair and sits mid-setlist in the second.
  const made = await s.store.importCatalogue({
    songs: [],
    services: [
      ...Array.from({ length: SERVICES }, (_, k) => {
        const sundays: ServiceType[] = Math.floor(k / 3) % 4 === 3 ? ['SUN_PM', 'SUN_AM'] : ['SUN_AM', 'SUN_PM'];
        const serviceType: ServiceType = k % 3 === 2 ? 'WED' : sundays[k % 3];
        const songIds = k % 3 === 1 ? [filler[0].id, popular.id, filler[1].id] : [popular.id, filler[2].id];
        if (k % 50 === 7) songIds.push(quiet.id);
        return { service: { date: START + (SERVICES - Math.floor(k / 3)) * DAY, serviceType }, songIds };
      }),
      { service: { date: START, serviceType: 'WED' as const }, songIds: filler.map((f) => f.id) },
    ],
  });
  services = made.services.slice(0, SERVICES);
  big = made.services[SERVICES];
  for (const v of services) holding.add(v.id);
});
afterAll(() => s.close());

const ids = (list: { id: number }[]) => list.map((x) => x.id);

/** The popular song's services as the contract orders them: by date, then id. */
function expected(types?: ServiceType[]): number[] {
  return services
    .filter((v) => holding.has(v.id) && (!types || types.includes(v.serviceType)))
    .sort((a, b) => a.date - b.date || a.id - b.id)
    .map((v) => v.id);
}

async function withSong(query: string) {
  const res = await s.api('GET', `/services/withSong/${popular.id}${query}`);
  expect(res.status).toBe(200);
  return { ids: ids(res.body), total: Number(res.headers.get('x-total-count')) };
}

async function gql(query: string) {
  const res = await s.gql(query);
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

test('GET /services/withSong pages a popular song by date then id, with X-Total-Count of the whole list', async () => {
  const all = expected();
  expect(all).toHaveLength(SERVICES);
  expect(await withSong('?limit=20')).toEqual({ ids: all.slice(0, 20), total: SERVICES });
  expect(await withSong('?limit=20&offset=140')).toEqual({ ids: all.slice(140), total: SERVICES });
  // The first date holds a pair of one type: a page that ends inside it must take the lower id.
  expect(await withSong('?limit=1')).toEqual({ ids: all.slice(0, 1), total: SERVICES });
  expect(await withSong('?limit=1&offset=1')).toEqual({ ids: all.slice(1, 2), total: SERVICES });
  expect(await withSong('?offset=149')).toEqual({ ids: all.slice(149), total: SERVICES });
  const wed = expected(['WED']);
  expect(await withSong('?serviceType=WED&limit=5&offset=3')).toEqual({ ids: wed.slice(3, 8), total: wed.length });
  const sundays = expected(['SUN_AM', 'SUN_PM']);
  expect(await withSong('?serviceType=SUN_PM&serviceType=SUN_AM&serviceType=SUN_PM&limit=30&offset=60')).toEqual({
    ids: sundays.slice(60, 90),
    total: sundays.length,
  });
});

test('a song\'s most recent services first: sort=-date on REST, sort: DATE_DESC on GraphQL', async () => {
  const newest = expected().reverse();
  expect(await withSong('?sort=-date&limit=20')).toEqual({ ids: newest.slice(0, 20), total: SERVICES });
  // The first date's pair of one type, last here: the higher id before the lower.
  expect(await withSong('?sort=-date&offset=148')).toEqual({ ids: newest.slice(148), total: SERVICES });
  expect(await withSong('?sort=date&limit=3')).toEqual({ ids: expected().slice(0, 3), total: SERVICES });
  const wed = expected(['WED']).reverse();
  expect(await withSong('?serviceType=WED&sort=-date&limit=5&offset=3')).toEqual({ ids: wed.slice(3, 8), total: wed.length });

  const one = await gql(`{ song(id: ${popular.id}) { services(limit: 20, sort: DATE_DESC) { id } } servicesWithSong(songId: ${popular.id}, sort: DATE_DESC, serviceTypes: [SUN_AM, SUN_PM], limit: 4, offset: 2) { id } }`);
  expect(ids(one.song.services)).toEqual(newest.slice(0, 20));
  expect(ids(one.servicesWithSong)).toEqual(expected(['SUN_AM', 'SUN_PM']).reverse().slice(2, 6));
  // Both orders of one song in one request: separate pages, not one cached for the other.
  const both = await gql(`{ song(id: ${popular.id}) { old: services(limit: 2) { id } recent: services(limit: 2, sort: DATE_DESC) { id } } }`);
  expect([ids(both.song.old), ids(both.song.recent)]).toEqual([expected().slice(0, 2), newest.slice(0, 2)]);
});

test('GET /songs/forService pages a long setlist in setlist order, with X-Total-Count', async () => {
  const res = await s.api('GET', `/songs/forService/${big.id}?limit=4&offset=27`);
  expect(res.status).toBe(200);
  expect(ids(res.body)).toEqual(ids(filler.slice(27)));
  expect(res.headers.get('x-total-count')).toBe('30');
});

test('GraphQL pages relations per parent, for one parent and for a batch of parents', async () => {
  const one = await gql(`{ song(id: ${popular.id}) { services(limit: 20, offset: 7, serviceTypes: [SUN_AM, WED]) { id } } }`);
  expect(ids(one.song.services)).toEqual(expected(['SUN_AM', 'WED']).slice(7, 27));

  // One batch: the popular song, the quiet one and fillers side by side, each cut separately.
  const batch = await gql(`{ songs(limit: 5) { id services(limit: 3, offset: 1) { id } } }`);
  const quietServices = services.filter((_, k) => k % 50 === 7).sort((a, b) => a.date - b.date || a.id - b.id);
  expect(batch.songs.slice(0, 2)).toEqual([
    { id: popular.id, services: expected().slice(1, 4).map((id) => ({ id })) },
    { id: quiet.id, services: ids(quietServices.slice(1, 4)).map((id) => ({ id })) },
  ]);

  const setlists = await gql(`{ services(limit: 3, sort: DATE_ASC) { id songs(limit: 2, offset: 1) { id } } }`);
  expect(setlists.services[0]).toEqual({ id: big.id, songs: ids(filler.slice(1, 3)).map((id) => ({ id })) });
  const pair = services.find((v) => v.id === setlists.services[1].id)!;
  const k = services.indexOf(pair);
  expect(ids(setlists.services[1].songs)).toEqual(k % 3 === 1 ? [popular.id, filler[1].id] : [filler[2].id]);
});

test('X-Total-Count and pages follow unlinking, a change of service type and a deleted service', async () => {
  const [first, second, third] = expected();
  expect((await s.api('DELETE', `/services/${first}/songs/${popular.id}`, { token })).status).toBe(204);
  holding.delete(first);
  // The third is the Wednesday service of that date: deleted first, it leaves its date and type free.
  expect(services.find((v) => v.id === third)!.serviceType).toBe('WED');
  expect((await s.api('DELETE', `/services/${third}`, { token })).status).toBe(204);
  holding.delete(third);
  const retyped = services.find((v) => v.id === second)!;
  const put = await s.api('PUT', `/services/${second}`, { token, body: { serviceType: 'WED' } });
  expect(put.status).toBe(200);
  retyped.serviceType = 'WED';

  expect(await withSong('?limit=3')).toEqual({ ids: expected().slice(0, 3), total: SERVICES - 2 });
  const wed = expected(['WED']);
  expect(await withSong('?serviceType=WED&limit=2')).toEqual({ ids: wed.slice(0, 2), total: wed.length });
  expect(wed[0]).toBe(second);
});
