import { BAD_IDS, expectError, expectJson, expectNoContent, type Service, type Song } from '../helpers/rest-assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { SETLIST_MAX_SONGS } from '../../src/domain/setlist';

/**
 * PERFORMED_IN links over REST (docs/API.md): the setlist routes under /services/<id>/songs,
 * GET /songs/forService, and the cascades of deleting a song or a service. One server for the
 * file; each test makes its own service and songs.
 */

let s: TestServer;
let admin: string;
let user: string;
let dateSeq = Date.UTC(2024, 0, 7, 10);

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.adminToken();
  user = (await s.createUser('setlist-user')).token;
});
afterAll(() => s.close());

async function newService(): Promise<Service> {
  dateSeq += 7 * 24 * 3600 * 1000;
  const res = await s.api('POST', '/services', { token: admin, body: { date: dateSeq, serviceType: 'SUN_AM' } });
  expect(res.status).toBe(201);
  return res.body;
}

async function newSongs(n: number, prefix = 'Song'): Promise<Song[]> {
  const songs: Song[] = [];
  for (let i = 0; i < n; i++) {
    const res = await s.api('POST', '/songs', { token: admin, body: { name: `${prefix} ${i + 1}`, artists: [`Artist ${i + 1}`] } });
    expect(res.status).toBe(201);
    songs.push(res.body);
  }
  return songs;
}

const link = (service: Service, song: Song, body?: unknown, token = admin) =>
  s.api('PUT', `/services/${service.id}/songs/${song.id}`, { token, body });
const setlistOf = (service: Service) => s.api('GET', `/songs/forService/${service.id}`);
const replace = (service: Service, songIds: unknown, token = admin) =>
  s.api('PUT', `/services/${service.id}/songs`, { token, body: { songIds } });

/** The setlist with positions, as GraphQL's Service.setlist answers it. */
async function places(service: Service): Promise<{ position: number; song: { id: number } }[]> {
  const res = await s.gql('query ($id: Int!) { service(id: $id) { setlist { position song { id } } songs { id } } }', {
    id: service.id,
  });
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  const { setlist, songs } = res.body.data.service;
  // Service.songs is the same setlist in the same order.
  expect(songs.map((x: { id: number }) => x.id)).toEqual(setlist.map((e: { song: { id: number } }) => e.song.id));
  return setlist;
}
const placesOf = (songs: Song[]) => songs.map((song, i) => ({ position: i + 1, song: { id: song.id } }));

describe('PUT /services/<serviceId>/songs/<songId>', () => {
  test('200 with the whole setlist; without a position each new link goes last', async () => {
    const service = await newService();
    const [a, b, c] = await newSongs(3);
    expectJson(await link(service, a), 200, [a]);
    expectJson(await link(service, b), 200, [a, b]);
    expectJson(await link(service, c, {}), 200, [a, b, c]);
    expectJson(await setlistOf(service), 200, [a, b, c]);
  });

  test('idempotent: linking again without a position keeps the song in its place, once', async () => {
    const service = await newService();
    const [a, b, c] = await newSongs(3);
    for (const song of [a, b, c]) await link(service, song);
    expectJson(await link(service, a), 200, [a, b, c]);
    expectJson(await link(service, b), 200, [a, b, c]);
    expectJson(await link(service, b), 200, [a, b, c]);
    expectJson(await setlistOf(service), 200, [a, b, c]);
  });

  test('idempotent with a position: the same call twice gives the same setlist', async () => {
    const service = await newService();
    const [a, b] = await newSongs(2);
    await link(service, a);
    expectJson(await link(service, b, { position: 1 }), 200, [b, a]);
    expectJson(await link(service, b, { position: 1 }), 200, [b, a]);
    expectJson(await link(service, b), 200, [b, a]);
    expect(await places(service)).toEqual(placesOf([b, a]));
  });

  test('a position inserts there and shifts the songs from there on down one', async () => {
    const service = await newService();
    const [a, b, c, d, e] = await newSongs(5);
    for (const song of [a, b, c]) await link(service, song);
    expectJson(await link(service, d, { position: 1 }), 200, [d, a, b, c]);
    expectJson(await link(service, e, { position: 3 }), 200, [d, a, e, b, c]);
    expect(await places(service)).toEqual(placesOf([d, a, e, b, c]));
  });

  test('an existing link with a new position moves there: up, down, to the end', async () => {
    const service = await newService();
    const [a, b, c, d] = await newSongs(4);
    for (const song of [a, b, c, d]) await link(service, song);
    expectJson(await link(service, c, { position: 1 }), 200, [c, a, b, d]); // up
    expectJson(await link(service, c, { position: 3 }), 200, [a, b, c, d]); // down
    expectJson(await link(service, a, { position: 4 }), 200, [b, c, d, a]); // to the end
    expect(await places(service)).toEqual(placesOf([b, c, d, a]));
  });

  test('a position past the end appends, for a new and for a linked song', async () => {
    const service = await newService();
    const [a, b, c] = await newSongs(3);
    expectJson(await link(service, a, { position: 5 }), 200, [a]);
    expectJson(await link(service, b, { position: 99 }), 200, [a, b]);
    expectJson(await link(service, c), 200, [a, b, c]);
    expectJson(await link(service, a, { position: 2147483647 }), 200, [b, c, a]);
    expect(await places(service)).toEqual(placesOf([b, c, a]));
  });

  test('an unknown song or service is 404 NOT_FOUND, and nothing changes', async () => {
    const service = await newService();
    const [a] = await newSongs(1);
    await link(service, a);
    expectError(await s.api('PUT', `/services/${service.id}/songs/2147483647`, { token: admin }), 404, 'NOT_FOUND');
    expectError(await s.api('PUT', `/services/2147483647/songs/${a.id}`, { token: admin }), 404, 'NOT_FOUND');
    expectError(await s.api('PUT', '/services/2147483647/songs/2147483647', { token: admin }), 404, 'NOT_FOUND');
    expectJson(await setlistOf(service), 200, [a]);
  });

  describe('position: an integer of at least 1, else 400 VALIDATION_FAILED and nothing changes', () => {
    test.each([
      ['0', 0],
      ['negative', -1],
      ['fractional', 1.5],
      ['a numeric string', '2'],
      ['a boolean', true],
      ['an array', [1]],
      ['null', null],
      ['past a 32-bit integer', 2 ** 31],
    ])('%s', async (_label, position) => {
      const service = await newService();
      const [a, b] = await newSongs(2);
      await link(service, a);
      expectError(await link(service, b, { position }), 400, 'VALIDATION_FAILED', ['position']);
      expectError(await link(service, a, { position }), 400, 'VALIDATION_FAILED', ['position']);
      expectJson(await setlistOf(service), 200, [a]);
    });
  });

  test('a body that is not a JSON object is 400 BAD_REQUEST', async () => {
    const service = await newService();
    const [a] = await newSongs(1);
    expectError(await link(service, a, '[1]'), 400, 'BAD_REQUEST');
    expectError(await link(service, a, '{"position":'), 400, 'BAD_REQUEST');
    expectJson(await setlistOf(service), 200, []);
  });

  test('any valid token may link; none is 401', async () => {
    const service = await newService();
    const [a, b] = await newSongs(2);
    expectJson(await link(service, a, undefined, user), 200, [a]);
    expectError(await s.api('PUT', `/services/${service.id}/songs/${b.id}`), 401, 'UNAUTHENTICATED');
    expectJson(await setlistOf(service), 200, [a]);
  });

  test.each(BAD_IDS)('path id %s is 400 BAD_REQUEST in either position on every setlist route', async (bad) => {
    const service = await newService();
    const [a] = await newSongs(1);
    for (const [method, path] of [
      ['PUT', `/services/${bad}/songs/${a.id}`],
      ['PUT', `/services/${service.id}/songs/${bad}`],
      ['DELETE', `/services/${bad}/songs/${a.id}`],
      ['DELETE', `/services/${service.id}/songs/${bad}`],
    ]) {
      expectError(await s.api(method, path, { token: admin }), 400, 'BAD_REQUEST');
    }
    expectError(await s.api('PUT', `/services/${bad}/songs`, { token: admin, body: { songIds: [a.id] } }), 400, 'BAD_REQUEST');
  });
});

describe('DELETE /services/<serviceId>/songs/<songId>', () => {
  test('204 with no body; the rest keep their order; a second unlink is 404', async () => {
    const service = await newService();
    const [a, b, c] = await newSongs(3);
    for (const song of [a, b, c]) await link(service, song);
    expectNoContent(await s.api('DELETE', `/services/${service.id}/songs/${b.id}`, { token: admin }));
    expectJson(await setlistOf(service), 200, [a, c]);
    expect(await places(service)).toEqual(placesOf([a, c])); // the gap is closed
    expectError(await s.api('DELETE', `/services/${service.id}/songs/${b.id}`, { token: admin }), 404, 'NOT_FOUND');
    // The song itself is untouched.
    expectJson(await s.api('GET', `/songs/${b.id}`), 200, b);
  });

  test('relinking after an unlink appends', async () => {
    const service = await newService();
    const [a, b, c] = await newSongs(3);
    for (const song of [a, b, c]) await link(service, song);
    await s.api('DELETE', `/services/${service.id}/songs/${a.id}`, { token: admin });
    expectJson(await link(service, a), 200, [b, c, a]);
  });

  test('a song that exists but was never linked is 404; so are an unknown song and service', async () => {
    const service = await newService();
    const [a] = await newSongs(1);
    expectError(await s.api('DELETE', `/services/${service.id}/songs/${a.id}`, { token: admin }), 404, 'NOT_FOUND');
    expectError(await s.api('DELETE', `/services/${service.id}/songs/2147483647`, { token: admin }), 404, 'NOT_FOUND');
    expectError(await s.api('DELETE', `/services/2147483647/songs/${a.id}`, { token: admin }), 404, 'NOT_FOUND');
  });

  test('any valid token may unlink; none is 401 and unlinks nothing', async () => {
    const service = await newService();
    const [a] = await newSongs(1);
    await link(service, a);
    expectError(await s.api('DELETE', `/services/${service.id}/songs/${a.id}`), 401, 'UNAUTHENTICATED');
    expectJson(await setlistOf(service), 200, [a]);
    expectNoContent(await s.api('DELETE', `/services/${service.id}/songs/${a.id}`, { token: user }));
    expectJson(await setlistOf(service), 200, []);
  });
});

describe('PUT /services/<serviceId>/songs: replace the setlist', () => {
  test('200 with the new setlist, in the order given; later appends go after it', async () => {
    const service = await newService();
    const [a, b, c, d] = await newSongs(4);
    for (const song of [a, b, c]) await link(service, song);
    expectJson(await replace(service, [c.id, d.id, a.id]), 200, [c, d, a]);
    expectJson(await setlistOf(service), 200, [c, d, a]);
    expectJson(await link(service, b), 200, [c, d, a, b]);
    expect(await places(service)).toEqual(placesOf([c, d, a, b]));
  });

  test('[] empties the setlist', async () => {
    const service = await newService();
    const [a, b] = await newSongs(2);
    await replace(service, [a.id, b.id]);
    expectJson(await replace(service, []), 200, []);
    expectJson(await setlistOf(service), 200, []);
  });

  test('replacing with the same list is idempotent', async () => {
    const service = await newService();
    const [a, b, c] = await newSongs(3);
    expectJson(await replace(service, [b.id, c.id, a.id]), 200, [b, c, a]);
    expectJson(await replace(service, [b.id, c.id, a.id]), 200, [b, c, a]);
  });

  test('a duplicate is 400 VALIDATION_FAILED on songIds, and nothing changes', async () => {
    const service = await newService();
    const [a, b] = await newSongs(2);
    await replace(service, [a.id]);
    expectError(await replace(service, [b.id, a.id, b.id]), 400, 'VALIDATION_FAILED', ['songIds']);
    expectJson(await setlistOf(service), 200, [a]);
  });

  test(`a service holds at most ${SETLIST_MAX_SONGS} songs: more, or one more linked, is 400 VALIDATION_FAILED, and nothing changes`, async () => {
    const service = await newService();
    const many = await newSongs(SETLIST_MAX_SONGS + 1, 'Full');
    const ids = many.map((x) => x.id);
    expectError(await replace(service, ids), 400, 'VALIDATION_FAILED', ['songIds']);
    expectJson(await setlistOf(service), 200, []);
    expectJson(await replace(service, ids.slice(0, SETLIST_MAX_SONGS)), 200, many.slice(0, SETLIST_MAX_SONGS));
    const refused = await link(service, many[SETLIST_MAX_SONGS]);
    expectError(refused, 400, 'VALIDATION_FAILED', ['songId']);
    expect(refused.body.error.details[0].message).toContain(`already holds ${SETLIST_MAX_SONGS} songs`);
    const gql = await s.gql('mutation ($v: Int!, $s: Int!) { addSongToService(serviceId: $v, songId: $s) { id } }', { v: service.id, s: many[SETLIST_MAX_SONGS].id }, admin);
    expect(gql.status).toBe(200);
    expect(gql.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expectJson(await setlistOf(service), 200, many.slice(0, SETLIST_MAX_SONGS));
    // A song already there still moves.
    const moved = await link(service, many[SETLIST_MAX_SONGS - 1], { position: 1 });
    expect(moved.status).toBe(200);
    expect(moved.body[0].id).toBe(ids[SETLIST_MAX_SONGS - 1]);
  });

  test('an unknown song is 404 NOT_FOUND naming it, and nothing changes', async () => {
    const service = await newService();
    const [a, b] = await newSongs(2);
    await replace(service, [a.id, b.id]);
    const res = await replace(service, [b.id, 2147483646, a.id]);
    expectError(res, 404, 'NOT_FOUND');
    expect(res.body.error.message).toContain('2147483646');
    expectJson(await setlistOf(service), 200, [a, b]);
    expect(await places(service)).toEqual(placesOf([a, b]));
  });

  test('an unknown service is 404 NOT_FOUND', async () => {
    const [a] = await newSongs(1);
    expectError(
      await s.api('PUT', '/services/2147483647/songs', { token: admin, body: { songIds: [a.id] } }),
      404,
      'NOT_FOUND',
    );
  });

  test.each([
    ['missing', {}],
    ['null', { songIds: null }],
    ['a single id, not an array', { songIds: 1 }],
    ['a string', { songIds: '1,2' }],
    ['entries not integers', { songIds: [1.5] }],
    ['entries strings', { songIds: ['1'] }],
    ['entries null', { songIds: [null] }],
    ['entries not positive', { songIds: [0] }],
  ])('songIds %s is 400 VALIDATION_FAILED, and nothing changes', async (_label, body) => {
    const service = await newService();
    const [a] = await newSongs(1);
    await link(service, a);
    expectError(await s.api('PUT', `/services/${service.id}/songs`, { token: admin, body }), 400, 'VALIDATION_FAILED', [
      'songIds',
    ]);
    expectJson(await setlistOf(service), 200, [a]);
  });

  test('any valid token may replace; none is 401 and changes nothing', async () => {
    const service = await newService();
    const [a, b] = await newSongs(2);
    expectJson(await replace(service, [b.id, a.id], user), 200, [b, a]);
    expectError(await s.api('PUT', `/services/${service.id}/songs`, { body: { songIds: [a.id] } }), 401, 'UNAUTHENTICATED');
    expectJson(await setlistOf(service), 200, [b, a]);
  });
});

describe('GET /songs/forService/<serviceId>', () => {
  test('[] for a service with no songs; 404 for an unknown or deleted service', async () => {
    const service = await newService();
    expectJson(await setlistOf(service), 200, []);
    expectError(await s.api('GET', '/songs/forService/2147483647'), 404, 'NOT_FOUND');
    await s.api('DELETE', `/services/${service.id}`, { token: admin });
    expectError(await setlistOf(service), 404, 'NOT_FOUND');
  });

  test('records in the setlist are the songs as they are now', async () => {
    const service = await newService();
    const [a] = await newSongs(1);
    await link(service, a);
    await s.api('PUT', `/songs/${a.id}`, { token: admin, body: { name: 'Renamed In Setlist' } });
    expectJson(await setlistOf(service), 200, [{ ...a, name: 'Renamed In Setlist' }]);
  });

  test('setlists of different services are independent', async () => {
    const [one, two] = [await newService(), await newService()];
    const [a, b, c] = await newSongs(3);
    await replace(one, [a.id, b.id]);
    await replace(two, [c.id, a.id]);
    await link(one, c, { position: 2 });
    expectJson(await setlistOf(one), 200, [a, c, b]);
    expectJson(await setlistOf(two), 200, [c, a]);
  });
});

describe('cascades', () => {
  test('deleting a song removes it from every setlist and its withSong list', async () => {
    const [one, two] = [await newService(), await newService()];
    const [a, b, c] = await newSongs(3);
    await replace(one, [a.id, b.id, c.id]);
    await replace(two, [b.id]);
    expectJson(await s.api('GET', `/services/withSong/${b.id}`), 200, [one, two]);
    expectNoContent(await s.api('DELETE', `/songs/${b.id}`, { token: admin }));
    expectJson(await setlistOf(one), 200, [a, c]);
    expect(await places(one)).toEqual(placesOf([a, c]));
    expectJson(await setlistOf(two), 200, []);
    expectError(await s.api('GET', `/services/withSong/${b.id}`), 404, 'NOT_FOUND');
    // The services themselves stay.
    expectJson(await s.api('GET', `/services/${one.id}`), 200, one);
    expectJson(await s.api('GET', `/services/${two.id}`), 200, two);
  });

  test('deleting a service removes its links; the songs stay and keep their other services', async () => {
    const [one, two] = [await newService(), await newService()];
    const [a, b] = await newSongs(2);
    await replace(one, [a.id, b.id]);
    await replace(two, [a.id]);
    expectNoContent(await s.api('DELETE', `/services/${one.id}`, { token: admin }));
    expectJson(await s.api('GET', `/songs/${a.id}`), 200, a);
    expectJson(await s.api('GET', `/songs/${b.id}`), 200, b);
    expectJson(await s.api('GET', `/services/withSong/${a.id}`), 200, [two]);
    expectJson(await s.api('GET', `/services/withSong/${b.id}`), 200, []);
    expectError(await setlistOf(one), 404, 'NOT_FOUND');
    expectJson(await setlistOf(two), 200, [a]);
  });
});

test('the same song is at most once per service, however it is linked', async () => {
  const service = await newService();
  const [a, b] = await newSongs(2);
  await link(service, a);
  await link(service, a);
  await link(service, a, { position: 4 });
  await link(service, b);
  await link(service, a, { position: 1 });
  expectJson(await setlistOf(service), 200, [a, b]);
  expect(await places(service)).toEqual(placesOf([a, b]));
  expectError(await replace(service, [a.id, a.id]), 400, 'VALIDATION_FAILED', ['songIds']);
  // Concurrent links of one song still leave one entry.
  const replies = await Promise.all(Array.from({ length: 10 }, () => link(service, b)));
  for (const r of replies) expect(r.status).toBe(200);
  expectJson(await setlistOf(service), 200, [a, b]);
  expectJson(await s.api('GET', `/services/withSong/${a.id}`), 200, [service]);
});
