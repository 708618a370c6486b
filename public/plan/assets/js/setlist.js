// The setlist being planned, as a list of songs: moves that keep every song once.

/** The list with the song at `from` moved to `to` (both clamped to the list). */
export function move(list, from, to) {
  const out = [...list];
  const [song] = out.splice(from, 1);
  out.splice(Math.max(0, Math.min(to, out.length)), 0, song);
  return out;
}

/** The list with `song` added at the end, unless it is there already. */
export const add = (list, song) => (list.some((s) => s.id === song.id) ? list : [...list, song]);

/** The list without the song at `index`. */
export const removeAt = (list, index) => list.filter((_, i) => i !== index);

/** Whether two lists hold the same song ids in the same order. */
export const sameIds = (a, b) => a.length === b.length && a.every((s, i) => s === b[i]);
