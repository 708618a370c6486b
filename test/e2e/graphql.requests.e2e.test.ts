import { createHash } from 'node:crypto';
import { startTestServer, type Reply, type TestServer } from '../helpers/server';

/**
 * Requests to /graphql off the happy path. Which operation runs: operations are compiled
 * once and cached, and the cache must never run an operation other than the one the request
 * names, whichever ran before it (defect 1). Client mistakes carry a contract code (defect 5,
 * docs/API.md): never one of Apollo's own codes, never INTERNAL, and a message that says what was
 * wrong.
 */

let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.adminToken();
});
afterAll(() => s.close());

const post = (body: Record<string, unknown>, token?: string) => s.raw('POST', '/graphql', { body, token });
/** Operation `operationName` of `query`, as the admin (so a mutation would run if chosen). */
const run = (query: string, operationName?: string) => post({ query, operationName }, admin);
const runGet = (query: string, operationName?: string) => {
  const params = new URLSearchParams({ query, ...(operationName !== undefined ? { operationName } : {}) });
  return s.raw('GET', `/graphql?${params}`, { token: admin });
};
const songNames = async () => ((await s.api('GET', '/songs')).body as { name: string }[]).map((x) => x.name);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** One error, the given status and code, a message matching `message`, and no data. */
function expectMistake(res: Reply, message: RegExp, status = 400, code = 'BAD_REQUEST'): void {
  expect({ status: res.status, errors: res.body.errors }).toEqual({
    status,
    errors: [expect.objectContaining({ message: expect.stringMatching(message), extensions: { code } })],
  });
  expect(res.body).not.toHaveProperty('data');
}

describe('a document with several operations', () => {
  const DOC = 'query ListSongs { songs { name } } mutation AddSong($n: String!) { createSong(name: $n) { name } } query Count { songs { id } }';

  test('runs exactly the operation named, in any order of requests', async () => {
    const added = await post({ query: DOC, operationName: 'AddSong', variables: { n: 'Added by name' } }, admin);
    expect(added.body).toEqual({ data: { createSong: { name: 'Added by name' } } });
    const listed = await run(DOC, 'ListSongs');
    expect(listed.body).toEqual({ data: { songs: [{ name: 'Added by name' }] } });
    const counted = await run(DOC, 'Count');
    expect(counted.body).toEqual({ data: { songs: [{ id: expect.any(Number) }] } });
    // Back to the first: still only one song.
    expect((await run(DOC, 'ListSongs')).body).toEqual({ data: { songs: [{ name: 'Added by name' }] } });
    expect(await songNames()).toEqual(['Added by name']);
  });

  test('after a POST compiled the mutation, a GET naming the query runs the query and writes nothing', async () => {
    const doc = 'query Read { songs { name } } mutation Write { createSong(name: "Written") { name } }';
    expect((await run(doc, 'Write')).body).toEqual({ data: { createSong: { name: 'Written' } } });
    const before = await songNames();
    const read = await runGet(doc, 'Read');
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ data: { songs: before.map((name) => ({ name })) } });
    expect(await songNames()).toEqual(before);
  });

  test('a GET naming the mutation is refused (405), also once it is compiled, and writes nothing', async () => {
    const doc = 'query Read2 { songs { name } } mutation Write2 { createSong(name: "Via GET") { name } }';
    await run(doc, 'Read2');
    await run('mutation Write2 { createSong(name: "Warm-up") { name } }');
    const before = await songNames();
    const res = await runGet(doc, 'Write2');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.errors).toEqual([{ message: expect.stringMatching(/GET requests only support query/), extensions: { code: 'BAD_REQUEST' } }]);
    expect(await songNames()).toEqual(before);
  });

  test('an operationName that names no operation is 400 BAD_REQUEST, before and after compiling', async () => {
    expectMistake(await run(DOC, 'Nope'), /Unknown operation named "Nope"/);
    await run(DOC, 'ListSongs');
    expectMistake(await run(DOC, 'Nope'), /Unknown operation named "Nope"/);
    expectMistake(await runGet(DOC, 'Nope'), /Unknown operation named "Nope"/);
  });

  test('every validation problem of a document is one error, each BAD_REQUEST, and nothing runs', async () => {
    const res = await run('{ songs { nope also: alsoNot } }');
    expect(res.status).toBe(400);
    expect(res.body).not.toHaveProperty('data');
    expect(res.body.errors.map((e: { message: string; extensions: { code: string } }) => [e.message.match(/"(\w+)"/)?.[1], e.extensions.code])).toEqual([
      ['nope', 'BAD_REQUEST'],
      ['alsoNot', 'BAD_REQUEST'],
    ]);
  });

  test('no operationName with several operations is 400 BAD_REQUEST', async () => {
    await run(DOC, 'ListSongs');
    expectMistake(await run(DOC), /Must provide operation name/);
  });
});

describe('a document with one operation', () => {
  test('runs under its own name or none, and a wrong name is 400, also once compiled', async () => {
    const doc = 'query Only { songs { name } }';
    expect((await run(doc)).status).toBe(200);
    expect((await run(doc, 'Only')).status).toBe(200);
    expectMistake(await run(doc, 'Other'), /Unknown operation named "Other"/);
    expectMistake(await runGet(doc, 'Other'), /Unknown operation named "Other"/);
  });

  test('an anonymous mutation named by the client is not run', async () => {
    const before = await songNames();
    const doc = 'mutation { createSong(name: "Anonymous") { name } }';
    expectMistake(await run(doc, 'Named'), /Unknown operation named "Named"/);
    expect(await songNames()).toEqual(before);
  });
});

test('an empty operationName names no operation: 400, and nothing runs', async () => {
  const before = await songNames();
  expectMistake(await run('mutation { createSong(name: "Empty name") { name } }', ''), /Unknown operation named ""/);
  expectMistake(await run('query { songs { name } }', ''), /Unknown operation named ""/);
  expect(await songNames()).toEqual(before);
});

describe('variables', () => {
  const BY_ID = 'query($id: Int!) { song(id: $id) { id } }';

  test.each([
    ['a string for an Int', { id: 'one' }, /Variable "\$id" got invalid value "one"; Expected type Int/],
    ['an object for an Int', { id: { a: 1 } }, /Variable "\$id" got invalid value/],
    ['an Int beyond 32 bits', { id: 2 ** 40 }, /non 32-bit signed integer/],
    ['null for a non-null Int', { id: null }, /Variable "\$id" of non-null type "Int!" must not be null/],
    ['nothing for a required Int', undefined, /Variable "\$id" of required type "Int!" was not provided/],
  ])('%s is BAD_REQUEST', async (_label, variables, message) => {
    expectMistake(await post({ query: BY_ID, variables }), message);
  });

  test('an unknown enum value is BAD_REQUEST and writes nothing', async () => {
    const before = (await s.api('GET', '/services')).body;
    const res = await post(
      { query: 'mutation($t: ServiceType!) { createService(date: 0, serviceType: $t) { id } }', variables: { t: 'FRIDAY' } },
      admin,
    );
    expectMistake(res, /Expected type ServiceType/);
    expect((await s.api('GET', '/services')).body).toEqual(before);
  });

  test('an undeclared type for a variable is BAD_REQUEST', async () => {
    expectMistake(await post({ query: 'query($id: ID!) { song(id: $id) { id } }', variables: { id: '1' } }), /Unknown type "ID"/);
  });
});

describe('operations', () => {
  test('a subscription is BAD_REQUEST, not a server fault', async () => {
    expectMistake(await post({ query: 'subscription { songChanged { id } }' }), /served over WebSocket at \/graphql/);
  });

  test('an unknown operationName is BAD_REQUEST', async () => {
    expectMistake(await post({ query: 'query A { songs { id } }', operationName: 'B' }), /Unknown operation named "B"/);
  });
});

describe('automatic persisted queries', () => {
  const QUERY = '{ songs { id name } }';

  test('a hash that does not match the query is BAD_REQUEST', async () => {
    const res = await post({ query: QUERY, extensions: { persistedQuery: { version: 1, sha256Hash: sha256('other') } } });
    expectMistake(res, /provided sha does not match query/);
  });

  test('an unsupported version is BAD_REQUEST', async () => {
    const res = await post({ query: QUERY, extensions: { persistedQuery: { version: 2, sha256Hash: sha256(QUERY) } } });
    expectMistake(res, /Unsupported persisted query version/);
  });

  test('an unknown hash is BAD_REQUEST with the message APQ clients look for; registering it then works', async () => {
    const query = '{ songsByArtist(artist: "Nobody Wrote This") { name } }';
    const persistedQuery = { version: 1, sha256Hash: sha256(query) };
    // Apollo's protocol answers this one with 200, and clients retry with the query text.
    expectMistake(await post({ extensions: { persistedQuery } }), /^PersistedQueryNotFound$/, 200);
    expect((await post({ query, extensions: { persistedQuery } })).body).toEqual({ data: { songsByArtist: [] } });
    expect((await post({ extensions: { persistedQuery } })).body).toEqual({ data: { songsByArtist: [] } });
  });
});

describe('limits say which limit was exceeded', () => {
  test('a 5,000-deep list literal is BAD_REQUEST naming the nesting limit', async () => {
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    expectMistake(await post({ query: `{ songs(limit: ${deep}) { id } }` }), /^Nesting limit of 128 exceeded, found 5002:/);
  });

  test('so is a 3,000-deep selection, also over GET', async () => {
    const deep = (n: number) => `${'{ songs '.repeat(n)}{ id }${' }'.repeat(n)}`;
    expectMistake(await post({ query: deep(3000) }), /^Nesting limit of 128 exceeded, found 3001:/);
    const get = await s.raw('GET', `/graphql?query=${encodeURIComponent(deep(600))}`);
    expectMistake(get, /^Nesting limit of 128 exceeded, found 601:/);
  });

  test('brackets in strings and comments do not count', async () => {
    const res = await post({ query: `{ songsByArtist(artist: "${'['.repeat(500)}") { id } } # ${'{'.repeat(500)}` });
    expect(res.body).toEqual({ data: { songsByArtist: [] } });
  });

  test('depth, cost and alias limits are not called syntax errors', async () => {
    const deep = `{ ${'songs { services { '.repeat(6)} id ${'} } '.repeat(6)} }`;
    const aliases = `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: songs { id }`).join(' ')} }`;
    for (const [query, message] of [
      [deep, /^Query depth limit of 10 exceeded, found 13\.$/],
      [aliases, /^Aliases limit of 15 exceeded, found 16\.$/],
    ] as const) {
      const res = await post({ query });
      expect(res.status).toBe(400);
      expect(res.body.errors).toContainEqual(expect.objectContaining({ message: expect.stringMatching(message), extensions: { code: 'BAD_REQUEST' } }));
      expect(res.text).not.toContain('Syntax Error');
    }
  });

  test('a real syntax error still says so', async () => {
    expectMistake(await post({ query: '{ songs { ' }), /^Syntax Error: Expected Name, found <EOF>\.$/);
  });
});

test('no answer carries one of Apollo\'s own codes', async () => {
  const answers = await Promise.all([
    post({ query: '{ nope }' }),
    post({ query: '{ songs(limit: "x") { id } }' }),
    post({ query: 'query($l: Int) { songs(limit: $l) { id } }', variables: { l: 'x' } }),
    post({ query: 'subscription { songs { id } }' }),
    post({ extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }),
    post({ query: 'query A { songs { id } } query B { songs { id } }' }),
    s.raw('GET', `/graphql?query=${encodeURIComponent('mutation { deleteSong(id: 1) }')}`),
  ]);
  for (const res of answers) {
    expect(res.status).toBeLessThan(500);
    for (const error of res.body.errors) expect(error.extensions.code).toBe('BAD_REQUEST');
  }
});

describe('how an answer is written (src/graphql/express-handler.ts)', () => {
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

  it('sends JSON in UTF-8 with its length in bytes, short or long, with characters beyond ASCII', async () => {
    const name = 'Ångström — 主の祈り 🎵';
    const make = () => run(`mutation { createSong(name: "${name}", artists: ["Zoë"]) { id name } }`);
    const made = await make();
    expect(made.body.errors).toBeUndefined();
    // Enough of them for an answer over 1,000 characters.
    for (let i = 0; i < 20; i++) await make();
    // Uncompressed (compression drops Content-Length): what is measured is the handler's own write.
    const plain = (query: string) => s.raw('POST', '/graphql', { body: { query }, headers: { 'accept-encoding': 'identity' } });
    const short = await plain(`{ song(id: ${made.body.data.createSong.id}) { name artists } }`);
    expect(short.text.length).toBeLessThan(1000);
    expect(short.body.data.song).toEqual({ name, artists: ['Zoë'] });
    const long = await plain('{ songsByArtist(artist: "Zoë") { id name artists } }');
    expect(long.text.length).toBeGreaterThanOrEqual(1000);
    expect(long.text).toContain(name);
    for (const answer of [short, long]) {
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Number(answer.headers.get('content-length'))).toBe(bytes(answer.text));
    }
  });

  it('gives a HEAD request the headers without a body', async () => {
    const query = encodeURIComponent('{ songs(limit: 1) { id } }');
    const head = await s.raw('HEAD', `/graphql?query=${query}`);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toMatch(/charset=utf-8/);
  });

  it("adds the charset to the landing page's HTML, as Express's res.send does", async () => {
    const open = await startTestServer({ GRAPHQL_INTROSPECTION: 'true' });
    try {
      const page = await open.raw('GET', '/graphql', { headers: { accept: 'text/html', 'accept-encoding': 'identity' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(Number(page.headers.get('content-length'))).toBe(bytes(page.text));
    } finally {
      await open.close();
    }
  });
});
