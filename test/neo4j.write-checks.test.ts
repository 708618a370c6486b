/**
 * Neo4jStore checks what each write statement says it wrote and rolls the transaction back when it
 * differs. A real server's locks make these cases rare (a concurrent delete between the check and
 * the write), so they are forced here: a driver wrapper deletes the song inside the transaction
 * right before the statement that writes the link, and the store must answer the right outcome
 * with nothing of its own writes left behind. The answers come from test/helpers/neo4j-sim.ts,
 * which implements the adapter's side only; this tests the adapter's checks, not the Cypher.
 */
import neo4j, { type Driver } from 'neo4j-driver';
import { CYPHER } from '../src/store/neo4j/statements';
import { Neo4jStore } from '../src/store/neo4j/store';
import { simulatedDriver } from './helpers/neo4j-sim';

type Tx = { run(q: string, p?: Record<string, unknown>): Promise<unknown> };

/** Before `statement` runs, run `sneak` in the same transaction (what a racing writer would do). */
function interfering(inner: Driver, statement: string, sneak: (tx: Tx) => Promise<unknown>): Driver {
  return {
    session: (config: unknown) => {
      const session = (inner.session as unknown as (c: unknown) => Record<string, (...a: unknown[]) => unknown>)(config);
      const wrap = (execute: (...a: unknown[]) => unknown) => (work: (tx: Tx) => Promise<unknown>) =>
        execute((tx: Tx) =>
          work({
            run: async (q, p) => {
              if (q === statement) await sneak(tx);
              return tx.run(q, p);
            },
          }),
        );
      return { ...session, executeRead: wrap(session.executeRead), executeWrite: wrap(session.executeWrite) };
    },
    close: () => inner.close(),
  } as unknown as Driver;
}

async function seeded() {
  const sim = simulatedDriver();
  const plain = new Neo4jStore(sim);
  for (const name of ['a', 'b', 'c', 'd']) await plain.createSong({ name, artists: [] });
  await plain.createService({ date: 0, serviceType: 'WED' });
  await plain.replaceSetlist(1, [1, 2, 3]);
  return { sim, plain };
}

const order = async (store: Neo4jStore) => (await store.setlistsForServices([1]))[0].items.map((s) => s.name);

test("linkSong answers 'no-song' and rolls back its moves when the link statement writes nothing", async () => {
  const { sim, plain } = await seeded();
  const store = new Neo4jStore(interfering(sim, CYPHER.createLinks, (tx) => tx.run(CYPHER.deleteSong, { id: neo4j.int(4) })));
  expect(await store.linkSong(1, 4, 1)).toBe('no-song');
  // The moves of a, b, c written before the failed link are gone, and so is the sneaked delete.
  const snapshot = await plain.exportSnapshot();
  expect(snapshot.links.map((l) => [l.songId, l.position])).toEqual([
    [1, 1],
    [2, 2],
    [3, 3],
  ]);
  expect(await order(plain)).toEqual(['a', 'b', 'c']);
  expect((await plain.songsByIds([4]))[0]?.name).toBe('d');
});

test("unlinkSong answers 'not-linked' when its delete removes nothing", async () => {
  const { sim, plain } = await seeded();
  const store = new Neo4jStore(
    interfering(sim, CYPHER.unlinkSong, (tx) => tx.run(CYPHER.unlinkSong, { serviceId: neo4j.int(1), songId: neo4j.int(2) })),
  );
  expect(await store.unlinkSong(1, 2)).toBe('not-linked');
  expect(await order(plain)).toEqual(['a', 'b', 'c']);
});

test('replaceSetlist fails and changes nothing when it removes other links than it read', async () => {
  const { sim, plain } = await seeded();
  const store = new Neo4jStore(
    interfering(sim, CYPHER.clearSetlist, (tx) => tx.run(CYPHER.unlinkSong, { serviceId: neo4j.int(1), songId: neo4j.int(3) })),
  );
  await expect(store.replaceSetlist(1, [4])).rejects.toThrow(/clearSetlist wrote 2 where 3 were meant; rolled back/);
  expect(await order(plain)).toEqual(['a', 'b', 'c']);
});
