import { startTestServer, type TestServer } from '../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

test('a song created over REST reads back identically over REST and GraphQL', async () => {
  const token = await s.adminToken();
  const created = await s.api('POST', '/songs', { token, body: { name: 'Be Thou My Vision', artists: ['Traditional'] } });
  expect(created.status).toBe(201);
  expect(created.headers.get('location')).toBe(`/api/v1/songs/${created.body.id}`);
  const rest = await s.api('GET', `/songs/${created.body.id}`);
  expect(rest.body).toEqual({ id: created.body.id, name: 'Be Thou My Vision', artists: ['Traditional'] });
  const gql = await s.gql('query($id: Int!) { song(id: $id) { id name artists } }', { id: created.body.id });
  expect(gql.body.data.song).toEqual(rest.body);
});
