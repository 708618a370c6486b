/**
 * The list query parameters and arguments end to end: real HTTP against a real server on a real
 * SQLite file. REST: ?q, ?sort, ?serviceType (repeatable) and their bad values; GraphQL: search,
 * sort, serviceTypes, paged relation fields, and cursor connections (also driven by Apollo
 * Client's relayStylePagination, the way a front end pages).
 */
import { ApolloClient, gql, HttpLink, InMemoryCache, type ApolloQueryResult } from '@apollo/client/core';
import { relayStylePagination } from '@apollo/client/utilities';
import { startTestServer, type TestServer } from '../helpers/server';

let s: TestServer;
let token: string;
const songIds: number[] = [];
const serviceIds: number[] = [];

const SONGS: [string, string[]][] = [
  ['Alas! And Did My Savior Bleed?', ['Isaac Watts']],
  ['Ngợi Khen Danh Ngài', []],
  ['What a Beautiful Name', ['Hillsong Worship']],
  ['Cornerstone', ['Hillsong Worship']],
  ['Amazing Grace', ['John Newton']],
];

beforeAll(async () => {
  s = await startTestServer();
  token = await s.adminToken();
  for (const [name, artists] of SONGS) {
    songIds.push((await s.api('POST', '/songs', { token, body: { name, artists } })).body.id);
  }
  const types = ['SUN_AM', 'SUN_PM', 'WED', 'SUN_AM'];
  for (let i = 0; i < types.length; i++) {
    const res = await s.api('POST', '/services', { token, body: { date: `2025-03-0${i + 2}T10:00:00Z`, serviceType: types[i] } });
    serviceIds.push(res.body.id);
    await s.api('PUT', `/services/${res.body.id}/songs`, { token, body: { songIds: songIds.slice(i, i + 2) } });
  }
});
afterAll(() => s.close());

const ids = (body: { id: number }[]) => body.map((x) => x.id);

describe('REST list parameters', () => {
  test('?q searches by relevance, ignoring case, accents and punctuation, with X-Total-Count', async () => {
    let res = await s.api('GET', `/songs?q=${encodeURIComponent('Alas and did')}`);
    expect(ids(res.body)).toEqual([songIds[0]]);
    res = await s.api('GET', '/songs?q=ngoi%20khen');
    expect(ids(res.body)).toEqual([songIds[1]]);
    res = await s.api('GET', '/songs?q=hillsong&limit=1');
    expect(res.body).toHaveLength(1);
    expect(res.headers.get('x-total-count')).toBe('2');
    res = await s.api('GET', '/songs?q=nothing-like-this');
    expect(res.body).toEqual([]);
    expect(res.headers.get('x-total-count')).toBe('0');
  });

  test('?sort orders songs by name or id, either way', async () => {
    const byName = [...SONGS.keys()].sort((a, b) => (SONGS[a][0] < SONGS[b][0] ? -1 : 1)).map((i) => songIds[i]);
    expect(ids((await s.api('GET', '/songs?sort=name')).body)).toEqual(byName);
    expect(ids((await s.api('GET', '/songs?sort=-name')).body)).toEqual([...byName].reverse());
    expect(ids((await s.api('GET', '/songs?sort=-id&limit=2')).body)).toEqual([songIds[4], songIds[3]]);
    expect(ids((await s.api('GET', '/songs?sort=id')).body)).toEqual(songIds);
  });

  test('?serviceType (repeatable) and ?sort=-date on services and every services list', async () => {
    let res = await s.api('GET', '/services?serviceType=SUN_AM&serviceType=WED&sort=-date');
    expect(ids(res.body)).toEqual([serviceIds[3], serviceIds[2], serviceIds[0]]);
    expect(res.headers.get('x-total-count')).toBe('3');
    res = await s.api('GET', '/services?serviceType=SUN_PM');
    expect(ids(res.body)).toEqual([serviceIds[1]]);
    res = await s.api('GET', `/services/withSong/${songIds[2]}?serviceType=WED`);
    expect(ids(res.body)).toEqual([serviceIds[2]]);
    res = await s.api('GET', '/services/byDate/between/2025-03-01/2025-03-31?serviceType=SUN_AM&limit=1&offset=1');
    expect(ids(res.body)).toEqual([serviceIds[3]]);
    expect(res.headers.get('x-total-count')).toBe('2');
    res = await s.api('GET', '/services/byDate/after/2025-03-01?serviceType=SUN_PM');
    expect(ids(res.body)).toEqual([serviceIds[1]]);
    res = await s.api('GET', '/services/byDate/before/2025-04-01?serviceType=WED&serviceType=WED');
    expect(ids(res.body)).toEqual([serviceIds[2]]);
  });

  test.each([
    ['/songs?sort=title', 'sort'],
    ['/songs?sort=NAME_ASC', 'sort'],
    ['/songs?sort=name&sort=id', 'sort'],
    ['/songs?q=', 'q'],
    ['/songs?q=%20%20', 'q'],
    [`/songs?q=${'a'.repeat(201)}`, 'q'],
    ['/songs?q=grace&sort=name', 'sort'],
    ['/services?serviceType=SUNDAY', 'serviceType'],
    ['/services?serviceType=SUN_AM&serviceType=nope', 'serviceType'],
    ['/services?sort=name', 'sort'],
    ['/services/withSong/1?serviceType=sun_am', 'serviceType'],
    ['/services/byDate/after/2025-01-01?serviceType=', 'serviceType'],
    ['/services/byDate/before/2025-01-01?serviceType=X', 'serviceType'],
    ['/services/byDate/between/2025-01-01/2025-02-01?serviceType=X', 'serviceType'],
  ])('%s is 400 VALIDATION_FAILED naming %s', async (path, field) => {
    const res = await s.api('GET', path);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
  });

  test('the OpenAPI document names the REST parameters and their values', async () => {
    const doc = (await s.api('GET', '/openapi.json')).body;
    const params = (path: string) =>
      Object.fromEntries(doc.paths[path].get.parameters.map((p: { name: string }) => [p.name, p]));
    const songs = params('/songs');
    expect(Object.keys(songs).sort()).toEqual(['limit', 'offset', 'q', 'sort']);
    expect(songs.sort.schema.enum).toEqual(['id', '-id', 'name', '-name']);
    const services = params('/services');
    expect(services.serviceType).toMatchObject({ explode: true, schema: { type: 'array' } });
    expect(services.sort.schema.enum).toEqual(['date', '-date']);
    for (const path of ['/services/withSong/{songId}', '/services/byDate/after/{date}', '/services/byDate/between/{from}/{to}']) {
      expect(Object.keys(params(path))).toContain('serviceType');
    }
  });
});

describe('GraphQL list arguments', () => {
  test('search, sort, serviceTypes and paged relation fields', async () => {
    const res = await s.gql(`{
      hits: songs(search: "hillsong", limit: 5) { id }
      byName: songs(sort: NAME_DESC, limit: 1) { name }
      services(serviceTypes: [SUN_AM], sort: DATE_DESC) { id songs(limit: 1, offset: 1) { id } }
      song(id: ${songIds[1]}) { services(limit: 1, serviceTypes: [SUN_AM, SUN_PM]) { id } }
    }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.hits.map((x: { id: number }) => x.id).sort()).toEqual([songIds[2], songIds[3]]);
    expect(res.body.data.byName).toEqual([{ name: 'What a Beautiful Name' }]);
    expect(res.body.data.services).toEqual([
      { id: serviceIds[3], songs: [{ id: songIds[4] }] },
      { id: serviceIds[0], songs: [{ id: songIds[1] }] },
    ]);
    expect(res.body.data.song.services).toEqual([{ id: serviceIds[0] }]);
  });

  test('an empty or too long search is VALIDATION_FAILED naming search', async () => {
    for (const q of ['', 'x'.repeat(201)]) {
      const res = await s.gql(`query($q: String) { songs(search: $q) { id } }`, { q });
      expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
      expect(res.body.errors[0].extensions.details[0].field).toBe('search');
    }
  });

  test('songsConnection pages by cursor to the end; forged and foreign cursors are BAD_REQUEST', async () => {
    const seen: number[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const res: { body: any } = await s.gql(
        `query($after: String) { songsConnection(first: 2, after: $after, sort: NAME_ASC) {
          totalCount edges { cursor node { id name } } pageInfo { hasNextPage endCursor } } }`,
        { after },
      );
      const c: any = res.body.data.songsConnection;
      expect(c.totalCount).toBe(SONGS.length);
      seen.push(...c.edges.map((e: { node: { id: number } }) => e.node.id));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    expect(seen).toEqual(ids((await s.api('GET', '/songs?sort=name')).body));

    const bad = async (cursor: string, query = 'songsConnection(first: 1, after: $c) { totalCount }') => {
      const res = await s.gql(`query($c: String) { ${query} }`, { c: cursor });
      expect(res.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    };
    await bad('not a cursor');
    await bad(Buffer.from('[1,"songs","NAME_ASC","",5,"x"]').toString('base64url'));
    await bad(after!, 'songsConnection(first: 1, after: $c, sort: ID_ASC) { totalCount }');
    await bad(after!, 'servicesConnection(first: 1, after: $c) { totalCount }');
    // Same key type, other direction: a cursor is bound to its order, not just its key's type.
    const desc = await s.gql('{ songsConnection(first: 1, sort: ID_DESC) { pageInfo { endCursor } } }');
    await bad(desc.body.data.songsConnection.pageInfo.endCursor, 'songsConnection(first: 1, after: $c, sort: ID_ASC) { totalCount }');
  });

  test("Apollo Client's relayStylePagination pages through servicesConnection with fetchMore", async () => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: `${s.url}/graphql`, fetch }),
      cache: new InMemoryCache({ typePolicies: { Query: { fields: { servicesConnection: relayStylePagination(['serviceTypes', 'sort']) } } } }),
    });
    const QUERY = gql`
      query Services($after: String) {
        servicesConnection(first: 3, after: $after, sort: DATE_DESC) {
          totalCount
          edges { cursor node { id date } }
          pageInfo { hasNextPage endCursor }
        }
      }
    `;
    const watch = client.watchQuery({ query: QUERY });
    // The first settled result, from a subscription that stays open (as a UI's would) so that
    // fetchMore merges into the watched query; ObservableQuery.result() is deprecated.
    let result = await new Promise<ApolloQueryResult<any>>((resolve, reject) => {
      watch.subscribe({ next: (r) => !r.loading && resolve(r), error: reject });
    });
    while (result.data.servicesConnection.pageInfo.hasNextPage) {
      await watch.fetchMore({ variables: { after: result.data.servicesConnection.pageInfo.endCursor } });
      result = watch.getCurrentResult();
    }
    const merged = result.data.servicesConnection.edges.map((e: { node: { id: number } }) => e.node.id);
    expect(merged).toEqual([...serviceIds].reverse());
    expect(result.data.servicesConnection.totalCount).toBe(serviceIds.length);
    client.stop();
  });
});
