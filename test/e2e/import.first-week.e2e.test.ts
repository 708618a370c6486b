/**
 * A church's first import, as a newcomer runs it: the demo data (`npm run seed`), then the song
 * list Planning Center exports (Title, Author, Copyright, CCLI Number) through `npm run import` as
 * its own process, then the licensing CSV a church files. On the run's store (a SQLite file, or
 * the real Neo4j in npm run test:neo4j), over real HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { DateTime } from 'luxon';
import { runScript } from '../helpers/process';
import { startDemoServer } from '../helpers/demo-server';
import { tempDbPath, type TestServer } from '../helpers/server';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'import');

let server: TestServer;
beforeAll(async () => {
  server = await startDemoServer({ SERVICE_TIME_ZONE: 'UTC' });
}, 120_000);
afterAll(() => server?.close());

const allSongs = async () => (await server.gql('{ songs(limit: 1000) { id name artists ccliNumber copyright } }')).body.data.songs as {
  id: number;
  name: string;
  artists: string[];
  ccliNumber: string | null;
  copyright: string | null;
}[];

test("Planning Center's song list into the demo store: only the songs it lacks are created, the others gain their CCLI numbers", async () => {
  const before = await allSongs();
  expect(before).toHaveLength(36);
  const file = path.join(FIXTURES, 'planning-center-songs.csv');

  const dry = await runScript('src/cli/import.ts', ['--dry-run', file], server.storeEnv);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain('would create 8 songs');
  expect(dry.stdout).toContain('would update 12');
  expect(dry.stdout).toContain("line 3: 'Build My Life (Live)'");
  expect(dry.stdout).toMatch(/line 7: '10000 Reasons \(Bless The Lord\)' .* matches song \d+ by title: CCLI number: 6016351/);
  expect(await allSongs()).toEqual(before);

  const { code, stdout, stderr } = await runScript('src/cli/import.ts', [file], server.storeEnv);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toContain('created 8 songs');
  expect(stdout).toContain('updated 12');
  expect(stdout).toContain('ambiguous 0');

  const after = await allSongs();
  expect(after).toHaveLength(44);
  const byName = new Map(after.map((s) => [s.name, s]));
  // Stored titles stay as they were; each gained the number, copyright and writers it lacked.
  expect(byName.get('Goodness of God')).toMatchObject({ ccliNumber: '7117726', copyright: expect.stringMatching(/^2018 SHOUT!/) });
  expect(byName.get('Goodness of God')!.artists.slice(0, 3)).toEqual(['Bethel Music', 'Jenn Johnson', 'Ed Cash']);
  expect(byName.get('10,000 Reasons')).toMatchObject({ ccliNumber: '6016351' });
  expect(byName.get('Build My Life')).toMatchObject({ ccliNumber: '7070345' });
  expect(byName.get('Holy, Holy, Holy')).toMatchObject({ ccliNumber: '1156' });
  expect(byName.get('Way Maker')).toMatchObject({ ccliNumber: '7115744', artists: ['Osinachi Kalu Okoro Egbu'] });
  expect(after.filter((s) => /goodness of god|build my life|cornerstone/i.test(s.name))).toHaveLength(3);

  // The licensing report for the last six months: every song the file named has its number.
  const to = DateTime.utc().toISODate()!;
  const from = DateTime.utc().minus({ months: 6 }).toISODate()!;
  const report = await server.raw('GET', `/api/v1/reports/songUsage?from=${from}&to=${to}&format=csv&limit=1000`);
  expect(report.status).toBe(200);
  const rows = parse(report.text.replace(/^\uFEFF/, ''), { columns: true }) as Record<string, string>[];
  const named = rows.filter((r) => /goodness of god|build my life|cornerstone|it is well|great is thy|10,000 reasons|in christ alone/i.test(r.Song));
  expect(named.length).toBeGreaterThanOrEqual(5);
  for (const row of named) expect([row.Song, row['CCLI #']]).toEqual([row.Song, expect.stringMatching(/^\d+$/)]);

  // Importing the same file again changes nothing.
  const again = await runScript('src/cli/import.ts', [file], server.storeEnv);
  expect(again.stdout).toContain('created 0 songs');
  expect(again.stdout).toContain('updated 0');
  expect(await allSongs()).toEqual(after);
}, 120_000);

test("SongSelect's shape: Song Title, Author(s), CCLI Song # with 'CCLI 7117726' and '#7115744', dashed and bracketed suffixes", async () => {
  const file = path.join(FIXTURES, 'songselect-songs.csv');
  const { code, stdout } = await runScript('src/cli/import.ts', ['--dry-run', '--artist-separators', '|', file], server.storeEnv);
  expect(code).toBe(0);
  expect(stdout).toContain('would create 0 songs');
  expect(stdout).toMatch(/line 2: 'Goodness of God \(Live\)' .* CCLI 7117726 matches song \d+ by CCLI number/);
  expect(stdout).toMatch(/line 3: 'Way Maker - Acoustic' .* CCLI 7115744 matches song \d+ by CCLI number/);
  expect(stdout).toMatch(/line 4: 'Living Hope' .* matches song \d+ by CCLI number/);
});

test('past setlists name songs by title, CCLI number or id; a title two songs share is refused with both ids', async () => {
  const songs = await allSongs();
  const wayMaker = songs.find((s) => s.name === 'Way Maker')!;
  const cornerstone = songs.find((s) => s.name === 'Cornerstone')!;
  const csv = path.join(path.dirname(tempDbPath()), 'setlists.csv');
  fs.writeFileSync(
    csv,
    `date,serviceType,songs\n2020-01-05,SUN_AM,"build my life (live); CCLI 7115744; id:${cornerstone.id}; #6016351"\n`,
  );
  const { code, stdout } = await runScript('src/cli/import.ts', ['--services', csv], { ...server.storeEnv, SERVICE_TIME_ZONE: 'UTC' });
  expect({ code, stdout }).toEqual({ code: 0, stdout: expect.stringContaining('created 1 services') });
  const [service] = (await server.api('GET', '/services/byDate/between/2020-01-05/2020-01-06')).body;
  const setlist = (await server.gql(`{ service(id: ${service.id}) { songs { id name } } }`)).body.data.service.songs;
  expect(setlist.map((s: { name: string }) => s.name)).toEqual(['Build My Life', 'Way Maker', 'Cornerstone', '10,000 Reasons']);
  expect(setlist[1].id).toBe(wayMaker.id);

  // A second song under that title: the title alone no longer decides.
  const token = await server.adminToken();
  const twin = (await server.api('POST', '/songs', { token, body: { name: 'Cornerstone (Acoustic)', artists: ['Someone Else'] } })).body;
  fs.writeFileSync(csv, 'date,serviceType,songs\n2020-01-12,SUN_AM,Cornerstone\n');
  const refused = await runScript('src/cli/import.ts', ['--services', csv], { ...server.storeEnv, SERVICE_TIME_ZONE: 'UTC' });
  expect(refused.code).toBe(1);
  expect(refused.stdout).toContain(`line 2: 'Cornerstone' is ambiguous: songs ${cornerstone.id}, ${twin.id}`);

  // npm run songs -- duplicates lists them by the same rule.
  const listed = await runScript('src/cli/songs.ts', ['duplicates'], server.storeEnv);
  expect(listed.code).toBe(0);
  expect(listed.stdout.split('\n')).toEqual([
    '1 group of likely duplicates:',
    "title 'cornerstone' (by title):",
    `  song ${cornerstone.id}: 'Cornerstone' (${cornerstone.artists.join(', ')}) CCLI 6158927`,
    `  song ${twin.id}: 'Cornerstone (Acoustic)' (Someone Else)`,
    '',
  ]);
  expect((await runScript('src/cli/songs.ts', ['merge'], server.storeEnv)).code).toBe(2);
  const self = await runScript('src/cli/songs.ts', ['merge', String(twin.id), String(twin.id)], server.storeEnv);
  expect([self.code, self.stderr]).toEqual([2, expect.stringContaining('mergeIds: must not include keepId')]);

  // npm run songs -- merge folds the twin into the song kept; then the title decides again.
  const merged = await runScript('src/cli/songs.ts', ['merge', String(cornerstone.id), String(twin.id)], server.storeEnv);
  expect({ code: merged.code, stdout: merged.stdout.split('\n') }).toEqual({
    code: 0,
    stdout: [
      `merged song ${twin.id} into song ${cornerstone.id}: 'Cornerstone' (${[...cornerstone.artists, 'Someone Else'].join(', ')}) CCLI 6158927`,
      expect.stringMatching(/^ {2}sung in \d+ services \(\d+ before\); the merged songs are deleted$/),
      '',
    ],
  });
  expect((await server.api('GET', `/songs/${twin.id}`)).status).toBe(404);
  const again = await runScript('src/cli/import.ts', ['--services', csv], { ...server.storeEnv, SERVICE_TIME_ZONE: 'UTC' });
  expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 0, stdout: expect.stringContaining('created 1 services') });
  expect((await runScript('src/cli/songs.ts', ['duplicates'], server.storeEnv)).stdout).toBe('no likely duplicates\n');
});

test('npm run songs -- duplicates on a catalogue without any', async () => {
  const fresh = await startDemoServer({ SERVICE_TIME_ZONE: 'UTC' });
  try {
    const listed = await runScript('src/cli/songs.ts', ['duplicates'], fresh.storeEnv);
    expect({ code: listed.code, stdout: listed.stdout }).toEqual({ code: 0, stdout: 'no likely duplicates\n' });
  } finally {
    await fresh.close();
  }
}, 60_000);
