/**
 * Suggestions over real HTTP on the run's store, on the demo data seeded as of a fixed day: the
 * same answer on both facades (GraphQL's `suggestSongs`, REST's `/suggestions` and
 * `/services/{serviceId}/suggestions`), what they leave out, and each bad argument a 400 or 404
 * naming it. The score's exactness is the analytics contract's (the reference on both stores).
 */
import { startDemoServer } from '../helpers/demo-server';
import type { TestServer } from '../helpers/server';

let s: TestServer;
const NEXT_SUNDAY = '2026-11-29';
const ZONE = 'America/New_York';

beforeAll(async () => {
  s = await startDemoServer({ SEED_TODAY: '2026-11-26', SERVICE_TIME_ZONE: ZONE });
}, 120_000);
afterAll(() => s.close());

const FIELDS = 'song { id name artists } score parts { name value } reasons';

async function gqlSuggest(args: string) {
  const res = await s.gql(`{ suggestSongs(${args}) { ${FIELDS} } }`);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.suggestSongs;
}

/** A service's setlist (REST v1 has no read of it: GraphQL's Service.songs). */
async function setlistOf(id: number): Promise<number[]> {
  const res = await s.gql(`{ service(id: ${id}) { songs { id } } }`);
  return res.body.data.service.songs.map((x: { id: number }) => x.id);
}

/** The services of a local week, and their songs. */
async function weekOf(from: string, to: string) {
  const res = await s.api('GET', `/services/byDate/between/${from}/${to}`);
  const songs = new Set<number>();
  for (const v of res.body) for (const id of await setlistOf(v.id)) songs.add(id);
  return { services: res.body as { id: number; serviceType: string }[], songs };
}

test('next Sunday on the demo data: ten songs with reasons, the same on both facades, none of the week nor sung too often', async () => {
  const rest = await s.api('GET', `/suggestions?date=${NEXT_SUNDAY}&serviceType=SUN_AM`);
  expect(rest.status).toBe(200);
  expect(rest.headers.get('x-total-count')).toBe('10');
  expect(rest.body).toEqual(await gqlSuggest(`date: "${NEXT_SUNDAY}", serviceType: SUN_AM`));
  for (const x of rest.body) {
    expect(Object.keys(x.song).sort()).toEqual(['artists', 'id', 'name']);
    expect(x.parts.map((p: { name: string }) => p.name)).toEqual(['fit', 'due', 'serviceType', 'new']);
    expect(x.score).toBeCloseTo(x.parts.reduce((a: number, p: { value: number }) => a + p.value, 0), 10);
    expect(x.reasons.length).toBeGreaterThan(0);
  }
  const scores = rest.body.map((x: { score: number }) => x.score);
  expect(scores).toEqual([...scores].sort((a, b) => b - a));
  // The week of 23-29 November already has its Wednesday service: its songs are left out.
  const week = await weekOf('2026-11-23', '2026-11-29');
  expect(week.services.length).toBeGreaterThan(0);
  const often = await s.api('GET', `/reports/sungOften?to=2026-11-28&serviceTypes=SUN_AM`);
  for (const x of rest.body) {
    expect(week.songs.has(x.song.id)).toBe(false);
    expect(often.body.songs.map((o: { song: { id: number } }) => o.song.id)).not.toContain(x.song.id);
  }
});

test('beside chosen songs: fit with them counts, and they are not suggested again', async () => {
  const chosen = [1, 6];
  const rest = await s.api('GET', `/suggestions?date=${NEXT_SUNDAY}&serviceType=SUN_AM&chosen=1&chosen=6&limit=20`);
  expect(rest.status).toBe(200);
  expect(rest.body).toEqual(await gqlSuggest(`date: "${NEXT_SUNDAY}", serviceType: SUN_AM, chosen: [1, 6], limit: 20`));
  expect(rest.body.map((x: { song: { id: number } }) => x.song.id)).not.toEqual(expect.arrayContaining(chosen));
  expect(rest.body.some((x: { parts: { name: string; value: number }[] }) => x.parts[0].value > 0)).toBe(true);
  expect(rest.body.flatMap((x: { reasons: string[] }) => x.reasons).join('\n')).toMatch(/sung with (Amazing Grace|How Great Thou Art) in \d+ of its \d+ services/);
});

test('for an existing service: its setlist is the choice unless one is given; both paths answer alike', async () => {
  const { services } = await weekOf('2026-11-23', '2026-11-29');
  const id = services[0].id;
  const setlist = await setlistOf(id);
  expect(setlist.length).toBeGreaterThan(0);
  const own = await s.api('GET', `/services/${id}/suggestions?limit=5`);
  expect(own.status).toBe(200);
  expect(own.body).toEqual(await gqlSuggest(`serviceId: ${id}, limit: 5`));
  expect(own.body).toEqual((await s.api('GET', `/suggestions?serviceId=${id}&limit=5`)).body);
  expect(own.body).toEqual(await gqlSuggest(`serviceId: ${id}, chosen: [${setlist.join(', ')}], limit: 5`));
  for (const x of own.body) expect(setlist).not.toContain(x.song.id);
  // Its own songs are not "the week's": with nothing chosen, they may come back.
  const empty = await s.api('GET', `/services/${id}/suggestions?chosen=${setlist[0]}&limit=50`);
  expect(empty.status).toBe(200);
  expect(empty.body.map((x: { song: { id: number } }) => x.song.id)).not.toContain(setlist[0]);
});

test('bad arguments: a 404 for no such service or chosen song, a 400 naming the argument otherwise, on both facades', async () => {
  const cases: [string, number, string][] = [
    ['/services/99999/suggestions', 404, 'Service 99999 does not exist'],
    [`/suggestions?serviceId=1&date=${NEXT_SUNDAY}`, 400, 'serviceId: give either serviceId, or date and serviceType, not both'],
    [`/suggestions?date=${NEXT_SUNDAY}`, 400, 'serviceType: is required without serviceId'],
    ['/suggestions?serviceType=SUN_AM', 400, 'date: is required without serviceId'],
    [`/suggestions?date=2026-13-01&serviceType=SUN_AM`, 400, 'date: '],
    [`/suggestions?date=${NEXT_SUNDAY}&serviceType=SUN_AM&limit=1001`, 400, 'limit: must be between 1 and 1000'],
    [`/suggestions?date=${NEXT_SUNDAY}&serviceType=SUN_AM&limit=0`, 400, 'limit: must be between 1 and 1000'],
    [`/suggestions?date=${NEXT_SUNDAY}&serviceType=SUN_AM&chosen=1&chosen=99999&chosen=99998`, 404, 'Song 99999 does not exist'],
    [`/suggestions?date=${NEXT_SUNDAY}&serviceType=SUN_AM&${Array.from({ length: 51 }, (_, i) => `chosen=${i + 1}`).join('&')}`, 400, 'chosen: at most 50 songs'],
    // What was sent counts, as the OpenAPI document's maxItems does: one id 51 times is too many.
    [`/suggestions?date=${NEXT_SUNDAY}&serviceType=SUN_AM&${'chosen=1&'.repeat(51)}limit=1`, 400, 'chosen: at most 50 songs'],
  ];
  for (const [path, status, message] of cases) {
    const res = await s.api('GET', path);
    expect([path, res.status]).toEqual([path, status]);
    expect(res.body.error.message.startsWith(message)).toBe(true);
  }
  // Every list's limit goes to 1000: all the candidates there are.
  const all = await s.api('GET', `/suggestions?date=${NEXT_SUNDAY}&serviceType=SUN_AM&limit=1000`);
  expect(all.status).toBe(200);
  expect(all.body.length).toBeGreaterThan(10);
  const typed = await s.api('GET', '/suggestions?date=2026-11-29&serviceType=SUNDAY');
  expect(typed.status).toBe(400);
  expect(typed.body.error.details[0].field).toBe('serviceType');
  const gql = await s.gql(`{ suggestSongs(serviceId: 99999) { score } }`);
  expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');
  const none = await s.gql(`{ suggestSongs { score } }`);
  expect(none.body.errors[0]).toMatchObject({ message: 'date: is required without serviceId', extensions: { code: 'BAD_REQUEST' } });
});

test('a day before any service has nothing to suggest', async () => {
  const res = await s.api('GET', '/suggestions?date=2000-01-02&serviceType=SUN_AM');
  expect(res.status).toBe(200);
  expect(res.body).toEqual([]);
});
