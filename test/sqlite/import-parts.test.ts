/**
 * A snapshot imported in parts replans the store whenever what it wrote has doubled, never after
 * the last part (the caller replans once it is done), and goes on when the store refuses: on a real
 * SQLite store, its calls recorded.
 */
import { snapshotOf } from '../../bench/analytics';
import { importInParts } from '../../src/store/import-parts';
import { snapshotParts } from '../../src/store/snapshot';
import { SqliteStore } from '../../src/store/sqlite/store';

const snapshot = snapshotOf({ id: '10y', songs: 10, services: 40, years: 1, perService: 3 });

async function run(refuse = false) {
  const store = new SqliteStore(':memory:');
  const calls: string[] = [];
  const failures: string[] = [];
  try {
    await importInParts(
      {
        importSnapshot: (part) => {
          calls.push(`import ${part.songs.length + part.links.length}`);
          return store.importSnapshot(part);
        },
        replanAfterImport: async () => {
          calls.push('replan');
          if (refuse) throw new Error('not an admin');
        },
      },
      snapshot,
      40,
      { replanFailed: (err) => failures.push(err.message) },
    );
    return { calls, failures, links: (await store.exportSnapshot()).links.length };
  } finally {
    await store.close();
  }
}

test('replans after the parts that double what was written, not after the last', async () => {
  // Parts of about 40 records (whole setlists, each with the songs its links name)...
  const sizes = [...snapshotParts(snapshot, 40)].map((p) => p.songs.length + p.links.length);
  expect(sizes).toEqual([40, 50, 51, 11]);
  // ...written 40, 90, 141, 152: replanned at 40 (from nothing) and 90 (2 × 40 or more), not at
  // 141 (under 2 × 90), nor at 152 (the last).
  const { calls, links } = await run();
  expect(calls).toEqual(['import 40', 'replan', 'import 50', 'replan', 'import 51', 'import 11']);
  expect(links).toBe(120);
});

test('a store that may not replan is said to once, and the import goes on', async () => {
  const { calls, failures, links } = await run(true);
  expect(calls).toEqual(['import 40', 'replan', 'import 50', 'import 51', 'import 11']);
  expect(failures).toEqual(['not an admin']);
  expect(links).toBe(120);
});
