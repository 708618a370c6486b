import { BAD_IDS, expectError, expectJson, expectNoContent, forgedToken, type Song } from '../helpers/rest-assert';
import { startTestServer, type TestServer } from '../helpers/server';

/** REST /api/v1/songs (docs/API.md, §3, §5). One server for the file; each test makes its own records. */

let s: TestServer;
let admin: string;
let user: string;

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.adminToken();
  user = (await s.createUser('songs-user')).token;
});
afterAll(() => s.close());

async function createSong(body: Record<string, unknown>): Promise<Song> {
  const res = await s.api('POST', '/songs', { token: admin, body });
  expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
  return res.body as Song;
}

async function allSongs(): Promise<Song[]> {
  const res = await s.api('GET', '/songs');
  expect(res.status).toBe(200);
  return res.body as Song[];
}

const long = (n: number, c = 'x') => c.repeat(n);

describe('GET /songs', () => {
  test('lists every song exactly, ordered by id, on a fresh store', async () => {
    const fresh = await startTestServer();
    try {
      const token = await fresh.adminToken();
      expectJson(await fresh.api('GET', '/songs'), 200, []);
      const made: Song[] = [];
      for (const name of ['Zion', 'Amazing Grace', 'Mighty to Save', 'Be Thou My Vision']) {
        made.push((await fresh.api('POST', '/songs', { token, body: { name, artists: [name.slice(0, 3)] } })).body);
      }
      // An update and a delete must not disturb the id order of the rest.
      await fresh.api('PUT', `/songs/${made[0].id}`, { token, body: { name: 'Zion (rev.)' } });
      await fresh.api('DELETE', `/songs/${made[2].id}`, { token });
      expectJson(await fresh.api('GET', '/songs'), 200, [
        { id: made[0].id, name: 'Zion (rev.)', artists: ['Zio'] },
        made[1],
        made[3],
      ]);
      expect(made.map((m) => m.id)).toEqual([...made.map((m) => m.id)].sort((a, b) => a - b));
    } finally {
      await fresh.close();
    }
  });

  test('is public, and a bad token on it is ignored', async () => {
    const song = await createSong({ name: 'Public Song' });
    for (const token of [undefined, 'garbage', forgedToken()]) {
      const res = await s.api('GET', '/songs', { token });
      expect(res.status).toBe(200);
      expect(res.body).toContainEqual(song);
    }
  });
});

describe('POST /songs', () => {
  test('201 with the record, a Location header, and the record reads back identically', async () => {
    const res = await s.api('POST', '/songs', {
      token: admin,
      body: { name: 'Be Thou My Vision', artists: ['Traditional', 'Mary Byrne'] },
    });
    expectJson(res, 201, { id: expect.any(Number), name: 'Be Thou My Vision', artists: ['Traditional', 'Mary Byrne'] });
    expect(Number.isInteger(res.body.id) && res.body.id > 0).toBe(true);
    expect(res.headers.get('location')).toBe(`/api/v1/songs/${res.body.id}`);
    expectJson(await s.raw('GET', res.headers.get('location')!), 200, res.body);
  });

  test('an id in the body is ignored', async () => {
    const res = await s.api('POST', '/songs', { token: admin, body: { id: 424242, name: 'Ignored Id' } });
    expectJson(res, 201, { id: expect.any(Number), name: 'Ignored Id', artists: [] });
    expect(res.body.id).not.toBe(424242);
    expectError(await s.api('GET', '/songs/424242'), 404, 'NOT_FOUND');
  });

  test('artists defaults to [] and is always present', async () => {
    const song = await createSong({ name: 'No Artists' });
    expect(song).toEqual({ id: song.id, name: 'No Artists', artists: [] });
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, song);
  });

  test('artists keep their order, duplicates and empty-string entries', async () => {
    const artists = ['B', '', 'A', 'B', ' '];
    const song = await createSong({ name: 'Order Kept', artists });
    expect(song).toEqual({ id: song.id, name: 'Order Kept', artists });
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, song);
  });

  test('the limits themselves are allowed: 300-character name, 50 artists of 200 characters', async () => {
    const name = long(300, 'n');
    const artists = Array.from({ length: 50 }, (_, i) => long(200, String.fromCharCode(97 + (i % 26))));
    const song = await createSong({ name, artists });
    expect(song).toEqual({ id: song.id, name, artists });
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, song);
  });

  test('non-ASCII text round-trips unchanged', async () => {
    const song = await createSong({ name: 'Großer Gott, wir loben Dich 🎵', artists: ['Ignaz Franz', 'Chœur de l’Église'] });
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, {
      id: song.id,
      name: 'Großer Gott, wir loben Dich 🎵',
      artists: ['Ignaz Franz', 'Chœur de l’Église'],
    });
  });

  test('50 concurrent creates get 50 distinct ids, and all 50 are listed', async () => {
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        s.api('POST', '/songs', { token: admin, body: { name: `Concurrent ${i}`, artists: [`Band ${i}`] } }),
      ),
    );
    for (const [i, r] of replies.entries()) {
      expectJson(r, 201, { id: expect.any(Number), name: `Concurrent ${i}`, artists: [`Band ${i}`] });
    }
    const ids = replies.map((r) => r.body.id as number);
    expect(new Set(ids).size).toBe(50);
    const listed = await allSongs();
    for (const r of replies) expect(listed).toContainEqual(r.body);
  });

  describe('validation: 400 VALIDATION_FAILED naming each bad field, and nothing is created', () => {
    const cases: [string, unknown, string[]][] = [
      ['name missing', {}, ['name']],
      ['name missing, artists given', { artists: ['A'] }, ['name']],
      ['name empty', { name: '' }, ['name']],
      ['name whitespace only', { name: '   ' }, ['name']],
      ['name tabs and newlines only', { name: '\t\n ' }, ['name']],
      ['name of 301 characters', { name: long(301) }, ['name']],
      ['name a number', { name: 123 }, ['name']],
      ['name a boolean', { name: true }, ['name']],
      ['name an object', { name: { text: 'x' } }, ['name']],
      ['name an array', { name: ['x'] }, ['name']],
      ['name null', { name: null }, ['name']],
      ['artists a string', { name: 'ok', artists: 'Hillsong' }, ['artists']],
      ['artists an object', { name: 'ok', artists: { 0: 'A' } }, ['artists']],
      ['artists a number', { name: 'ok', artists: 5 }, ['artists']],
      ['artists null', { name: 'ok', artists: null }, ['artists']],
      ['artists of 51 entries', { name: 'ok', artists: Array(51).fill('A') }, ['artists']],
      ['an artist of 201 characters', { name: 'ok', artists: ['A', long(201)] }, ['artists']],
      ['an artist a number', { name: 'ok', artists: ['A', 7] }, ['artists']],
      ['an artist null', { name: 'ok', artists: [null] }, ['artists']],
      ['an artist an array', { name: 'ok', artists: [['A']] }, ['artists']],
      ['both bad by value', { name: '', artists: Array(51).fill('A') }, ['name', 'artists']],
      ['both bad by type', { name: 5, artists: 'A' }, ['name', 'artists']],
      ['name bad by type, artists by value', { name: 5, artists: [long(201)] }, ['name', 'artists']],
      ['name bad by value, artists by type', { name: ' ', artists: [1] }, ['name', 'artists']],
      ['name missing, artists bad', { artists: 'A' }, ['name', 'artists']],
    ];

    test.each(cases)('%s', async (_label, body, fields) => {
      const before = await allSongs();
      expectError(await s.api('POST', '/songs', { token: admin, body }), 400, 'VALIDATION_FAILED', fields);
      expect(await allSongs()).toEqual(before);
    });

    test('a missing name is reported as required', async () => {
      const res = await s.api('POST', '/songs', { token: admin, body: {} });
      expectError(res, 400, 'VALIDATION_FAILED', ['name']);
      expect(res.body.error.details).toEqual([{ field: 'name', message: 'is required' }]);
    });

    test('no body at all is the same as an empty one', async () => {
      expectError(await s.api('POST', '/songs', { token: admin }), 400, 'VALIDATION_FAILED', ['name']);
    });
  });

  test('malformed JSON and a non-object body are 400 BAD_REQUEST', async () => {
    expectError(await s.api('POST', '/songs', { token: admin, body: '{"name": "x",' }), 400, 'BAD_REQUEST');
    expectError(await s.api('POST', '/songs', { token: admin, body: '["x"]' }), 400, 'BAD_REQUEST');
    expectError(await s.api('POST', '/songs', { token: admin, body: '"x"' }), 400, 'BAD_REQUEST');
  });

  describe('access: ADMIN only', () => {
    test('a USER token is 403 FORBIDDEN and creates nothing', async () => {
      const before = await allSongs();
      expectError(await s.api('POST', '/songs', { token: user, body: { name: 'By A User' } }), 403, 'FORBIDDEN');
      expect(await allSongs()).toEqual(before);
    });

    test('no token is 401 UNAUTHENTICATED with WWW-Authenticate: Bearer, and creates nothing', async () => {
      const before = await allSongs();
      expectError(await s.api('POST', '/songs', { body: { name: 'Anonymous' } }), 401, 'UNAUTHENTICATED');
      expect(await allSongs()).toEqual(before);
    });

    test.each([
      ['malformed', 'garbage'],
      ['signed with another secret', forgedToken()],
    ])('a %s token is 401 UNAUTHENTICATED', async (_label, token) => {
      expectError(await s.api('POST', '/songs', { token, body: { name: 'Bad Token' } }), 401, 'UNAUTHENTICATED');
    });
  });
});

describe('GET /songs/<songId>', () => {
  test('200 with exactly the song', async () => {
    const song = await createSong({ name: 'How Great Thou Art', artists: ['Carl Boberg'] });
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, {
      id: song.id,
      name: 'How Great Thou Art',
      artists: ['Carl Boberg'],
    });
  });

  test('an unknown id is 404 NOT_FOUND', async () => {
    expectError(await s.api('GET', '/songs/2147483647'), 404, 'NOT_FOUND');
  });

  test.each(BAD_IDS)('path id %s is 400 BAD_REQUEST on every /songs/<songId> route', async (id) => {
    expectError(await s.api('GET', `/songs/${id}`), 400, 'BAD_REQUEST');
    expectError(await s.api('PUT', `/songs/${id}`, { token: admin, body: { name: 'x' } }), 400, 'BAD_REQUEST');
    expectError(await s.api('DELETE', `/songs/${id}`, { token: admin }), 400, 'BAD_REQUEST');
    expectError(await s.api('GET', `/songs/forService/${id}`), 400, 'BAD_REQUEST');
  });
});

describe('PUT /songs/<songId>: merge', () => {
  test('name only: the name is replaced, artists kept', async () => {
    const song = await createSong({ name: 'Old Name', artists: ['Keep Me'] });
    const want = { id: song.id, name: 'New Name', artists: ['Keep Me'] };
    expectJson(await s.api('PUT', `/songs/${song.id}`, { token: admin, body: { name: 'New Name' } }), 200, want);
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, want);
  });

  test('artists only: artists replaced, name kept', async () => {
    const song = await createSong({ name: 'Keep Name', artists: ['Old A', 'Old B'] });
    const want = { id: song.id, name: 'Keep Name', artists: ['New'] };
    expectJson(await s.api('PUT', `/songs/${song.id}`, { token: admin, body: { artists: ['New'] } }), 200, want);
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, want);
  });

  test('artists: [] is present, so it replaces (clears) the list', async () => {
    const song = await createSong({ name: 'Clear Me', artists: ['Gone'] });
    const want = { id: song.id, name: 'Clear Me', artists: [] };
    expectJson(await s.api('PUT', `/songs/${song.id}`, { token: admin, body: { artists: [] } }), 200, want);
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, want);
  });

  test('both fields replace; an empty body changes nothing', async () => {
    const song = await createSong({ name: 'Both', artists: ['X'] });
    const want = { id: song.id, name: 'Both Changed', artists: ['Y', ''] };
    expectJson(
      await s.api('PUT', `/songs/${song.id}`, { token: admin, body: { name: 'Both Changed', artists: ['Y', ''] } }),
      200,
      want,
    );
    expectJson(await s.api('PUT', `/songs/${song.id}`, { token: admin, body: {} }), 200, want);
    expectJson(await s.api('PUT', `/songs/${song.id}`, { token: admin }), 200, want);
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, want);
  });

  test('an id in the body is ignored: the path decides which song changes', async () => {
    const a = await createSong({ name: 'Target A' });
    const b = await createSong({ name: 'Bystander B' });
    expectJson(
      await s.api('PUT', `/songs/${a.id}`, { token: admin, body: { id: b.id, name: 'Target A2' } }),
      200,
      { id: a.id, name: 'Target A2', artists: [] },
    );
    expectJson(await s.api('GET', `/songs/${b.id}`), 200, b);
  });

  test('changing artists re-indexes byArtist', async () => {
    const song = await createSong({ name: 'Reindexed', artists: ['Before Put Band'] });
    await s.api('PUT', `/songs/${song.id}`, { token: admin, body: { artists: ['After Put Band'] } });
    expectJson(await s.api('GET', '/songs/byArtist/Before%20Put%20Band'), 200, []);
    expectJson(await s.api('GET', '/songs/byArtist/after%20put%20band'), 200, [
      { id: song.id, name: 'Reindexed', artists: ['After Put Band'] },
    ]);
  });

  describe('validation: 400 VALIDATION_FAILED naming each bad field, and the song is unchanged', () => {
    const cases: [string, unknown, string[]][] = [
      ['name empty', { name: '' }, ['name']],
      ['name whitespace only', { name: '  ' }, ['name']],
      ['name of 301 characters', { name: long(301) }, ['name']],
      ['name a number', { name: 1 }, ['name']],
      ['name null', { name: null }, ['name']],
      ['artists a string', { artists: 'A' }, ['artists']],
      ['artists null', { artists: null }, ['artists']],
      ['artists of 51 entries', { artists: Array(51).fill('') }, ['artists']],
      ['an artist of 201 characters', { artists: [long(201)] }, ['artists']],
      ['an artist not a string', { artists: [false] }, ['artists']],
      ['both bad', { name: '', artists: [long(201)] }, ['name', 'artists']],
      ['both null', { name: null, artists: null }, ['name', 'artists']],
      ['one good, one bad: nothing is applied', { name: 'Would Change', artists: 'A' }, ['artists']],
    ];

    test.each(cases)('%s', async (_label, body, fields) => {
      const song = await createSong({ name: 'Untouched', artists: ['Same'] });
      expectError(await s.api('PUT', `/songs/${song.id}`, { token: admin, body }), 400, 'VALIDATION_FAILED', fields);
      expectJson(await s.api('GET', `/songs/${song.id}`), 200, song);
    });
  });

  test('an unknown song is 404 NOT_FOUND', async () => {
    expectError(await s.api('PUT', '/songs/2147483647', { token: admin, body: { name: 'x' } }), 404, 'NOT_FOUND');
  });

  test('any valid token may update; none is 401 and changes nothing', async () => {
    const song = await createSong({ name: 'Editable' });
    expectJson(await s.api('PUT', `/songs/${song.id}`, { token: user, body: { name: 'Edited By User' } }), 200, {
      id: song.id,
      name: 'Edited By User',
      artists: [],
    });
    expectError(await s.api('PUT', `/songs/${song.id}`, { body: { name: 'Anonymous' } }), 401, 'UNAUTHENTICATED');
    expectError(
      await s.api('PUT', `/songs/${song.id}`, { token: forgedToken(), body: { name: 'Forged' } }),
      401,
      'UNAUTHENTICATED',
    );
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, { id: song.id, name: 'Edited By User', artists: [] });
  });
});

describe('DELETE /songs/<songId>', () => {
  test('204 with an empty body; afterwards GET, PUT and DELETE are 404', async () => {
    const song = await createSong({ name: 'Short Lived', artists: ['Ephemeral Band'] });
    expectNoContent(await s.api('DELETE', `/songs/${song.id}`, { token: admin }));
    expectError(await s.api('GET', `/songs/${song.id}`), 404, 'NOT_FOUND');
    expectError(await s.api('PUT', `/songs/${song.id}`, { token: admin, body: { name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await s.api('DELETE', `/songs/${song.id}`, { token: admin }), 404, 'NOT_FOUND');
    expect(await allSongs()).not.toContainEqual(song);
    expectJson(await s.api('GET', '/songs/byArtist/Ephemeral%20Band'), 200, []);
  });

  test('any valid token may delete; none is 401 and deletes nothing', async () => {
    const song = await createSong({ name: 'Deletable' });
    expectError(await s.api('DELETE', `/songs/${song.id}`), 401, 'UNAUTHENTICATED');
    expectError(await s.api('DELETE', `/songs/${song.id}`, { token: 'garbage' }), 401, 'UNAUTHENTICATED');
    expectJson(await s.api('GET', `/songs/${song.id}`), 200, song);
    expectNoContent(await s.api('DELETE', `/songs/${song.id}`, { token: user }));
    expectError(await s.api('GET', `/songs/${song.id}`), 404, 'NOT_FOUND');
  });

  test('ids are never reused after a delete, not even the highest one', async () => {
    const a = await createSong({ name: 'Reuse A' });
    const b = await createSong({ name: 'Reuse B' });
    expectNoContent(await s.api('DELETE', `/songs/${b.id}`, { token: admin }));
    const c = await createSong({ name: 'Reuse C' });
    expect(c.id).toBeGreaterThan(b.id);
    expectNoContent(await s.api('DELETE', `/songs/${a.id}`, { token: admin }));
    expectNoContent(await s.api('DELETE', `/songs/${c.id}`, { token: admin }));
    const d = await createSong({ name: 'Reuse D' });
    expect(d.id).toBeGreaterThan(c.id);
    expectError(await s.api('GET', `/songs/${b.id}`), 404, 'NOT_FOUND');
  });
});

describe('GET /songs/forService/<serviceId>', () => {
  test('200 with the setlist, in setlist order', async () => {
    const service = (await s.api('POST', '/services', { token: admin, body: { date: 0, serviceType: 'SUN_AM' } })).body;
    const [a, b, c] = [await createSong({ name: 'FS A' }), await createSong({ name: 'FS B' }), await createSong({ name: 'FS C' })];
    expectJson(await s.api('GET', `/songs/forService/${service.id}`), 200, []);
    await s.api('PUT', `/services/${service.id}/songs`, { token: admin, body: { songIds: [c.id, a.id, b.id] } });
    expectJson(await s.api('GET', `/songs/forService/${service.id}`), 200, [c, a, b]);
  });

  test('an unknown service is 404 NOT_FOUND', async () => {
    expectError(await s.api('GET', '/songs/forService/2147483647'), 404, 'NOT_FOUND');
  });
});

describe('GET /songs/byArtist/<artist>', () => {
  test('trimmed, case-insensitive: Hillsong%20Worship matches a stored "hillsong worship "', async () => {
    const a = await createSong({ name: 'HW 1', artists: ['hillsong worship '] });
    const b = await createSong({ name: 'HW 2', artists: ['Other', '  HILLSONG WORSHIP'] });
    const c = await createSong({ name: 'HW 3', artists: ['Hillsong Worship'] });
    expectJson(await s.api('GET', '/songs/byArtist/Hillsong%20Worship'), 200, [a, b, c]);
    // The path segment is trimmed too.
    expectJson(await s.api('GET', '/songs/byArtist/%20%20hillSONG%20worship%20'), 200, [a, b, c]);
  });

  test('NFC: a stored decomposed "Cafe\\u0301 Band" is matched by caf%C3%A9%20band, and the other way round', async () => {
    const decomposed = await createSong({ name: 'NFC 1', artists: ['Cafe\u0301 Band'] });
    const composed = await createSong({ name: 'NFC 2', artists: ['CAF\u00c9 BAND'] });
    expect(decomposed.artists).toEqual(['Cafe\u0301 Band']); // stored as given; only matching normalises
    expectJson(await s.api('GET', '/songs/byArtist/caf%C3%A9%20band'), 200, [decomposed, composed]);
    expectJson(await s.api('GET', '/songs/byArtist/Cafe%CC%81%20Band'), 200, [decomposed, composed]);
  });

  test('equality, not containment: no partial, extended or inner-whitespace matches', async () => {
    const song = await createSong({ name: 'Exact', artists: ['Exact Match Choir'] });
    expectJson(await s.api('GET', '/songs/byArtist/Exact%20Match%20Choir'), 200, [song]);
    for (const near of ['Exact%20Match', 'Exact%20Match%20Choir%20UK', 'Exact%20%20Match%20Choir', 'ExactMatchChoir']) {
      expectJson(await s.api('GET', `/songs/byArtist/${near}`), 200, []);
    }
  });

  test('no match is 200 []', async () => {
    expectJson(await s.api('GET', '/songs/byArtist/Nobody%20Ever%20Sang%20This'), 200, []);
  });

  test('ordered by id; a song listing the artist twice appears once; deleted songs drop out', async () => {
    const first = await createSong({ name: 'Ord 1', artists: ['Order Band'] });
    const gone = await createSong({ name: 'Ord 2', artists: ['order band'] });
    const twice = await createSong({ name: 'Ord 3', artists: ['Order Band', 'ORDER BAND '] });
    const last = await createSong({ name: 'Ord 4', artists: ['x', 'Order Band'] });
    // Touching the first song later must not move it behind the others.
    const renamed = { ...first, name: 'Ord 1 (rev.)' };
    expectJson(await s.api('PUT', `/songs/${first.id}`, { token: admin, body: { name: renamed.name } }), 200, renamed);
    expectJson(await s.api('GET', '/songs/byArtist/Order%20Band'), 200, [renamed, gone, twice, last]);
    await s.api('DELETE', `/songs/${gone.id}`, { token: admin });
    expectJson(await s.api('GET', '/songs/byArtist/Order%20Band'), 200, [renamed, twice, last]);
  });

  test('reserved characters in the artist survive percent-encoding', async () => {
    const song = await createSong({ name: 'Reserved', artists: ['AC/DC', '100% Worship', 'A+B', 'Who? #1'] });
    for (const path of ['AC%2FDC', 'ac%2Fdc', '100%25%20Worship', 'A%2BB', 'A+B', 'Who%3F%20%231']) {
      expectJson(await s.api('GET', `/songs/byArtist/${path}`), 200, [song]);
    }
  });

  test('a whitespace-only segment matches empty and whitespace-only artists (both trim to "")', async () => {
    await createSong({ name: 'Blank Artist', artists: ['Someone', ''] });
    await createSong({ name: 'Space Artist', artists: ['  '] });
    const expected = (await allSongs()).filter((song) => song.artists.some((a) => a.trim() === ''));
    expect(expected.length).toBeGreaterThanOrEqual(2);
    expectJson(await s.api('GET', '/songs/byArtist/%20'), 200, expected);
  });
});
