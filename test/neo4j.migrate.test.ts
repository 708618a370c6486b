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
import { migrate } from '../src/cli/migrate';
import { createNeo4jDriver } from '../src/store/neo4j/driver';
import { MAINTENANCE_CYPHER } from '../src/store/neo4j/statements';
import { SqliteStore } from '../src/store/sqlite/store';
import { populateRichly } from './helpers/rich-data';

const quiet = { info: () => undefined, warn: () => undefined };
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
  });
}
