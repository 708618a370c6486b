/**
 * Neo4jStore checks what each write statement says it wrote and rolls the transaction back when it
 * differs. A real server's locks make these cases rare (a concurrent delete between the check and
 * the write), so they are forced here: a driver wrapper deletes the song inside the transaction
 * right before the statement that writes the link, and the store must answer the right outcome
 * with nothing of its own writes left behind. It runs on a real Neo4j (NEO4J_URI; `npm run
 * test:neo4j` starts one), so the statements' answers and the rollback are the server's; without
 * a server it skips, saying why. It empties the database it points at.
 */
import neo4j, { type Driver } from 'neo4j-driver';
import { CYPHER } from '../../src/store/neo4j/statements';
import { Neo4jStore } from '../../src/store/neo4j/store';
import { neo4jTarget, suiteNeo4j } from '../helpers/neo4j';

type Tx = { run(q: string, p?: Record<string, unknown>): Promise<unknown> };

/** Before `statement` runs, run `sneak` in the same transaction (what a racing writer would do). */
function interfering(inner: Driver, statement: string, sneak: (tx: Tx) => Promise<unknown>): Driver {
  return {
    session: (config: unknown) => {
      const session = inner.session(config as never);
      const wrap = (execute: (...a: unknown[]) => unknown) => (work: (tx: Tx) => Promise<unknown>, txConfig?: unknown) =>
        execute((tx: Tx) =>
          work({
            // Not awaited: the store sends its steps back to back (one round trip), and the sneaked
            // statement goes just before the one it precedes, in the same pipeline.
            run: (q, p) => {
              if (q === statement) void sneak(tx);
              return tx.run(q, p);
            },
          }),
          txConfig,
        );
      // A real session is a class instance: its methods need it as `this`.
      return {
        executeRead: wrap(session.executeRead.bind(session) as never),
        executeWrite: wrap(session.executeWrite.bind(session) as never),
        close: () => session.close(),
      };
    },
    close: () => inner.close(),
  } as unknown as Driver;
}

/** What a racing writer's unlink does to one link. */
const UNLINK = 'MATCH (:Song {id: $songId})-[r:PERFORMED_IN]->(:Service {id: $serviceId}) DELETE r';

const target = neo4jTarget();
const SKIPPED = 'Neo4j write-check suite SKIPPED: NEO4J_URI is not set (npm run test:neo4j starts one)';
const server = target ? suiteNeo4j(target) : undefined;
const options = () => ({ database: target!.database });

/** Songs a, b, c, d (ids 1-4) and service 1 with setlist [a, b, c], on an emptied database. */
async function seeded() {
  const plain = await server!.fresh();
  for (const name of ['a', 'b', 'c', 'd']) await plain.createSong({ name, artists: [] });
  await plain.createService({ date: 0, serviceType: 'WED' });
  await plain.replaceSetlist(1, [1, 2, 3]);
  return { plain };
}

const maybe = target ? test : test.skip;
if (!target) console.warn(SKIPPED);

const order = async (store: Neo4jStore) => (await store.setlistsForServices([1]))[0].items.map((s) => s.name);

maybe("linkSong answers 'no-song' and rolls back its moves when the link statement writes nothing", async () => {
  const { plain } = await seeded();
  const store = new Neo4jStore(interfering(server!.driver(), CYPHER.writeLinks, (tx) => tx.run(CYPHER.deleteSong, { id: neo4j.int(4) })), options());
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

maybe("unlinkSong answers 'not-linked' when its delete removes nothing", async () => {
  const { plain } = await seeded();
  const store = new Neo4jStore(
    interfering(server!.driver(), CYPHER.writeLinks, (tx) => tx.run(UNLINK, { serviceId: neo4j.int(1), songId: neo4j.int(2) })),
    options(),
  );
  expect(await store.unlinkSong(1, 2)).toBe('not-linked');
  expect(await order(plain)).toEqual(['a', 'b', 'c']);
});

maybe('replaceSetlist fails and changes nothing when it removes other links than it read', async () => {
  const { plain } = await seeded();
  const store = new Neo4jStore(
    interfering(server!.driver(), CYPHER.writeLinks, (tx) => tx.run(UNLINK, { serviceId: neo4j.int(1), songId: neo4j.int(3) })),
    options(),
  );
  await expect(store.replaceSetlist(1, [4])).rejects.toThrow(/writeLinks wrote 2 where 3 were meant; rolled back/);
  expect(await order(plain)).toEqual(['a', 'b', 'c']);
});
