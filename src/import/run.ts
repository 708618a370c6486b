import fs from 'node:fs';
import { SingleBar } from 'cli-progress';
import type { Store } from '../store/types';
import { MalformedFileError, readCsv } from './csv';
import type { Plan } from './plan';
import { planServices, type ServiceClock, type ServiceRow } from './services';
import { planSongs, type SongUpdate } from './songs';

export type ImportKind = 'songs' | 'services';

export interface ImportOptions {
  kind: ImportKind;
  file: string;
  /** Decide every row and report it, writing nothing. */
  dryRun: boolean;
  /** Import the valid rows even when others are rejected (by default a rejected row stops it all). */
  skipInvalid: boolean;
  batchSize: number;
  /** Zone of local service dates, and each type's usual time for a date given as a day alone. */
  clock: ServiceClock;
  /** Characters that separate names in an artists cell (songs); `;|,` when absent. */
  artistSeparators?: string;
  /** Songs: replace a matched song's copyright when the row's differs (by default kept). */
  update?: boolean;
  /** Where the progress bar goes (stderr); it is drawn for `progressFrom` rows or more. */
  progress?: { stream: NodeJS.WritableStream; forceOnNonTTY?: boolean };
  progressFrom?: number;
}

export interface ImportSummary {
  rows: number;
  /** Rows written; on a dry run, the rows that would be created (also listed in `toCreate`). */
  created: number;
  /** Stored songs a row matched and added to (on a dry run, that it would), by line, described. */
  updated: { line: number; what: string }[];
  /** Rows matching a stored record, which stays as it is. */
  skipped: Plan<unknown>['skipped'];
  /** Song rows the matching rule cannot decide between several songs: nothing written for them. */
  ambiguous: Plan<unknown>['rejected'];
  rejected: Plan<unknown>['rejected'];
  /** A dry run's rows to create, by line, described. */
  toCreate?: { line: number; what: string }[];
  /** Why nothing was written, when nothing was. */
  heldBack?: 'dry-run' | 'rejected';
}

export const PROGRESS_FROM = 1000;

/** A batch failed to write: the batches before it are written (`created` rows), the rest are not. */
export class ImportInterruptedError extends Error {
  constructor(
    readonly created: number,
    cause: unknown,
  ) {
    super(
      `writing stopped after ${created} rows (${cause instanceof Error ? cause.message : String(cause)}); ` +
        'run the same file again to write the rest: rows already written are skipped as duplicates',
    );
  }
}

type AnyPlan = Plan<unknown> & { update: { line: number; input: SongUpdate; what: string }[]; ambiguous: Plan<unknown>['rejected'] };

async function plan(store: Store, opts: ImportOptions): Promise<AnyPlan & { rows: number }> {
  let text: string;
  try {
    text = fs.readFileSync(opts.file, 'utf8');
  } catch (err) {
    throw new MalformedFileError(`cannot read ${opts.file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const table = readCsv(text);
  // Duplicates are found against the whole catalogue, which an offline import reads once.
  const songs = (await store.listSongs({}, {})).items;
  const licensing = await store.licensingOfSongs(songs.map((s) => s.id));
  const made: AnyPlan =
    opts.kind === 'songs'
      ? planSongs(table, songs, licensing, { artistSeparators: opts.artistSeparators, update: opts.update })
      : { ...planServices(table, songs, (await store.listServices({}, {})).items, opts.clock, licensing), update: [], ambiguous: [] };
  return { ...made, rows: table.rows.length };
}

/**
 * Import a CSV file. Every row is checked first; a malformed file, or any rejected row without
 * `skipInvalid`, writes nothing. The rows to create are then written in batches, each one store
 * transaction (all of the batch or none of it): a long import never holds the database's write
 * lock for long, so the running service keeps answering. If a batch fails, the batches before it
 * stay written; running the same file again skips them as duplicates and writes the rest.
 */
export async function importFile(store: Store, opts: ImportOptions): Promise<ImportSummary> {
  const p = await plan(store, opts);
  const updated = p.update.map(({ line, what }) => ({ line, what }));
  const summary: ImportSummary = { rows: p.rows, created: 0, updated, skipped: p.skipped, ambiguous: p.ambiguous, rejected: p.rejected };
  // A dry run reports every row's fate, rejected rows or not, and writes nothing.
  if (opts.dryRun) {
    return { ...summary, created: p.create.length, toCreate: p.create.map(({ line, what }) => ({ line, what })), heldBack: 'dry-run' };
  }
  if (p.rejected.length > 0 && !opts.skipInvalid) return { ...summary, heldBack: 'rejected' };

  // Matched songs first, one update a song (the rows' patches in file order), each its own write.
  const patches = new Map<number, SongUpdate['patch']>();
  for (const { input } of p.update) patches.set(input.id, { ...patches.get(input.id), ...input.patch });
  for (const [id, patch] of patches) {
    if (!(await store.updateSong(id, patch))) throw new ImportInterruptedError(0, new Error(`song ${id} was deleted while the import ran`));
  }

  const total = p.create.length;
  const bar =
    opts.progress && total >= (opts.progressFrom ?? PROGRESS_FROM)
      ? new SingleBar({
          stream: opts.progress.stream,
          noTTYOutput: opts.progress.forceOnNonTTY ?? false,
          format: `importing ${opts.kind} [{bar}] {value}/{total} rows | {percentage}% | ETA {eta}s`,
          hideCursor: true,
        })
      : undefined;
  bar?.start(total, 0);
  try {
    for (let i = 0; i < total; i += opts.batchSize) {
      const part = p.create.slice(i, i + opts.batchSize).map((c) => c.input);
      await store
        .importCatalogue(
          opts.kind === 'songs' ? { songs: part as never, services: [] } : { songs: [], services: part as ServiceRow[] },
        )
        .catch((err) => {
          throw new ImportInterruptedError(summary.created, err);
        });
      summary.created += part.length;
      bar?.update(summary.created);
    }
  } finally {
    bar?.stop();
  }
  return summary;
}
