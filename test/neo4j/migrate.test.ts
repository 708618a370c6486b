/**
 * `npm run migrate` between real SQLite files (the Neo4j direction runs in the store contract
 * suite when NEO4J_URI is set): ids, positions, link order, users and id sequences survive, and
 * running it twice changes nothing.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { migrate } from '../../src/cli/migrate';
import { SqliteStore } from '../../src/store/sqlite/store';
import type { Snapshot } from '../../src/store/types';
import { YEAR_1900, YEAR_2200, populateRichly } from '../helpers/rich-data';
import { expectSlotFree } from '../../src/store/types';

const ROOT = path.resolve(__dirname, '..', '..');
const quiet = { info: () => undefined, warn: () => undefined };
let dir: string;
let source: string;
let sourceSnapshot: Snapshot;

async function exportOf(file: string): Promise<Snapshot> {
  const store = new SqliteStore(file);
  try {
    return await store.exportSnapshot();
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrate-test-'));
  source = path.join(dir, 'source.db');
  const store = new SqliteStore(source);
  await populateRichly(store);
  sourceSnapshot = await store.exportSnapshot();
  await store.close();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('npm run migrate, SQLite file to SQLite file', () => {
  const target = () => path.join(dir, 'target.db');

  it('copies everything through the command line and reports counts', async () => {
    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'src/cli/migrate.ts', '--from', 'sqlite', '--from-path', source, '--to', 'sqlite', '--to-path', target()],
      { cwd: ROOT, env: { ...process.env, SQLITE_PATH: path.join(dir, 'never-used.db') } },
    );
    expect(stdout).toContain(`read    3 songs, 2 services, 4 links, 2 users from sqlite ${source}`);
    expect(stdout).toContain(`wrote   3 songs, 2 services, 4 links, 2 users to sqlite ${target()}`);
    expect(stdout).toContain('verified');
    expect(fs.existsSync(path.join(dir, 'never-used.db'))).toBe(false);
  }, 60_000);

  it('keeps ids, positions, link order, users and sequences', async () => {
    const copy = await exportOf(target());
    expect(copy).toEqual(sourceSnapshot);
    expect(copy.sequences).toEqual({ song: 4, service: 3, user: 3, link: 4 });

    const store = new SqliteStore(target());
    try {
      expect((await store.listSongs({}, {})).items).toEqual([
        { id: 1, name: 'Amazing Grace', artists: ['John Newton', ''] },
        { id: 2, name: 'Be Thou My Vision', artists: ['Traditional Irish', '  BEYONCE\u0301 '] },
        { id: 3, name: 'Crown Him', artists: [] },
      ]);
      expect((await store.listServices({}, {})).items).toEqual([
        { id: 1, date: YEAR_1900, serviceType: 'SUN_AM' },
        { id: 2, date: YEAR_2200, serviceType: 'WED' },
      ]);
      // Crown Him was inserted at position 2 after the other two were linked: places and link
      // order (seq) differ, and both survive the copy.
      const [early, late] = (await store.setlistsForServices([1, 2])).map((p) => p.items);
      expect(early.map((s) => s.name)).toEqual(['Amazing Grace', 'Crown Him', 'Be Thou My Vision']);
      expect(late.map((s) => s.name)).toEqual(['Crown Him']);
      expect(copy.links.map((l) => [l.serviceId, l.songId, l.position, l.seq])).toEqual([
        [1, 1, 1, 1],
        [1, 2, 3, 2],
        [1, 3, 2, 3],
        [2, 3, 1, 4],
      ]);
      expect(((await store.songsByArtistKey('beyonc\u00e9', {})).items).map((s) => s.id)).toEqual([2]);
      // Licensing details, whole and partial; the deleted song's went with it.
      expect(copy.licensing).toHaveLength(2);
      expect(await store.licensingOfSongs([1, 2, 3, 4])).toEqual([
        { ccliNumber: '22025', copyright: 'Public Domain' },
        { ccliNumber: null, copyright: 'Words: Mary Byrne, 1905' },
        { ccliNumber: null, copyright: null },
        null,
      ]);
      expect((await store.listSongs({ search: '22025' }, {})).items.map((s) => s.id)).toEqual([1]);
      expect(await store.credentialsByUsername('admin')).toEqual({
        id: 1,
        username: 'Admin',
        role: 'ADMIN',
        passwordHash: 'scrypt$admin2',
        tokenVersion: 1,
      });
      expect(await store.credentialsByUsername('Worship.Leader')).toMatchObject({ id: 2, tokenVersion: 0 });

      // Ids deleted in the source (song 4, service 3, user 3) are not handed out again.
      expect((await store.createSong({ name: 'New', artists: [] })).id).toBe(5);
      expect((expectSlotFree(await store.createService({ date: 0, serviceType: 'WED' }))).id).toBe(4);
      expect((await store.createUser({ username: 'new', passwordHash: 'h', role: 'USER' }))?.id).toBe(4);
      await store.linkSong(1, 5, 3); // inserted at place 3: Be Thou My Vision moves down to 4
      expect((await store.setlistsForServices([1]))[0].items.map((s) => s.name)).toEqual([
        'Amazing Grace',
        'Crown Him',
        'New',
        'Be Thou My Vision',
      ]);
    } finally {
      await store.close();
    }
  });

  it('is idempotent: a second run into an up-to-date copy changes nothing', async () => {
    const fresh = path.join(dir, 'twice.db');
    const args = ['--from', 'sqlite', '--from-path', source, '--to', 'sqlite', '--to-path', fresh];
    const first = await migrate(args, {}, quiet);
    expect(first.before).toEqual({ songs: 0, services: 0, links: 0, users: 0 });
    const once = await exportOf(fresh);
    const second = await migrate(args, {}, quiet);
    expect(second.before).toEqual({ songs: 3, services: 2, links: 4, users: 2 });
    expect(second.written).toEqual(first.written);
    expect(await exportOf(fresh)).toEqual(once);
    expect(once).toEqual(sourceSnapshot);
  });

  it('round-trips through a JSON snapshot file', async () => {
    const json = path.join(dir, 'snapshot.json');
    const back = path.join(dir, 'from-json.db');
    await migrate(['--from', 'sqlite', '--from-path', source, '--to', 'json', '--to-path', json], {}, quiet);
    await migrate(['--from', 'json', '--from-path', json, '--to', 'sqlite', '--to-path', back], {}, quiet);
    expect(await exportOf(back)).toEqual(sourceSnapshot);
  });

  it('reads a version 1 JSON snapshot (before licensing details): the songs it holds then have none', async () => {
    const json = path.join(dir, 'version-1.json');
    const { licensing: _, ...older } = sourceSnapshot;
    fs.writeFileSync(json, JSON.stringify({ ...older, version: 1 }));
    const target = path.join(dir, 'from-version-1.db');
    // The target already holds the licensing details of song 1, which the older snapshot lacks.
    await migrate(['--from', 'sqlite', '--from-path', source, '--to', 'sqlite', '--to-path', target], {}, quiet);
    const report = await migrate(['--from', 'json', '--from-path', json, '--to', 'sqlite', '--to-path', target], {}, quiet);
    expect(report.written).toEqual({ songs: 3, services: 2, links: 4, users: 2 });
    const copy = await exportOf(target);
    expect(copy.licensing).toEqual([]);
    expect({ ...copy, licensing: undefined, version: 1 }).toEqual({ ...older, licensing: undefined, version: 1 });
  });

  it('reads SQLITE_PATH when no path is given', async () => {
    const viaEnv = path.join(dir, 'via-env.db');
    const report = await migrate(['--from', 'sqlite', '--to', 'sqlite', '--to-path', viaEnv], { SQLITE_PATH: source }, quiet);
    expect(report.from).toBe(`sqlite ${source}`);
    expect(await exportOf(viaEnv)).toEqual(sourceSnapshot);
  });

  it('refuses a missing source, the same store twice, and unknown kinds, without creating files', async () => {
    const missing = path.join(dir, 'missing.db');
    await expect(
      migrate(['--from', 'sqlite', '--from-path', missing, '--to', 'sqlite', '--to-path', path.join(dir, 'x.db')], {}, quiet),
    ).rejects.toThrow(/does not exist/);
    expect(fs.existsSync(missing)).toBe(false);
    await expect(migrate(['--from', 'sqlite', '--to', 'sqlite'], { SQLITE_PATH: source }, quiet)).rejects.toThrow(
      /the same store/,
    );
    await expect(migrate(['--from', 'mysql', '--to', 'sqlite'], {}, quiet)).rejects.toThrow(/--from must be one of/);
    await expect(migrate(['--from', 'neo4j', '--to', 'sqlite', '--to-path', source], {}, quiet)).rejects.toThrow(
      /NEO4J_URI/,
    );
  });
});
