/**
 * mergeSongs on Neo4j keeps every maintained aggregate exact: random setlists over a few songs,
 * then a random merge, applied to the Neo4j store and to the SQLite store (the reference for the
 * records); the answers, songs, licensing details and setlists must agree, and every aggregate
 * (usage, pairs, artist totals, timeline periods) must equal a recount from the records. On a real
 * Neo4j (NEO4J_URI; `npm run test:neo4j` starts one); without one it skips, saying why. It empties
 * the database it points at.
 */
import fc from 'fast-check';
import { SqliteStore } from '../../src/store/sqlite/store';
import type { Store } from '../../src/store/types';
import { neo4jTarget, suiteNeo4j } from '../helpers/neo4j';
import { expectAllAggregatesExact } from '../helpers/neo4j-aggregates';

const target = neo4jTarget();
if (!target) console.warn('Neo4j merge suite SKIPPED: NEO4J_URI is not set (npm run test:neo4j starts one)');
const server = target ? suiteNeo4j(target) : undefined;
const onServer = target ? test : test.skip;

const SONGS = 6;
const TYPES = ['SUN_AM', 'SUN_PM', 'WED'] as const;
const songId = fc.integer({ min: 1, max: SONGS });
const history = fc.array(fc.uniqueArray(songId, { maxLength: 5 }), { minLength: 1, maxLength: 5 });
/** The kept song, then the merged ones (distinct, the kept one left out); an id past the songs is missing. */
const merge = fc
  .tuple(songId, fc.uniqueArray(fc.integer({ min: 1, max: SONGS + 1 }), { minLength: 1, maxLength: 3 }))
  .map(([keep, others]) => ({ keep, others: others.filter((id) => id !== keep) }))
  .filter((m) => m.others.length > 0);

async function seed(store: Store, setlists: number[][]) {
  for (let i = 1; i <= SONGS; i++) {
    await store.createSong({ name: `song ${i}`, artists: [i % 2 ? 'Amy' : 'Ben', `Writer ${i % 3}`], ccliNumber: i % 3 === 0 ? String(1000 + i) : null });
  }
  for (const [i, setlist] of setlists.entries()) {
    const v = await store.createService({ date: 1_700_000_000_000 + i * 86_400_000, serviceType: TYPES[i % 3] });
    if ('id' in v) await store.replaceSetlist(v.id, setlist);
  }
}

const records = async (store: Store, services: number) => {
  const ids = Array.from({ length: SONGS }, (_, i) => i + 1);
  return {
    songs: await store.songsByIds(ids),
    licensing: await store.licensingOfSongs(ids),
    setlists: (await store.setlistsForServices(Array.from({ length: services }, (_, i) => i + 1))).map((p) => p.items.map((s) => s.id)),
  };
};

describe('mergeSongs on Neo4j', () => {
  onServer('answers and writes what the SQLite store does, and keeps every aggregate exact', async () => {
    await fc.assert(
      fc.asyncProperty(history, merge, async (setlists, { keep, others }) => {
        const neo4j = await server!.fresh();
        const reference = new SqliteStore(':memory:', 'UTC');
        try {
          await seed(neo4j, setlists);
          await seed(reference, setlists);
          const context = JSON.stringify({ setlists, keep, others });
          const expected = await reference.mergeSongs(keep, others);
          expect({ context, answer: await neo4j.mergeSongs(keep, others) }).toEqual({ context, answer: expected });
          expect({ context, ...(await records(neo4j, setlists.length)) }).toEqual({ context, ...(await records(reference, setlists.length)) });
          await expectAllAggregatesExact(neo4j, server!.driver(), target!.database, context);
        } finally {
          await reference.close();
        }
      }),
      { numRuns: 25 },
    );
  }, 300_000);
});
