/**
 * Setlist positions under random sequences of link, move, unlink, replace and song deletes: both
 * stores (SQLite, and Neo4j on a real server when NEO4J_URI is set; without it that half skips,
 * saying why) must hold exactly the order the contract's rule gives (docs/API.md, written out
 * here as a list model), with stored positions 1..n. The model is written from the contract's
 * words, not from src/domain/setlist.ts. Each run on Neo4j starts from an emptied database, and
 * fewer runs are tried there (each write is a server round trip).
 */
import fc from 'fast-check';
import { SqliteStore } from '../../src/store/sqlite/store';
import type { Store } from '../../src/store/types';
import { neo4jTarget, suiteNeo4j } from '../helpers/neo4j';

type Op =
  | { kind: 'link'; song: number; position?: number }
  | { kind: 'unlink'; song: number }
  | { kind: 'replace'; songs: number[] }
  | { kind: 'delete'; song: number };

const SONGS = 6;
const song = fc.integer({ min: 1, max: SONGS });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('link' as const), song, position: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unlink' as const), song }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), songs: fc.uniqueArray(song, { maxLength: SONGS }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), song }) },
);

/** The contract's rule on a plain list of song ids (index 0 = position 1). */
function model(list: number[], o: Op, deleted: Set<number>): number[] {
  if (o.kind === 'replace') return o.songs.some((s) => deleted.has(s)) ? list : [...o.songs];
  if (deleted.has(o.song)) return list;
  if (o.kind === 'unlink' || o.kind === 'delete') return list.filter((s) => s !== o.song);
  const linked = list.includes(o.song);
  if (o.position === undefined) return linked ? list : [...list, o.song];
  const rest = list.filter((s) => s !== o.song);
  rest.splice(Math.min(o.position, rest.length + 1) - 1, 0, o.song);
  return rest;
}

async function apply(store: Store, o: Op) {
  if (o.kind === 'link') await store.linkSong(1, o.song, o.position);
  else if (o.kind === 'unlink') await store.unlinkSong(1, o.song);
  else if (o.kind === 'replace') await store.replaceSetlist(1, o.songs);
  else await store.deleteSong(o.song);
}

type Make = () => Promise<Store>;
const stores: [string, Make, number][] = [['SQLite', async () => new SqliteStore(':memory:'), 150]];

const target = neo4jTarget();
if (target) {
  // One driver for every run, as in the service: the store's close must not close it.
  const { fresh } = suiteNeo4j(target);
  stores.push([`Neo4j (${target.uri})`, () => fresh(), 100]);
} else {
  const skipped = 'Neo4j setlist property SKIPPED: NEO4J_URI is not set (npm run test:neo4j starts one)';
  console.warn(skipped);
  describe.skip(skipped, () => {
    it('holds the contract order on Neo4j too', () => undefined);
  });
}

describe.each(stores)('%s', (_name, make, numRuns) => {
  it('holds the contract order with positions 1..n after any sequence of writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        const store = await make();
        try {
          for (let i = 1; i <= SONGS; i++) await store.createSong({ name: `s${i}`, artists: [] });
          await store.createService({ date: 0, serviceType: 'WED' });
          let expected: number[] = [];
          const deleted = new Set<number>();
          for (const o of ops) {
            expected = model(expected, o, deleted);
            if (o.kind === 'delete') deleted.add(o.song);
            await apply(store, o);
          }
          const actual = (await store.setlistsForServices([1]))[0].items.map((s) => s.id);
          expect(actual).toEqual(expected);
          const links = (await store.exportSnapshot()).links.sort((a, b) => a.position - b.position);
          expect(links.map((l) => [l.songId, l.position])).toEqual(expected.map((s, i) => [s, i + 1]));
        } finally {
          await store.close();
        }
      }),
      { numRuns },
    );
  }, 180_000);
});
