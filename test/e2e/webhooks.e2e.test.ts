/**
 * Webhooks end to end (docs/API.md, Webhooks): endpoints made over REST and GraphQL by an ADMIN,
 * deliveries to a real receiver on 127.0.0.1 checked with a signature verifier written from the
 * Standard Webhooks specification (test/helpers/webhook-receiver.ts), retries by a short
 * schedule, the delivery log, disabling, redelivery and secret rotation. Unsafe targets:
 * webhooks.targets.e2e.test.ts.
 */
import { eventually, startReceiver, verifies, type Receiver } from '../helpers/webhook-receiver';
import { startTestServer, type TestServer } from '../helpers/server';

const LOCAL = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_RETRY_SCHEDULE: '0.3,0.3,0.3' };

let s: TestServer;
let admin: string;
let receivers: Receiver[] = [];
beforeAll(async () => {
  s = await startTestServer(LOCAL);
  admin = await s.adminToken();
});
afterAll(() => s.close());
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  // Each test's endpoints go, so that no other test's writes reach them.
  for (const w of (await s.api('GET', '/webhooks', { token: admin })).body as { id: number }[]) {
    await s.api('DELETE', `/webhooks/${w.id}`, { token: admin });
  }
});

async function receiver(answer?: (n: number) => number) {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function endpoint(url: string, events: string[]) {
  const res = await s.api('POST', '/webhooks', { token: admin, body: { url, events, description: 'test receiver' } });
  expect(res.status).toBe(201);
  return res.body as { id: number; secret: string; url: string; events: string[] };
}

const songBody = (name: string) => ({ name, artists: ['Test Artist'] });

describe('an endpoint made by an ADMIN', () => {
  it('is answered with its secret once, with Location, and read back without it', async () => {
    const r = await receiver();
    const res = await s.api('POST', '/webhooks', { token: admin, body: { url: r.url, events: ['song.created'] } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number), url: r.url, events: ['song.created'], description: null, enabled: true,
      createdAt: expect.any(Number), failingSince: null, disabledReason: null, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    expect(res.headers.get('location')).toBe(`/api/v1/webhooks/${res.body.id}`);
    const read = await s.api('GET', `/webhooks/${res.body.id}`, { token: admin });
    expect(read.body).toEqual({ ...res.body, secret: null });
    expect((await s.api('GET', '/webhooks/999999', { token: admin })).status).toBe(404);
  });

  it('is for ADMINs only', async () => {
    const user = await s.createUser(`hooks-user-${Date.now()}`);
    expect((await s.api('GET', '/webhooks', { token: user.token })).status).toBe(403);
    expect((await s.api('POST', '/webhooks', { token: user.token, body: { url: 'https://example.org', events: ['song.created'] } })).status).toBe(403);
    expect((await s.api('GET', '/webhooks')).status).toBe(401);
  });

  it('refuses kinds it does not know, none, and URLs that are no http(s) URL', async () => {
    for (const body of [
      { url: 'https://example.org/', events: ['song.exploded'] },
      { url: 'https://example.org/', events: [] },
      { url: 'ftp://example.org/', events: ['song.created'] },
      { url: 'not a url', events: ['song.created'] },
    ]) {
      const res = await s.api('POST', '/webhooks', { token: admin, body });
      expect({ body, status: res.status, code: res.body.error.code }).toEqual({ body, status: 400, code: 'VALIDATION_FAILED' });
    }
  });
});

describe('deliveries', () => {
  it('reach the receiver signed, with the records in the payload, and the same on GraphQL', async () => {
    const r = await receiver();
    const w = await endpoint(r.url, ['song.created', 'setlist.changed']);
    const started = Date.now();
    const song = (await s.api('POST', '/songs', { token: admin, body: songBody('Signed Song') })).body;
    const [got] = await r.waitFor(1);
    expect(got.at - started).toBeLessThan(5000);
    expect(verifies(w.secret, got)).toBe(true);
    expect(verifies(w.secret, { ...got, body: got.body.replace('Signed', 'Forged') })).toBe(false);
    expect(got.contentType).toBe('application/json');
    expect(got.id).toMatch(/^evt_[0-9a-f]+$/);
    expect(Math.abs(Number(got.timestamp) * 1000 - Date.now())).toBeLessThan(60_000);
    const payload = JSON.parse(got.body);
    expect(payload).toEqual({ type: 'song.created', timestamp: expect.any(String), data: { song } });
    expect(new Date(payload.timestamp).toISOString()).toBe(payload.timestamp);

    // A setlist change carries the service and its whole setlist, with the songs' names.
    const service = (await s.api('POST', '/services', { token: admin, body: { date: '2026-03-01T10:00:00Z', serviceType: 'SUN_AM' } })).body;
    expect((await s.api('PUT', `/services/${service.id}/songs`, { token: admin, body: { songIds: [song.id] } })).status).toBe(200);
    const [, setlist] = await r.waitFor(2);
    expect(JSON.parse(setlist.body)).toEqual({
      type: 'setlist.changed', timestamp: expect.any(String), data: { service, setlist: [{ position: 1, song }] },
    });
    expect(verifies(w.secret, setlist)).toBe(true);

    // The same endpoint through GraphQL, and its log.
    const gql = await s.gql('{ webhook(id: ' + w.id + ') { url events secret } webhookDeliveries(id: ' + w.id + ') { eventType status attempts lastResponseCode } }', undefined, admin);
    expect(gql.body.data.webhook).toEqual({ url: r.url, events: ['song.created', 'setlist.changed'], secret: null });
    await eventually(async () => {
      const log = (await s.gql(`{ webhookDeliveries(id: ${w.id}) { eventType status attempts lastResponseCode } }`, undefined, admin)).body.data.webhookDeliveries;
      expect(log).toEqual([
        { eventType: 'setlist.changed', status: 'DELIVERED', attempts: 1, lastResponseCode: 200 },
        { eventType: 'song.created', status: 'DELIVERED', attempts: 1, lastResponseCode: 200 },
      ]);
    });
  });

  it('are tried again by the schedule when the receiver fails, and logged', async () => {
    const r = await receiver((n) => (n < 2 ? 503 : 204));
    const w = await endpoint(r.url, ['song.created']);
    await s.api('POST', '/songs', { token: admin, body: songBody('Retried Song') });
    const got = await r.waitFor(3);
    // The same message each time: one id, each try signed anew.
    expect(new Set(got.map((g) => g.id)).size).toBe(1);
    for (const g of got) expect(verifies(w.secret, g)).toBe(true);
    // Waits of at least the schedule's 0.3 s between tries.
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(250);
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(250);
    await eventually(async () => {
      const log = (await s.api('GET', `/webhooks/${w.id}/deliveries`, { token: admin })).body;
      expect(log).toEqual([
        {
          eventId: got[0].id, eventType: 'song.created', status: 'DELIVERED', attempts: 3, nextAttemptAt: null,
          lastAttemptAt: expect.any(Number), lastResponseCode: 204, lastError: null,
        },
      ]);
    });
    expect((await s.api('GET', `/webhooks/${w.id}`, { token: admin })).body).toMatchObject({ failingSince: null, enabled: true });
  });

  it('give up after the last try of the schedule, marked FAILED, the endpoint marked failing', async () => {
    const r = await receiver(() => 500);
    const w = await endpoint(r.url, ['song.created']);
    await s.api('POST', '/songs', { token: admin, body: songBody('Failing Song') });
    await r.waitFor(4);
    await eventually(async () => {
      const [d] = (await s.api('GET', `/webhooks/${w.id}/deliveries`, { token: admin })).body;
      expect(d).toMatchObject({ status: 'FAILED', attempts: 4, nextAttemptAt: null, lastResponseCode: 500, lastError: 'HTTP 500: ok' });
    });
    expect((await s.api('GET', `/webhooks/${w.id}`, { token: admin })).body.failingSince).toEqual(expect.any(Number));
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(r.received).toHaveLength(4);
  });

  it('stop while an endpoint is disabled, and resume, with redelivery of one event or of every event after one', async () => {
    const r = await receiver();
    const w = await endpoint(r.url, ['song.created']);
    await s.api('POST', '/songs', { token: admin, body: songBody('Before') });
    const [first] = await r.waitFor(1);
    expect((await s.api('PUT', `/webhooks/${w.id}`, { token: admin, body: { enabled: false } })).body).toMatchObject({ enabled: false });
    await s.api('POST', '/songs', { token: admin, body: songBody('While Off') });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(r.received).toHaveLength(1);
    expect((await s.api('PUT', `/webhooks/${w.id}`, { token: admin, body: { enabled: true } })).body).toMatchObject({ enabled: true });
    // Everything after the first event: the one made while it was off.
    expect((await s.api('POST', `/webhooks/${w.id}/redeliver`, { token: admin, body: { since: first.id } })).body).toEqual({ queued: 1 });
    const [, missed] = await r.waitFor(2);
    expect(JSON.parse(missed.body).data.song.name).toBe('While Off');
    // One event again: the same webhook-id, which tells the receiver it is a redelivery.
    expect((await s.api('POST', `/webhooks/${w.id}/redeliver`, { token: admin, body: { eventId: first.id } })).body).toEqual({ queued: 1 });
    const [, , again] = await r.waitFor(3);
    expect(again.id).toBe(first.id);
    expect(again.body).toBe(first.body);
    expect((await s.api('POST', `/webhooks/${w.id}/redeliver`, { token: admin, body: { eventId: first.id, since: first.id } })).status).toBe(400);
    expect((await s.api('POST', `/webhooks/999999/redeliver`, { token: admin, body: { eventId: first.id } })).status).toBe(404);
  });

  it('are signed with the old secret and the new one while a rotation overlaps', async () => {
    const r = await receiver();
    const w = await endpoint(r.url, ['song.created']);
    const rotated = await s.api('POST', `/webhooks/${w.id}/rotateSecret`, { token: admin });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(w.secret);
    await s.api('POST', '/songs', { token: admin, body: songBody('Rotated') });
    const [got] = await r.waitFor(1);
    expect(got.signature.split(' ')).toHaveLength(2);
    expect(verifies(w.secret, got)).toBe(true);
    expect(verifies(rotated.body.secret, got)).toBe(true);
  });
});
