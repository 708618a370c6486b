import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startServer } from '../../src/server';
import { SqliteStore } from '../../src/store/sqlite/store';
import type { Store } from '../../src/store/types';
import { JWT_SECRET, startTestServer, tempDbPath, type TestServer } from '../helpers/server';

/**
 * The GraphQL facade at /graphql (docs/API.md, §5, §6), and its agreement with REST v1: both run
 * the same resolvers over the same store, so the same records read back identically.
 */

let s: TestServer;
let admin: string;
let user: { id: number; token: string };

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.adminToken();
  user = await s.createUser('gql-user');
});
afterAll(() => s.close());

const SONG = 'id name artists';
const SERVICE = 'id date serviceType';

/** A GraphQL call that must succeed: 200, no errors; returns `data`. */
async function ok(query: string, variables?: Record<string, unknown>, token?: string): Promise<any> {
  const res = await s.gql(query, variables, token);
  if (res.body?.errors) throw new Error(`unexpected errors: ${JSON.stringify(res.body.errors)}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return res.body.data;
}

/** A GraphQL call that must fail with exactly one error; returns the reply and that error. */
async function fails(query: string, variables?: Record<string, unknown>, token?: string) {
  const res = await s.gql(query, variables, token);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body.errors).toHaveLength(1);
  return { res, error: res.body.errors[0] as { message: string; extensions: Record<string, unknown>; path?: string[] } };
}

async function restSong(name: string, artists: string[] = []) {
  const res = await s.api('POST', '/songs', { token: admin, body: { name, artists } });
  expect(res.status).toBe(201);
  return res.body as { id: number; name: string; artists: string[] };
}

async function restService(date: number | string, serviceType = 'SUN_AM') {
  const res = await s.api('POST', '/services', { token: admin, body: { date, serviceType } });
  expect(res.status).toBe(201);
  return res.body as { id: number; date: number; serviceType: string };
}

/** A query `depth` levels deep as graphql-armor counts them: songs{services{songs{... id}}}. */
function nested(depth: number, root: 'songs' | 'services' = 'songs', limit?: number): string {
  const fields: string[] = [];
  let next = root;
  for (let i = 1; i < depth; i++) {
    fields.push(next);
    next = next === 'songs' ? 'services' : 'songs';
  }
  const args = limit === undefined ? '' : `(limit: ${limit})`;
  return `{ ${fields.map((f) => `${f}${args} {`).join(' ')} id ${'}'.repeat(fields.length)} }`;
}

describe('the same records through both facades', () => {
  test('a song created by GraphQL reads back identically over REST', async () => {
    const data = await ok(
      `mutation { createSong(name: "How Great Thou Art", artists: ["Carl Boberg", ""]) { ${SONG} } }`,
      undefined,
      admin,
    );
    const created = data.createSong;
    expect(created).toEqual({ id: expect.any(Number), name: 'How Great Thou Art', artists: ['Carl Boberg', ''] });
    const rest = await s.api('GET', `/songs/${created.id}`);
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual(created);
    // Artists default to [] when left out, on both facades.
    const bare = (await ok(`mutation { createSong(name: "Bare") { ${SONG} } }`, undefined, admin)).createSong;
    expect(bare.artists).toEqual([]);
    expect((await s.api('GET', `/songs/${bare.id}`)).body).toEqual(bare);
  });

  test('a song created over REST reads back identically over GraphQL, alone and in the list', async () => {
    const created = await restSong('Amazing Grace', ['John Newton']);
    const data = await ok(`query($id: Int!) { song(id: $id) { ${SONG} } songs { ${SONG} } }`, { id: created.id });
    expect(data.song).toEqual(created);
    const restList = await s.api('GET', '/songs');
    expect(data.songs).toEqual(restList.body);
  });

  test('a service created by GraphQL reads back identically over REST, and the reverse', async () => {
    const viaGql = (
      await ok(`mutation { createService(date: "2024-03-10T10:30:00Z", serviceType: SUN_AM) { ${SERVICE} } }`, undefined, admin)
    ).createService;
    expect(viaGql).toEqual({ id: expect.any(Number), date: Date.UTC(2024, 2, 10, 10, 30), serviceType: 'SUN_AM' });
    expect((await s.api('GET', `/services/${viaGql.id}`)).body).toEqual(viaGql);

    const viaRest = await restService(Date.UTC(2024, 2, 13, 19), 'WED');
    const data = await ok(`query($id: Int!) { service(id: $id) { ${SERVICE} } services { ${SERVICE} } }`, { id: viaRest.id });
    expect(data.service).toEqual(viaRest);
    expect(data.services).toEqual((await s.api('GET', '/services')).body);
  });

  test('updates and deletes on one facade are seen by the other', async () => {
    const song = await restSong('Draft', ['Someone']);
    const updated = (
      await ok(`mutation($id: Int!) { updateSong(id: $id, name: "Final") { ${SONG} } }`, { id: song.id }, user.token)
    ).updateSong;
    // Merge: the name replaced, artists kept.
    expect(updated).toEqual({ id: song.id, name: 'Final', artists: ['Someone'] });
    expect((await s.api('GET', `/songs/${song.id}`)).body).toEqual(updated);

    const put = await s.api('PUT', `/songs/${song.id}`, { token: user.token, body: { artists: ['A', 'B'] } });
    expect(put.status).toBe(200);
    expect((await ok(`{ song(id: ${song.id}) { ${SONG} } }`)).song).toEqual({ id: song.id, name: 'Final', artists: ['A', 'B'] });

    expect((await ok(`mutation { deleteSong(id: ${song.id}) }`, undefined, user.token)).deleteSong).toBe(true);
    expect((await s.api('GET', `/songs/${song.id}`)).status).toBe(404);
    expect((await ok(`{ song(id: ${song.id}) { id } }`)).song).toBeNull();

    const service = await restService('2024-04-07T09:00:00Z');
    const moved = (
      await ok(`mutation { updateService(id: ${service.id}, serviceType: SUN_PM) { ${SERVICE} } }`, undefined, user.token)
    ).updateService;
    expect(moved).toEqual({ ...service, serviceType: 'SUN_PM' });
    expect((await s.api('GET', `/services/${service.id}`)).body).toEqual(moved);
    expect((await s.api('DELETE', `/services/${service.id}`, { token: user.token })).status).toBe(204);
    expect((await ok(`{ service(id: ${service.id}) { id } }`)).service).toBeNull();
  });

  test('users and login: GraphQL and REST agree, and a GraphQL token works on REST', async () => {
    const created = (
      await ok('mutation { createUser(username: "Both.Facades", password: "both-facades-1") { id username role } }', undefined, admin)
    ).createUser;
    expect(created).toEqual({ id: expect.any(Number), username: 'Both.Facades', role: 'USER' });
    expect((await s.api('GET', `/users/${created.id}`, { token: admin })).body).toEqual(created);

    const login = (
      await ok(
        'mutation { login(username: "Both.Facades", password: "both-facades-1") { token tokenType expiresIn user { id username role } } }',
      )
    ).login;
    expect(login).toEqual({ token: expect.any(String), tokenType: 'Bearer', expiresIn: 3600, user: created });
    const me = await s.api('GET', '/users/me', { token: login.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(created);
    expect((await ok('{ me { id username role } }', undefined, login.token)).me).toEqual(me.body);
  });
});

describe('nested queries', () => {
  test('service { songs } is the setlist in order, the same as REST forService', async () => {
    const [a, b, c, d] = [await restSong('A'), await restSong('B'), await restSong('C'), await restSong('D')];
    const service = await restService('2024-05-05T10:00:00Z');
    const link = (songId: number, body?: unknown) =>
      s.api('PUT', `/services/${service.id}/songs/${songId}`, { token: admin, body });
    expect((await link(a.id)).status).toBe(200);
    expect((await link(b.id)).status).toBe(200);
    // c is inserted at position 2: b moves down to 3.
    expect((await link(c.id, { position: 2 })).status).toBe(200);

    const rest = await s.api('GET', `/songs/forService/${service.id}`);
    const data = await ok(`{ service(id: ${service.id}) { ${SERVICE} songs { ${SONG} } } }`);
    expect(data.service).toEqual({ ...service, songs: rest.body });
    expect(data.service.songs.map((x: { id: number }) => x.id)).toEqual([a.id, c.id, b.id]);

    // setServiceSongs replaces the whole setlist in the order given, visible in the nested list.
    const set = await ok(
      `mutation { setServiceSongs(serviceId: ${service.id}, songIds: [${d.id}, ${b.id}, ${a.id}]) { id } }`,
      undefined,
      admin,
    );
    expect(set.setServiceSongs).toEqual([{ id: d.id }, { id: b.id }, { id: a.id }]);
    const after = await ok(`{ services { id songs(limit: 10) { id } } }`);
    const mine = after.services.find((x: { id: number }) => x.id === service.id);
    expect(mine.songs).toEqual([{ id: d.id }, { id: b.id }, { id: a.id }]);
  });

  test('song { services } is ordered by date, then id, the same as REST withSong', async () => {
    const song = await restSong('Often Sung');
    const late = await restService('2030-01-06T10:00:00Z');
    const early = await restService('2029-01-07T10:00:00Z');
    const sameTimeA = await restService('2029-06-03T18:00:00Z', 'SUN_PM');
    const sameTimeB = await restService('2029-06-03T18:00:00Z', 'WED');
    for (const service of [sameTimeB, late, early, sameTimeA]) {
      expect((await s.api('PUT', `/services/${service.id}/songs/${song.id}`, { token: admin })).status).toBe(200);
    }
    const data = await ok(`{ song(id: ${song.id}) { ${SONG} services { ${SERVICE} songs(limit: 10) { id } } } }`);
    expect(data.song.services.map((x: { id: number }) => x.id)).toEqual([early.id, sameTimeA.id, sameTimeB.id, late.id]);
    const rest = await s.api('GET', `/services/withSong/${song.id}`);
    expect(data.song.services.map(({ songs: _songs, ...flat }: { songs: unknown }) => flat)).toEqual(rest.body);
    for (const service of data.song.services) expect(service.songs).toEqual([{ id: song.id }]);
  });
});

describe('unknown records', () => {
  test('song, service and user are null for an unknown id', async () => {
    const data = await ok('{ song(id: 987654) { id } service(id: 987654) { id } user(id: 987654) { id } }', undefined, admin);
    expect(data).toEqual({ song: null, service: null, user: null });
  });

  test.each([
    ['updateSong', 'mutation { updateSong(id: 987654, name: "x") { id } }', 'Song 987654 does not exist'],
    ['deleteSong', 'mutation { deleteSong(id: 987654) }', 'Song 987654 does not exist'],
    ['updateService', 'mutation { updateService(id: 987654, serviceType: WED) { id } }', 'Service 987654 does not exist'],
    ['deleteService', 'mutation { deleteService(id: 987654) }', 'Service 987654 does not exist'],
    ['deleteUser', 'mutation { deleteUser(id: 987654) }', 'User 987654 does not exist'],
    ['songsForService', '{ songsForService(serviceId: 987654) { id } }', 'Service 987654 does not exist'],
    ['servicesWithSong', '{ servicesWithSong(songId: 987654) { id } }', 'Song 987654 does not exist'],
  ])('%s on an unknown id is NOT_FOUND', async (field, query, message) => {
    const { res, error } = await fails(query, undefined, admin);
    expect(res.status).toBe(200);
    expect(error).toMatchObject({ message, path: [field], extensions: { code: 'NOT_FOUND' } });
    expect(res.body.data).toBeNull();
  });

  test('linking to an unknown song or service, or unlinking what is not linked, is NOT_FOUND', async () => {
    const song = await restSong('Linkable');
    const service = await restService('2024-06-02T10:00:00Z');
    const noSong = await fails(`mutation { addSongToService(serviceId: ${service.id}, songId: 987654) { id } }`, undefined, admin);
    expect(noSong.error).toMatchObject({ message: 'Song 987654 does not exist', extensions: { code: 'NOT_FOUND' } });
    const noService = await fails(`mutation { addSongToService(serviceId: 987654, songId: ${song.id}) { id } }`, undefined, admin);
    expect(noService.error).toMatchObject({ message: 'Service 987654 does not exist', extensions: { code: 'NOT_FOUND' } });
    const notLinked = await fails(`mutation { removeSongFromService(serviceId: ${service.id}, songId: ${song.id}) }`, undefined, admin);
    expect(notLinked.error.extensions.code).toBe('NOT_FOUND');
  });
});

describe('authentication and authorization errors', () => {
  test('createSong as a USER is FORBIDDEN, and nothing is created', async () => {
    const before = (await s.api('GET', '/songs')).body;
    const { res, error } = await fails('mutation { createSong(name: "Not Yours") { id } }', undefined, user.token);
    expect(error).toMatchObject({ path: ['createSong'], extensions: { code: 'FORBIDDEN' } });
    expect(res.body.data).toBeNull();
    expect((await s.api('GET', '/songs')).body).toEqual(before);
  });

  test('createSong and updateSong anonymously are UNAUTHENTICATED', async () => {
    const song = await restSong('Guarded');
    const create = await fails('mutation { createSong(name: "Anonymous") { id } }');
    expect(create.error).toMatchObject({ path: ['createSong'], extensions: { code: 'UNAUTHENTICATED' } });
    const update = await fails(`mutation { updateSong(id: ${song.id}, name: "Changed") { id } }`);
    expect(update.error).toMatchObject({ path: ['updateSong'], extensions: { code: 'UNAUTHENTICATED' } });
    expect((await s.api('GET', `/songs/${song.id}`)).body.name).toBe('Guarded');
  });

  test('an invalid token is UNAUTHENTICATED on a guarded field and ignored on a public one', async () => {
    const me = await fails('{ me { id } }', undefined, 'not-a-jwt');
    expect(me.error.extensions.code).toBe('UNAUTHENTICATED');
    expect(await ok('{ songs { id } }', undefined, 'not-a-jwt')).toEqual({ songs: expect.any(Array) });
  });

  test('admin-only and admin-or-self fields are FORBIDDEN to another USER', async () => {
    expect((await fails('{ users { id } }', undefined, user.token)).error.extensions.code).toBe('FORBIDDEN');
    expect((await fails('{ user(id: 1) { id } }', undefined, user.token)).error.extensions.code).toBe('FORBIDDEN');
    expect((await ok(`{ user(id: ${user.id}) { id username role } }`, undefined, user.token)).user).toEqual({
      id: user.id,
      username: 'gql-user',
      role: 'USER',
    });
    const promote = await fails(`mutation { updateUser(id: ${user.id}, role: ADMIN) { id } }`, undefined, user.token);
    expect(promote.error.extensions.code).toBe('FORBIDDEN');
  });

  test('a wrong password at login is UNAUTHENTICATED', async () => {
    const { error } = await fails('mutation { login(username: "gql-user", password: "wrong-password") { token } }');
    expect(error).toMatchObject({ message: 'Invalid username or password', extensions: { code: 'UNAUTHENTICATED' } });
  });
});

describe('validation errors', () => {
  test('an empty name is VALIDATION_FAILED with details naming the field', async () => {
    const { res, error } = await fails('mutation { createSong(name: "   ") { id } }', undefined, admin);
    expect(res.status).toBe(200);
    expect(error.extensions).toEqual({ code: 'VALIDATION_FAILED', details: [{ field: 'name', message: expect.any(String) }] });
  });

  test('every bad field is named', async () => {
    const artists = Array.from({ length: 51 }, (_, i) => `Artist ${i}`);
    const { error } = await fails(
      'mutation($name: String!, $artists: [String!]) { createSong(name: $name, artists: $artists) { id } }',
      { name: 'x'.repeat(301), artists },
      admin,
    );
    expect(error.extensions.code).toBe('VALIDATION_FAILED');
    const fields = (error.extensions.details as { field: string }[]).map((d) => d.field).sort();
    expect(fields).toEqual(['artists', 'name']);
  });

  test('user fields are validated too', async () => {
    const { error } = await fails('mutation { createUser(username: "x", password: "short") { id } }', undefined, admin);
    expect(error.extensions.code).toBe('VALIDATION_FAILED');
    expect((error.extensions.details as { field: string }[]).map((d) => d.field).sort()).toEqual(['password', 'username']);
  });

  test('an explicit null for an optional field is VALIDATION_FAILED naming it', async () => {
    const song = await restSong('Nullable?');
    const { error } = await fails(`mutation { updateSong(id: ${song.id}, artists: null) { id } }`, undefined, admin);
    expect(error.extensions).toEqual({ code: 'VALIDATION_FAILED', details: [{ field: 'artists', message: 'must not be null' }] });
  });
});

describe('the Timestamp scalar', () => {
  const at = Date.UTC(2024, 0, 7, 10, 0);

  test.each([
    ['an ISO string with Z (literal)', 'mutation { createService(date: "2024-01-07T10:00:00Z", serviceType: SUN_AM) { date } }', undefined],
    ['an ISO string with an offset (literal)', 'mutation { createService(date: "2024-01-07T11:00:00+01:00", serviceType: SUN_AM) { date } }', undefined],
    ['epoch ms (literal)', `mutation { createService(date: ${at}, serviceType: SUN_AM) { date } }`, undefined],
    ['an ISO string (variable)', 'mutation($d: Timestamp!) { createService(date: $d, serviceType: SUN_AM) { date } }', { d: '2024-01-07T10:00:00.000Z' }],
    ['epoch ms (variable)', 'mutation($d: Timestamp!) { createService(date: $d, serviceType: SUN_AM) { date } }', { d: at }],
  ])('accepts %s and answers epoch ms as a JSON number', async (_label, query, variables) => {
    const res = await s.gql(query.replace('{ date }', '{ id date }'), variables, admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { createService: { id: expect.any(Number), date: at } } });
    expect(res.text).toContain(`"date":${at}`);
    // One service per date and type: the next form makes the same service again.
    expect((await s.api('DELETE', `/services/${res.body.data.createService.id}`, { token: admin })).status).toBe(204);
  });

  test.each([
    ['a date-time without a zone', { d: '2024-01-07T10:00:00' }],
    ['words', { d: 'yesterday' }],
    ['a year before 1900', { d: '1899-12-31T23:59:59Z' }],
    ['a fractional number', { d: 1.5 }],
    ['a boolean', { d: true }],
  ])('refuses %s as a 400 request error, never an INTERNAL one', async (_label, variables) => {
    const before = (await s.api('GET', '/services')).body.length;
    const { res, error } = await fails(
      'mutation($d: Timestamp!) { createService(date: $d, serviceType: SUN_AM) { id } }',
      variables,
      admin,
    );
    expect(res.status).toBe(400);
    expect(error.extensions.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/Timestamp/);
    expect((await s.api('GET', '/services')).body).toHaveLength(before);
  });

  test('refuses a bad literal the same way', async () => {
    for (const literal of ['"2024-13-45T00:00:00Z"', '"3000-01-01T00:00:00Z"', '1.5', 'true']) {
      const { res, error } = await fails(`mutation { createService(date: ${literal}, serviceType: SUN_AM) { id } }`, undefined, admin);
      expect(res.status).toBe(400);
      expect(error.extensions.code).toBe('BAD_REQUEST');
      expect(error.message).toMatch(/Timestamp/);
    }
  });
});

describe('query limits', () => {
  test('a query 11 levels deep is refused before it runs, naming the limit', async () => {
    const { res, error } = await fails(nested(11));
    expect(res.status).toBe(400);
    expect(error.message).toMatch(/depth limit of 10 exceeded, found 11/);
    expect(error.extensions.code).toBe('BAD_REQUEST');
    expect(res.body).not.toHaveProperty('data');
    // Far deeper: still the depth limit (the cost is counted only for documents that are valid).
    const deeper = await s.gql(nested(30, 'services'));
    expect(deeper.status).toBe(400);
    expect(deeper.body.errors.map((e: { message: string }) => e.message)).toContainEqual(
      expect.stringMatching(/depth limit of 10 exceeded, found 30/),
    );
  });

  test('an over-deep mutation is refused without running: nothing is written', async () => {
    const before = (await s.api('GET', '/songs')).body;
    let selection = 'id';
    for (let i = 0; i < 10; i++) selection = `${i % 2 ? 'services' : 'songs'} { ${selection} }`;
    const { res, error } = await fails(`mutation { createSong(name: "Too Deep") { ${selection} } }`, undefined, admin);
    expect(res.status).toBe(400);
    expect(error.message).toMatch(/depth limit of 10 exceeded, found 12/);
    expect((await s.api('GET', '/songs')).body).toEqual(before);
  });

  test('a query at the depth limit runs', async () => {
    const song = await restSong('Deep Enough');
    const service = await restService('2024-07-07T10:00:00Z');
    await s.api('PUT', `/services/${service.id}/songs/${song.id}`, { token: admin });
    // Two items a level keep it under the cost limit (nine nested lists of 1000 are far over);
    // the newest song first, which is the one linked here.
    const data = await ok(nested(10, 'songs', 2).replace('songs(limit: 2)', 'songs(sort: ID_DESC, limit: 2)'));
    expect(Array.isArray(data.songs)).toBe(true);
    const withSong = data.songs.find((x: { id?: number; services: unknown[] }) => x.services.length > 0);
    expect(withSong).toBeDefined();
  });

  test('a hugely costly query is refused, naming the limit', async () => {
    const leaves = 'id name artists '.repeat(300);
    const query = `{ songs { services { songs { services { songs { services { songs { ${leaves} } } } } } } } }`;
    const { res, error } = await fails(query);
    expect(res.status).toBe(400);
    expect(error.message).toMatch(/Cost limit of 50000 exceeded/);
    expect(error.extensions.code).toBe('BAD_REQUEST');
    expect(res.body).not.toHaveProperty('data');
  });

  test('more than 15 aliases are refused; 15 are fine', async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: songs(limit: 1) { id }`).join(' ')} }`;
    const { res, error } = await fails(aliases(16));
    expect(res.status).toBe(400);
    expect(error.message).toMatch(/Aliases limit of 15 exceeded, found 16/);
    expect(error.extensions.code).toBe('BAD_REQUEST');
    expect(Object.keys(await ok(aliases(15)))).toHaveLength(15);
  });

  test('GRAPHQL_MAX_DEPTH sets the limit', async () => {
    const shallow = await startTestServer({ GRAPHQL_MAX_DEPTH: '3' });
    try {
      const fine = await shallow.gql('{ services(limit: 5) { songs(limit: 5) { id } } }');
      expect(fine.status).toBe(200);
      expect(fine.body).toEqual({ data: { services: [] } });
      const deep = await shallow.gql('{ services(limit: 5) { songs(limit: 5) { services(limit: 5) { id } } } }');
      expect(deep.status).toBe(400);
      expect(deep.body.errors).toHaveLength(1);
      expect(deep.body.errors[0].message).toMatch(/depth limit of 3 exceeded, found 4/);
      expect(deep.body).not.toHaveProperty('data');
    } finally {
      await shallow.close();
    }
  });
});

describe('transport', () => {
  test('GET /graphql?query= runs a query', async () => {
    const res = await s.raw('GET', '/graphql?query={songs{id}}');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const ids = ((await s.api('GET', '/songs')).body as { id: number }[]).map((x) => ({ id: x.id }));
    expect(res.body).toEqual({ data: { songs: ids } });
  });

  test('GET /graphql does not run a mutation', async () => {
    const before = (await s.api('GET', '/songs')).body;
    const res = await s.raw('GET', `/graphql?query=${encodeURIComponent('mutation { createSong(name: "Via GET") { id } }')}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.status).toBe(405);
    expect(res.body.errors).toHaveLength(1);
    expect((await s.api('GET', '/songs')).body).toEqual(before);
  });

  test('a browser GET shows Apollo Sandbox outside production', async () => {
    const res = await s.raw('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/^\s*<!DOCTYPE html>/i);
    expect(res.text).toContain('embeddable-sandbox');
  });

  test('in production a browser GET gets no Sandbox page: it is sent to GraphiQL', async () => {
    const prod = await startTestServer({ NODE_ENV: 'production' });
    try {
      const res = await fetch(`${prod.url}/graphql`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/graphiql');
      expect(await res.text()).not.toContain('embeddable-sandbox');
    } finally {
      await prod.close();
    }
  });
});

describe('an internal failure', () => {
  const SECRET_DETAIL = 'disk sector 0x7f3a at /var/lib/secret/songs.db exploded';

  test('is a bare INTERNAL error on both facades, with no internals', async () => {
    const real = new SqliteStore(tempDbPath());
    const broken: Store = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === 'listSongs' || prop === 'setlistsForServices') {
          return () => Promise.reject(new TypeError(SECRET_DETAIL));
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await real.createService({ date: Date.UTC(2024, 0, 7), serviceType: 'SUN_AM' });
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', JWT_SECRET });
    // The failure is kept from the client, not from the operator: each one is logged with its cause.
    const lines: { msg: string; err?: { message: string } }[] = [];
    const server = await startServer(config, createLogger(config.logLevel, { write: (line: string) => void lines.push(JSON.parse(line)) }), broken);
    try {
      const rest = await fetch(`${server.url}/api/v1/songs`);
      const restText = await rest.text();
      expect(rest.status).toBe(500);
      expect(rest.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(restText)).toEqual({ error: { code: 'INTERNAL', message: 'Internal server error' } });

      for (const query of ['{ songs { id } }', '{ services { id songs(limit: 10) { id } } }']) {
        const res = await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        });
        const text = await res.text();
        const body = JSON.parse(text);
        expect(body.errors).toHaveLength(1);
        expect(body.errors[0].message).toBe('Internal server error');
        expect(body.errors[0].extensions).toEqual({ code: 'INTERNAL' });
        for (const leak of [SECRET_DETAIL, 'TypeError', 'stacktrace', '/var/lib', '.ts:']) {
          expect(text).not.toContain(leak);
          expect(restText).not.toContain(leak);
        }
      }
      const logged = lines.filter((l) => l.msg === 'unexpected error');
      expect(logged.map((l) => l.err?.message)).toEqual([SECRET_DETAIL, SECRET_DETAIL, SECRET_DETAIL]);
    } finally {
      await server.close();
    }
  });
});
