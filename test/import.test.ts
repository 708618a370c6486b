import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../src/cli/import';
import { MalformedFileError } from '../src/import/csv';
import { importFile, type ImportOptions } from '../src/import/run';
import { splitArtists } from '../src/import/songs';
import type { Store } from '../src/store/types';
import { runScript } from './helpers/process';
import { startTestServer } from './helpers/server';
import { openTestStore, type OpenedStore } from './helpers/test-store';

/**
 * `npm run import` on a real store (a SQLite file, or with TEST_STORE=neo4j the real Neo4j): what
 * is created, skipped and rejected, and when nothing is written.
 */

let opened: OpenedStore;
let store: Store;
let dir: string;
beforeEach(async () => {
  opened = await openTestStore();
  ({ store, dir } = opened);
});
afterEach(() => opened.close());

function csv(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const songs = (opts: Partial<ImportOptions> & { file: string }) =>
  importFile(store, { kind: 'songs', dryRun: false, skipInvalid: false, batchSize: 500, zone: 'UTC', ...opts });
const services = (opts: Partial<ImportOptions> & { file: string }) =>
  importFile(store, { kind: 'services', dryRun: false, skipInvalid: false, batchSize: 500, zone: 'Europe/London', ...opts });
const stored = async () => (await store.listSongs({}, {})).items.map((s) => [s.name, s.artists]);

describe('songs', () => {
  it("reads a planning tool's export: BOM, quoted fields, extra columns, names split on ; , & and 'and'", () => {
    expect(splitArtists('Chris Tomlin & Jesse Reeves; Ed Cash and Matt Redman, Andy Park')).toEqual([
      'Chris Tomlin',
      'Jesse Reeves',
      'Ed Cash',
      'Matt Redman',
      'Andy Park',
    ]);
    expect(splitArtists('  Rend Collective ; rend collective,  ')).toEqual(['Rend Collective']);
  });

  it('creates new songs, skips duplicates of stored songs and of earlier rows, and reports them by line', async () => {
    await store.createSong({ name: 'Amazing Grace', artists: ['John Newton'] });
    const file = csv(
      'songs.csv',
      '\uFEFFTitle,Author,CCLI Number,Copyright\n' +
        '"How Great Is Our God","Chris Tomlin & Jesse Reeves; Ed Cash",4348399,"2004 worshiptogether.com"\n' +
        '  amazing   GRACE ,john newton,22025,Public Domain\n' +
        '"10,000 Reasons (Bless the Lord)","Matt Redman and Jonas Myrin",6016351,\n' +
        '\n' +
        'How great is our god,"Ed Cash, Jesse Reeves & Chris Tomlin",4348399,\n' +
        'Amazing Grace,Chris Tomlin,,\n',
    );
    const summary = await songs({ file });
    expect(summary).toMatchObject({ rows: 5, created: 3, rejected: [] });
    expect(summary.skipped).toEqual([
      { line: 3, reason: "'amazing GRACE' (john newton) duplicates existing song 1" },
      { line: 6, reason: "'How great is our god' (Ed Cash, Jesse Reeves, Chris Tomlin) duplicates line 2" },
    ]);
    expect(await stored()).toEqual([
      ['Amazing Grace', ['John Newton']],
      ['How Great Is Our God', ['Chris Tomlin', 'Jesse Reeves', 'Ed Cash']],
      ['10,000 Reasons (Bless the Lord)', ['Matt Redman', 'Jonas Myrin']],
      ['Amazing Grace', ['Chris Tomlin']], // same title, other artists: another song
    ]);
    // Importing the same file again changes nothing.
    expect((await songs({ file })).created).toBe(0);
    expect((await store.listSongs({}, {})).items).toHaveLength(4);
  });

  it('accepts Name and Artists as column names, any case', async () => {
    const file = csv('other.csv', 'NAME,artists\nBe Thou My Vision,Traditional Irish\n');
    expect((await songs({ file })).created).toBe(1);
    expect(await stored()).toEqual([['Be Thou My Vision', ['Traditional Irish']]]);
  });

  it('writes nothing when a row is rejected, naming every bad line; --skip-invalid imports the rest', async () => {
    const file = csv('bad-rows.csv', `Title,Artist\nGood One,A\n   ,B\n${'x'.repeat(301)},C\nGood Two,D\n`);
    const held = await songs({ file });
    expect(held).toMatchObject({ created: 0, heldBack: 'rejected' });
    expect(held.rejected).toEqual([
      { line: 3, reason: 'title must not be empty' },
      { line: 4, reason: 'title must be at most 300 characters' },
    ]);
    expect((await store.listSongs({}, {})).items).toEqual([]);

    const forced = await songs({ file, skipInvalid: true });
    expect(forced).toMatchObject({ created: 2 });
    expect((await stored()).map(([name]) => name)).toEqual(['Good One', 'Good Two']);
  });

  it.each([
    ['an unclosed quote', 'Title,Author\nFine,A\n"Broken,B\nAlso fine,C\n', /not valid CSV.*line/],
    ['a row with too many fields', 'Title,Author\nFine,A\nOne,Two,Three\n', /not valid CSV at line 3/],
    ['no title column', 'Song Name,Author\nFine,A\n', /no title column/],
    ['a column named twice', 'Title,Title\nA,B\n', /'title' twice/],
  ])('refuses a malformed file (%s) and writes nothing', async (_label, text, message) => {
    await expect(songs({ file: csv('malformed.csv', text) })).rejects.toThrow(message);
    await expect(songs({ file: csv('malformed.csv', text) })).rejects.toThrow(MalformedFileError);
    expect((await store.listSongs({}, {})).items).toEqual([]);
  });

  it('--dry-run reports what it would do and writes nothing', async () => {
    const summary = await songs({ file: csv('dry.csv', 'Title\nA\nB\n'), dryRun: true });
    expect(summary).toMatchObject({ created: 2, heldBack: 'dry-run' });
    expect((await store.listSongs({}, {})).items).toEqual([]);
  });

  it('writes a large file in batches, one transaction each, with a progress bar', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => `Song ${i},Artist ${i % 7}`);
    const file = csv('large.csv', `Title,Artist\n${rows.join('\n')}\n`);
    // The real store, counting its calls (not a mock: every call goes through).
    let batches = 0;
    const counted = new Proxy(store, {
      get: (target, prop, receiver) =>
        prop === 'importCatalogue'
          ? (...args: Parameters<Store['importCatalogue']>) => (batches++, target.importCatalogue(...args))
          : Reflect.get(target, prop, receiver),
    });
    const stream = new PassThrough();
    let drawn = '';
    stream.on('data', (d) => (drawn += d));
    const summary = await importFile(counted, {
      kind: 'songs',
      file,
      dryRun: false,
      skipInvalid: false,
      batchSize: 500,
      zone: 'UTC',
      progress: { stream, forceOnNonTTY: true },
    });
    expect(summary.created).toBe(1200);
    expect(batches).toBe(3);
    expect(drawn).toContain('1200/1200 rows');
    expect((await store.listSongs({}, {})).items.at(-1)).toMatchObject({ name: 'Song 1199', artists: ['Artist 2'] });
  });
});

describe('services with setlists', () => {
  beforeEach(async () => {
    for (const name of ['Amazing Grace', 'Be Thou My Vision', 'Holy, Holy, Holy']) await store.createSong({ name, artists: [] });
    await store.createSong({ name: 'Twice', artists: ['A'] });
    await store.createSong({ name: 'Twice', artists: ['B'] });
  });

  it('creates services with their setlists in order, skipping services already stored', async () => {
    const existing = await store.createService({ date: Date.UTC(2024, 8, 1, 9), serviceType: 'SUN_AM' });
    const file = csv(
      'services.csv',
      'date,serviceType,songs\n' +
        '2024-09-01 10:00,SUN_AM,Amazing Grace\n' + // 10:00 in London is 09:00 UTC: already stored
        '2024-09-08T18:30,sun pm,"be thou my vision; Holy, Holy, Holy ;Amazing Grace"\n' +
        '2024-09-11,WED,\n',
    );
    const summary = await services({ file });
    expect(summary).toMatchObject({ rows: 3, created: 2, rejected: [] });
    expect(summary.skipped).toEqual([{ line: 2, reason: `2024-09-01 10:00 SUN_AM duplicates existing service ${existing.id}` }]);
    const all = (await store.listServices({}, {})).items;
    expect(all.map((v) => [v.date, v.serviceType])).toEqual([
      [Date.UTC(2024, 8, 1, 9), 'SUN_AM'],
      [Date.UTC(2024, 8, 8, 17, 30), 'SUN_PM'],
      [Date.UTC(2024, 8, 10, 23), 'WED'],
    ]);
    const setlists = await store.setlistsForServices(all.map((v) => v.id));
    expect(setlists.map((l) => l.items.map((s) => s.name))).toEqual([[], ['Be Thou My Vision', 'Holy, Holy, Holy', 'Amazing Grace'], []]);
  });

  it('takes one column per place too, and rejects unknown, ambiguous and repeated titles and bad dates', async () => {
    const file = csv(
      'places.csv',
      'Date,Service Type,Song 2,Song 1\n' +
        '2024-10-06,SUN_AM,Amazing Grace,Be Thou My Vision\n' +
        '2024-10-06,SUN_PM,Nope,Twice\n' +
        '2024-13-40,FRI,Amazing Grace,amazing grace\n',
    );
    const summary = await services({ file });
    expect(summary.heldBack).toBe('rejected');
    expect(summary.rejected).toEqual([
      { line: 3, reason: "'Twice' is ambiguous: songs 4, 5; no song titled 'Nope'" },
      {
        line: 4,
        reason: "date '2024-13-40' is not a calendar date; service type 'FRI' is not one of SUN_AM, SUN_PM, WED; 'Amazing Grace' is listed twice",
      },
    ]);
    expect((await store.listServices({}, {})).items).toEqual([]);

    await services({ file, skipInvalid: true });
    const [only] = (await store.listServices({}, {})).items;
    expect((await store.setlistsForServices([only.id]))[0].items.map((s) => s.name)).toEqual(['Be Thou My Vision', 'Amazing Grace']);
  });
});

describe('the CLI', () => {
  it('prints the summary with line numbers and exits 1 when it writes nothing', async () => {
    const file = csv('cli.csv', 'Title,Author\nNew Song,Someone\n,Nobody\n');
    const out: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
    try {
      expect(await main([file], opened.env)).toBe(1);
      expect(out).toEqual([
        `${file}: 2 rows`,
        'created 0 songs',
        'skipped 0 (already there)',
        'rejected 1',
        '  line 3: title must not be empty',
        'nothing written: fix the rejected rows, or pass --skip-invalid to import the others',
      ]);
    } finally {
      log.mockRestore();
    }
  });

  it('imports into the database of a running server, which serves the songs at once', async () => {
    const server = await startTestServer();
    try {
      const file = csv('live.csv', 'Title,Artists\nLive One,X & Y\nLive Two,Z\n');
      const { code, stdout, stderr } = await runScript('src/cli/import.ts', [file], server.storeEnv);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toContain('created 2 songs');
      const res = await server.api('GET', '/songs/byArtist/y');
      expect(res.body).toEqual([{ id: 1, name: 'Live One', artists: ['X', 'Y'] }]);
    } finally {
      await server.close();
    }
  }, 30_000);
});
