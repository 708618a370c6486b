import type { WriteEffects } from './maintained';
import { pairDeltas } from './pairs';
import { periodSteps } from './timeline';
import { artistDeltas, usageDeltas, type ArtistRow, type UsageRow } from './usage';
import { TYPE_PREFIXES } from './write-statements';
import { wrote, type WritePlan } from './write-plan';

/**
 * The maintained aggregates of the Neo4j store, fed what a write changed (its setlist
 * transitions: ./maintained.ts) and moved by deltas, in the write's own transaction, as steps of
 * its plan (./write-plan.ts), in lock order: song usage and song pairs (songs the plan holds),
 * then the artists' totals, then the timeline periods. What they cost follows the write: no step
 * reads a song's, an artist's or a period's whole history.
 */

/** Rows per statement of a large write (an import): no parameter list grows without bound. */
export const SLICE = 5000;
function* slices<T>(items: readonly T[], size = SLICE): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

export interface Maintain {
  effects: WriteEffects;
  /** SERVICE_TIME_ZONE: the periods' calendars. */
  zone: string;
  /** Artist rows besides those of the usage deltas: songs leaving or joining their artists. */
  artists?: readonly ArtistRow[];
  /** Whether the periods move by deltas here (an import recomputes its periods instead). */
  periods?: boolean;
}

/** Add the aggregates' steps to `plan`. Every song whose usage or pairs move must be held by it. */
export function maintain(plan: WritePlan, { effects, zone, artists = [], periods = true }: Maintain): WritePlan {
  const usage = moveUsage(plan, effects);
  movePairs(plan, effects);
  // A song joining its artists counts all of its usage, deltas included.
  const joined = new Set(artists.filter((r) => r.is && !r.was).map((r) => r.id));
  moveArtists(plan, [...artists, ...artistDeltas(usage).filter((r) => !joined.has(r.id))]);
  return periods ? movePeriods(plan, effects, zone) : plan;
}

/** Song usage by the write's deltas (./usage.ts); the rows moved. */
export function moveUsage(plan: WritePlan, effects: WriteEffects): UsageRow[] {
  const usage = usageDeltas(effects);
  // Rows that removed no date need no end sought again: a statement without the seeks.
  const removed = (r: UsageRow) => TYPE_PREFIXES.some(([, p]) => r[`${p}RemovedFirst`] !== null);
  for (const [name, rows] of [['moveUsage', usage.filter(removed)], ['moveUsageAdded', usage.filter((r) => !removed(r))]] as const) {
    for (const part of slices(rows)) plan.onSongs(part.map((r) => r.id), name, { rows: part }, wrote(name, 'moved', part.length));
  }
  return usage;
}

/** Song pairs by the write's deltas (./pairs.ts). */
export function movePairs(plan: WritePlan, effects: WriteEffects): WritePlan {
  for (const part of slices(pairDeltas(effects))) {
    plan.onSongs(
      part.flatMap((r) => [r.songId, r.otherId]),
      'movePairs',
      {
        rows: part.map((r) => ({
          songId: r.songId,
          otherId: r.otherId,
          sunAm: r.sunAm,
          sunPm: r.sunPm,
          wed: r.wed,
        })),
      },
      wrote('movePairs', 'moved', part.length),
    );
  }
  return plan;
}

/** The timeline periods by the write's deltas (./periods.ts): the plan's last locks. */
export function movePeriods(plan: WritePlan, effects: WriteEffects, zone: string): WritePlan {
  for (const { params, rows } of periodSteps(effects, zone)) plan.locking('periods', 'movePeriods', params, wrote('movePeriods', 'moved', rows));
  return plan;
}

/**
 * The artists' totals by these rows. One statement (slices for an import: an artist in two
 * slices is locked by the first and moved by both, so key order still holds across them only
 * within a slice; imports run with writers stopped).
 */
export function moveArtists(plan: WritePlan, rows: readonly ArtistRow[]): WritePlan {
  for (const part of slices(rows)) {
    plan.locking('artists', 'moveArtists', {
      rows: part.map((r) => ({ id: r.id, sunAm: r.sunAm, sunPm: r.sunPm, wed: r.wed, was: r.was, is: r.is })),
    });
  }
  return plan;
}
