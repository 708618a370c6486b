/**
 * The migration round trip SQLite -> Neo4j -> SQLite through the real `npm run migrate` code, on
 * the Neo4j at NEO4J_URI (which it empties first). Runs under `npm run test:neo4j` (which starts a
 * Neo4j in Docker or with the local launcher when NEO4J_URI is not set) or any jest run with
 * NEO4J_URI set; otherwise it reports itself as skipped, saying why.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import neo4j from 'neo4j-driver';
import { migrate } from '../../src/cli/migrate';
import { createNeo4jDriver } from '../../src/store/neo4j/driver';
import { MAINTENANCE_CYPHER } from '../../src/store/neo4j/statements';
import { SqliteStore } from '../../src/store/sqlite/store';
import { Neo4jStore } from '../../src/store/neo4j/store';
import { snapshotParts } from '../../src/store/snapshot';
import { bucketsBetween } from '../../src/domain/analytics/buckets';
import { generateHistory } from '../helpers/analytics-history';
import { populateRichly } from '../helpers/rich-data';

const quiet = { info: () => undefined, warn: () => undefined };
const neo4jDriver = () =>
  createNeo4jDriver({ uri: process.env.NEO4J_URI!, user: process.env.NEO4J_USER ?? 'neo4j', password: process.env.NEO4J_PASSWORD ?? '' });
const SKIPPED = 'Neo4j migration round trip SKIPPED: NEO4J_URI is not set (npm run test:neo4j starts one: in Docker, or with the local launcher)';

if (!process.env.NEO4J_URI) {
  console.warn(SKIPPED);
  describe.skip(SKIPPED, () => {
    it('copies SQLite -> Neo4j -> SQLite unchanged', () => undefined);
  });
} else {
  describe('npm run migrate, SQLite -> Neo4j -> SQLite', () => {
    let dir: string;
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'neo4j-migrate-'));
      const driver = createNeo4jDriver({
        uri: process.env.NEO4J_URI!,
        user: process.env.NEO4J_USER ?? 'neo4j',
        password: process.env.NEO4J_PASSWORD ?? '',
      });
      const session = driver.session({ database: process.env.NEO4J_DATABASE || undefined, defaultAccessMode: neo4j.session.WRITE });
      try {
        await session.executeWrite((tx) => tx.run(MAINTENANCE_CYPHER.deleteEverything));
      } finally {
        await session.close();
        await driver.close();
      }
    }, 60_000);
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('copies everything there and back unchanged, and a second run changes nothing', async () => {
      const source = path.join(dir, 'source.db');
      const back = path.join(dir, 'back.db');
      const store = new SqliteStore(source);
      await populateRichly(store);
      const snapshot = await store.exportSnapshot();
      await store.close();

      const there = await migrate(['--from', 'sqlite', '--from-path', source, '--to', 'neo4j'], process.env, quiet);
      expect(there.written).toEqual({ songs: 3, services: 2, links: 4, users: 2 });
      const again = await migrate(['--from', 'sqlite', '--from-path', source, '--to', 'neo4j'], process.env, quiet);
      expect(again.before).toEqual({ songs: 3, services: 2, links: 4, users: 2 });
      await migrate(['--from', 'neo4j', '--to', 'sqlite', '--to-path', back], process.env, quiet);

      const copy = new SqliteStore(back);
      try {
        expect(await copy.exportSnapshot()).toEqual(snapshot);
      } finally {
        await copy.close();
      }
    }, 120_000);

    it('imports into Neo4j in parts of NEO4J_IMPORT_PART_RECORDS, one transaction each, to the same result', async () => {
      const driver = neo4jDriver();
      const database = process.env.NEO4J_DATABASE || undefined;
      try {
        await driver.executeQuery(MAINTENANCE_CYPHER.deleteEverything, {}, { database });
        const source = path.join(dir, 'parts.db');
        const store = new SqliteStore(source);
        await generateHistory(store, { seed: 11, zone: 'UTC', songs: 40, start: '2024-01-07', weeks: 12, unsung: 3 });
        await store.updateSong(2, { ccliNumber: '7654321', copyright: '© 2001 Someone' });
        const snapshot = await store.exportSnapshot();
        expect([...snapshotParts(snapshot, 60)].length).toBeGreaterThanOrEqual(3);
        const env = { ...process.env, NEO4J_IMPORT_PART_RECORDS: '60' };
        const there = await migrate(['--from', 'sqlite', '--from-path', source, '--to', 'neo4j'], env, quiet);
        expect(there.written).toEqual({ songs: snapshot.songs.length, services: snapshot.services.length, links: snapshot.links.length, users: snapshot.users.length });
        // The records (migrate verified them) and the aggregates the parts maintained, against
        // the source's: pairs, periods and artist totals through their all-time reports.
        const target = new Neo4jStore(driver, { database });
        const all = { from: null, to: null, serviceTypes: ['SUN_AM' as const, 'SUN_PM' as const, 'WED' as const] };
        for (const songId of [1, 2, 3]) expect(await target.songsSungWith(songId, all, 20)).toEqual(await store.songsSungWith(songId, all, 20));
        expect(await target.artistUsage(all, {})).toEqual(await store.artistUsage(all, {}));
        const span = (await store.serviceSpan(all.serviceTypes))!;
        const weeks = bucketsBetween(span.first, span.last, 'WEEK', 'UTC');
        expect(await target.usageTimeline(weeks, all, null)).toEqual(await store.usageTimeline(weeks, all, null));
        await store.close();
        await expect(
          migrate(['--from', 'sqlite', '--from-path', source, '--to', 'neo4j'], { ...process.env, NEO4J_IMPORT_PART_RECORDS: '0' }, quiet),
        ).rejects.toThrow('NEO4J_IMPORT_PART_RECORDS must be a positive whole number, not "0"');
      } finally {
        await driver.close();
      }
    }, 180_000);
  });
}
