/**
 * The usage report's CSV (GET /api/v1/reports/songUsage?format=csv), the file an administrator
 * opens in a spreadsheet: over real HTTP on a real SQLite file, and its one writer
 * (src/rest/csv.ts) under fast-check.
 */
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { songUsageCsv } from '../src/rest/csv';
import type { SongUsageRecord } from '../src/store/analytics-types';
import { startTestServer, type TestServer } from './helpers/server';

/** OWASP's CSV-injection triggers: a cell starting with one of these is read as a formula. */
const OWASP_TRIGGERS = ['=', '+', '-', '@', '\t', '\r'];
const startsWithTrigger = (cell: string) => OWASP_TRIGGERS.some((t) => cell.startsWith(t));

/** The CSV's records as csv-parse reads them (a byte-order mark, if any, dropped). */
const cells = (csv: string): string[][] => parse(csv, { bom: true }) as string[][];

describe('the usage report CSV over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let user: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.adminToken();
    user = (await server.createUser('volunteer')).token;
  });
  afterAll(() => server.close());

  /** A song renamed by an ordinary signed-in user and sung once, so the report lists it. */
  async function songNamed(name: string, artists: string[] = []) {
    const created = await server.api('POST', '/songs', { token: admin, body: { name: 'Placeholder', artists: [] } });
    const renamed = await server.api('PUT', `/songs/${created.body.id}`, { token: user, body: { name, artists } });
    expect(renamed.status).toBe(200);
    const service = await server.api('POST', '/services', { token: user, body: { date: '2024-05-05T10:00:00Z', serviceType: 'SUN_AM' } });
    await server.api('PUT', `/services/${service.body.id}/songs/${created.body.id}`, { token: user });
    return created.body.id as number;
  }

  it('neutralises a formula in a song name (and in artists) while JSON keeps it byte for byte', async () => {
    const formula = '=HYPERLINK("http://x","open")';
    const id = await songNamed(formula, ['@SUM(A1)', 'Plain']);

    const json = await server.api('GET', '/reports/songUsage');
    const row = json.body.find((r: { song: { id: number } }) => r.song.id === id);
    expect(row.song).toEqual({ id, name: formula, artists: ['@SUM(A1)', 'Plain'] });
    // The name goes out exactly as stored: JSON's own escaping, nothing added.
    expect(json.text).toContain(`"name":${JSON.stringify(formula)}`);

    const csv = await server.api('GET', '/reports/songUsage?format=csv');
    expect(csv.status).toBe(200);
    const [header, ...rows] = cells(csv.text);
    const mine = rows.find((r) => r[0] === String(id))!;
    const name = mine[header.indexOf('title')];
    expect(name).toBe(`'${formula}`);
    expect(mine[header.indexOf('artists')]).toBe(`'@SUM(A1); Plain`);
    // OWASP: prefixed with a single quote and quoted, its quotes doubled.
    expect(csv.text).toContain(`"'=HYPERLINK(""http://x"",""open"")"`);
    for (const r of [header, ...rows]) for (const cell of r) expect(startsWithTrigger(cell)).toBe(false);
  });

  it.each([
    ['+', '+1+1'],
    ['-', '-2+3+cmd|" /C calc"!A0'],
    ['@', '@SUM(1+1)*cmd|" /C calc"!A0'],
    ['tab', '\t=1+1'],
    ['carriage return', '\r=1+1'],
  ])('neutralises a name starting with %s', async (_label, name) => {
    const id = await songNamed(name);
    const csv = await server.api('GET', '/reports/songUsage?format=csv');
    const [header, ...rows] = cells(csv.text);
    const cell = rows.find((r) => r[0] === String(id))![header.indexOf('title')];
    expect(cell).toBe(`'${name}`);
    // The raw text has the cell quoted: a quote, the single quote, then the value.
    expect(csv.text).toContain(`"'${name.replace(/"/g, '""')}"`);
    const json = await server.api('GET', `/songs/${id}/usage`);
    expect(json.body.song.name).toBe(name);
  });
});

describe('the CSV writer (src/rest/csv.ts)', () => {
  const row = (id: number, name: string, artists: string[]): SongUsageRecord => ({
    song: { id, name, artists },
    timesSung: 2,
    firstSung: Date.UTC(2024, 0, 7),
    lastSung: Date.UTC(2024, 1, 4),
    byServiceType: [
      { serviceType: 'SUN_AM', timesSung: 1, lastSung: Date.UTC(2024, 0, 7) },
      { serviceType: 'SUN_PM', timesSung: 0, lastSung: null },
      { serviceType: 'WED', timesSung: 1, lastSung: Date.UTC(2024, 1, 4) },
    ],
    asOpener: 1,
    asCloser: 0,
  });

  // Text that starts with a trigger far more often than chance would, and any other text.
  const text = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.tuple(fc.constantFrom(...OWASP_TRIGGERS, '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20', "'", '"', ' '), fc.string({ maxLength: 20 })).map(([a, b]) => a + b),
  );

  it('never writes a cell that starts with a formula trigger, and every cell reads back as its value', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.array(text, { maxLength: 3 })), { minLength: 1, maxLength: 5 }), (songs) => {
        const records = songs.map(([name, artists], i) => row(i + 1, name, artists));
        const { body } = songUsageCsv(records, {}, 'UTC');
        const [, ...rows] = cells(body);
        expect(rows).toHaveLength(records.length);
        rows.forEach((r, i) => {
          for (const cell of r) expect(startsWithTrigger(cell)).toBe(false);
          // A neutralised cell is its value behind one single quote; any other cell is its value.
          const written = (value: string) => (/^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(value) ? `'${value}` : value);
          expect(r[1]).toBe(written(records[i].song.name));
          expect(r[2]).toBe(written(records[i].song.artists.join('; ')));
        });
      }),
      { numRuns: 300 },
    );
  });
});
