/**
 * A song's rhythm over real HTTP on the run's store: `Song.rotation` on GraphQL (as of a day, with
 * thresholds overridden) and `rotation` in `GET /songs/{songId}/usage` on REST (the defaults, as
 * of now); bad thresholds are a 400 naming them.
 */
import { startTestServer, type TestServer } from '../helpers/server';

let s: TestServer;
let admin: string;
const WEEK = 7 * 86_400_000;
const AS_OF_DAY = '2031-06-01';
const END_OF_DAY = Date.UTC(2031, 5, 1, 23, 59, 59, 999);
let steady: number;
let fresh: number;
let never: number;

beforeAll(async () => {
  s = await startTestServer({ SERVICE_TIME_ZONE: 'UTC' });
  admin = await s.adminToken();
  const song = async (name: string) => (await s.api('POST', '/songs', { token: admin, body: { name } })).body.id as number;
  [steady, fresh, never] = [await song('Steady'), await song('Fresh'), await song('Never')];
  // Steady: every 3 weeks for a year and a half, the last 4 weeks before the day; Fresh: the last
  // two Sundays only. The evening service of the day itself counts (asOf is the end of that day).
  for (let w = 76; w >= 4; w -= 3) {
    const v = await s.api('POST', '/services', { token: admin, body: { date: END_OF_DAY - 12 * 3_600_000 - w * WEEK, serviceType: 'SUN_AM' } });
    await s.api('PUT', `/services/${v.body.id}/songs/${steady}`, { token: admin });
  }
  for (const w of [1, 0]) {
    const v = await s.api('POST', '/services', { token: admin, body: { date: END_OF_DAY - 3_600_000 - w * WEEK, serviceType: 'SUN_PM' } });
    await s.api('PUT', `/services/${v.body.id}/songs/${fresh}`, { token: admin });
  }
});
afterAll(() => s.close());

const ROTATION = 'rotation(asOf: $asOf) { state usualIntervalWeeks weeksSinceLastSung due timesInHorizon asOf horizonWeeks }';

test('GraphQL: Song.rotation as of a day: interval, weeks since, due and state', async () => {
  const res = await s.gql(
    `query($asOf: String) { a: song(id: ${steady}) { ${ROTATION} } b: song(id: ${fresh}) { ${ROTATION} } c: song(id: ${never}) { ${ROTATION} } }`,
    { asOf: AS_OF_DAY },
  );
  expect(res.body.errors).toBeUndefined();
  const { a, b, c } = res.body.data;
  // 16 of its 25 services lie within the 52 weeks up to the end of the day; the last, 4 weeks and 12 hours before.
  expect(a.rotation).toEqual({ state: 'STAPLE', usualIntervalWeeks: 3, weeksSinceLastSung: 4 + 12 / 168, due: true, timesInHorizon: 16, asOf: END_OF_DAY, horizonWeeks: 52 });
  expect(b.rotation).toMatchObject({ state: 'NEW', usualIntervalWeeks: 1, weeksSinceLastSung: 1 / 168, due: false, timesInHorizon: 2 });
  expect(c.rotation).toMatchObject({ state: 'NEVER_SUNG', usualIntervalWeeks: null, weeksSinceLastSung: null, due: false, timesInHorizon: 0 });
});

test('GraphQL: thresholds a query overrides; out of range is a 400 naming it', async () => {
  const q = (args: string) => s.gql(`{ song(id: ${steady}) { rotation(asOf: "${AS_OF_DAY}", ${args}) { state horizonWeeks timesInHorizon } } }`);
  expect((await q('stapleTimes: 17')).body.data.song.rotation).toEqual({ state: 'RESTING', horizonWeeks: 52, timesInHorizon: 16 });
  expect((await q('horizonWeeks: 12')).body.data.song.rotation).toEqual({ state: 'RESTING', horizonWeeks: 12, timesInHorizon: 3 });
  expect((await q('retiredAfterWeeks: 3')).body.data.song.rotation.state).toBe('RETIRED');
  const bad = await q('horizonWeeks: 0');
  expect(bad.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' }, message: 'horizonWeeks: must be between 1 and 520' });
  const badDay = await s.gql(`{ song(id: ${steady}) { rotation(asOf: "2031-13-01") { state } } }`);
  expect(badDay.body.errors[0].extensions.code).toBe('BAD_REQUEST');
});

test('REST: GET /songs/{songId}/usage carries the rotation as of now, with the defaults', async () => {
  const res = await s.api('GET', `/songs/${fresh}/usage`);
  expect(res.status).toBe(200);
  expect(res.body.rotation).toMatchObject({ horizonWeeks: 52, usualIntervalWeeks: null, due: false, timesInHorizon: 0 });
  // As of now, years before those services: never sung yet.
  expect(res.body.rotation.state).toBe('NEVER_SUNG');
  expect(Math.abs(res.body.rotation.asOf - Date.now())).toBeLessThan(60_000);
  // The report rows stay as they were.
  const report = await s.api('GET', '/reports/songUsage');
  expect(report.body[0]).not.toHaveProperty('rotation');
});
