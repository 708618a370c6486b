import { SETLIST_MAX_SONGS } from '../domain/setlist';

/** An import batch that cannot be written as given; nothing of the batch was written. */
export class CatalogueError extends Error {}

/**
 * What is wrong with a setlist to be written whole (an import batch's, a replaced one): a song named
 * twice (positions 1..n are one per song), or more than SETLIST_MAX_SONGS. Null when nothing is.
 */
export function setlistProblem(songIds: readonly number[]): string | null {
  if (new Set(songIds).size !== songIds.length) return 'a setlist names the same song twice';
  if (songIds.length > SETLIST_MAX_SONGS) return `a setlist names more than ${SETLIST_MAX_SONGS} songs, the most a service holds`;
  return null;
}

/** An import batch's setlist: refused as the batch's error. */
export function checkSetlist(songIds: readonly number[]): void {
  const problem = setlistProblem(songIds);
  if (problem) throw new CatalogueError(problem);
}
