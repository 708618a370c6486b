/** The most artist entries a song lists (docs/API.md). */
export const ARTISTS_MAX = 50;

/**
 * The key under which an artist is matched (docs/API.md): trimmed, NFC-normalised and
 * case-folded. JavaScript has no full Unicode case folding; upper-casing before lower-casing
 * folds the common multi-character cases (German ß → ss, ligatures) the way folding does, and the
 * final NFC keeps composed characters composed after the case change.
 */
export function artistKey(artist: string): string {
  return artist.normalize('NFC').trim().toUpperCase().toLowerCase().normalize('NFC');
}

/** A song's artist entries grouped by key, in first-seen order: the rows of its artist index. */
export function spellingsByKey(artists: readonly string[]): Map<string, string[]> {
  const byKey = new Map<string, string[]>();
  for (const artist of artists) {
    const key = artistKey(artist);
    const spellings = byKey.get(key);
    if (spellings) spellings.push(artist);
    else byKey.set(key, [artist]);
  }
  return byKey;
}
