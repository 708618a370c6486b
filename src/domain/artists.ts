/**
 * The key under which an artist is matched (CONTRACT.md §3): trimmed, NFC-normalised and
 * case-folded. JavaScript has no full Unicode case folding; upper-casing before lower-casing
 * folds the common multi-character cases (German ß → ss, ligatures) the way folding does, and the
 * final NFC keeps composed characters composed after the case change.
 */
export function artistKey(artist: string): string {
  return artist.normalize('NFC').trim().toUpperCase().toLowerCase().normalize('NFC');
}
