import {
  BAD_IDS,
  byDateThenId,
  expectError,
  expectJson,
  expectNoContent,
  forgedToken,
  ms,
  type Service,
} from '../helpers/rest-assert';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * REST /api/v1/services (docs/API.md, §3, §5). One server for record-level tests, where each
 * test makes its own records; whole-collection and date-range reads get their own servers with a
 * known set of services.
 */

let s: TestServer;
let admin: string;
let user: string;

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.adminToken();
  user = (await s.createUser('services-user')).token;
});
afterAll(() => s.close());

async function createService(server: TestServer, token: string, body: Record<string, unknown>): Promise<Service> {
  await freeSlot(server, token, body);
  const res = await server.api('POST', '/services', { token, body });
  expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
  return res.body as Service;
}
const newService = (body: Record<string, unknown>) => createService(s, admin, body);

/**
 * One service per date and type (docs/API.md): the tests here make services at the dates they
 * check, so an earlier test's service at the same date and type is deleted first.
 */
async function freeSlot(server: TestServer, token: string, body: Record<string, unknown>) {
  const at = typeof body.date === 'number' ? body.date : Date.parse(String(body.date));
  if (!Number.isFinite(at)) return;
  const there = await server.api('GET', `/services/byDate/between/${at}/${at}`);
  for (const v of there.body as Service[]) {
    if (v.serviceType === body.serviceType) expect((await server.api('DELETE', `/services/${v.id}`, { token })).status).toBe(204);
  }
}

async function allServices(): Promise<Service[]> {
  const res = await s.api('GET', '/services');
  expect(res.status).toBe(200);
  return res.body as Service[];
}

describe('POST /services', () => {
  test('201 with the record, a Location header, and the record reads back identically', async () => {
    const date = ms('2024-01-07T10:30:00Z');
    const res = await s.api('POST', '/services', { token: admin, body: { date, serviceType: 'SUN_AM' } });
    expectJson(res, 201, { id: expect.any(Number), date, serviceType: 'SUN_AM' });
    expect(Number.isInteger(res.body.id) && res.body.id > 0).toBe(true);
    expect(res.headers.get('location')).toBe(`/api/v1/services/${res.body.id}`);
    expectJson(await s.raw('GET', res.headers.get('location')!), 200, res.body);
  });

  test.each([
    ['Z', '2024-01-07T10:30:00Z', ms('2024-01-07T10:30:00.000Z')],
    ['Z with milliseconds', '2024-01-07T10:30:00.123Z', ms('2024-01-07T10:30:00.123Z')],
    ['Z without seconds', '2024-01-07T10:30Z', ms('2024-01-07T10:30:00.000Z')],
    ['a positive offset', '2024-01-07T10:30:00+02:00', ms('2024-01-07T08:30:00.000Z')],
    ['a negative offset', '2024-01-07T10:30:00-05:00', ms('2024-01-07T15:30:00.000Z')],
    ['a half-hour offset', '2024-01-07T10:30:00.500+05:30', ms('2024-01-07T05:00:00.500Z')],
    ['an offset crossing midnight', '2024-01-07T23:30:00-01:00', ms('2024-01-08T00:30:00.000Z')],
  ])('an ISO-8601 date-time with %s is stored as epoch ms', async (_label, iso, expected) => {
    await freeSlot(s, admin, { date: expected, serviceType: 'WED' });
    const res = await s.api('POST', '/services', { token: admin, body: { date: iso, serviceType: 'WED' } });
    expectJson(res, 201, { id: expect.any(Number), date: expected, serviceType: 'WED' });
    expectJson(await s.api('GET', `/services/${res.body.id}`), 200, res.body);
  });

  test.each([
    ['the first instant of 1900 anywhere (1900-01-01T00:00+14:00)', ms('1899-12-31T10:00:00.000Z')],
    ['the last instant of 2200 anywhere (2200-12-31T23:59:59.999-12:00)', ms('2201-01-01T11:59:59.999Z')],
    ['a date before the epoch (negative ms)', ms('1950-06-04T09:00:00Z')],
    ['the epoch itself', 0],
  ])('epoch ms at %s is accepted', async (_label, date) => {
    const service = await newService({ date, serviceType: 'SUN_PM' });
    expect(service).toEqual({ id: service.id, date, serviceType: 'SUN_PM' });
    expectJson(await s.api('GET', `/services/${service.id}`), 200, service);
  });

  test('the year bounds hold for ISO strings too', async () => {
    expect((await newService({ date: '1900-01-01T00:00:00Z', serviceType: 'WED' })).date).toBe(ms('1900-01-01T00:00:00Z'));
    expect((await newService({ date: '2200-12-31T23:59:59.999Z', serviceType: 'WED' })).date).toBe(
      ms('2200-12-31T23:59:59.999Z'),
    );
    // Its calendar date as written is what counts: the extreme offsets name instants just outside.
    expect((await newService({ date: '1900-01-01T00:00+14:00', serviceType: 'WED' })).date).toBe(ms('1899-12-31T10:00:00Z'));
    expect((await newService({ date: '2200-12-31T23:59:59.999-12:00', serviceType: 'WED' })).date).toBe(ms('2201-01-01T11:59:59.999Z'));
  });

  test.each(['SUN_AM', 'SUN_PM', 'WED'])('serviceType %s is accepted', async (serviceType) => {
    const service = await newService({ date: ms('2024-02-04T10:00:00Z'), serviceType });
    expect(service).toEqual({ id: service.id, date: ms('2024-02-04T10:00:00Z'), serviceType });
  });

  test('an id in the body is ignored', async () => {
    const res = await s.api('POST', '/services', { token: admin, body: { id: 515151, date: 0, serviceType: 'WED' } });
    expectJson(res, 201, { id: expect.any(Number), date: 0, serviceType: 'WED' });
    expect(res.body.id).not.toBe(515151);
    expectError(await s.api('GET', '/services/515151'), 404, 'NOT_FOUND');
  });

  describe('validation: 400 VALIDATION_FAILED naming each bad field, and nothing is created', () => {
    const ok = { date: ms('2024-01-07T10:00:00Z'), serviceType: 'SUN_AM' };
    const cases: [string, unknown, string[]][] = [
      ['both missing', {}, ['date', 'serviceType']],
      ['date missing', { serviceType: 'SUN_AM' }, ['date']],
      ['serviceType missing', { date: ok.date }, ['serviceType']],
      ['a day that is not a calendar date', { ...ok, date: '2024-02-30' }, ['date']],
      ['a day outside 1900-2200', { ...ok, date: '2201-01-07' }, ['date']],
      ['a date-time without offset', { ...ok, date: '2024-01-07T10:30:00' }, ['date']],
      ['a date-time with milliseconds but no offset', { ...ok, date: '2024-01-07T10:30:00.000' }, ['date']],
      ['an impossible calendar date', { ...ok, date: '2024-02-30T10:00:00Z' }, ['date']],
      ['an impossible time', { ...ok, date: '2024-01-07T25:00:00Z' }, ['date']],
      ['words', { ...ok, date: 'next Sunday' }, ['date']],
      ['an empty string', { ...ok, date: '' }, ['date']],
      ['a fractional number', { ...ok, date: 1704621600000.5 }, ['date']],
      ['a boolean', { ...ok, date: true }, ['date']],
      ['an object', { ...ok, date: { ms: 0 } }, ['date']],
      ['null date', { ...ok, date: null }, ['date']],
      // Epoch ms run from 1900-01-01T00:00+14:00 to 2200-12-31T23:59:59.999-12:00 (docs/API.md, Dates).
      ['epoch ms before 1900-01-01T00:00+14:00', { ...ok, date: ms('1899-12-31T09:59:59.999Z') }, ['date']],
      ['epoch ms after 2200-12-31T23:59:59.999-12:00', { ...ok, date: ms('2201-01-01T12:00:00.000Z') }, ['date']],
      ['an ISO date-time in 1899', { ...ok, date: '1899-12-31T23:59:59.999Z' }, ['date']],
      ['an ISO date-time in 2201', { ...ok, date: '2201-01-01T00:00:00Z' }, ['date']],
      ['a year far out of range', { ...ok, date: 8.64e15 }, ['date']],
      ['serviceType lower case', { ...ok, serviceType: 'sun_am' }, ['serviceType']],
      ['serviceType mixed case', { ...ok, serviceType: 'Wed' }, ['serviceType']],
      ['serviceType unknown', { ...ok, serviceType: 'SAT_PM' }, ['serviceType']],
      ['serviceType empty', { ...ok, serviceType: '' }, ['serviceType']],
      ['serviceType a number', { ...ok, serviceType: 1 }, ['serviceType']],
      ['serviceType null', { ...ok, serviceType: null }, ['serviceType']],
      ['both bad', { date: '2024-01-7', serviceType: 'sun_pm' }, ['date', 'serviceType']],
    ];

    test.each(cases)('%s', async (_label, body, fields) => {
      const before = await allServices();
      expectError(await s.api('POST', '/services', { token: admin, body }), 400, 'VALIDATION_FAILED', fields);
      expect(await allServices()).toEqual(before);
    });

    test('missing fields are reported as required', async () => {
      const res = await s.api('POST', '/services', { token: admin, body: {} });
      expectError(res, 400, 'VALIDATION_FAILED', ['date', 'serviceType']);
      expect(res.body.error.details).toEqual(
        expect.arrayContaining([
          { field: 'date', message: 'is required' },
          { field: 'serviceType', message: 'is required' },
        ]),
      );
    });
  });

  test('malformed JSON is 400 BAD_REQUEST', async () => {
    expectError(await s.api('POST', '/services', { token: admin, body: '{"date": ' }), 400, 'BAD_REQUEST');
  });

  test('any valid token may create; none is 401 with WWW-Authenticate: Bearer and creates nothing', async () => {
    const byUser = await s.api('POST', '/services', { token: user, body: { date: 1, serviceType: 'WED' } });
    expectJson(byUser, 201, { id: expect.any(Number), date: 1, serviceType: 'WED' });
    const before = await allServices();
    expectError(await s.api('POST', '/services', { body: { date: 2, serviceType: 'WED' } }), 401, 'UNAUTHENTICATED');
    expectError(
      await s.api('POST', '/services', { token: forgedToken(), body: { date: 2, serviceType: 'WED' } }),
      401,
      'UNAUTHENTICATED',
    );
    expect(await allServices()).toEqual(before);
  });
});

describe('GET /services/<serviceId>', () => {
  test('200 with exactly the service', async () => {
    const service = await newService({ date: '2024-03-03T09:00:00Z', serviceType: 'SUN_AM' });
    expectJson(await s.api('GET', `/services/${service.id}`), 200, {
      id: service.id,
      date: ms('2024-03-03T09:00:00Z'),
      serviceType: 'SUN_AM',
    });
  });

  test('an unknown id is 404 NOT_FOUND', async () => {
    expectError(await s.api('GET', '/services/2147483647'), 404, 'NOT_FOUND');
  });

  test.each(BAD_IDS)('path id %s is 400 BAD_REQUEST on every /services/<id> route', async (id) => {
    expectError(await s.api('GET', `/services/${id}`), 400, 'BAD_REQUEST');
    expectError(await s.api('PUT', `/services/${id}`, { token: admin, body: { serviceType: 'WED' } }), 400, 'BAD_REQUEST');
    expectError(await s.api('DELETE', `/services/${id}`, { token: admin }), 400, 'BAD_REQUEST');
    expectError(await s.api('GET', `/services/withSong/${id}`), 400, 'BAD_REQUEST');
  });
});

describe('PUT /services/<serviceId>: merge', () => {
  const date = ms('2024-04-07T10:00:00Z');

  test('serviceType only: replaced, date kept', async () => {
    const service = await newService({ date, serviceType: 'SUN_AM' });
    const want = { id: service.id, date, serviceType: 'SUN_PM' };
    expectJson(await s.api('PUT', `/services/${service.id}`, { token: admin, body: { serviceType: 'SUN_PM' } }), 200, want);
    expectJson(await s.api('GET', `/services/${service.id}`), 200, want);
  });

  test('date only (ISO with offset): replaced and converted, serviceType kept', async () => {
    const service = await newService({ date, serviceType: 'WED' });
    const want = { id: service.id, date: ms('2024-04-10T17:30:00Z'), serviceType: 'WED' };
    expectJson(
      await s.api('PUT', `/services/${service.id}`, { token: admin, body: { date: '2024-04-10T19:30:00+02:00' } }),
      200,
      want,
    );
    expectJson(await s.api('GET', `/services/${service.id}`), 200, want);
  });

  test('both fields replace; an empty body changes nothing; an id in the body is ignored', async () => {
    const service = await newService({ date, serviceType: 'WED' });
    const other = await newService({ date, serviceType: 'SUN_PM' });
    await freeSlot(s, admin, { date: 0, serviceType: 'SUN_AM' });
    const want = { id: service.id, date: 0, serviceType: 'SUN_AM' };
    expectJson(
      await s.api('PUT', `/services/${service.id}`, { token: admin, body: { id: other.id, date: 0, serviceType: 'SUN_AM' } }),
      200,
      want,
    );
    expectJson(await s.api('PUT', `/services/${service.id}`, { token: admin, body: {} }), 200, want);
    expectJson(await s.api('GET', `/services/${service.id}`), 200, want);
    expectJson(await s.api('GET', `/services/${other.id}`), 200, other);
  });

  describe('validation: 400 VALIDATION_FAILED naming each bad field, and the service is unchanged', () => {
    const cases: [string, unknown, string[]][] = [
      ['a day with one digit', { date: '2024-4-07' }, ['date']],
      ['a date-time without offset', { date: '2024-04-07T10:00:00' }, ['date']],
      ['a year out of range', { date: '2201-01-01T00:00:00Z' }, ['date']],
      ['null date', { date: null }, ['date']],
      ['serviceType lower case', { serviceType: 'wed' }, ['serviceType']],
      ['null serviceType', { serviceType: null }, ['serviceType']],
      ['one good, one bad: nothing is applied', { date: 0, serviceType: 'SUNDAY' }, ['serviceType']],
      ['both bad', { date: 'soon', serviceType: 'later' }, ['date', 'serviceType']],
    ];

    test.each(cases)('%s', async (_label, body, fields) => {
      const service = await newService({ date, serviceType: 'SUN_AM' });
      expectError(await s.api('PUT', `/services/${service.id}`, { token: admin, body }), 400, 'VALIDATION_FAILED', fields);
      expectJson(await s.api('GET', `/services/${service.id}`), 200, service);
    });
  });

  test('an unknown service is 404 NOT_FOUND', async () => {
    expectError(await s.api('PUT', '/services/2147483647', { token: admin, body: { serviceType: 'WED' } }), 404, 'NOT_FOUND');
  });

  test('any valid token may update; none is 401 and changes nothing', async () => {
    const service = await newService({ date, serviceType: 'SUN_AM' });
    expectJson(await s.api('PUT', `/services/${service.id}`, { token: user, body: { serviceType: 'WED' } }), 200, {
      ...service,
      serviceType: 'WED',
    });
    expectError(await s.api('PUT', `/services/${service.id}`, { body: { serviceType: 'SUN_PM' } }), 401, 'UNAUTHENTICATED');
    expectJson(await s.api('GET', `/services/${service.id}`), 200, { ...service, serviceType: 'WED' });
  });
});

describe('DELETE /services/<serviceId>', () => {
  test('204 with an empty body; afterwards GET, PUT and DELETE are 404', async () => {
    const service = await newService({ date: 5, serviceType: 'WED' });
    expectNoContent(await s.api('DELETE', `/services/${service.id}`, { token: admin }));
    expectError(await s.api('GET', `/services/${service.id}`), 404, 'NOT_FOUND');
    expectError(await s.api('PUT', `/services/${service.id}`, { token: admin, body: { date: 6 } }), 404, 'NOT_FOUND');
    expectError(await s.api('DELETE', `/services/${service.id}`, { token: admin }), 404, 'NOT_FOUND');
    expect(await allServices()).not.toContainEqual(service);
  });

  test('any valid token may delete; none is 401 and deletes nothing', async () => {
    const service = await newService({ date: 7, serviceType: 'WED' });
    expectError(await s.api('DELETE', `/services/${service.id}`), 401, 'UNAUTHENTICATED');
    expectJson(await s.api('GET', `/services/${service.id}`), 200, service);
    expectNoContent(await s.api('DELETE', `/services/${service.id}`, { token: user }));
    expectError(await s.api('GET', `/services/${service.id}`), 404, 'NOT_FOUND');
  });

  test('ids are never reused after a delete, not even the highest one', async () => {
    const a = await newService({ date: 8, serviceType: 'WED' });
    expectNoContent(await s.api('DELETE', `/services/${a.id}`, { token: admin }));
    const b = await newService({ date: 8, serviceType: 'WED' });
    expect(b.id).toBeGreaterThan(a.id);
  });
});

describe('GET /services: ordered by date, then id', () => {
  test('the whole collection, exactly, on a fresh store', async () => {
    const fresh = await startTestServer();
    try {
      const token = await fresh.adminToken();
      expectJson(await fresh.api('GET', '/services'), 200, []);
      // Created out of date order; two share a date, so id breaks the tie.
      const late = await createService(fresh, token, { date: '2024-06-02T10:00:00Z', serviceType: 'SUN_AM' });
      const early = await createService(fresh, token, { date: '2023-12-31T18:00:00Z', serviceType: 'SUN_PM' });
      const tieA = await createService(fresh, token, { date: '2024-03-06T19:00:00Z', serviceType: 'WED' });
      const old = await createService(fresh, token, { date: ms('1955-01-02T10:00:00Z'), serviceType: 'SUN_AM' });
      const tieB = await createService(fresh, token, { date: '2024-03-06T20:00:00+01:00', serviceType: 'SUN_PM' });
      expect(tieB.date).toBe(tieA.date);
      expectJson(await fresh.api('GET', '/services'), 200, [old, early, tieA, tieB, late]);

      // Moving a service's date moves it in the list.
      const moved = { ...late, date: ms('1950-01-01T00:00:00Z') };
      expectJson(await fresh.api('PUT', `/services/${late.id}`, { token, body: { date: moved.date } }), 200, moved);
      await fresh.api('DELETE', `/services/${tieA.id}`, { token });
      expectJson(await fresh.api('GET', '/services'), 200, [moved, old, early, tieB]);
    } finally {
      await fresh.close();
    }
  });
});

describe('GET /services/withSong/<songId>', () => {
  let w: TestServer;
  let token: string;
  beforeAll(async () => {
    w = await startTestServer();
    token = await w.adminToken();
  });
  afterAll(() => w.close());

  test('the parameter is a song id: its services ordered by date (then id), not by link order', async () => {
    const a = await createService(w, token, { date: '2024-05-12T10:00:00Z', serviceType: 'SUN_AM' });
    const b = await createService(w, token, { date: '2024-05-01T19:00:00Z', serviceType: 'WED' });
    const c = await createService(w, token, { date: '2024-05-12T10:00:00Z', serviceType: 'SUN_PM' });
    const d = await createService(w, token, { date: '2024-04-28T10:00:00Z', serviceType: 'SUN_AM' });
    const song = (await w.api('POST', '/songs', { token, body: { name: 'Linked' } })).body;
    const idle = (await w.api('POST', '/songs', { token, body: { name: 'Never Sung' } })).body;
    // Link order c, a, b; d stays unlinked.
    for (const service of [c, a, b]) {
      expect((await w.api('PUT', `/services/${service.id}/songs/${song.id}`, { token })).status).toBe(200);
    }
    expectJson(await w.api('GET', `/services/withSong/${song.id}`), 200, [b, a, c]);
    expectJson(await w.api('GET', `/services/withSong/${idle.id}`), 200, []);
    expect([song.id, idle.id]).not.toContain(d.id);
    // d exists as a service, but there is no song with its id: that is a 404, not d's songs.
    expectError(await w.api('GET', `/services/withSong/${d.id}`), 404, 'NOT_FOUND');
  });

  test('an unknown song is 404 NOT_FOUND; a deleted one too', async () => {
    expectError(await w.api('GET', '/services/withSong/2147483647'), 404, 'NOT_FOUND');
    const song = (await w.api('POST', '/songs', { token, body: { name: 'Deleted Soon' } })).body;
    expectJson(await w.api('GET', `/services/withSong/${song.id}`), 200, []);
    await w.api('DELETE', `/songs/${song.id}`, { token });
    expectError(await w.api('GET', `/services/withSong/${song.id}`), 404, 'NOT_FOUND');
  });
});

/**
 * Date-range reads against a fixed set of services placed on the edges of the ranges. `names`
 * lists which services a query must return; the order is always date, then id.
 */
async function rangeFixture(server: TestServer, dates: Record<string, string>) {
  const token = await server.adminToken();
  const made: Record<string, Service> = {};
  // Created in reverse so that id order and date order differ.
  for (const [name, iso] of Object.entries(dates).reverse()) {
    // One service per date and type: a second one at an instant is the evening service.
    const taken = Object.values(made).some((m) => m.date === Date.parse(iso));
    made[name] = await createService(server, token, { date: iso, serviceType: taken ? 'SUN_PM' : 'SUN_AM' });
  }
  return {
    made,
    async expectRange(path: string, names: string[]) {
      const want = names.map((n) => made[n]).sort(byDateThenId);
      expectJson(await server.api('GET', `/services/byDate/${path}`), 200, want);
    },
  };
}

describe('GET /services/byDate (SERVICE_TIME_ZONE defaults to UTC)', () => {
  let r: TestServer;
  let f: Awaited<ReturnType<typeof rangeFixture>>;
  beforeAll(async () => {
    r = await startTestServer();
    f = await rangeFixture(r, {
      old: '1950-06-04T10:00:00.000Z',
      a: '2024-01-06T23:59:59.999Z',
      b: '2024-01-07T00:00:00.000Z',
      c: '2024-01-07T10:00:00.000Z',
      c2: '2024-01-07T10:00:00.000Z', // same instant as c
      d: '2024-01-07T23:59:59.999Z',
      e: '2024-01-08T00:00:00.000Z',
      p: '2024-01-08T03:00:00.000Z', // on 2024-01-08 in UTC (but 2024-01-07 in New York)
      g: '2024-01-14T23:59:59.999Z',
      h: '2024-01-15T00:00:00.000Z',
      far: '2150-01-01T00:00:00.000Z',
    });
  });
  afterAll(() => r.close());

  const at = (name: string) => String(f.made[name].date);

  test('the fixture ids are not in date order (so ordering is really by date)', () => {
    expect(f.made.far.id).toBeLessThan(f.made.old.id);
    expect(f.made.c2.id).toBeLessThan(f.made.c.id);
  });

  describe('after: strictly after the instant, or after the end of the day', () => {
    test('YYYY-MM-DD: after the end of that day', () => f.expectRange('after/2024-01-07', ['e', 'p', 'g', 'h', 'far']));
    test('epoch ms: a service exactly at the instant is excluded', () =>
      f.expectRange(`after/${at('c')}`, ['d', 'e', 'p', 'g', 'h', 'far']));
    test('epoch ms one before: the instant is included', () =>
      f.expectRange(`after/${f.made.c.date - 1}`, ['c', 'c2', 'd', 'e', 'p', 'g', 'h', 'far']));
    test('ISO with Z', () => f.expectRange('after/2024-01-07T10:00:00Z', ['d', 'e', 'p', 'g', 'h', 'far']));
    test('ISO with an offset, percent-encoded', () =>
      f.expectRange('after/2024-01-07T11:00:00.000%2B01:00', ['d', 'e', 'p', 'g', 'h', 'far']));
    test('ISO with an offset, plus sign as is', () =>
      f.expectRange('after/2024-01-07T11:00:00+01:00', ['d', 'e', 'p', 'g', 'h', 'far']));
    test('a negative epoch ms', () =>
      f.expectRange(`after/${ms('1950-06-04T09:59:59.999Z')}`, Object.keys(f.made)));
    test('nothing after is []', () => f.expectRange('after/2200-01-01', []));
  });

  describe('before: strictly before the instant, or before the start of the day', () => {
    test('YYYY-MM-DD: before the start of that day', () => f.expectRange('before/2024-01-07', ['old', 'a']));
    test('epoch ms: a service exactly at the instant is excluded', () => f.expectRange(`before/${at('b')}`, ['old', 'a']));
    test('epoch ms one after: the instant is included', () =>
      f.expectRange(`before/${f.made.b.date + 1}`, ['old', 'a', 'b']));
    test('ISO with Z', () => f.expectRange('before/2024-01-08T00:00:00.000Z', ['old', 'a', 'b', 'c', 'c2', 'd']));
    test('ISO with an offset', () => f.expectRange('before/2024-01-07T19:00:00-05:00', ['old', 'a', 'b', 'c', 'c2', 'd']));
    test('nothing before is []', () => f.expectRange('before/1900-01-01', []));
  });

  describe('between: inclusive, from date1 (instant or start of day) to date2 (instant or end of day)', () => {
    test('two days: from the start of the first to 23:59:59.999 of the last', () =>
      f.expectRange('between/2024-01-07/2024-01-14', ['b', 'c', 'c2', 'd', 'e', 'p', 'g']));
    test('the same day twice is that whole day', () =>
      f.expectRange('between/2024-01-07/2024-01-07', ['b', 'c', 'c2', 'd']));
    test('epoch ms instants: services exactly at both bounds are included', () =>
      f.expectRange(`between/${at('b')}/${at('e')}`, ['b', 'c', 'c2', 'd', 'e']));
    test('the same instant twice is the services at that instant', () =>
      f.expectRange(`between/${at('c')}/${at('c')}`, ['c', 'c2']));
    test('ISO instants just inside the boundary services exclude them', () =>
      f.expectRange('between/2024-01-07T00:00:00.001Z/2024-01-07T23:59:59.998Z', ['c', 'c2']));
    test('ISO instants exactly at the boundary services include them', () =>
      f.expectRange('between/2024-01-07T00:00:00Z/2024-01-07T23:59:59.999Z', ['b', 'c', 'c2', 'd']));
    test('mixed forms: an instant to a day', () =>
      f.expectRange('between/2024-01-07T10:00:00Z/2024-01-08', ['c', 'c2', 'd', 'e', 'p']));
    test('mixed forms: a day to an instant', () => f.expectRange(`between/2024-01-08/${at('p')}`, ['e', 'p']));
    test('a range with nothing in it is []', () => f.expectRange('between/2030-01-01/2030-12-31', []));
  });

  describe('400 BAD_REQUEST', () => {
    test.each([
      ['two days reversed', 'between/2024-01-08/2024-01-07'],
      ['two instants reversed', `between/${ms('2024-01-08T00:00:00Z')}/${ms('2024-01-07T00:00:00Z')}`],
      ['an instant after the end of the day', 'between/2024-01-08T00:00:00Z/2024-01-07'],
      ['a day starting after the instant', 'between/2024-01-07/2024-01-06T23:59:59.999Z'],
      ['ISO instants reversed by 1 ms', 'between/2024-01-07T00:00:00.001Z/2024-01-07T00:00:00.000Z'],
    ])('a reversed range: %s', async (_label, path) => {
      expectError(await r.api('GET', `/services/byDate/${path}`), 400, 'BAD_REQUEST');
    });

    const unparseable = [
      'yesterday',
      '2024-13-01',
      '2024-02-30',
      '2024-1-7',
      '07-01-2024',
      '2024-01-07T10:00:00',
      '2024-01-07T25:00:00Z',
      '1.5',
      '12abc',
      '2024-01-07Z',
    ];
    test.each(unparseable)('an unparseable date %s, in every position', async (bad) => {
      const date = encodeURIComponent(bad);
      for (const path of [`after/${date}`, `before/${date}`, `between/${date}/2024-01-07`, `between/2024-01-07/${date}`]) {
        expectError(await r.api('GET', `/services/byDate/${path}`), 400, 'BAD_REQUEST');
      }
    });
  });
});

describe('GET /services/byDate with SERVICE_TIME_ZONE=America/New_York', () => {
  let n: TestServer;
  let f: Awaited<ReturnType<typeof rangeFixture>>;
  beforeAll(async () => {
    n = await startTestServer({ SERVICE_TIME_ZONE: 'America/New_York' });
    f = await rangeFixture(n, {
      q: '2024-01-07T04:59:59.999Z', // 2024-01-06 23:59:59.999 EST
      r: '2024-01-07T05:00:00.000Z', // 2024-01-07 00:00 EST
      p: '2024-01-08T03:00:00.000Z', // 2024-01-07 22:00 EST
      t: '2024-01-08T04:59:59.999Z', // 2024-01-07 23:59:59.999 EST
      u: '2024-01-08T05:00:00.000Z', // 2024-01-08 00:00 EST
      v: '2024-03-10T05:00:00.000Z', // 2024-03-10 00:00 EST, the 23-hour day clocks go forward
      w: '2024-03-11T03:59:59.999Z', // 2024-03-10 23:59:59.999 EDT
      x: '2024-03-11T04:00:00.000Z', // 2024-03-11 00:00 EDT
    });
  });
  afterAll(() => n.close());

  test('a service at 2024-01-08T03:00Z is on 2024-01-07 in New York', () =>
    f.expectRange('between/2024-01-07/2024-01-07', ['r', 'p', 't']));
  test('after a day is after midnight ending it in New York', () =>
    f.expectRange('after/2024-01-07', ['u', 'v', 'w', 'x']));
  test('before a day is before midnight starting it in New York', async () => {
    await f.expectRange('before/2024-01-07', ['q']);
    await f.expectRange('before/2024-01-08', ['q', 'r', 'p', 't']);
  });
  test('a 23-hour daylight-saving day ends at its own midnight', () =>
    f.expectRange('between/2024-03-10/2024-03-10', ['v', 'w']));
  test('instants are instants, whatever the zone', async () => {
    await f.expectRange('after/2024-01-08T03:00:00Z', ['t', 'u', 'v', 'w', 'x']);
    await f.expectRange('between/2024-01-08T00:00:00Z/2024-01-08T23:59:59.999Z', ['p', 't', 'u']);
    await f.expectRange(`before/${ms('2024-01-07T05:00:00Z')}`, ['q']);
  });
  test('a reversed range in the zone is 400', async () => {
    expectError(await n.api('GET', '/services/byDate/between/2024-01-08/2024-01-07'), 400, 'BAD_REQUEST');
  });
});
