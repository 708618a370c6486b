/**
 * Analytics through both facades on a real server and SQLite file (SERVICE_TIME_ZONE
 * America/New_York), checked against the reference implementation: every REST route and its
 * GraphQL field, the CSV (parsed back with csv-parse), X-Total-Count, and every kind of bad input.
 */
import { parse } from 'csv-parse/sync';
import { DateTime } from 'luxon';
import { bucketsBetween } from '../../src/domain/analytics/buckets';
import { SERVICE_TYPES } from '../../src/domain/analytics/window';
import type { AnalyticsWindow } from '../../src/store/analytics-types';
import { generateHistory } from '../helpers/analytics-history';
import { Reference } from '../helpers/analytics-reference';
import { expectError, expectJson } from '../helpers/rest-assert';
import { startTestServer, type TestServer } from '../helpers/server';

const ZONE = 'America/New_York';
const day = (d: string, end = false) => {
  const start = DateTime.fromISO(d, { zone: ZONE });
  return end ? start.plus({ days: 1 }).toMillis() - 1 : start.toMillis();
};
const ALL = [...SERVICE_TYPES];

let server: TestServer;
let ref: Reference;

beforeAll(async () => {
  server = await startTestServer({ SERVICE_TIME_ZONE: ZONE });
  await generateHistory(server.store, { seed: 7, songs: 25, start: '2023-01-01', weeks: 60, zone: ZONE, unsung: 3 });
  ref = new Reference(await server.store.exportSnapshot());
}, 60_000);
afterAll(() => server.close());

/**
 * A usage row as both facades answer it (GraphQL when it selects USAGE): the song's licensing
 * details beside the song (the history gives some songs a CCLI number or a copyright line).
 */
const onWire = <T extends { song: { id: number }; licensing?: unknown }>({ licensing: _, ...row }: T) => ({ ...row, ...ref.licensingOf(row.song.id) });
const rowsOnWire = <T extends { song: { id: number }; licensing?: unknown }>(rows: T[]) => rows.map(onWire);

const USAGE = 'song { id name artists } ccliNumber copyright timesSung firstSung lastSung byServiceType { serviceType timesSung lastSung } asOpener asCloser';
const Q1: AnalyticsWindow = { from: day('2023-04-01'), to: day('2023-06-30', true), serviceTypes: ALL };

describe('GET /reports/songUsage and songUsage', () => {
  it('answers the reference report, paged, with X-Total-Count, on both facades', async () => {
    const expected = ref.songUsage({ window: Q1, sort: 'TIMES_SUNG', includeUnsung: false, limit: 5, offset: 2 });
    const res = await server.api('GET', '/reports/songUsage?from=2023-04-01&to=2023-06-30&limit=5&offset=2');
    expectJson(res, 200, rowsOnWire(expected.items));
    expect(res.headers.get('x-total-count')).toBe(String(expected.total));
    const gql = await server.gql(`{ songUsage(from: "2023-04-01", to: "2023-06-30", limit: 5, offset: 2) { ${USAGE} } }`);
    expect(gql.body).toEqual({ data: { songUsage: rowsOnWire(expected.items) } });
  });

  it('filters by repeated serviceType, sorts, includes unsung songs', async () => {
    const window = { from: null, to: day('2023-12-31', true), serviceTypes: ['SUN_PM', 'WED'] as typeof ALL };
    for (const sort of ['LAST_SUNG', 'LEAST_RECENTLY_SUNG', 'NAME', 'TIMES_SUNG'] as const) {
      const expected = ref.songUsage({ window, sort, includeUnsung: true });
      const res = await server.api('GET', `/reports/songUsage?to=2023-12-31&serviceType=WED&serviceType=SUN_PM&sort=${sort}&includeUnsung=true`);
      expectJson(res, 200, rowsOnWire(expected.items));
      const gql = await server.gql(`{ songUsage(to: "2023-12-31", serviceTypes: [WED, SUN_PM], sort: ${sort}, includeUnsung: true) { ${USAGE} } }`);
      expect(gql.body.data.songUsage).toEqual(rowsOnWire(expected.items));
    }
  });

  it('answers CSV for Accept: text/csv and for format=csv, named after the window', async () => {
    const expected = ref.songUsage({ window: { ...Q1, serviceTypes: ['SUN_AM', 'WED'] }, sort: 'TIMES_SUNG', includeUnsung: true });
    for (const [path, headers] of [
      ['/reports/songUsage?from=2023-04-01&to=2023-06-30&serviceType=SUN_AM&serviceType=WED&includeUnsung=true', { accept: 'text/csv' }],
      ['/reports/songUsage?from=2023-04-01&to=2023-06-30&serviceType=SUN_AM&serviceType=WED&includeUnsung=true&format=csv', {}],
    ] as const) {
      const res = await server.api('GET', path, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="?song-usage_2023-04-01_2023-06-30\.csv"?$/);
      const rows = parse(res.text, { columns: true, bom: true }) as Record<string, string>[];
      const local = (ms: number | null) => (ms === null ? '' : DateTime.fromMillis(ms, { zone: ZONE }).toISODate());
      expect(rows).toEqual(
        expected.items.map((r) => ({
          Song: r.song.name,
          'CCLI #': ref.licensingOf(r.song.id).ccliNumber ?? '',
          Copyright: ref.licensingOf(r.song.id).copyright ?? '',
          Artists: r.song.artists.join('; '),
          'Times sung': String(r.timesSung),
          'First sung': local(r.firstSung),
          'Last sung': local(r.lastSung),
          'Sunday morning': String(r.byServiceType[0].timesSung),
          Wednesday: String(r.byServiceType[1].timesSung),
          'Song ID': String(r.song.id),
        })),
      );
    }
    const all = await server.api('GET', '/reports/songUsage?format=csv');
    expect(all.headers.get('content-disposition')).toMatch(/^attachment; filename="?song-usage_all-time\.csv"?$/);
    expect((parse(all.text, { bom: true }) as string[][])[0]).toEqual([
      'Song', 'CCLI #', 'Copyright', 'Artists', 'Times sung', 'First sung', 'Last sung',
      'Sunday morning', 'Sunday evening', 'Wednesday', 'Song ID',
    ]);
    expectJson(await server.api('GET', '/reports/songUsage?format=json&limit=1'), 200, rowsOnWire(ref.songUsage({ window: { from: null, to: null, serviceTypes: ALL }, sort: 'TIMES_SUNG', includeUnsung: false, limit: 1 }).items));
  });
});

describe('rotation, new songs, one song', () => {
  const allTime = { from: null, to: null, serviceTypes: ALL };

  it('GET /songs/notSungSince/:date and songsNotSungSince', async () => {
    const expected = ref.songUsage({ window: allTime, sort: 'LEAST_RECENTLY_SUNG', includeUnsung: true, lastBefore: day('2024-01-15') - 1 });
    expectJson(await server.api('GET', '/songs/notSungSince/2024-01-15'), 200, rowsOnWire(expected.items));
    const gql = await server.gql(`{ songsNotSungSince(date: "2024-01-15") { ${USAGE} } }`);
    expect(gql.body.data.songsNotSungSince).toEqual(rowsOnWire(expected.items));
    expect(expected.items[0].timesSung).toBe(0);
  });

  it('GET /reports/newSongs and newSongs', async () => {
    const expected = ref.songUsage({ window: { ...allTime, serviceTypes: ['WED'] }, sort: 'FIRST_SUNG', includeUnsung: false, firstIn: { from: day('2023-02-01'), to: null } });
    expect(expected.items.length).toBeGreaterThan(0);
    expectJson(await server.api('GET', '/reports/newSongs?from=2023-02-01&serviceType=WED'), 200, rowsOnWire(expected.items));
    const gql = await server.gql(`{ newSongs(from: "2023-02-01", serviceTypes: [WED]) { ${USAGE} } }`);
    expect(gql.body.data.newSongs).toEqual(rowsOnWire(expected.items));
  });

  it('lists new songs newest first (latest first performance, then the highest id), on every path', async () => {
    // All time over every type reads the maintained per-song rows; a type filter aggregates them.
    for (const query of ['', '?from=2023-02-01', '?serviceType=WED', '?to=2023-06-30&serviceType=SUN_AM&serviceType=WED']) {
      const res = await server.api('GET', `/reports/newSongs${query}`);
      expect(res.status).toBe(200);
      const rows = res.body as { song: { id: number }; firstSung: number }[];
      expect(rows.length).toBeGreaterThan(1);
      const newestFirst = [...rows].sort((a, b) => b.firstSung - a.firstSung || b.song.id - a.song.id);
      expect(rows.map((r) => r.song.id)).toEqual(newestFirst.map((r) => r.song.id));
      expect(rows[0].firstSung).toBeGreaterThan(rows[rows.length - 1].firstSung);
    }
    // Songs introduced in the same service tie on their first performance: the highest id first.
    const all = (await server.api('GET', '/reports/newSongs')).body as { song: { id: number }; firstSung: number }[];
    expect(all.some((r, i) => i > 0 && r.firstSung === all[i - 1].firstSung)).toBe(true);
  });

  it('GET /songs/:songId/usage and Song.usage (batched for a list)', async () => {
    const expected = { song: (await server.store.songsByIds([2]))[0]!, ...ref.stats(2, Q1) };
    const rest = await server.api('GET', '/songs/2/usage?from=2023-04-01&to=2023-06-30');
    // Beside the usage, the song's rotation as of now (test/e2e/rotation.e2e.test.ts checks its numbers).
    expectJson(rest, 200, { ...onWire(expected), rotation: expect.objectContaining({ horizonWeeks: 52 }) });
    const gql = await server.gql(`{ songs(limit: 3) { id usage(from: "2023-04-01", to: "2023-06-30") { timesSung asOpener } all: usage { timesSung } } }`);
    expect(gql.body.data.songs).toEqual(
      [1, 2, 3].map((id) => ({ id, usage: { timesSung: ref.stats(id, Q1).timesSung, asOpener: ref.stats(id, Q1).asOpener }, all: { timesSung: ref.stats(id, { ...Q1, from: null, to: null }).timesSung } })),
    );
    // REST songs stay the flat contract record.
    expectJson(await server.api('GET', '/songs/2'), 200, expected.song);
  });

  it('GET /songs/:songId/sungWith and songsSungWith', async () => {
    const expected = ref.songsSungWith(1, Q1, 3);
    expectJson(await server.api('GET', '/songs/1/sungWith?from=2023-04-01&to=2023-06-30&limit=3'), 200, expected);
    const gql = await server.gql(`{ songsSungWith(songId: 1, from: "2023-04-01", to: "2023-06-30", limit: 3) { song { id name artists } together jaccard } }`);
    expect(gql.body.data.songsSungWith).toEqual(expected);
    expect((await server.api('GET', '/songs/1/sungWith')).body).toHaveLength(20);
  });
});

describe('GET /reports/timeline, /reports/artists', () => {
  it('timeline by month from the first service, empty buckets included; with a song', async () => {
    const span = ref.serviceSpan(ALL)!;
    const buckets = bucketsBetween(span.first, day('2024-03-31', true), 'MONTH', ZONE);
    const expected = ref.usageTimeline(buckets, { from: null, to: day('2024-03-31', true), serviceTypes: ALL }, null);
    // Whole months: none is cut by the window.
    expectJson(await server.api('GET', '/reports/timeline?bucket=MONTH&to=2024-03-31'), 200, expected.map((b) => ({ ...b, partial: false })));
    expect(expected.at(-1)).toEqual({ start: day('2024-03-01'), services: 0, performances: 0, distinctSongs: 0 });
    const gql = await server.gql('{ usageTimeline(bucket: MONTH, to: "2024-03-31") { start services performances distinctSongs } }');
    expect(gql.body.data.usageTimeline).toEqual(expected);
    // 2023-03-01 is a Wednesday and 2023-04-30 a Sunday: the first week is cut, the last is not.
    const window: AnalyticsWindow = { from: day('2023-03-01'), to: day('2023-04-30', true), serviceTypes: ['SUN_AM'] };
    const weeks = bucketsBetween(window.from!, window.to!, 'WEEK', ZONE);
    expectJson(
      await server.api('GET', '/reports/timeline?bucket=WEEK&from=2023-03-01&to=2023-04-30&songId=1&serviceType=SUN_AM'),
      200,
      ref.usageTimeline(weeks, window, 1).map((b, i) => ({ ...b, partial: i === 0 })),
    );
  });

  it('GET /reports/sungOften and songsSungOften: songs in more than a share of the last services', async () => {
    const SHARE = 'services firstService lastService songs { song { id name artists } timesSung share lastSung }';
    const expected = ref.songsSungOften({ to: day('2023-06-30', true), serviceTypes: ['SUN_AM', 'WED'], lastServices: 10, moreThanPercent: 30 });
    expect(expected.songs.length).toBeGreaterThan(0);
    expect(expected.services).toBe(10);
    const res = await server.api('GET', '/reports/sungOften?to=2023-06-30&serviceType=SUN_AM&serviceType=WED&lastServices=10&moreThanPercent=30');
    expectJson(res, 200, expected);
    const gql = await server.gql(`{ songsSungOften(to: "2023-06-30", serviceTypes: [SUN_AM, WED], lastServices: 10, moreThanPercent: 30) { ${SHARE} } }`);
    expect(gql.body.data.songsSungOften).toEqual(expected);
    // Defaults: the last 12 services of every type, songs in more than half of them.
    const defaults = ref.songsSungOften({ to: null, serviceTypes: ALL, lastServices: 12, moreThanPercent: 50 });
    expectJson(await server.api('GET', '/reports/sungOften'), 200, defaults);
    expect((await server.gql(`{ songsSungOften { ${SHARE} } }`)).body.data.songsSungOften).toEqual(defaults);
  });

  it('artists, paged', async () => {
    const expected = ref.artistUsage(Q1, { limit: 3 });
    const res = await server.api('GET', '/reports/artists?from=2023-04-01&to=2023-06-30&limit=3');
    expectJson(res, 200, expected.items);
    expect(res.headers.get('x-total-count')).toBe(String(expected.total));
    const gql = await server.gql('{ artistUsage(from: "2023-04-01", to: "2023-06-30", limit: 3) { artist timesSung songs } }');
    expect(gql.body.data.artistUsage).toEqual(expected.items);
  });
});

describe('bad input: 400 naming the parameter, 404 for unknown songs', () => {
  const bad: [string, string][] = [
    ['/reports/songUsage?from=2023-13-01', 'from'],
    ['/reports/songUsage?to=yesterday', 'to'],
    ['/reports/songUsage?from=2024-01-01&to=2023-01-01', 'to'],
    ['/reports/songUsage?sort=POPULAR', 'sort'],
    ['/reports/songUsage?serviceType=SUN_AM&serviceType=FRIDAY', 'serviceType'],
    ['/reports/songUsage?includeUnsung=yes', 'includeUnsung'],
    ['/reports/songUsage?limit=0', 'limit'],
    ['/reports/songUsage?limit=abc', 'limit'],
    ['/reports/songUsage?format=xml', 'format'],
    ['/reports/songUsage?from=2023-01-01&from=2023-02-01', 'from'],
    ['/reports/timeline', 'bucket'],
    ['/reports/timeline?bucket=DAY', 'bucket'],
    ['/reports/timeline?bucket=WEEK&from=1900-01-01&to=2199-12-31', 'bucket'],
    ['/reports/newSongs?from=2024-02-30', 'from'],
    ['/reports/artists?offset=-1', 'offset'],
    ['/songs/notSungSince/soon', 'date'],
    ['/songs/1/sungWith?limit=1001', 'limit'],
    ['/songs/abc/usage', 'songId'],
    ['/songs/1/usage?to=2023-01-01&from=2024-01-01', 'to'],
    ['/reports/sungOften?lastServices=0', 'lastServices'],
    ['/reports/sungOften?lastServices=1001', 'lastServices'],
    ['/reports/sungOften?lastServices=twelve', 'lastServices'],
    ['/reports/sungOften?moreThanPercent=100', 'moreThanPercent'],
    ['/reports/sungOften?moreThanPercent=-5', 'moreThanPercent'],
    ['/reports/sungOften?moreThanPercent=0.5', 'moreThanPercent'],
    ['/reports/sungOften?to=someday', 'to'],
  ];
  it.each(bad)('%s names %s', async (path, param) => {
    const res = await server.api('GET', path);
    // A parameter of the wrong type or value is VALIDATION_FAILED naming it in `details` (as on the
    // lists); a date or window the resolver refuses is BAD_REQUEST naming it first.
    const { code } = res.body.error;
    expect(['BAD_REQUEST', 'VALIDATION_FAILED']).toContain(code);
    expectError(res, 400, code, code === 'VALIDATION_FAILED' ? [param] : undefined);
    if (code === 'VALIDATION_FAILED') expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(param);
    else expect(res.body.error.message).toMatch(new RegExp(`^${param}\\b`));
  });

  it.each(['/songs/999/usage', '/songs/999/sungWith', '/reports/timeline?bucket=YEAR&songId=999'])('%s is 404', async (path) => {
    expectError(await server.api('GET', path), 404, 'NOT_FOUND');
  });

  it('GraphQL answers the same errors', async () => {
    const res = await server.gql('{ songUsage(from: "2024-01-01", to: "2023-01-01") { timesSung } }');
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^to\b/), extensions: { code: 'BAD_REQUEST' } });
    const missing = await server.gql('{ songsSungWith(songId: 999) { together } }');
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const share = await server.gql('{ songsSungOften(moreThanPercent: 100) { services } }');
    expect(share.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^moreThanPercent\b/), extensions: { code: 'BAD_REQUEST' } });
  });

  it('the cost limit charges analytics their weight: four reports run, six are refused', async () => {
    const report = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `r${i}: songUsage(limit: 1) { timesSung }`).join(' ')} }`;
    expect((await server.gql(report(4))).body.data.r3).toHaveLength(1);
    const res = await server.gql(report(6));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(/Cost limit of 50000 exceeded/), extensions: { code: 'BAD_REQUEST' } });
    expect(res.body).not.toHaveProperty('data');
  });

  it('every analytics route is in the OpenAPI document', async () => {
    const doc = (await server.api('GET', '/openapi.json')).body;
    for (const p of ['/reports/songUsage', '/reports/newSongs', '/reports/timeline', '/reports/artists', '/reports/sungOften', '/songs/{songId}/usage', '/songs/{songId}/sungWith', '/songs/notSungSince/{date}']) {
      expect(doc.paths[p]?.get).toBeDefined();
    }
    const often = doc.paths['/reports/sungOften'].get;
    expect(often.operationId).toBe('songsSungOften');
    expect(often.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['lastServices', 'moreThanPercent', 'serviceType', 'to']);
    const param = (name: string) => often.parameters.find((p: { name: string }) => p.name === name).schema;
    expect(param('lastServices')).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(param('moreThanPercent')).toMatchObject({ type: 'integer', minimum: 0, maximum: 99 });
    expect(Object.keys(doc.paths['/reports/songUsage'].get.responses['200'].content)).toEqual(['application/json', 'text/csv']);
    const names = doc.paths['/reports/songUsage'].get.parameters.map((p: { name: string }) => p.name).sort();
    expect(names).toEqual(['format', 'from', 'includeUnsung', 'limit', 'offset', 'serviceType', 'sort', 'to']);
  });
});
