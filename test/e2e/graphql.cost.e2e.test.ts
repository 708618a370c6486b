import fs from 'node:fs';
import path from 'node:path';
import { parse, validate } from 'graphql';
import { buildSchema } from '../../src/graphql/schema';
import { startTestServer, tempDbPath, type Reply, type TestServer } from '../helpers/server';
import { seedTestStore } from '../helpers/test-store';

/**
 * The GraphQL cost limit over real HTTP, on the demo data (docs/API.md, GraphQL: Limits): list
 * sizes count, whether written as literals or passed as variables, the refusal is a 400
 * BAD_REQUEST naming the cost and the limit and runs nothing, and every query the documentation
 * and the Insights page send stays under the default limit.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const ATTACK = '{ services(limit:1000){ id songs(limit:1000){ id services(limit:1000){ id songs(limit:1000){ id } } } } }';
const ATTACK_COST = 10_200_202_001;

let s: TestServer;
let dbPath: string;

beforeAll(async () => {
  dbPath = tempDbPath();
  await seedTestStore(dbPath);
  s = await startTestServer({ SQLITE_PATH: dbPath });
}, 120_000);
afterAll(() => s.close());

function expectRefused(res: Reply, cost: number, limit = 50000) {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    errors: [{ message: `Query Cost limit of ${limit} exceeded, found ${cost}.`, extensions: { code: 'BAD_REQUEST' } }],
  });
}

const costErrors = (res: Reply) =>
  ((res.body as { errors?: { message: string }[] }).errors ?? []).filter((e) => /Cost limit/.test(e.message));

describe('list sizes count', () => {
  test('the four nested lists of 1000 are refused before they run, naming cost and limit', async () => {
    expectRefused(await s.gql(ATTACK), ATTACK_COST);
    const get = await s.raw('GET', `/graphql?query=${encodeURIComponent(ATTACK)}`);
    expectRefused(get, ATTACK_COST);
  });

  test('the same lists sized by a variable are refused the same way', async () => {
    const q = 'query Q($n: Int) { services(limit: $n) { id songs(limit: $n) { id services(limit: $n) { id songs(limit: $n) { id } } } } }';
    expectRefused(await s.gql(q, { n: 1000 }), ATTACK_COST);
    // Small sizes answer.
    const small = await s.gql(q, { n: 2 });
    expect(small.status).toBe(200);
    expect(small.body.data.services).toHaveLength(2);
  });

  test('lists returned whole count too: all services with their whole setlists', async () => {
    // A setlist counts at most SETLIST_MAX_SONGS (100); a thousand services of them is still too much.
    expectRefused(await s.gql('{ services { id songs { id } } }'), 1 + 1000 * (1 + 1 + 100));
    const paged = await s.gql('{ services(limit: 100) { id songs(limit: 10) { id } } }');
    expect(paged.status).toBe(200);
    expect(paged.body.data.services).toHaveLength(100);
  });

  test('songsConnection(first: $n) costs the same with a literal and with a variable', async () => {
    const selection = '{ edges { node { id services(limit: 50) { id } } } }';
    const cost = 1 + 1 + 1000 * (1 + 1 + (1 + 50));
    expectRefused(await s.gql(`{ songsConnection(first: 1000) ${selection} }`), cost);
    expectRefused(await s.gql(`query Q($n: Int) { songsConnection(first: $n) ${selection} }`, { n: 1000 }), cost);
    const literal = await s.gql(`{ songsConnection(first: 10) ${selection} }`);
    const variable = await s.gql(`query Q($n: Int) { songsConnection(first: $n) ${selection} }`, { n: 10 });
    expect(literal.status).toBe(200);
    expect(variable.body).toEqual(literal.body);
  });

  test('fragments, inline fragments and aliases count', async () => {
    const viaFragments =
      'fragment S on Service { id songs(limit: 100) { ...G } } fragment G on Song { id ... on Song { services(limit: 100) { id } } }' +
      ' { services(limit: 100) { ...S } }';
    expectRefused(await s.gql(viaFragments), 1 + 100 * (1 + 1 + 100 * (1 + 1 + 100)));
    const one = 'services(limit: 1000) { id songs(limit: 3) { id } }';
    expect((await s.gql(`{ ${one} }`)).status).toBe(200);
    const aliased = `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: ${one}`).join(' ')} }`;
    expectRefused(await s.gql(aliased), 15 * (1 + 1000 * (1 + 1 + 3)));
  });

  test('an operation that is refused runs nothing', async () => {
    const token = await s.adminToken();
    const before = (await s.api('GET', '/songs')).body.length;
    const res = await s.gql('mutation { createSong(name: "Too costly") { id services { id songs { id } } } }', undefined, token);
    expectRefused(res, 1 + 1 + 1 + 1000 * (1 + 1 + 100));
    expect((await s.api('GET', '/songs')).body).toHaveLength(before);
  });

  test('analytics weigh what they did: four reports run, a fifth is refused', async () => {
    const report = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `r${i}: songUsage(limit: 1) { timesSung }`).join(' ')} }`;
    expect((await s.gql(report(4))).body.data.r3).toHaveLength(1);
    expectRefused(await s.gql(report(5)), 5 * (10000 + 1 + 1));
  });

  test('GRAPHQL_MAX_COST sets the limit', async () => {
    const strict = await startTestServer({ SQLITE_PATH: dbPath, GRAPHQL_MAX_COST: '100' });
    try {
      expectRefused(await strict.gql('{ songs(limit: 50) { id name } }'), 101, 100);
      expect((await strict.gql('{ songs(limit: 49) { id name } }')).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('every documented query stays under the default limit', () => {
  const schema = buildSchema();

  interface Documented {
    where: string;
    query: string;
    operationName?: string;
    variables?: Record<string, unknown>;
    /** The answer the docs show for it, when they show one. */
    shown?: string;
  }

  /** Examples the docs give as refused, with the cost they name. */
  const REFUSED_INLINE: Record<string, number> = { '{ services { id songs { id } } }': 102_001 };

  /**
   * GraphQL documents of the docs: curl bodies (`-d '{"query": ...}'`, with the answer on the next
   * line), inline code and ```graphql blocks that are valid operations of the schema.
   */
  function documentedQueries(): Documented[] {
    const files = [path.join(ROOT, 'README.md'), ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, 'docs', f))];
    const found: Documented[] = [];
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      const where = path.relative(ROOT, file);
      for (const m of text.matchAll(/-d '(\{"query".*?\})'\n([^\n]*)/g)) {
        const body = JSON.parse(m[1]) as { query: string; operationName?: string; variables?: Record<string, unknown> };
        found.push({ where, ...body, shown: m[2] });
      }
      for (const m of [...text.matchAll(/`([^`\n]*\{[^`\n]*\})`/g), ...text.matchAll(/```graphql\n([\s\S]*?)```/g)]) {
        try {
          const document = parse(m[1]);
          if (validate(schema, document).length === 0) found.push({ where, query: m[1] });
        } catch {
          // Not GraphQL (a JSON body, a type definition): not a query to send.
        }
      }
    }
    return found;
  }

  test('the docs and the README: under the limit, or refused as they say', async () => {
    const queries = documentedQueries();
    // The ones this test must find, so that a change of format cannot make it vacuous.
    expect(queries.map((q) => q.query)).toEqual(
      expect.arrayContaining([
        '{ service(id: 1) { date serviceType songs { name artists } } }',
        '{ services(limit: 20) { songs(limit: 3) { name } } }',
        expect.stringContaining('songsConnection(first: 2, sort: NAME_ASC)'),
        expect.stringContaining('songsNotSungSince'),
        expect.stringContaining('query Setlists($n: Int = 100)'),
        ...Object.keys(REFUSED_INLINE),
      ]),
    );
    const token = await s.adminToken();
    let refusedAsShown = 0;
    for (const { where, query, operationName, variables, shown } of queries) {
      const res = await s.raw('POST', '/graphql', { body: { query, operationName, variables }, token });
      if (shown?.includes('Cost limit')) {
        // The docs show the refusal: it is that one, word for word.
        expect({ where, answer: res.text.trim() }).toEqual({ where, answer: shown });
        refusedAsShown++;
      } else if (query in REFUSED_INLINE) {
        expectRefused(res, REFUSED_INLINE[query]);
      } else if (costErrors(res).length) {
        throw new Error(`${where}: ${query} is refused: ${res.text}`);
      }
    }
    expect(refusedAsShown).toBeGreaterThanOrEqual(2);
  });

  test("the Insights page's queries, as its own module builds them", async () => {
    const js = (name: string) => fs.readFileSync(path.join(ROOT, 'public/insights/assets/js', name), 'utf8');
    // The page's api.js, run as it is, with a fetch that sends its requests to this server.
    const sent: string[] = [];
    const fetchToServer = async (url: string, init: { body: string; headers: Record<string, string> }) => {
      sent.push((JSON.parse(init.body) as { query: string }).query);
      return fetch(`${s.url}${url}`, { method: 'POST', body: init.body, headers: init.headers });
    };
    const api = new Function('fetch', `${js('api.js').replace(/^export /gm, '')}\nreturn { topSongs, timeline, notSungSince, newSongs, sungWith, anySongs, anyServices, sungOften, songStory };`)(
      fetchToServer,
    ) as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const constant = (name: string) => Number(new RegExp(`const ${name} = (\\d+);`).exec(js('main.js'))![1]);

    const windows = [{}, { from: '2025-01-01', to: '2025-12-31', serviceTypes: ['SUN_AM', 'WED'] }];
    for (const w of windows) {
      await api.topSongs(w, constant('TOP_LIMIT'));
      await api.timeline(w, 'WEEK');
      await api.timeline(w, 'MONTH', undefined, 1);
      await api.newSongs(w);
      await api.sungWith(1, w, 1000);
      await api.sungWith(1, w, constant('WITH_LIMIT'));
      await api.songStory(1, w);
      await api.sungOften(w, 1000, 0);
      await api.anyServices((w as { serviceTypes?: string[] }).serviceTypes);
    }
    await api.notSungSince('2026-01-01', ['SUN_PM']);
    await api.notSungSince('2026-01-01', undefined);
    await api.anySongs();
    // A refused query throws ApiError above; here, that every view was asked.
    expect(sent.length).toBe(windows.length * 9 + 3);
  });
});

/**
 * What front ends send: pages of services with their setlists, a service's setlist, a song with its
 * services, connection pages with usage. Each passes the cost limit for a client with no token.
 */
describe('typical front-end queries pass for an anonymous client', () => {
  const TYPICAL = [
    '{ services(limit: 50) { id date serviceType songs { id name artists } } }',
    '{ services(limit: 20) { id date songs { id name artists } } }',
    '{ services(limit: 200) { id songs(limit: 20) { id name } } }',
    '{ services(limit: 50, sort: DATE_DESC) { id date serviceType setlist { position song { id name artists ccliNumber } } } }',
    '{ service(id: 1) { id date serviceType setlist { position song { id name artists copyright } } } }',
    '{ song(id: 1) { id name artists services(limit: 20, sort: DATE_DESC) { id date serviceType } } }',
    '{ songsConnection(first: 50) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id name artists usage { timesSung firstSung lastSung } } } } }',
    '{ servicesConnection(first: 20, sort: DATE_DESC) { totalCount edges { node { id date serviceType songs { id name artists } } } } }',
  ];

  test.each(TYPICAL)('%s', async (query) => {
    const res = await s.gql(query);
    expect(res.body.errors).toBeUndefined();
    expect(res.status).toBe(200);
    expect(Object.values(res.body.data as object).every((v) => v !== null)).toBe(true);
  });
});
