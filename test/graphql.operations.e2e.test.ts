import { startTestServer, type Reply, type TestServer } from './helpers/server';

/**
 * Which operation runs (issue 8, defect 1). Operations are compiled once and cached; the cache
 * must never run an operation other than the one the request names, whichever ran before it.
 */

let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.adminToken();
});
afterAll(() => s.close());

const post = (query: string, operationName?: string, token = admin) =>
  s.raw('POST', '/graphql', { body: { query, operationName }, token });
const get = (query: string, operationName?: string, token = admin) => {
  const params = new URLSearchParams({ query, ...(operationName ? { operationName } : {}) });
  return s.raw('GET', `/graphql?${params}`, { token });
};
const songNames = async () => ((await s.api('GET', '/songs')).body as { name: string }[]).map((x) => x.name);

function expectBadRequest(res: Reply, message: RegExp): void {
  expect(res.status).toBe(400);
  expect(res.body.errors).toEqual([{ message: expect.stringMatching(message), extensions: { code: 'BAD_REQUEST' } }]);
  expect(res.body).not.toHaveProperty('data');
}

describe('a document with several operations', () => {
  const DOC = 'query ListSongs { songs { name } } mutation AddSong($n: String!) { createSong(name: $n) { name } } query Count { songs { id } }';

  test('runs exactly the operation named, in any order of requests', async () => {
    const added = await s.raw('POST', '/graphql', {
      body: { query: DOC, operationName: 'AddSong', variables: { n: 'Added by name' } },
      token: admin,
    });
    expect(added.body).toEqual({ data: { createSong: { name: 'Added by name' } } });
    const listed = await post(DOC, 'ListSongs');
    expect(listed.body).toEqual({ data: { songs: [{ name: 'Added by name' }] } });
    const counted = await post(DOC, 'Count');
    expect(counted.body).toEqual({ data: { songs: [{ id: expect.any(Number) }] } });
    // Back to the first: still only one song.
    expect((await post(DOC, 'ListSongs')).body).toEqual({ data: { songs: [{ name: 'Added by name' }] } });
    expect(await songNames()).toEqual(['Added by name']);
  });

  test('after a POST compiled the mutation, a GET naming the query runs the query and writes nothing', async () => {
    const doc = 'query Read { songs { name } } mutation Write { createSong(name: "Written") { name } }';
    expect((await post(doc, 'Write')).body).toEqual({ data: { createSong: { name: 'Written' } } });
    const before = await songNames();
    const read = await get(doc, 'Read');
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ data: { songs: before.map((name) => ({ name })) } });
    expect(await songNames()).toEqual(before);
  });

  test('a GET naming the mutation is refused (405), also once it is compiled, and writes nothing', async () => {
    const doc = 'query Read2 { songs { name } } mutation Write2 { createSong(name: "Via GET") { name } }';
    await post(doc, 'Read2');
    await post('mutation Write2 { createSong(name: "Warm-up") { name } }');
    const before = await songNames();
    const res = await get(doc, 'Write2');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.errors).toEqual([{ message: expect.stringMatching(/GET requests only support query/), extensions: { code: 'BAD_REQUEST' } }]);
    expect(await songNames()).toEqual(before);
  });

  test('an operationName that names no operation is 400 BAD_REQUEST, before and after compiling', async () => {
    expectBadRequest(await post(DOC, 'Nope'), /Unknown operation named "Nope"/);
    await post(DOC, 'ListSongs');
    expectBadRequest(await post(DOC, 'Nope'), /Unknown operation named "Nope"/);
    expectBadRequest(await get(DOC, 'Nope'), /Unknown operation named "Nope"/);
  });

  test('no operationName with several operations is 400 BAD_REQUEST', async () => {
    await post(DOC, 'ListSongs');
    expectBadRequest(await post(DOC), /Must provide operation name/);
  });
});

describe('a document with one operation', () => {
  test('runs under its own name or none, and a wrong name is 400, also once compiled', async () => {
    const doc = 'query Only { songs { name } }';
    expect((await post(doc)).status).toBe(200);
    expect((await post(doc, 'Only')).status).toBe(200);
    expectBadRequest(await post(doc, 'Other'), /Unknown operation named "Other"/);
    expectBadRequest(await get(doc, 'Other'), /Unknown operation named "Other"/);
  });

  test('an anonymous mutation named by the client is not run', async () => {
    const before = await songNames();
    const doc = 'mutation { createSong(name: "Anonymous") { name } }';
    expectBadRequest(await post(doc, 'Named'), /Unknown operation named "Named"/);
    expect(await songNames()).toEqual(before);
  });
});

test('an empty operationName names no operation: 400, and nothing runs', async () => {
  const before = await songNames();
  expectBadRequest(await post('mutation { createSong(name: "Empty name") { name } }', ''), /Unknown operation named ""/);
  expectBadRequest(await post('query { songs { name } }', ''), /Unknown operation named ""/);
  expect(await songNames()).toEqual(before);
});
