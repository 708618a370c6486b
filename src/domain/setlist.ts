/**
 * Setlist positions are the songs' places, 1..n without gaps (docs/API.md). Both stores read
 * a setlist's current order inside their write transaction, compute the new order here, and write
 * positions 1..n from it, so the two stores cannot differ in how a link moves the others.
 */

/**
 * The most songs a service holds (docs/API.md). A setlist is a handful of songs; the bound lets a
 * query of services with their songs be charged for what it can return (src/graphql/cost-table.ts)
 * and is refused above it on both facades and both stores: a replaced setlist longer than this, and
 * a song added to a full one, are 400s.
 */
export const SETLIST_MAX_SONGS = 100;

/** Whether linking `songId` would take the setlist past SETLIST_MAX_SONGS (moving a linked song never does). */
export const wouldOverfill = (current: readonly number[], songId: number): boolean =>
  current.length >= SETLIST_MAX_SONGS && !current.includes(songId);

/**
 * The order after linking `songId`. With `position` p the song is placed at p (inserted if new,
 * moved if linked) and the songs from p on move down one; a p past the end puts it last. Without
 * a position a new song goes last and a linked one keeps its place.
 */
export function orderAfterLink(current: readonly number[], songId: number, position?: number): number[] {
  const at = current.indexOf(songId);
  if (position === undefined) return at >= 0 ? [...current] : [...current, songId];
  const rest = current.filter((id) => id !== songId);
  const index = Math.min(Math.max(position, 1), rest.length + 1) - 1;
  return [...rest.slice(0, index), songId, ...rest.slice(index)];
}

/** The order after unlinking `songId`: the songs after it move up one place. */
export function orderAfterUnlink(current: readonly number[], songId: number): number[] {
  return current.filter((id) => id !== songId);
}

/** A link as a store holds it: its song and its stored position. */
export interface PlacedSong {
  songId: number;
  position: number;
}

export const songIds = (placed: readonly PlacedSong[]): number[] => placed.map((p) => p.songId);

/**
 * The positions to write so that `order` holds places 1..n: every song whose stored position is
 * not its place, new songs included. Stored gaps or ties (data from before positions were places)
 * are mended by the first write to that setlist.
 */
export function placesToWrite(current: readonly PlacedSong[], order: readonly number[]): PlacedSong[] {
  const stored = new Map(current.map((p) => [p.songId, p.position]));
  return order
    .map((songId, i) => ({ songId, position: i + 1 }))
    .filter((p) => stored.get(p.songId) !== p.position);
}
