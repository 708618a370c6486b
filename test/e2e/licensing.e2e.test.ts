/**
 * Songs' licensing details (CCLI song number, copyright line) on both facades, over real HTTP on a
 * real SQLite file: set and cleared on GraphQL and REST writes, validated alike, shown on GraphQL
 * `Song` and in the usage report's rows on both facades, found by search; the REST song record
 * stays exactly {id, name, artists}.
 */
import { expectError, expectJson } from '../helpers/rest-assert';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let admin: string;
let user: string;
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.adminToken();
  user = (await server.createUser('licensing.user')).token;
});
afterAll(() => server.close());

const SONG = 'id name artists ccliNumber copyright';

async function gqlOk(query: string, token = admin) {
  const res = await server.gql(query, undefined, token);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

describe('GraphQL', () => {
  it('sets, reads, replaces and removes them; absent arguments keep them', async () => {
    const { createSong } = await gqlOk(
      `mutation { createSong(name: "How Great Is Our God", artists: ["Chris Tomlin"], ccliNumber: "4348399", copyright: "2004 worshiptogether.com songs") { ${SONG} } }`,
    );
    expect(createSong).toEqual({
      id: expect.any(Number),
      name: 'How Great Is Our God',
      artists: ['Chris Tomlin'],
      ccliNumber: '4348399',
      copyright: '2004 worshiptogether.com songs',
    });
    const id = createSong.id;
    expect((await gqlOk(`{ song(id: ${id}) { ccliNumber copyright } }`)).song).toEqual({ ccliNumber: '4348399', copyright: '2004 worshiptogether.com songs' });

    // Any signed-in user may update a song (docs/API.md); a rename keeps the details.
    const renamed = await gqlOk(`mutation { updateSong(id: ${id}, name: "How Great") { ccliNumber copyright } }`, user);
    expect(renamed.updateSong).toEqual({ ccliNumber: '4348399', copyright: '2004 worshiptogether.com songs' });
    // Read, then changed and read again in one operation: never a stale value.
    const twice = await gqlOk(
      `mutation { a: updateSong(id: ${id}, ccliNumber: "1234567") { ccliNumber } b: updateSong(id: ${id}, copyright: "") { ccliNumber copyright } }`,
    );
    expect(twice).toEqual({ a: { ccliNumber: '1234567' }, b: { ccliNumber: '1234567', copyright: null } });
    const cleared = await gqlOk(`mutation { updateSong(id: ${id}, ccliNumber: "") { ${SONG} } }`);
    expect(cleared.updateSong).toMatchObject({ ccliNumber: null, copyright: null });

    const plain = await gqlOk('mutation { createSong(name: "No details", ccliNumber: "", copyright: "   ") { ccliNumber copyright } }');
    expect(plain.createSong).toEqual({ ccliNumber: null, copyright: null });
  });

  it('refuses a CCLI number that is not 1 to 10 digits and a copyright over 500 characters, naming each', async () => {
    for (const bad of ['abc', '12345678901', ' 22025', '22-025', '2.5']) {
      const res = await server.gql(`mutation { createSong(name: "X", ccliNumber: ${JSON.stringify(bad)}) { id } }`, undefined, admin);
      expect(res.body.errors?.[0].extensions).toEqual({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'ccliNumber', message: 'must be 1 to 10 digits' }],
      });
    }
    const res = await server.gql(`mutation { createSong(name: "X", copyright: "${'c'.repeat(501)}") { id } }`, undefined, admin);
    expect(res.body.errors?.[0].extensions.details).toEqual([{ field: 'copyright', message: 'must be at most 500 characters' }]);
    expect((await gqlOk('{ songs(search: "X") { id } }')).songs).toEqual([]);
  });

  it('refuses a copyright line holding a control character (a NUL, a line break) on both facades; a tab is kept', async () => {
    const problem = { field: 'copyright', message: 'must not contain control characters (line breaks included); tab is allowed' };
    for (const copyright of ['\u0000\u0010 Pasted', 'Two\nlines']) {
      const rest = await server.api('POST', '/songs', { token: admin, body: { name: 'Controlled', copyright } });
      expectError(rest, 400, 'VALIDATION_FAILED', ['copyright']);
      expect(rest.body.error.details).toEqual([problem]);
      const gql = await server.gql('mutation($c: String) { createSong(name: "Controlled", copyright: $c) { id } }', { c: copyright }, admin);
      expect(gql.body.errors?.[0].extensions).toEqual({ code: 'VALIDATION_FAILED', details: [problem] });
    }
    expect((await gqlOk('{ songs(search: "Controlled") { id } }')).songs).toEqual([]);
    const tab = await server.api('POST', '/songs', { token: admin, body: { name: 'Tabbed', copyright: 'Words\tMusic' } });
    expect(tab.status).toBe(201);
  });

  it('lists many songs with their details in one batch, and search finds a song by its CCLI number', async () => {
    const made = [];
    for (const [name, ccli] of [['Cornerstone', '6158927'], ['In Christ Alone', '3350395'], ['No Number', '']] as const) {
      made.push((await gqlOk(`mutation { createSong(name: "${name}", ccliNumber: "${ccli}") { id } }`)).createSong.id);
    }
    const listed = await gqlOk(`{ songs(sort: ID_DESC, limit: 3) { id ccliNumber } }`);
    expect(listed.songs).toEqual([
      { id: made[2], ccliNumber: null },
      { id: made[1], ccliNumber: '3350395' },
      { id: made[0], ccliNumber: '6158927' },
    ]);
    expect((await gqlOk('{ songs(search: "3350395") { name ccliNumber } }')).songs).toEqual([{ name: 'In Christ Alone', ccliNumber: '3350395' }]);
    expect((await gqlOk('{ songs(search: "61589") { name } }')).songs).toEqual([{ name: 'Cornerstone' }]);
  });
});

describe('REST', () => {
  it('takes them in song bodies and answers the song record exactly as before', async () => {
    const created = await server.api('POST', '/songs', {
      token: admin,
      body: { name: 'Amazing Grace', artists: ['John Newton'], ccliNumber: '22025', copyright: 'Public Domain' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), name: 'Amazing Grace', artists: ['John Newton'] });
    const id = created.body.id;
    expectJson(await server.api('GET', `/songs/${id}`), 200, { id, name: 'Amazing Grace', artists: ['John Newton'] });
    expect(Object.keys((await server.api('GET', `/songs?q=22025`)).body[0])).toEqual(['id', 'name', 'artists']);

    const updated = await server.api('PUT', `/songs/${id}`, { token: user, body: { ccliNumber: '1037882', copyright: '' } });
    expectJson(updated, 200, { id, name: 'Amazing Grace', artists: ['John Newton'] });
    expect((await gqlOk(`{ song(id: ${id}) { ccliNumber copyright } }`)).song).toEqual({ ccliNumber: '1037882', copyright: null });
  });

  it('refuses bad values with every problem named at once, and null', async () => {
    const res = await server.api('POST', '/songs', { token: admin, body: { name: '', ccliNumber: 'CCLI 22025', copyright: 5 } });
    expectError(res, 400, 'VALIDATION_FAILED', ['name', 'ccliNumber', 'copyright']);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'copyright', message: 'must be a string' },
        { field: 'ccliNumber', message: 'must be 1 to 10 digits' },
        { field: 'name', message: 'must not be empty' },
      ]),
    );
    expect(res.body.error.details).toHaveLength(3);
    const nulled = await server.api('PUT', '/songs/1', { token: admin, body: { ccliNumber: null } });
    expectError(nulled, 400, 'VALIDATION_FAILED', ['ccliNumber']);
    expect(nulled.body.error.details).toEqual([{ field: 'ccliNumber', message: 'must not be null' }]);
  });

  it('carries them beside the song in every usage row, the song itself unchanged', async () => {
    const song = await server.api('POST', '/songs', {
      token: admin,
      body: { name: '10,000 Reasons', artists: ['Matt Redman'], ccliNumber: '6016351', copyright: '2011 Thankyou Music' },
    });
    const service = await server.api('POST', '/services', { token: admin, body: { date: '2024-03-03T10:00:00Z', serviceType: 'SUN_AM' } });
    await server.api('PUT', `/services/${service.body.id}/songs/${song.body.id}`, { token: admin });

    const report = await server.api('GET', '/reports/songUsage?from=2024-03-01&to=2024-03-31');
    expect(report.status).toBe(200);
    expect(report.body).toEqual([
      expect.objectContaining({
        song: { id: song.body.id, name: '10,000 Reasons', artists: ['Matt Redman'] },
        ccliNumber: '6016351',
        copyright: '2011 Thankyou Music',
        timesSung: 1,
      }),
    ]);
    const one = await server.api('GET', `/songs/${song.body.id}/usage`);
    expect(one.body).toMatchObject({ ccliNumber: '6016351', copyright: '2011 Thankyou Music' });
    // A song not sung in the window has its details too (the one updated over REST above).
    const unsung = await server.api('GET', '/reports/songUsage?from=2024-03-01&to=2024-03-31&includeUnsung=true');
    expect(unsung.body.find((r: { song: { name: string } }) => r.song.name === 'Amazing Grace')).toMatchObject({
      timesSung: 0,
      ccliNumber: '1037882',
      copyright: null,
    });

    const gql = await gqlOk('{ songUsage(from: "2024-03-01", to: "2024-03-31") { song { name } ccliNumber copyright timesSung } }');
    expect(gql.songUsage).toEqual([{ song: { name: '10,000 Reasons' }, ccliNumber: '6016351', copyright: '2011 Thankyou Music', timesSung: 1 }]);

    // All time, each report reads them in its own statement (every type and each order, a subset
    // of types, rotation, new songs): each row has its own song's details, none another's.
    const rowOf = (rows: { song: { id: number } }[], id: number) => rows.find((r) => r.song.id === id);
    for (const path of [
      '/reports/songUsage',
      '/reports/songUsage?sort=LAST_SUNG',
      '/reports/songUsage?serviceTypes=SUN_AM',
      '/reports/songUsage?serviceTypes=SUN_AM&serviceTypes=WED&includeUnsung=true',
      '/reports/songUsage?includeUnsung=true&sort=NAME',
      '/songs/notSungSince/2024-03-04',
      '/reports/newSongs?from=2024-01-01&to=2024-12-31',
    ]) {
      const rows = (await server.api('GET', path)).body;
      expect([path, rowOf(rows, song.body.id)]).toEqual([path, expect.objectContaining({ ccliNumber: '6016351', copyright: '2011 Thankyou Music' })]);
      for (const row of rows.filter((r: { song: { id: number } }) => r.song.id !== song.body.id)) {
        expect([path, row.ccliNumber]).not.toEqual([path, '6016351']);
      }
    }
  });

  it('documents them: request bodies take them, the Song schema stays three fields, SongUsage has them', async () => {
    const doc = (await server.api('GET', '/openapi.json')).body;
    const body = doc.paths['/songs'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties)).toEqual(['name', 'artists', 'ccliNumber', 'copyright']);
    expect(Object.keys(doc.components.schemas.Song.properties)).toEqual(['id', 'name', 'artists']);
    const usage = doc.components.schemas.SongUsage;
    expect(usage.properties.ccliNumber).toMatchObject({ type: 'string', nullable: true });
    expect(usage.properties.copyright).toMatchObject({ type: 'string', nullable: true });
    expect(usage.required).toEqual(expect.arrayContaining(['song', 'ccliNumber', 'copyright']));
  });
});
