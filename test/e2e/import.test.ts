import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/import';
import { MalformedFileError } from '../../src/import/csv';
import { importFile, type ImportOptions } from '../../src/import/run';
import { checkArtistSeparators, splitArtists } from '../../src/import/songs';
import type { Store } from '../../src/store/types';
import { runScript } from '../helpers/process';
import { startTestServer } from '../helpers/server';
import { openTestStore, type OpenedStore } from '../helpers/test-store';
import { expectSlotFree } from '../../src/store/types';
import { DEFAULT_SERVICE_TIMES } from '../../src/domain/dates';

const LONDON = { zone: 'Europe/London', times: DEFAULT_SERVICE_TIMES };

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
  importFile(store, { kind: 'songs', dryRun: false, skipInvalid: false, batchSize: 500, clock: { zone: 'UTC', times: DEFAULT_SERVICE_TIMES }, ...opts });
const services = (opts: Partial<ImportOptions> & { file: string }) =>
  importFile(store, { kind: 'services', dryRun: false, skipInvalid: false, batchSize: 500, clock: LONDON, ...opts });
const stored = async () => (await store.listSongs({}, {})).items.map((s) => [s.name, s.artists]);

describe('songs', () => {
  it("splits artists only on ; | and , by default, never on & or 'and', each name once", () => {
    expect(splitArtists('Keith & Kristyn Getty')).toEqual(['Keith & Kristyn Getty']);
    expect(splitArtists('Shane & Shane')).toEqual(['Shane & Shane']);
    expect(splitArtists('Ed Cash and Matt Redman')).toEqual(['Ed Cash and Matt Redman']);
    expect(splitArtists('Keith & Kristyn Getty; Stuart Townend | Matt Redman,Jonas Myrin')).toEqual([
      'Keith & Kristyn Getty',
      'Stuart Townend',
      'Matt Redman',
      'Jonas Myrin',
    ]);
    expect(splitArtists('  Rend Collective ; rend collective,  ')).toEqual(['Rend Collective']);
  });

  it('splits on the separators it is given instead', () => {
    expect(splitArtists('Tomlin, Chris / Redman, Matt', '/')).toEqual(['Tomlin, Chris', 'Redman, Matt']);
    expect(splitArtists('A & B; C', '&')).toEqual(['A', 'B; C']);
    expect(splitArtists('A; B', '')).toEqual(['A; B']);
    expect(checkArtistSeparators('/;')).toBeUndefined();
    expect(checkArtistSeparators('a')).toMatch(/'a' cannot separate names/);
    expect(checkArtistSeparators('; ')).toMatch(/' ' cannot separate names/);
  });

  it('creates new songs; a row matching a stored song or an earlier row adds what it lacks or is skipped, reported by line', async () => {
    await store.createSong({ name: 'Amazing Grace', artists: ['John Newton'] });
    const file = csv(
      'songs.csv',
      '\uFEFFTitle,Author,CCLI Number,Copyright\n' +
        '"How Great Is Our God","Chris Tomlin; Jesse Reeves; Ed Cash",4348399,"2004 worshiptogether.com"\n' +
        '  amazing   GRACE ,john newton,,Public Domain\n' +
        '"10,000 Reasons (Bless the Lord)","Matt Redman, Jonas Myrin",6016351,\n' +
        '\n' +
        'How great is our god,"Ed Cash| Jesse Reeves, Chris Tomlin",,\n' +
        'Amazing Grace,Chris Tomlin,,\n',
    );
    const summary = await songs({ file });
    expect(summary).toMatchObject({ rows: 5, created: 2, rejected: [], ambiguous: [] });
    expect(summary.updated).toEqual([
      { line: 3, what: "'amazing GRACE' (john newton) matches song 1 by title: copyright: 'Public Domain'" },
      // One stored song has the title: the title decides, whatever the artists (a song list names writers).
      { line: 7, what: "'Amazing Grace' (Chris Tomlin) matches song 1 by title: artists: + Chris Tomlin" },
    ]);
    expect(summary.skipped).toEqual([{ line: 6, reason: "'How great is our god' (Ed Cash, Jesse Reeves, Chris Tomlin) matches line 2 by title" }]);
    expect(await stored()).toEqual([
      ['Amazing Grace', ['John Newton', 'Chris Tomlin']],
      ['How Great Is Our God', ['Chris Tomlin', 'Jesse Reeves', 'Ed Cash']],
      ['10,000 Reasons (Bless the Lord)', ['Matt Redman', 'Jonas Myrin']],
    ]);
    expect(await store.licensingOfSongs([1, 2, 3])).toEqual([
      { ccliNumber: null, copyright: 'Public Domain' },
      { ccliNumber: '4348399', copyright: '2004 worshiptogether.com' },
      { ccliNumber: '6016351', copyright: null },
    ]);
    // Importing the same file again changes nothing.
    expect(await songs({ file })).toMatchObject({ created: 0, updated: [] });
    expect((await store.listSongs({}, {})).items).toHaveLength(3);
  });

  it("keeps act names whole: 'Keith & Kristyn Getty' and 'Shane & Shane' are one artist each", async () => {
    const file = csv('acts.csv', 'Title,Artists\nIn Christ Alone,"Keith & Kristyn Getty; Stuart Townend"\nYou Are My King,Shane & Shane\n');
    await songs({ file });
    expect(await stored()).toEqual([
      ['In Christ Alone', ['Keith & Kristyn Getty', 'Stuart Townend']],
      ['You Are My King', ['Shane & Shane']],
    ]);
    expect(await songs({ file: csv('acts2.csv', 'Title,Artists\nX,A / B\n'), artistSeparators: '/' })).toMatchObject({ created: 1 });
    expect((await store.listSongs({}, {})).items.at(-1)).toMatchObject({ name: 'X', artists: ['A', 'B'] });
  });

  it.each(['CCLI Number', 'CCLI #', 'CCLI', 'ccli song number'])('reads the CCLI number from a %p column, and the copyright', async (header) => {
    const file = csv('ccli.csv', `Title,${header},Copyright\nCornerstone, 6158927 ,"  2011 Hillsong Music Publishing  "\n`);
    expect(await songs({ file })).toMatchObject({ created: 1 });
    const [song] = (await store.listSongs({}, {})).items;
    expect(await store.licensingOfSongs([song.id])).toEqual([{ ccliNumber: '6158927', copyright: '2011 Hillsong Music Publishing' }]);
    expect((await store.listSongs({ search: '6158927' }, {})).items).toEqual([song]);
  });

  it('matches a row by the CCLI number a song has, whatever its spelling; another number is another song', async () => {
    await store.createSong({ name: 'How Great Is Our God', artists: ['Chris Tomlin'], ccliNumber: '4348399' });
    await store.createSong({ name: 'Amazing Grace', artists: ['John Newton'] });
    const file = csv(
      'numbers.csv',
      'Title,Author,CCLI #\n' +
        'How Great Is Our God (Live),Chris Tomlin; Ed Cash,4348399\n' + // another spelling, same number
        'Majesty,Jack Hayford,13733\n' +
        'MAJESTY!,Hayford,13733\n' + // same number as the row before
        'How Great Is Our God,Chris Tomlin,9999999\n' + // same title and artist, another number
        'Amazing Grace,John Newton,22025\n', // the stored song has no number: title and artists decide
    );
    const summary = await songs({ file });
    expect(summary).toMatchObject({ rows: 5, created: 2, rejected: [], ambiguous: [] });
    expect(summary.updated).toEqual([
      { line: 2, what: "'How Great Is Our God (Live)' (Chris Tomlin, Ed Cash) CCLI 4348399 matches song 1 by CCLI number: artists: + Ed Cash" },
      // The stored song has no number: the title decides, and the song gains the number.
      { line: 6, what: "'Amazing Grace' (John Newton) CCLI 22025 matches song 2 by title: CCLI number: 22025" },
    ]);
    expect(summary.skipped).toEqual([
      { line: 4, reason: "'MAJESTY!' (Hayford) CCLI 13733 matches line 3 by CCLI number, which it adds to: artists: + Hayford" },
    ]);
    expect((await store.listSongs({}, {})).items.map((s) => s.name)).toEqual(['How Great Is Our God', 'Amazing Grace', 'Majesty', 'How Great Is Our God']);
    expect(await store.licensingOfSongs([2])).toEqual([{ ccliNumber: '22025', copyright: null }]);
  });

  it('rejects a CCLI number that is not 1 to 10 digits and a copyright over 500 characters', async () => {
    const file = csv(
      'bad-ccli.csv',
      `Title,CCLI,Copyright\nA,CCLI-12a,\nB,12345678901,\nC,1,${'c'.repeat(501)}\nD,42,Fine\n`,
    );
    const held = await songs({ file });
    expect(held).toMatchObject({ created: 0, heldBack: 'rejected' });
    expect(held.rejected).toEqual([
      { line: 2, reason: "CCLI number 'CCLI-12a' is not 1 to 10 digits" },
      { line: 3, reason: "CCLI number '12345678901' is not 1 to 10 digits" },
      { line: 4, reason: 'copyright must be at most 500 characters' },
    ]);
    expect((await store.listSongs({}, {})).items).toEqual([]);
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
    ['no title column', 'Hymn,Author\nFine,A\n', /no title column/],
    ['a column named twice', 'Title,Title\nA,B\n', /'title' twice/],
  ])('refuses a malformed file (%s) and writes nothing', async (_label, text, message) => {
    await expect(songs({ file: csv('malformed.csv', text) })).rejects.toThrow(message);
    await expect(songs({ file: csv('malformed.csv', text) })).rejects.toThrow(MalformedFileError);
    expect((await store.listSongs({}, {})).items).toEqual([]);
  });

  it('--dry-run reports what it would do and writes nothing', async () => {
    const summary = await songs({ file: csv('dry.csv', 'Title\nA\nB\n'), dryRun: true });
    expect(summary).toMatchObject({ created: 2, heldBack: 'dry-run' });
    expect(summary.toCreate).toEqual([
      { line: 2, what: "'A'" },
      { line: 3, what: "'B'" },
    ]);
    expect((await store.listSongs({}, {})).items).toEqual([]);
  });

  it('--dry-run with rejected rows still reports every row it would create, skip and reject', async () => {
    await store.createSong({ name: 'Old', artists: [] });
    const file = csv('dry-mixed.csv', 'Title,Artists,CCLI\nNew,Keith & Kristyn Getty,123\nold,,\n   ,X,\nOther,,abc\n');
    const summary = await songs({ file, dryRun: true });
    expect(summary).toEqual({
      rows: 4,
      created: 1,
      toCreate: [{ line: 2, what: "'New' (Keith & Kristyn Getty) CCLI 123" }],
      updated: [],
      skipped: [{ line: 3, reason: "'old' matches song 1 by title" }],
      ambiguous: [],
      rejected: [
        { line: 4, reason: 'title must not be empty' },
        { line: 5, reason: "CCLI number 'abc' is not 1 to 10 digits" },
      ],
      heldBack: 'dry-run',
    });
    expect((await store.listSongs({}, {})).items.map((s) => s.name)).toEqual(['Old']);
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
      clock: { zone: 'UTC', times: DEFAULT_SERVICE_TIMES },
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
    const existing = expectSlotFree(await store.createService({ date: Date.UTC(2024, 8, 1, 9), serviceType: 'SUN_AM' }));
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
      // A day alone is the type's usual time (WED 19:00) in London, summer time: 18:00 UTC.
      [Date.UTC(2024, 8, 11, 18), 'WED'],
    ]);
    const setlists = await store.setlistsForServices(all.map((v) => v.id));
    expect(setlists.map((l) => l.items.map((s) => s.name))).toEqual([[], ['Be Thou My Vision', 'Holy, Holy, Holy', 'Amazing Grace'], []]);
  });

  it('takes a row of a day alone for the service of its type stored that day at any time, so an old file imports once', async () => {
    // Stored by a release that read a day alone as local midnight (23:00 UTC the day before, in summer).
    const old = expectSlotFree(await store.createService({ date: Date.UTC(2024, 8, 10, 23), serviceType: 'WED' }));
    const file = csv('days.csv', 'date,serviceType,songs\n2024-09-11,WED,Amazing Grace\n2024-09-11,SUN_AM,\n2024-09-12,WED,\n2024-09-12,WED,\n');
    const summary = await services({ file });
    expect(summary.skipped).toEqual([
      { line: 2, reason: `2024-09-11 WED duplicates existing service ${old.id}` },
      { line: 5, reason: '2024-09-12 WED duplicates line 4' },
    ]);
    expect((await store.listServices({}, {})).items.map((v) => [v.date, v.serviceType])).toEqual([
      [Date.UTC(2024, 8, 10, 23), 'WED'],
      [Date.UTC(2024, 8, 11, 9, 30), 'SUN_AM'],
      [Date.UTC(2024, 8, 12, 18), 'WED'],
    ]);
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
        'updated 0 (matched a stored song, which gains what the row adds)',
        'skipped 0 (already there)',
        'ambiguous 0 (nothing written for these rows)',
        'rejected 1',
        '  line 3: title must not be empty',
        'nothing written: fix the rejected rows, or pass --skip-invalid to import the others',
      ]);
    } finally {
      log.mockRestore();
    }
  });

  /** main() with console.log and console.error captured. */
  async function cli(argv: string[], env: Record<string, string>) {
    const out: string[] = [];
    const err: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
    const error = jest.spyOn(console, 'error').mockImplementation((line: string) => void err.push(line));
    try {
      return { code: await main(argv, env), out, err };
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  }

  it('--dry-run lists the rows it would create, skip and reject, writes nothing and exits 0', async () => {
    await store.createSong({ name: 'Old', artists: [], ccliNumber: '77' });
    const file = csv('cli-dry.csv', 'Title,Artists,CCLI #\nNew Song,Shane & Shane,123\nOld (again),,77\n,Nobody,\n');
    const { code, out } = await cli(['--dry-run', file], opened.env);
    expect(code).toBe(0);
    expect(out).toEqual([
      `${file}: 3 rows`,
      'would create 1 songs',
      "  line 2: 'New Song' (Shane & Shane) CCLI 123",
      'would update 0 (matched a stored song, which gains what the row adds)',
      'would skip 1 (already there)',
      "  line 3: 'Old (again)' CCLI 77 matches song 1 by CCLI number",
      'ambiguous 0 (nothing written for these rows)',
      'would reject 1',
      '  line 4: title must not be empty',
      'dry run: nothing written; as it is, the import would write nothing until the rejected rows are fixed (or --skip-invalid)',
    ]);
    expect((await store.listSongs({}, {})).items.map((s) => s.name)).toEqual(['Old']);
  });

  it('--dry-run creates no database, and exits 1 only for a file it cannot read', async () => {
    const file = csv('cli-dry2.csv', 'Title\nA\n');
    const nowhere = path.join(dir, 'not-yet.db');
    const ok = await cli(['--dry-run', file], { SQLITE_PATH: nowhere });
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('would create 1 songs');
    expect(ok.out.at(-1)).toBe('dry run: nothing written');
    expect(fs.existsSync(nowhere)).toBe(false);

    const unreadable = await cli(['--dry-run', path.join(dir, 'no-such.csv')], { SQLITE_PATH: nowhere });
    expect(unreadable.code).toBe(1);
    expect(unreadable.err.join('\n')).toMatch(/cannot read .*no-such\.csv \(ENOENT\); nothing written/);
    const malformed = await cli(['--dry-run', csv('cli-bad.csv', 'Title\n"open\n')], { SQLITE_PATH: nowhere });
    expect(malformed.code).toBe(1);
    expect(fs.existsSync(nowhere)).toBe(false);
  });

  it('--artist-separators chooses the separators; letters, digits and spaces are refused', async () => {
    const file = csv('cli-sep.csv', 'Title,Artists\nDuet,"Getty, Keith / Townend, Stuart"\n');
    const { code } = await cli(['--artist-separators', '/', file], opened.env);
    expect(code).toBe(0);
    expect((await store.listSongs({}, {})).items).toMatchObject([{ name: 'Duet', artists: ['Getty, Keith', 'Townend, Stuart'] }]);
    const bad = await cli(['--artist-separators', 'and', file], opened.env);
    expect(bad.code).toBe(1);
    expect(bad.err[0]).toBe("import: --artist-separators: 'a' cannot separate names: give punctuation such as ;|,");
  });

  it('imports into the database of a running server, which serves the songs at once', async () => {
    const server = await startTestServer();
    try {
      const file = csv('live.csv', 'Title,Artists\nLive One,X; Y\nLive Two,Z\n');
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
