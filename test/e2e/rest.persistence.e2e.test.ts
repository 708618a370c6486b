import { expectError, expectJson, type Service, type Song } from '../helpers/rest-assert';
import { ADMIN, startTestServer, tempDbPath, type TestServer } from '../helpers/server';

/**
 * Everything written over REST survives a restart on the same SQLITE_PATH, and ids keep growing
 * across the restart (a deleted id is never issued again).
 */

/** Every read the API offers over the given records, as the server answers them now. */
async function readAll(s: TestServer, songs: Song[], services: Service[]) {
  const get = async (path: string) => {
    const res = await s.api('GET', path);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return res.body as unknown;
  };
  return {
    songs: await get('/songs'),
    services: await get('/services'),
    each: await Promise.all([...songs.map((x) => get(`/songs/${x.id}`)), ...services.map((x) => get(`/services/${x.id}`))]),
    setlists: await Promise.all(services.map((x) => get(`/songs/forService/${x.id}`))),
    performances: await Promise.all(songs.map((x) => get(`/services/withSong/${x.id}`))),
    byArtist: await get('/songs/byArtist/caf%C3%A9%20band'),
    byDate: await get('/services/byDate/between/2024-01-07/2024-01-14'),
  };
}

describe('a restart on the same SQLITE_PATH', () => {
  const dbPath = tempDbPath();
  let first: TestServer | undefined;
  let second: TestServer | undefined;
  let live: { songs: Song[]; services: Service[] };
  let before: Awaited<ReturnType<typeof readAll>>;
  let gone: { songs: Song[]; service: Service };
  let member: { id: number };

  beforeAll(async () => {
    first = await startTestServer({ SQLITE_PATH: dbPath });
    const token = await first.adminToken();
    const post = async (path: string, body: unknown) => {
      const res = await first!.api('POST', path, { token, body });
      expect(res.status).toBe(201);
      return res.body;
    };
    const songs: Song[] = [
      await post('/songs', { name: 'Amazing Grace', artists: ['John Newton', ''] }),
      await post('/songs', { name: 'Cornerstone', artists: ['Cafe\u0301 Band ', 'Hillsong Worship'] }),
      await post('/songs', { name: 'Großer Gott 🎵', artists: [] }),
      await post('/songs', { name: 'Deleted Song', artists: ['Gone'] }),
      await post('/songs', { name: 'Highest Song, Deleted', artists: [] }),
    ];
    const services: Service[] = [
      await post('/services', { date: '2024-01-14T10:00:00Z', serviceType: 'SUN_AM' }),
      await post('/services', { date: '2024-01-07T18:00:00-05:00', serviceType: 'SUN_PM' }),
      await post('/services', { date: '2024-01-10T19:30:00Z', serviceType: 'WED' }),
      await post('/services', { date: 0, serviceType: 'WED' }),
    ];
    const [grace, corner, gott, deleted, highest] = songs;
    const [sun14, sun7, wed10, highestService] = services;
    const put = async (path: string, body?: unknown) =>
      expect((await first!.api('PUT', path, { token, body })).status).toBe(200);
    await put(`/services/${sun14.id}/songs`, { songIds: [corner.id, grace.id, deleted.id] });
    await put(`/services/${sun7.id}/songs/${gott.id}`);
    await put(`/services/${sun7.id}/songs/${grace.id}`, { position: 1 });
    await put(`/services/${wed10.id}/songs/${corner.id}`);
    await put(`/songs/${gott.id}`, { artists: ['Ignaz Franz'] });
    await put(`/services/${wed10.id}`, { serviceType: 'SUN_PM' });
    for (const path of [`/songs/${deleted.id}`, `/songs/${highest.id}`, `/services/${highestService.id}`]) {
      expect((await first.api('DELETE', path, { token })).status).toBe(204);
    }
    gone = { songs: [deleted, highest], service: highestService };
    member = await first.createUser('persisted-user');

    const gott2 = { ...gott, artists: ['Ignaz Franz'] };
    const wed10b = { ...wed10, serviceType: 'SUN_PM' as const };
    live = { songs: [grace, corner, gott2], services: [sun14, sun7, wed10b] };
    before = await readAll(first, live.songs, live.services);
    // The reads are the records written, so comparing them after the restart means something.
    expect(before.songs).toEqual([grace, corner, gott2]);
    expect(before.services).toEqual([sun7, wed10b, sun14]);
    // On sun7 grace was inserted at position 1, ahead of gott.
    expect(before.setlists).toEqual([[corner, grace], [grace, gott2], [corner]]);
    expect(before.performances).toEqual([[sun7, sun14], [wed10b, sun14], [sun7]]);
    expect(before.byArtist).toEqual([corner]);
    expect(before.byDate).toEqual([sun7, wed10b, sun14]);

    await first.close();
    first = undefined;
    second = await startTestServer({ SQLITE_PATH: dbPath });
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  test('every record, setlist and query reads back identically', async () => {
    expect(await readAll(second!, live.songs, live.services)).toEqual(before);
  });

  test('deleted records stay deleted', async () => {
    for (const path of [...gone.songs.map((x) => `/songs/${x.id}`), `/services/${gone.service.id}`]) {
      expectError(await second!.api('GET', path), 404, 'NOT_FOUND');
    }
  });

  test('users and their passwords persist; the admin bootstrap does not add a second admin', async () => {
    const userToken = await second!.login('persisted-user', 'user-password-1');
    expectJson(await second!.api('GET', '/users/me', { token: userToken }), 200, {
      id: member.id,
      username: 'persisted-user',
      role: 'USER',
    });
    const users = await second!.api('GET', '/users', { token: await second!.adminToken() });
    expect(users.body.filter((u: { username: string }) => u.username === ADMIN.username)).toHaveLength(1);
  });

  test('new ids continue past every id ever issued, including deleted highest ones, across restarts', async () => {
    const token = await second!.adminToken();
    const song = await second!.api('POST', '/songs', { token, body: { name: 'After Restart' } });
    expectJson(song, 201, { id: expect.any(Number), name: 'After Restart', artists: [] });
    expect(song.body.id).toBeGreaterThan(Math.max(...gone.songs.map((x) => x.id)));
    const service = await second!.api('POST', '/services', { token, body: { date: 1, serviceType: 'WED' } });
    expectJson(service, 201, { id: expect.any(Number), date: 1, serviceType: 'WED' });
    expect(service.body.id).toBeGreaterThan(gone.service.id);

    // Delete the new highest song, restart again: the next id is still higher.
    expect((await second!.api('DELETE', `/songs/${song.body.id}`, { token })).status).toBe(204);
    await second!.close();
    second = await startTestServer({ SQLITE_PATH: dbPath });
    const again = await second.api('POST', '/songs', { token: await second.adminToken(), body: { name: 'Third Run' } });
    expectJson(again, 201, { id: expect.any(Number), name: 'Third Run', artists: [] });
    expect(again.body.id).toBeGreaterThan(song.body.id);
    expectJson(await second.api('GET', `/services/${service.body.id}`), 200, service.body);
    expectJson(await second.api('GET', '/songs'), 200, [...live.songs, again.body]);
  });
});
