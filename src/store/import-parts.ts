import { snapshotParts } from './snapshot';
import type { Snapshot, TransferStore } from './types';

export interface ImportInPartsHooks {
  /** After each part: its number (from 1), the part, and whether the store was replanned after it. */
  partDone?(n: number, part: Snapshot, replanned: boolean): void;
  /** The store refused to replan (Neo4j: not an admin): said once, and the import goes on. */
  replanFailed?(err: Error): void;
}

/**
 * A large snapshot into a store in parts of at most `maxRecords` records, one transaction each,
 * asking the store to plan its statements again (Store.replanAfterImport) whenever the records
 * written have doubled since it last did: the first part's statements are planned on a store
 * still nearly empty, and a plan made for an empty store can read one ten times larger row by row
 * (the 1m bench history's second part took 179 s on Neo4j 5.26, and 20 s replanned after the
 * first). Replanning after parts 1, 2, 4, 8, ... costs a resampling of the indexes each, a few of
 * them for any size; none after the last part, which the caller replans once the import is done.
 */
export async function importInParts(store: Pick<TransferStore, 'importSnapshot' | 'replanAfterImport'>, snapshot: Snapshot, maxRecords: number, hooks: ImportInPartsHooks = {}): Promise<void> {
  // One part ahead, to know the last one, without holding every part at once.
  const parts = snapshotParts(snapshot, maxRecords);
  let next = parts.next();
  let written = 0;
  let plannedAt = 0;
  let canReplan = true;
  for (let i = 0; !next.done; i++) {
    const part = next.value;
    await store.importSnapshot(part);
    next = parts.next();
    written += part.songs.length + part.links.length;
    let replanned = false;
    if (canReplan && !next.done && written >= 2 * plannedAt) {
      try {
        await store.replanAfterImport();
        replanned = true;
        plannedAt = written;
      } catch (err) {
        canReplan = false;
        hooks.replanFailed?.(err as Error);
      }
    }
    hooks.partDone?.(i + 1, part, replanned);
  }
}
