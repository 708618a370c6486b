/**
 * One service per date and type (docs/API.md): a second service with the same date and
 * serviceType is refused with 409 CONFLICT naming the first, on create and on update, on both
 * facades; nothing is written. Over real HTTP on the run's store, whose uniqueness guard makes
 * concurrent creates of one slot end with one service.
 */
import { startTestServer, type TestServer } from '../helpers/server';

let s: TestServer;
let token: string;
beforeAll(async () => {
  s = await startTestServer({ SERVICE_TIME_ZONE: 'America/Chicago' });
  token = await s.adminToken();
});
afterAll(() => s.close());

const count = async () => (await s.api('GET', '/services?limit=500')).body.length;

test('REST: a second POST of one date and type is 409 naming the first; another type at that date is not', async () => {
  const first = await s.api('POST', '/services', { token, body: { date: 1_800_000_000_000, serviceType: 'SUN_AM' } });
  expect(first.status).toBe(201);
  const before = await count();
  const again = await s.api('POST', '/services', { token, body: { date: 1_800_000_000_000, serviceType: 'SUN_AM' } });
  expect(again.status).toBe(409);
  expect(again.body).toEqual({
    error: {
      code: 'CONFLICT',
      message: `Service ${first.body.id} has the same date and serviceType`,
      details: [{ field: 'date', message: `service ${first.body.id} is a service of this type at this date` }],
    },
  });
  expect(await count()).toBe(before);
  const evening = await s.api('POST', '/services', { token, body: { date: 1_800_000_000_000, serviceType: 'SUN_PM' } });
  expect(evening.status).toBe(201);
});

test('REST: a day alone is that day at the usual time, so the same day twice is the same service', async () => {
  const first = await s.api('POST', '/services', { token, body: { date: '2031-03-02', serviceType: 'SUN_PM' } });
  expect(first.status).toBe(201);
  const again = await s.api('POST', '/services', { token, body: { date: '2031-03-02', serviceType: 'SUN_PM' } });
  expect([again.status, again.body.error.message]).toEqual([409, `Service ${first.body.id} has the same date and serviceType`]);
});

test('REST and GraphQL: moving a service onto a taken date and type is 409; staying where it is, is not', async () => {
  const a = (await s.api('POST', '/services', { token, body: { date: 1_800_100_000_000, serviceType: 'WED' } })).body;
  const b = (await s.api('POST', '/services', { token, body: { date: 1_800_200_000_000, serviceType: 'WED' } })).body;
  const put = await s.api('PUT', `/services/${b.id}`, { token, body: { date: a.date } });
  expect([put.status, put.body.error.code]).toEqual([409, 'CONFLICT']);
  const gql = await s.gql(`mutation { updateService(id: ${b.id}, date: ${a.date}) { id } }`, {}, token);
  expect(gql.body.errors.map((e: { extensions: { code: string }; message: string }) => [e.extensions.code, e.message])).toEqual([
    ['CONFLICT', `Service ${a.id} has the same date and serviceType`],
  ]);
  expect((await s.api('GET', `/services/${b.id}`)).body).toEqual(b);
  expect((await s.api('PUT', `/services/${a.id}`, { token, body: { date: a.date, serviceType: 'WED' } })).status).toBe(200);
});

test('GraphQL: createService of a taken date and type is a CONFLICT error with no data', async () => {
  const first = await s.gql('mutation { createService(date: 1800300000000, serviceType: WED) { id } }', {}, token);
  const id = first.body.data.createService.id;
  const again = await s.gql('mutation { createService(date: 1800300000000, serviceType: WED) { id } }', {}, token);
  expect(again.body.data).toBeNull();
  expect(again.body.errors[0]).toMatchObject({
    message: `Service ${id} has the same date and serviceType`,
    extensions: { code: 'CONFLICT', details: [{ field: 'date', message: `service ${id} is a service of this type at this date` }] },
  });
});

test('of ten concurrent creates of one date and type, one is 201 and nine are 409 naming it', async () => {
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => s.api('POST', '/services', { token, body: { date: 1_800_400_000_000, serviceType: 'SUN_AM' } })),
  );
  const created = answers.filter((a) => a.status === 201);
  expect(created).toHaveLength(1);
  const refused = answers.filter((a) => a.status === 409).map((a) => a.body.error.message);
  expect(refused).toEqual(Array.from({ length: 9 }, () => `Service ${created[0].body.id} has the same date and serviceType`));
});
