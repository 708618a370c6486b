/** An import batch that cannot be written as given; nothing of the batch was written. */
export class CatalogueError extends Error {}

/** A setlist of an import batch names each song once: positions 1..n are one per song. */
export function checkSetlist(songIds: readonly number[]): void {
  if (new Set(songIds).size !== songIds.length) throw new CatalogueError('a setlist names the same song twice');
}
