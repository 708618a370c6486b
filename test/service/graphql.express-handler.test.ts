import { parse } from 'node:url';
import fc from 'fast-check';
import { searchOf } from '../../src/graphql/express-handler';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * /graphql runs on Apollo's integration API with the query string cut from the URL instead of
 * parsed with `url.parse` (src/graphql/express-handler.ts): what Apollo reads of it must be the same.
 */
describe('searchOf', () => {
  const read = (search: string) => [...new URLSearchParams(search)];

  test.each([
    '/graphql',
    '/graphql?',
    '/graphql?query={song(id:1){id}}',
    '/graphql?query=%7Bsong(id%3A1)%7Bid%7D%7D&variables=%7B%7D',
    '/graphql?a=1#frag?b=2',
    '/graphql#only-a-fragment',
    '/graphql#frag?b=2',
    "/graphql?q='\"<>`|\\^&x=a+b%20c",
    '/graphql?a=%zz&b=%7',
  ])('%s: the same string as url.parse, or the same parameters', (url) => {
    const expected = parse(url).search ?? '';
    expect(read(searchOf(url))).toEqual(read(expected));
    // Where url.parse escapes nothing the strings themselves are equal.
    if (!/[{}'"<>`|\\^ ]/.test(url)) expect(searchOf(url)).toBe(expected);
  });

  test('any request target reads as the same parameters', () => {
    fc.assert(
      // Printable ASCII, weighted to the characters that delimit or escape (a request line carries
      // no spaces or control characters).
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('?', '#', '&', '=', '%', '+', '{', "'"), fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 })) }), (tail) => {
        const url = `/graphql${tail.replace(/[\x00-\x20\x7f]/g, '')}`;
        expect(read(searchOf(url))).toEqual(read(parse(url).search ?? ''));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('/graphql over HTTP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  test('GET reads the operation and its variables from the query string', async () => {
    const query = encodeURIComponent('query One($id: Int!) { song(id: $id) { id } }');
    const res = await s.raw('GET', `/graphql?query=${query}&variables=${encodeURIComponent('{"id":1}')}#ignored`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { song: null } });
  });

  test('POST answers with Apollo status, headers and body as they are', async () => {
    const res = await s.gql('{ nope }');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });
});
