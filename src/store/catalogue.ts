import { SETLIST_MAX_SONGS } from '../domain/setlist';

/** An import batch that cannot be written as given; nothing of the batch was written. */
export class CatalogueError extends Error {}

/** An import batch's setlist names each song once (positions 1..n are one per song), at most SETLIST_MAX_SONGS. */
export function checkSetlist(songIds: readonly number[]): void {
  if (new Set(songIds).size !== songIds.length) throw new CatalogueError('a setlist names the same song twice');
  if (songIds.length > SETLIST_MAX_SONGS) throw new CatalogueError(`a setlist names more than ${SETLIST_MAX_SONGS} songs, the most a service holds`);
}
