/**
 * The usage report's CSV (GET /api/v1/reports/songUsage?format=csv), the file an administrator
 * opens in a spreadsheet: over real HTTP on a real SQLite file, and its one writer
 * (src/rest/csv.ts) under fast-check.
 */
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { songUsageCsv, type SongUsageRow } from '../../src/rest/csv';
import { startTestServer, type TestServer } from '../helpers/server';

/** OWASP's CSV-injection triggers: a cell starting with one of these is read as a formula. */
const OWASP_TRIGGERS = ['=', '+', '-', '@', '\t', '\r'];
const startsWithTrigger = (cell: string) => OWASP_TRIGGERS.some((t) => cell.startsWith(t));
/** What names and artists may not hold (docs/API.md): control characters but tab. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** A line break outside quotes other than a record's CRLF: a spreadsheet would start a row there. */
const bareLineBreaks = (csv: string) => csv.replace(/"(?:[^"]|"")*"/g, '""').replace(/\r\n/g, '').match(/[\r\n]/g) ?? [];

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

  /**
   * A song renamed by an ordinary signed-in user and sung once, so the report lists it. A name with
   * control characters, which the API refuses, is written to the store itself: a record from
   * before names were checked, which must still export right.
   */
  async function songNamed(name: string, artists: string[] = []) {
    const created = await server.api('POST', '/songs', { token: admin, body: { name: 'Placeholder', artists: [] } });
    if (CONTROL.test(name)) await server.store.updateSong(created.body.id, { name, artists });
    else {
      const renamed = await server.api('PUT', `/songs/${created.body.id}`, { token: user, body: { name, artists } });
      expect(renamed.status).toBe(200);
    }
    // A service of its own each (one service per date and type): a day after the one before.
    const date = Date.UTC(2024, 4, 5, 10) + created.body.id * 86_400_000;
    const service = await server.api('POST', '/services', { token: user, body: { date, serviceType: 'SUN_AM' } });
    expect(service.status).toBe(201);
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
    const mine = rows.find((r) => r[header.indexOf('Song ID')] === String(id))!;
    const name = mine[header.indexOf('Song')];
    expect(name).toBe(`'${formula}`);
    expect(mine[header.indexOf('Artists')]).toBe(`'@SUM(A1); Plain`);
    // OWASP: prefixed with a single quote and quoted, its quotes doubled.
    expect(csv.text).toContain(`"'=HYPERLINK(""http://x"",""open"")"`);
    for (const r of [header, ...rows]) for (const cell of r) expect(startsWithTrigger(cell)).toBe(false);
  });

  it('opens right in a spreadsheet: a UTF-8 byte-order mark, CRLF line ends, readable headers, licensing columns', async () => {
    const song = await server.api('POST', '/songs', {
      token: admin,
      body: { name: 'Ngợi Khen Danh Ngài', artists: ['Hồng Ân', 'Zoë'], ccliNumber: '7031235', copyright: '© 2014 Ça Va Music' },
    });
    const service = await server.api('POST', '/services', { token: admin, body: { date: '2025-02-02T10:00:00Z', serviceType: 'SUN_PM' } });
    await server.api('PUT', `/services/${service.body.id}/songs/${song.body.id}`, { token: admin });

    const res = await fetch(`${server.url}/api/v1/reports/songUsage?from=2025-02-01&to=2025-02-28&serviceType=SUN_PM&serviceType=WED&format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('x-total-count')).toBe('1');
    const bytes = Buffer.from(await res.arrayBuffer());
    // Excel on Windows reads a CSV as UTF-8 only when it starts with the byte-order mark.
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    // RFC 4180: every record, the last included, ends with CRLF, and no line ends otherwise.
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text).not.toMatch(/[^\r]\n/);
    expect(text.split('\r\n')).toEqual([
      'Song,CCLI #,Copyright,Artists,Times sung,First sung,Last sung,Sunday evening,Wednesday,Song ID',
      `Ngợi Khen Danh Ngài,7031235,© 2014 Ça Va Music,Hồng Ân; Zoë,1,2025-02-02,2025-02-02,1,0,${song.body.id}`,
      '',
    ]);
    // The accents are the UTF-8 bytes of the text, as the byte-order mark says.
    expect(bytes.includes(Buffer.from('Ngợi Khen Danh Ngài', 'utf8'))).toBe(true);

    const all = await server.api('GET', '/reports/songUsage?format=csv');
    expect(cells(all.text)[0]).toEqual([
      'Song', 'CCLI #', 'Copyright', 'Artists', 'Times sung', 'First sung', 'Last sung',
      'Sunday morning', 'Sunday evening', 'Wednesday', 'Song ID',
    ]);
  });

  it('neutralises a formula in a copyright line', async () => {
    const song = await server.api('POST', '/songs', { token: admin, body: { name: 'Fine', artists: [], copyright: '=1+2' } });
    const service = await server.api('POST', '/services', { token: user, body: { date: '2023-05-07T10:00:00Z', serviceType: 'WED' } });
    await server.api('PUT', `/services/${service.body.id}/songs/${song.body.id}`, { token: user });
    const csv = await server.api('GET', '/reports/songUsage?from=2023-05-07&to=2023-05-07&format=csv');
    expect(cells(csv.text)[1][2]).toBe("'=1+2");
    expect((await server.api('GET', '/reports/songUsage?from=2023-05-07&to=2023-05-07')).body[0].copyright).toBe('=1+2');
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
    const cell = rows.find((r) => r[header.indexOf('Song ID')] === String(id))![header.indexOf('Song')];
    expect(cell).toBe(`'${name}`);
    // The raw text has the cell quoted: a quote, the single quote, then the value.
    expect(csv.text).toContain(`"'${name.replace(/"/g, '""')}"`);
    const json = await server.api('GET', `/songs/${id}/usage`);
    expect(json.body.song.name).toBe(name);
  });

  it('quotes a stored name holding a bare line feed, so it stays one row; new names with control characters are refused', async () => {
    const id = await songNamed('Line\nbreak', ['Tab\tSeparated', 'Lone\rReturn']);
    const csv = await server.api('GET', '/reports/songUsage?format=csv');
    expect(csv.text).toContain('"Line\nbreak"');
    expect(bareLineBreaks(csv.text)).toEqual([]);
    const [header, ...rows] = cells(csv.text);
    const mine = rows.filter((r) => r[header.indexOf('Song ID')] === String(id));
    expect(mine).toHaveLength(1);
    expect(mine[0][header.indexOf('Song')]).toBe('Line\nbreak');
    expect(mine[0][header.indexOf('Artists')]).toBe('Tab\tSeparated; Lone\rReturn');

    for (const body of [{ name: 'Line\nbreak' }, { name: 'Nul\u0000' }, { name: 'Fine', artists: ['Bell\u0007'] }, { name: 'Del\u007f' }]) {
      const refused = await server.api('POST', '/songs', { token: admin, body });
      expect([body, refused.status, refused.body.error.code]).toEqual([body, 400, 'VALIDATION_FAILED']);
    }
    const viaGraphQL = await server.gql('mutation($n: String!) { createSong(name: $n, artists: []) { id } }', { n: 'Two\nlines' }, admin);
    expect(viaGraphQL.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const tab = await server.api('POST', '/songs', { token: admin, body: { name: 'Tab\tis fine', artists: ['A\tB'] } });
    expect(tab.status).toBe(201);
  });
});

describe('the CSV writer (src/rest/csv.ts)', () => {
  const row = (id: number, name: string, artists: string[], copyright: string | null): SongUsageRow => ({
    song: { id, name, artists },
    ccliNumber: id % 2 ? String(1000 + id) : null,
    copyright,
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
    fc
      .tuple(fc.constantFrom(...OWASP_TRIGGERS, '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20', "'", '"', ' ', '\n'), fc.string({ maxLength: 20 }))
      .map(([a, b]) => a + b),
  );

  it('never writes a cell that starts with a formula trigger, and every cell reads back as its value', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, fc.array(text, { maxLength: 3 }), fc.option(text)), { minLength: 1, maxLength: 5 }),
        (songs) => {
          const records = songs.map(([name, artists, copyright], i) => row(i + 1, name, artists, copyright));
          const { body } = songUsageCsv(records, {}, 'UTC');
          const [header, ...rows] = cells(body);
          expect(rows).toHaveLength(records.length);
          expect(bareLineBreaks(body)).toEqual([]);
          const at = (name: string) => header.indexOf(name);
          rows.forEach((r, i) => {
            for (const cell of r) expect(startsWithTrigger(cell)).toBe(false);
            // A neutralised cell is its value behind one single quote; any other cell is its value.
            const written = (value: string) => (/^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(value) ? `'${value}` : value);
            expect(r[at('Song')]).toBe(written(records[i].song.name));
            expect(r[at('Artists')]).toBe(written(records[i].song.artists.join('; ')));
            expect(r[at('Copyright')]).toBe(written(records[i].copyright ?? ''));
            expect(r[at('CCLI #')]).toBe(records[i].ccliNumber ?? '');
            expect(r[at('Song ID')]).toBe(String(records[i].song.id));
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
