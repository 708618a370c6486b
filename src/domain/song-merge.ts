import { ARTISTS_MAX, artistKey } from './artists';
import type { SongLicensing } from './licensing';

/**
 * Merging duplicate songs into one (mergeSongs, `npm run songs -- merge`): the kept song takes the
 * others' services, their licensing details it lacks and their artists it does not list; the
 * others are deleted. Both stores apply these two rules in one transaction.
 */

/** The most songs one merge folds into the kept one. */
export const MERGE_MAX_SONGS = 50;

export interface MergeableSong extends SongLicensing {
  id: number;
  artists: readonly string[];
}

/** Why a merge writes nothing: a song that does not exist, or more artists than a song may list. */
export type MergeRefused = { refused: 'no-song'; songId: number } | { refused: 'too-many-artists' };
export const isMergeRefused = (v: unknown): v is MergeRefused => typeof v === 'object' && v !== null && 'refused' in v;

/** What the kept song gains (the fields to write), as mergedDetails answers it. */
export type MergeGains = { artists?: string[]; ccliNumber?: string; copyright?: string };

/**
 * The store-side decision, the same for both stores: from the songs and licensing details read for
 * `ids` ([keepId, ...mergeIds], same order, null where no song has the id), what the kept song
 * gains, or why the merge is refused.
 */
export function mergeGains(
  ids: readonly number[],
  songs: readonly ({ id: number; artists: readonly string[] } | null)[],
  licensing: readonly (SongLicensing | null)[],
): MergeGains | MergeRefused {
  const missing = ids.find((_, i) => songs[i] === null || licensing[i] === null);
  if (missing !== undefined) return { refused: 'no-song', songId: missing };
  const [kept, ...merged] = ids.map((_, i) => ({ ...songs[i]!, ...licensing[i]! }));
  const gains = mergedDetails(kept, merged);
  return gains === 'too-many-artists' ? { refused: gains } : gains;
}

/**
 * A setlist after the merge: each merged song's place is taken by the kept song, and a setlist
 * that then holds it twice keeps it at the first of its places (the others close up).
 */
export function orderAfterMerge(current: readonly number[], keepId: number, mergeIds: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (const id of current) {
    const next = mergeIds.has(id) ? keepId : id;
    if (next !== keepId || !out.includes(keepId)) out.push(next);
  }
  return out;
}

/**
 * What the kept song gains from the merged ones, in their order: a CCLI number and a copyright
 * when it has none (the first merged song's that has one), and each artist it does not list yet
 * (by the artist rule of ./artists.ts), after its own. Null where nothing changes; 'too-many-artists'
 * when the artists would be more than ARTISTS_MAX.
 */
export function mergedDetails(kept: MergeableSong, merged: readonly MergeableSong[]): MergeGains | 'too-many-artists' {
  const keys = new Set(kept.artists.map(artistKey));
  const added: string[] = [];
  for (const song of merged) {
    for (const artist of song.artists) {
      const key = artistKey(artist);
      if (keys.has(key)) continue;
      keys.add(key);
      added.push(artist);
    }
  }
  if (kept.artists.length + added.length > ARTISTS_MAX) return 'too-many-artists';
  const ccliNumber = kept.ccliNumber === null ? merged.find((s) => s.ccliNumber !== null)?.ccliNumber : undefined;
  const copyright = kept.copyright === null ? merged.find((s) => s.copyright !== null)?.copyright : undefined;
  return {
    ...(added.length > 0 ? { artists: [...kept.artists, ...added] } : {}),
    ...(ccliNumber ? { ccliNumber } : {}),
    ...(copyright ? { copyright } : {}),
  };
}
