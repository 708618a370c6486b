import { createHash } from 'node:crypto';
import { startTestServer, type Reply, type TestServer } from './helpers/server';

/**
 * Client mistakes on /graphql carry a contract code (issue 8, defect 5; CONTRACT §5): never one of
 * Apollo's own codes, never INTERNAL, and a message that says what was wrong.
 */

let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.adminToken();
});
afterAll(() => s.close());

const post = (body: Record<string, unknown>, token?: string) => s.raw('POST', '/graphql', { body, token });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** One error, the given status and code, a message matching `message`, and no data. */
function expectMistake(res: Reply, message: RegExp, status = 400, code = 'BAD_REQUEST'): void {
  expect({ status: res.status, errors: res.body.errors }).toEqual({
    status,
    errors: [expect.objectContaining({ message: expect.stringMatching(message), extensions: { code } })],
  });
  expect(res.body.data ?? null).toBeNull();
}

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
    expectMistake(await post({ query: 'subscription { songs { id } }' }), /Subscriptions are not supported/);
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
    const query = '{ songs { name } }';
    const persistedQuery = { version: 1, sha256Hash: sha256(query) };
    // Apollo's protocol answers this one with 200, and clients retry with the query text.
    expectMistake(await post({ extensions: { persistedQuery } }), /^PersistedQueryNotFound$/, 200);
    expect((await post({ query, extensions: { persistedQuery } })).body).toEqual({ data: { songs: [] } });
    expect((await post({ extensions: { persistedQuery } })).body).toEqual({ data: { songs: [] } });
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
