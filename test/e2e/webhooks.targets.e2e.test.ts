/**
 * Webhook targets that are not safe (docs/API.md, Webhooks: safe targets), refused when an
 * endpoint is made and again at each delivery: a name resolved by a DNS server the test runs
 * (WEBHOOKS_DNS_SERVERS) points at a public address when the endpoint is made and at loopback
 * when it is delivered to. A file of its own: on Neo4j every server of a run shares one database,
 * and a server allowing private targets beside this one would deliver what this one refuses.
 */
import { eventually, startDnsServer, startReceiver, type Receiver } from '../helpers/webhook-receiver';
import { startTestServer, type TestServer } from '../helpers/server';

const songBody = (name: string) => ({ name, artists: ['Test Artist'] });
let receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});
async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

describe('unsafe targets', () => {
  let strict: TestServer;
  let strictAdmin: string;
  const records = new Map<string, string>();
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  beforeAll(async () => {
    dns = await startDnsServer(records);
    strict = await startTestServer({ WEBHOOKS_DNS_SERVERS: dns.server, WEBHOOKS_RETRY_SCHEDULE: '0.3' });
    strictAdmin = await strict.adminToken();
  });
  afterAll(async () => {
    await strict.close();
    await dns.close();
  });

  it.each([
    ['plain http', 'http://hooks.example.org/'],
    ['loopback', 'https://127.0.0.1/hook'],
    ['loopback IPv6', 'https://[::1]/hook'],
    ['private', 'https://10.1.2.3/hook'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['a name that resolves to loopback', 'https://loopback.example.org/hook'],
    ['a name that does not resolve', 'https://nowhere.example.org/hook'],
    ['credentials in the URL', 'https://user:pw@hooks.example.org/'],
  ])('refuses %s at creation (400, naming url)', async (_what, url) => {
    records.set('loopback.example.org', '127.0.0.1');
    records.set('hooks.example.org', '93.184.216.34');
    const res = await strict.api('POST', '/webhooks', { token: strictAdmin, body: { url, events: ['song.created'] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['url']);
  });

  it('refuses a name that resolved to a public address when made and to loopback when delivered to, sending nothing', async () => {
    const r = await receiver();
    const port = new URL(r.url).port;
    records.set('rebind.example.org', '93.184.216.34');
    const made = await strict.api('POST', '/webhooks', { token: strictAdmin, body: { url: `https://rebind.example.org:${port}/hook`, events: ['song.created'] } });
    expect(made.status).toBe(201);
    records.set('rebind.example.org', '127.0.0.1');
    await strict.api('POST', '/songs', { token: strictAdmin, body: songBody('Rebound') });
    await eventually(async () => {
      const [d] = (await strict.api('GET', `/webhooks/${made.body.id}/deliveries`, { token: strictAdmin })).body;
      expect(d).toMatchObject({ attempts: 2, status: 'FAILED', lastResponseCode: null, lastError: expect.stringMatching(/^target refused: .*127\.0\.0\.1/) });
    });
    expect(r.received).toEqual([]);
  });
});

