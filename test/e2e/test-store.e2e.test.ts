/**
 * The end-to-end harness itself (test/helpers/server.ts, test/helpers/test-store.ts): each suite
 * runs on the store the run asks for (TEST_STORE), a server without SQLITE_PATH starts on an empty
 * store of its own, and a store comes back whole (records, logins, id sequences) when a server
 * reopens it. On SQLite these hold by construction (a file per store); with TEST_STORE=neo4j the
 * one database is switched between the stores, and these tests say the switching loses nothing.
 */
import { expectJson } from '../helpers/rest-assert';
import { ADMIN, startTestServer, tempDbPath, type TestServer } from '../helpers/server';
import { testStoreKind } from '../helpers/test-store';

/** A store with a little of everything, including a deleted song (its id must stay used). */
async function fill(s: TestServer) {
  const token = await s.adminToken();
  const post = async (path: string, body: unknown) => {
    const res = await s.api('POST', path, { token, body });
    expect(res.status).toBe(201);
    return res.body;
  };
  const a = await post('/songs', { name: 'Kept', artists: ['Café Band'] });
  const gone = await post('/songs', { name: 'Gone', artists: [] });
  const b = await post('/songs', { name: 'Also Kept', artists: ['Café Band'] });
  const service = await post('/services', { date: '2024-01-07T10:00:00Z', serviceType: 'SUN_AM' });
  expect((await s.api('PUT', `/services/${service.id}/songs`, { token, body: { songIds: [b.id, a.id] } })).status).toBe(200);
  expect((await s.api('DELETE', `/songs/${gone.id}`, { token })).status).toBe(204);
  const member = await s.createUser('member');
  return { token, member, last: b.id };
}

/** Everything a reader sees of that store. */
async function view(s: TestServer, token: string) {
  const get = async (path: string) => (await s.api('GET', path, { token })).body as unknown;
  return {
    songs: await get('/songs'),
    services: await get('/services'),
    setlist: await get('/songs/forService/1'),
    byArtist: await get('/songs/byArtist/caf%C3%A9%20band'),
    users: await get('/users'),
    usage: await get('/reports/songUsage'),
  };
}

test('the server runs on the store this run asks for', async () => {
  const s = await startTestServer();
  try {
    expect(s.store.kind).toBe(testStoreKind());
  } finally {
    await s.close();
  }
});

test('a server started while another runs gets an empty store; the first one comes back whole when it closes', async () => {
  const outer = await startTestServer();
  try {
    const { token, member, last } = await fill(outer);
    const before = await view(outer, token);

    const inner = await startTestServer();
    try {
      expectJson(await inner.api('GET', '/songs'), 200, []);
      const first = await inner.api('POST', '/songs', { token: await inner.adminToken(), body: { name: 'Elsewhere', artists: [] } });
      expect(first.body.id).toBe(1);
    } finally {
      await inner.close();
    }

    expect(await view(outer, token)).toEqual(before);
    // Tokens issued before still work, and the id sequences continue past the deleted song.
    expect((await outer.api('GET', '/users/me', { token: member.token })).body).toMatchObject({ username: 'member' });
    const next = await outer.api('POST', '/songs', { token, body: { name: 'Next', artists: [] } });
    expect(next.body.id).toBe(last + 1);
  } finally {
    await outer.close();
  }
});

test('a restart on the same SQLITE_PATH finds its store, also after other stores were used in between', async () => {
  const dbPath = tempDbPath();
  const first = await startTestServer({ SQLITE_PATH: dbPath });
  let before: Awaited<ReturnType<typeof view>>;
  let token: string;
  let last: number;
  try {
    ({ token, last } = await fill(first));
    before = await view(first, token);
  } finally {
    await first.close();
  }

  const other = await startTestServer();
  try {
    expectJson(await other.api('GET', '/songs'), 200, []);
    await fill(other);
  } finally {
    await other.close();
  }

  const again = await startTestServer({ SQLITE_PATH: dbPath });
  try {
    expect(await view(again, token)).toEqual(before);
    await again.login(ADMIN.username, ADMIN.password);
    const next = await again.api('POST', '/songs', { token, body: { name: 'Next', artists: [] } });
    expect(next.body.id).toBe(last + 1);
  } finally {
    await again.close();
  }
});
