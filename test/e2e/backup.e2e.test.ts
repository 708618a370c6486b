/**
 * `npm run backup` on the run's store, as its own process against a running server's data: on
 * SQLite a verified copy of the file, on Neo4j (npm run test:neo4j) a logical backup, the JSON
 * snapshot, verified and written with mode 0600; either restores through `npm run migrate` into
 * a new SQLite file holding the same records.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runScript } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';
import { testStoreKind } from '../helpers/test-store';

let s: TestServer;
let dir: string;
beforeAll(async () => {
  s = await startTestServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-e2e-'));
  const token = await s.adminToken();
  for (let i = 1; i <= 3; i++) {
    const song = await s.api('POST', '/songs', { token, body: { name: `Kept ${i}`, artists: ['A'], ccliNumber: String(1000 + i) } });
    const service = await s.api('POST', '/services', { token, body: { date: `2026-0${i}-04`, serviceType: 'SUN_AM' } });
    await s.api('PUT', `/services/${service.body.id}/songs/${song.body.id}`, { token });
  }
}, 60_000);
afterAll(async () => {
  await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a verified backup, owner-only, that restores into a new store with the same records', async () => {
  const neo4j = testStoreKind() === 'neo4j';
  const file = path.join(dir, neo4j ? 'songs.json' : 'songs.db');
  const env = { ...s.storeEnv, ...(neo4j ? {} : { SQLITE_PATH: s.dbPath }) };
  const made = await runScript('src/cli/backup.ts', ['--to', file], env);
  expect({ code: made.code, stderr: made.stderr }).toEqual({ code: 0, stderr: '' });
  expect(made.stdout).toContain('verified:');
  expect(made.stdout).toMatch(/3 songs, 3 services, 3 setlist links, 1 users/);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
  if (neo4j) expect(made.stdout).toContain(`restore: npm run migrate -- --from json --from-path ${file} --to neo4j`);

  // A backup never overwrites.
  const again = await runScript('src/cli/backup.ts', ['--to', file], env);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('already exists');

  const restored = path.join(dir, 'restored.db');
  const from = neo4j ? ['--from', 'json', '--from-path', file] : ['--from', 'sqlite', '--from-path', file];
  const migrated = await runScript('src/cli/migrate.ts', [...from, '--to', 'sqlite', '--to-path', restored], { LOG_LEVEL: 'silent' });
  expect({ code: migrated.code, stderr: migrated.stderr.replace(/^.*\n/gm, (l) => (/error|fail/i.test(l) ? l : '')) }).toEqual({ code: 0, stderr: '' });
  expect(migrated.stdout).toContain('wrote   3 songs, 3 services, 3 links, 1 users');
});
