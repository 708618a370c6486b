/**
 * Merging duplicate songs (docs/API.md, Songs): ADMIN only, on both facades, over real HTTP on the
 * run's store. The kept song takes the merged songs' places, details and artists; they are gone;
 * the reports follow; bad requests are refused before anything is written.
 */
import { startTestServer, type TestServer } from '../helpers/server';

let s: TestServer;
let admin: string;
beforeAll(async () => {
  s = await startTestServer();
  admin = await s.adminToken();
});
afterAll(() => s.close());

async function song(name: string, artists: string[], extra: Record<string, string> = {}) {
  return (await s.api('POST', '/songs', { token: admin, body: { name, artists, ...extra } })).body as { id: number; name: string };
}
async function service(day: string, serviceType: string, songIds: number[]) {
  const v = (await s.api('POST', '/services', { token: admin, body: { date: `${day}T10:00:00Z`, serviceType } })).body;
  expect((await s.api('PUT', `/services/${v.id}/songs`, { token: admin, body: { songIds } })).status).toBe(200);
  return v.id as number;
}
const setlist = async (id: number) => (await s.api('GET', `/songs/forService/${id}`)).body.map((x: { name: string }) => x.name);

test('REST: POST /songs/{keepId}/merge folds the duplicates into the kept song, and the usage follows', async () => {
  const keep = await song('Build My Life', ['Housefires']);
  const dup = await song('Build My Life (Live)', ['Pat Barrett'], { ccliNumber: '7070345' });
  const other = await song('Other', []);
  const one = await service('2030-01-06', 'SUN_AM', [dup.id, other.id]);
  const both = await service('2030-01-13', 'SUN_AM', [other.id, keep.id, dup.id]);

  const merged = await s.api('POST', `/songs/${keep.id}/merge`, { token: admin, body: { mergeIds: [dup.id] } });
  expect([merged.status, merged.body]).toEqual([200, { id: keep.id, name: 'Build My Life', artists: ['Housefires', 'Pat Barrett'] }]);
  expect((await s.api('GET', `/songs/${dup.id}`)).status).toBe(404);
  expect(await setlist(one)).toEqual(['Build My Life', 'Other']);
  expect(await setlist(both)).toEqual(['Other', 'Build My Life']);
  const usage = await s.api('GET', `/songs/${keep.id}/usage`);
  expect(usage.body).toMatchObject({ timesSung: 2, asOpener: 1 });
  const gql = await s.gql(`{ song(id: ${keep.id}) { ccliNumber services { id } } }`, {});
  expect(gql.body.data.song).toEqual({ ccliNumber: '7070345', services: [{ id: one }, { id: both }] });
});

test('GraphQL: mergeSongs answers the kept song; a USER may not merge', async () => {
  const keep = await song('Cornerstone', ['Hillsong Worship']);
  const dup = await song('Cornerstone', ['Edward Mote']);
  const user = await s.createUser('merge-user', 'USER');
  const refused = await s.gql(`mutation { mergeSongs(keepId: ${keep.id}, mergeIds: [${dup.id}]) { id } }`, {}, user.token);
  expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
  expect((await s.api('POST', `/songs/${keep.id}/merge`, { token: user.token, body: { mergeIds: [dup.id] } })).status).toBe(403);
  const done = await s.gql(`mutation { mergeSongs(keepId: ${keep.id}, mergeIds: [${dup.id}]) { id artists } }`, {}, admin);
  expect(done.body).toEqual({ data: { mergeSongs: { id: keep.id, artists: ['Hillsong Worship', 'Edward Mote'] } } });
});

test.each([
  [{ mergeIds: [] }, 'must name at least one song'],
  [{ mergeIds: [7, 7] }, 'must not list the same song twice'],
  [{ mergeIds: ['x'] }, null],
  [{}, null],
])('REST: a body of %j is 400 and writes nothing', async (body, message) => {
  const keep = await song('Kept', []);
  const answer = await s.api('POST', `/songs/${keep.id}/merge`, { token: admin, body });
  expect(answer.status).toBe(400);
  expect(answer.body.error.details.map((d: { field: string }) => d.field)).toContain('mergeIds');
  if (message) expect(answer.body.error.details.map((d: { message: string }) => d.message)).toContain(message);
});

test('REST: merging a song into itself is 400; a song that does not exist is 404, and nothing is written', async () => {
  const keep = await song('Kept too', []);
  const dup = await song('Kept too', []);
  const self = await s.api('POST', `/songs/${keep.id}/merge`, { token: admin, body: { mergeIds: [keep.id] } });
  expect([self.status, self.body.error.details]).toEqual([400, [{ field: 'mergeIds', message: 'must not include keepId (the song merged into)' }]]);
  const missing = await s.api('POST', `/songs/${keep.id}/merge`, { token: admin, body: { mergeIds: [dup.id, 99_999_999] } });
  expect([missing.status, missing.body.error.message]).toEqual([404, 'Song 99999999 does not exist']);
  expect((await s.api('GET', `/songs/${dup.id}`)).status).toBe(200);
  expect((await s.api('POST', `/songs/99999998/merge`, { token: admin, body: { mergeIds: [dup.id] } })).status).toBe(404);
});
