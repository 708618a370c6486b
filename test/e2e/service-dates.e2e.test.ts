/**
 * A service date given as a calendar day alone (`{"date":"2026-11-29"}`), on both facades: it
 * takes the service type's usual time (SERVICE_TIMES, defaults SUN_AM 10:30, SUN_PM 18:00, WED
 * 19:00) in SERVICE_TIME_ZONE; answers stay epoch ms. Over real HTTP on the run's store.
 */
import { DateTime } from 'luxon';
import { startTestServer, type TestServer } from '../helpers/server';

const ZONE = 'America/Chicago';
let s: TestServer;
let admin: string;
beforeAll(async () => {
  // Wednesday's time moved; the Sunday times keep their defaults.
  s = await startTestServer({ SERVICE_TIME_ZONE: ZONE, SERVICE_TIMES: 'WED=19:30' });
  admin = await s.adminToken();
});
afterAll(() => s.close());

const local = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toMillis();

test.each([
  ['SUN_AM', '2026-11-29', '2026-11-29T10:30'],
  ['SUN_PM', '2026-11-29', '2026-11-29T18:00'],
  ['WED', '2026-12-02', '2026-12-02T19:30'],
  // Summer time: the same local time, another offset.
  ['SUN_PM', '2026-07-05', '2026-07-05T18:00'],
])('REST: POST /services with a %s on %s alone is at %s in the service time zone', async (serviceType, day, at) => {
  const created = await s.api('POST', '/services', { token: admin, body: { date: day, serviceType } });
  expect(created.status).toBe(201);
  expect(created.body).toEqual({ id: expect.any(Number), date: local(at), serviceType });
});

test('GraphQL: createService and updateService take a day alone too; an update of the day alone keeps the type', async () => {
  const made = await s.gql('mutation { createService(date: "2026-12-06", serviceType: SUN_PM) { id date serviceType } }', {}, admin);
  expect(made.body.data.createService).toEqual({ id: expect.any(Number), date: local('2026-12-06T18:00'), serviceType: 'SUN_PM' });
  const id = made.body.data.createService.id;
  const moved = await s.gql('mutation($d: Timestamp) { updateService(id: ' + id + ', date: $d) { date serviceType } }', { d: '2026-12-13' }, admin);
  expect(moved.body.data.updateService).toEqual({ date: local('2026-12-13T18:00'), serviceType: 'SUN_PM' });
  // With a new type, the new type's time.
  const retyped = await s.api('PUT', `/services/${id}`, { token: admin, body: { date: '2026-12-16', serviceType: 'WED' } });
  expect(retyped.body).toEqual({ id, date: local('2026-12-16T19:30'), serviceType: 'WED' });
  // A day alone for a service that does not exist is its 404, not a guess at its type.
  const missing = await s.api('PUT', '/services/999999', { token: admin, body: { date: '2026-12-16' } });
  expect(missing.status).toBe(404);
});

test('a date-time or epoch ms is kept to the millisecond, whatever the type', async () => {
  const created = await s.api('POST', '/services', { token: admin, body: { date: '2026-11-29T09:15:00-06:00', serviceType: 'SUN_AM' } });
  expect(created.body.date).toBe(local('2026-11-29T09:15'));
});
