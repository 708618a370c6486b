import zlib from 'node:zlib';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Regressions over real HTTP: undecodable paths, corrupt or
 * unsupported compressed bodies, impossible dates, and credentials outside the Bearer scheme.
 */
let s: TestServer;
let admin: string;
/** Every log line the server writes at warn level or above. */
const logLines: string[] = [];

beforeAll(async () => {
  s = await startTestServer({ LOG_LEVEL: 'warn' }, { write: (line: string) => void logLines.push(line) });
  admin = await s.adminToken();
});
afterAll(() => s.close());
beforeEach(() => {
  logLines.length = 0;
});

const contractError = (code: string) => ({ error: expect.objectContaining({ code, message: expect.any(String) }) });
const graphqlError = (code: string) => ({ errors: [expect.objectContaining({ extensions: { code } })] });

describe('a path that is not valid percent-encoded UTF-8 is 400 BAD_REQUEST, not a logged 500', () => {
  const REST = [
    ['GET', '/api/v1/songs/%ZZ'],
    ['GET', '/api/v1/songs/byArtist/%ED%A0%80'], // a lone UTF-16 surrogate, as UTF-8 bytes
    ['GET', '/api/v1/songs/byArtist/%E2%82'], // a truncated sequence
    ['GET', '/api/v1/services/byDate/between/%ZZ/2024-01-01'],
    ['PUT', '/api/v1/services/1/songs/%'],
    ['DELETE', '/api/v1/users/%C0%AF'], // an overlong encoding of '/'
    ['GET', '/api/v1/no/such/%ZZ'], // unknown path: undecodable first
    ['PATCH', '/api/v1/songs/%ZZ'],
    ['GET', '/%ZZ'],
    ['GET', '/healthz/%ZZ'],
  ] as const;

  test.each(REST)('%s %s', async (method, path) => {
    const res = await s.raw(method, path, { token: admin });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(contractError('BAD_REQUEST'));
    expect(logLines).toEqual([]);
  });

  test('HEAD answers 400 too', async () => {
    const res = await s.raw('HEAD', '/api/v1/songs/%ZZ');
    expect(res.status).toBe(400);
    expect(logLines).toEqual([]);
  });

  test('REST errors keep the CORS headers every /api/v1 answer has', async () => {
    const res = await s.raw('GET', '/api/v1/songs/%ZZ', { headers: { origin: 'https://example.org' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, DELETE, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('under /graphql the answer is in GraphQL shape', async () => {
    const res = await s.raw('GET', '/graphql/%ZZ?query=%7B__typename%7D');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(graphqlError('BAD_REQUEST'));
    expect(logLines).toEqual([]);
  });

  test('well-formed encodings still route: %2F inside an id is a bad id, %20 in an artist is a space', async () => {
    expect((await s.api('GET', '/songs/1%2F2')).status).toBe(400);
    const made = await s.api('POST', '/songs', { token: admin, body: { name: 'Enc', artists: ['Two Words'] } });
    const res = await s.api('GET', '/songs/byArtist/two%20words');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([made.body]);
  });
});

describe('a body that cannot be decoded as its Content-Encoding says is 400, on both facades', () => {
  const song = JSON.stringify({ name: 'Compressed', artists: ['Zip'] });
  const corrupt: Record<string, Buffer> = {
    gzip: Buffer.from('this is not gzip'),
    deflate: Buffer.from('this is not deflate'),
    br: Buffer.from([0xff, 0xff, 0xff, 0xff, 0x00]),
    'gzip (truncated)': zlib.gzipSync(song).subarray(0, 12),
  };

  async function send(path: string, encoding: string, body: Buffer, token?: string) {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-encoding': encoding };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${s.url}${path}`, { method: 'POST', headers, body: new Uint8Array(body) });
    return { status: res.status, body: await res.json() };
  }

  test.each(Object.entries(corrupt))('REST, %s', async (label, body) => {
    const res = await send('/api/v1/songs', label.split(' ')[0], body, admin);
    expect(res).toEqual({ status: 400, body: contractError('BAD_REQUEST') });
    expect(logLines).toEqual([]);
  });

  test.each(Object.entries(corrupt))('GraphQL, %s', async (label, body) => {
    const res = await send('/graphql', label.split(' ')[0], body);
    expect(res).toEqual({ status: 400, body: graphqlError('BAD_REQUEST') });
    expect(logLines).toEqual([]);
  });

  test.each(['compress', 'x-unknown', 'gzip, gzip'])('an unsupported encoding (%s) is 400 on both', async (encoding) => {
    expect(await send('/api/v1/songs', encoding, Buffer.from(song), admin)).toEqual({
      status: 400,
      body: contractError('BAD_REQUEST'),
    });
    expect(await send('/graphql', encoding, Buffer.from('{"query":"{__typename}"}'))).toEqual({
      status: 400,
      body: graphqlError('BAD_REQUEST'),
    });
  });

  test('the 100 KiB limit counts decompressed bytes: a small gzip bomb is 413 on both', async () => {
    const bomb = zlib.gzipSync(JSON.stringify({ name: 'x'.repeat(200_000) }));
    expect(bomb.length).toBeLessThan(1000);
    expect(await send('/api/v1/songs', 'gzip', bomb, admin)).toEqual({ status: 413, body: contractError('PAYLOAD_TOO_LARGE') });
    expect(await send('/graphql', 'gzip', bomb)).toEqual({ status: 413, body: graphqlError('PAYLOAD_TOO_LARGE') });
  });

  test('a well-formed gzip body is still read', async () => {
    const res = await send('/api/v1/songs', 'gzip', zlib.gzipSync(song), admin);
    expect(res).toEqual({ status: 201, body: { id: expect.any(Number), name: 'Compressed', artists: ['Zip'] } });
  });
});

describe('dates are read strictly: impossible offsets and fields are refused, never rolled over', () => {
  const IMPOSSIBLE = [
    '2024-01-07T10:00:00-99:99',
    '2024-01-07T10:00:00+24:00',
    '2024-01-07T10:00:00+14:01',
    '2024-01-07T10:00:00-12:01',
    '2024-01-07T10:00:00+05:60',
    '2024-01-07T24:00:00Z',
    '2024-02-30T10:00:00Z',
    '2023-02-29T10:00:00Z',
    '2024-13-01T10:00:00Z',
    '2024-01-07T10:60Z',
    '2024-01-07T10:00:60Z',
  ];

  test.each(IMPOSSIBLE)('REST body date %s is 400 VALIDATION_FAILED and nothing is stored', async (date) => {
    const before = await s.api('GET', '/services');
    const res = await s.api('POST', '/services', { token: admin, body: { date, serviceType: 'SUN_AM' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'date' })]);
    expect((await s.api('GET', '/services')).body).toEqual(before.body);
  });

  test.each(IMPOSSIBLE)('REST date bound %s is 400 BAD_REQUEST', async (date) => {
    const res = await s.api('GET', `/services/byDate/after/${encodeURIComponent(date)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(contractError('BAD_REQUEST'));
  });

  test.each(IMPOSSIBLE)('GraphQL Timestamp %s is refused, as a literal and as a variable', async (date) => {
    const literal = await s.gql(`mutation { createService(date: "${date}", serviceType: SUN_AM) { id } }`, undefined, admin);
    expect(literal.status).toBe(400);
    expect(literal.body.errors[0].message).toMatch(/Timestamp/);
    const variable = await s.gql(
      'mutation($d: Timestamp!) { createService(date: $d, serviceType: SUN_AM) { id } }',
      { d: date },
      admin,
    );
    expect(variable.status).toBe(400);
    expect(variable.body.errors[0].message).toMatch(/Timestamp/);
  });

  test.each([
    ['2024-01-07T10:00:00+14:00', Date.UTC(2024, 0, 6, 20)],
    ['2024-01-07T10:00:00-12:00', Date.UTC(2024, 0, 7, 22)],
    ['2024-01-07T10:00:00+0530', Date.UTC(2024, 0, 7, 4, 30)],
    ['2024-01-07T10:00-03', Date.UTC(2024, 0, 7, 13)],
    ['2024-02-29T23:59:59.999Z', Date.UTC(2024, 1, 29, 23, 59, 59, 999)],
    ['2024-01-07t10:00:00z', Date.UTC(2024, 0, 7, 10)],
  ])('a valid date-time %s is the instant it names', async (date, ms) => {
    const res = await s.api('POST', '/services', { token: admin, body: { date, serviceType: 'WED' } });
    expect(res.status).toBe(201);
    expect(res.body.date).toBe(ms);
  });
});

describe('a credential outside the Bearer scheme is no token', () => {
  const song = { name: 'Schemeless', artists: ['Nobody'] };

  test.each([
    ['a bare JWT', (t: string) => t],
    ['another scheme', (t: string) => `Token ${t}`],
    ['Basic', () => 'Basic YWRtaW46YWRtaW4tcGFzc3dvcmQtMQ=='],
    ['Bearer with no token', () => 'Bearer'],
    ['Bearer with two tokens', (t: string) => `Bearer ${t} ${t}`],
  ])('%s on a write is 401 with WWW-Authenticate: Bearer and creates nothing', async (_label, header) => {
    const before = await s.api('GET', '/songs');
    const res = await s.api('POST', '/songs', { headers: { authorization: header(admin) }, body: song });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.body).toEqual(contractError('UNAUTHENTICATED'));
    expect((await s.api('GET', '/songs')).body).toEqual(before.body);

    const gql = await s.raw('POST', '/graphql', {
      headers: { authorization: header(admin) },
      body: { query: 'mutation { createSong(name: "S", artists: ["A"]) { id } }' },
    });
    expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  test('a bare JWT is told which scheme to use', async () => {
    const res = await s.api('GET', '/users/me', { headers: { authorization: admin } });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/Bearer/);
  });

  test('on a public read it is ignored: served as anonymous', async () => {
    const res = await s.api('GET', '/songs', { headers: { authorization: admin } });
    expect(res.status).toBe(200);
  });

  test.each(['Bearer', 'bearer', 'BEARER'])('the scheme name is case-insensitive (%s)', async (scheme) => {
    const res = await s.api('GET', '/users/me', { headers: { authorization: `${scheme} ${admin}` } });
    expect(res.status).toBe(200);
    expect(res.body.username).toBe('admin');
  });
});
