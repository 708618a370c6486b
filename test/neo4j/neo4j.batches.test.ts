/**
 * Setlist writes that arrive together on Neo4j share one transaction (src/store/neo4j/
 * setlist-batches.ts). Whatever the mix, each write must answer what it answers alone, in
 * arrival order, and leave what sequential writes leave: the property submits random writes all
 * at once (links, unlinks and replaces, some naming a missing service or song, several on the same
 * service) to the Neo4j store and one by one to the SQLite store (the reference), then compares
 * the answers and every setlist, checks every maintained aggregate against a recount, and checks
 * that the writes went in one transaction unless one of them had to be rolled back and answered
 * alone. On a real Neo4j (NEO4J_URI; `npm run test:neo4j` starts one); without one it skips,
 * saying why. It empties the database it points at.
 */
import fc from 'fast-check';
import { SqliteStore } from '../../src/store/sqlite/store';
import type { Store } from '../../src/store/types';
import { neo4jTarget, suiteNeo4j } from '../helpers/neo4j';
import { expectAllAggregatesExact } from '../helpers/neo4j-aggregates';
import { recordingDriver } from '../helpers/recording-driver';

const target = neo4jTarget();
if (!target) console.warn('Neo4j setlist-batches suite SKIPPED: NEO4J_URI is not set (npm run test:neo4j starts one)');
const server = target ? suiteNeo4j(target) : undefined;
const onServer = target ? test : test.skip;

const SONGS = 5;
const SERVICES = 3;
const TYPES = ['SUN_AM', 'SUN_PM', 'WED'] as const;

/** Ids one past the last name a missing song and a missing service. */
const songId = fc.integer({ min: 1, max: SONGS + 1 });
const serviceId = fc.integer({ min: 1, max: SERVICES + 1 });
const write = fc.oneof(
  fc.record({ kind: fc.constant('link' as const), serviceId, songId, position: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }) }),
  fc.record({ kind: fc.constant('unlink' as const), serviceId, songId }),
  fc.record({ kind: fc.constant('replace' as const), serviceId, songIds: fc.uniqueArray(songId, { maxLength: 4 }) }),
);
type Write = typeof write extends fc.Arbitrary<infer W> ? W : never;

const apply = (store: Store, w: Write) =>
  w.kind === 'link' ? store.linkSong(w.serviceId, w.songId, w.position)
  : w.kind === 'unlink' ? store.unlinkSong(w.serviceId, w.songId)
  : store.replaceSetlist(w.serviceId, w.songIds);

async function seed(store: Store) {
  for (let i = 1; i <= SONGS; i++) await store.createSong({ name: `song ${i}`, artists: [i % 2 ? 'Amy' : 'Ben'] });
  for (let i = 1; i <= SERVICES; i++) await store.createService({ date: 1_700_000_000_000 + i * 86_400_000, serviceType: TYPES[i % 3] });
  await store.replaceSetlist(1, [1, 2, 3]);
  await store.replaceSetlist(2, [3, 4]);
}

const setlists = async (store: Store) =>
  (await store.setlistsForServices(Array.from({ length: SERVICES }, (_, i) => i + 1))).map((page) => page.items.map((s) => s.id));

describe('Neo4j setlist writes submitted together', () => {
  onServer('answer and write what they would one by one, in one transaction unless one fails', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 2, maxLength: 10 }), async (writes) => {
        const driver = recordingDriver(server!.driver());
        const neo4j = await server!.fresh(driver);
        const reference = new SqliteStore(':memory:', 'UTC');
        try {
          await seed(neo4j);
          await seed(reference);
          const expected = [];
          for (const w of writes) expected.push(await apply(reference, w));
          driver.take();
          const answers = await Promise.all(writes.map((w) => apply(neo4j, w)));
          const context = JSON.stringify(writes);
          expect({ context, answers }).toEqual({ context, answers: expected });
          expect({ context, setlists: await setlists(neo4j) }).toEqual({ context, setlists: await setlists(reference) });
          const transactions = new Set(driver.take().filter((s) => s.statement === 'lockSetlists').map((s) => s.transaction));
          // A song that is not there rolls the batch back; its writes then run alone, one transaction each.
          const together = expected.includes('no-song') ? 1 + writes.length : 1;
          expect({ context, transactions: transactions.size }).toEqual({ context, transactions: together });
          await expectAllAggregatesExact(neo4j, server!.driver(), target!.database, context);
        } finally {
          await reference.close();
        }
      }),
      { numRuns: 30 },
    );
  }, 300_000);
});
