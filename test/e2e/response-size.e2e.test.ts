import v8 from 'node:v8';
import vm from 'node:vm';
import { oversize } from '../../src/http/response-size';
import { startTestServer, type Reply, type TestServer } from '../helpers/server';

/**
 * The answer bound (MAX_RESPONSE_BYTES, docs/API.md): an answer larger than the bound is never
 * sent, on either facade. It is refused with 400 BAD_REQUEST naming its size and the bound (never
 * a 5xx, never a cut body), and nothing of it stays in memory.
 */

describe('oversize: the measure', () => {
  test('the bound is in UTF-8 bytes, inclusive', () => {
    expect(oversize('x'.repeat(2000), 2000)).toBeUndefined();
    expect(oversize('x'.repeat(2001), 2000)?.message).toMatch(/^The answer would be 2001 bytes, over the limit of 2000 \(MAX_RESPONSE_BYTES\)/);
    expect(oversize('é'.repeat(1000), 2000)).toBeUndefined();
    expect(oversize('é'.repeat(1001), 2000)?.code).toBe('BAD_REQUEST');
    expect(oversize('€'.repeat(700), 2100)).toBeUndefined();
    expect(oversize('€'.repeat(701), 2100)).toBeDefined();
  });
});

const SONGS = 1500;
const NAME = 'A long song name, sung in many services over many years, '.repeat(4).slice(0, 200);
const BOUND = 64 * 1024;

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ MAX_RESPONSE_BYTES: String(BOUND) });
  // About 330 KB of songs: five times the bound.
  for (let i = 0; i < SONGS; i++) await s.store.createSong({ name: `${NAME} ${i}`, artists: ['Someone'] });
}, 120_000);
afterAll(() => s.close());

function expectTooLarge(res: Reply, restShape: boolean) {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const error = restShape ? res.body.error : res.body.errors[0];
  expect(error.code ?? error.extensions.code).toBe('BAD_REQUEST');
  expect(error.message).toMatch(new RegExp(`^The answer would be \\d+ bytes, over the limit of ${BOUND} \\(MAX_RESPONSE_BYTES\\)`));
  expect(Number(/would be (\d+) bytes/.exec(error.message)![1])).toBeGreaterThan(BOUND);
  expect(res.text.length).toBeLessThan(1000);
}

describe('an answer over MAX_RESPONSE_BYTES', () => {
  test('GraphQL: refused with 400 BAD_REQUEST and no data', async () => {
    const res = await s.gql('{ songs(limit: 1000) { id name artists } }');
    expectTooLarge(res, false);
    expect(res.body).not.toHaveProperty('data');
    // Under the bound, the same field answers.
    const small = await s.gql('{ songs(limit: 100) { id name artists } }');
    expect(small.status).toBe(200);
    expect(small.body.data.songs).toHaveLength(100);
    expect(Buffer.byteLength(small.text)).toBeLessThanOrEqual(BOUND);
  });

  test('GraphQL: the same over GET and with variables', async () => {
    const q = 'query Q($n: Int) { songs(limit: $n) { name } }';
    expectTooLarge(await s.gql(q, { n: 1000 }), false);
    expectTooLarge(await s.raw('GET', `/graphql?query=${encodeURIComponent(q)}&variables=${encodeURIComponent('{"n":1000}')}`), false);
  });

  test('REST: a whole list is refused, a page answers', async () => {
    const res = await s.api('GET', '/songs');
    expectTooLarge(res, true);
    // The refusal describes no list.
    expect(res.headers.get('x-total-count')).toBeNull();
    const page = await s.api('GET', '/songs?limit=50');
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(50);
    expect(page.headers.get('x-total-count')).toBe(String(SONGS));
  });

  test('REST: the CSV usage report too', async () => {
    const res = await s.api('GET', '/reports/songUsage?includeUnsung=true&format=csv');
    expectTooLarge(res, true);
    const page = await s.api('GET', '/reports/songUsage?includeUnsung=true&format=csv&limit=20');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  });

  test('nothing of a refused answer is kept', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const refuse = async () => {
      expect((await s.api('GET', '/songs')).status).toBe(400);
      expect((await s.gql('{ songs(limit: 1000) { id name artists } }')).status).toBe(400);
    };
    // Caches (compiled operations, documents, prepared statements) fill on first use.
    for (let i = 0; i < 3; i++) await refuse();
    const before = heap();
    const rounds = 40;
    for (let i = 0; i < rounds; i++) await refuse();
    const grown = heap() - before;
    // Each round builds about 650 KB of answers (26 MB in all); what stays is noise.
    expect(grown).toBeLessThan(4 * 1024 * 1024);
  });
});

describe('the default bound', () => {
  test('is 10 MiB', async () => {
    const { loadConfig } = await import('../../src/config');
    expect(loadConfig({}).maxResponseBytes).toBe(10 * 1024 * 1024);
  });
});
