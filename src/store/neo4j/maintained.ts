/**
 * What one write did to the setlists of the services it touched, as the maintained aggregates
 * beyond song usage need it: song pairs ("songs sung with") and timeline periods move by deltas
 * computed from a service's setlist, type and date before and after the write (song usage is
 * recomputed instead: see ./statements.ts).
 *
 * `before` is null for a service the write created, `after` null for one it deleted. A song delete
 * is a transition of each service it was in (its setlist without the song after), with the song
 * named in `deletedSongs`, since its own aggregates go with its node.
 */
export interface SetlistState {
  songIds: readonly number[];
  serviceType: string;
  date: number;
}

export interface SetlistTransition {
  serviceId: number;
  before: SetlistState | null;
  after: SetlistState | null;
}

export interface WriteEffects {
  transitions: readonly SetlistTransition[];
  deletedSongs?: readonly number[];
}
