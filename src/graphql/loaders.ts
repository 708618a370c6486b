import DataLoader from 'dataloader';
import type { Store } from '../store/types';

/**
 * Per-request batching: every `load` made while one GraphQL level resolves becomes one store call.
 * A query over N services with their songs therefore costs the same number of store calls for any
 * N. Made fresh for each request so that no cached record outlives its request.
 */
export function createLoaders(store: Store) {
  return {
    song: new DataLoader((ids: readonly number[]) => store.songsByIds(ids)),
    service: new DataLoader((ids: readonly number[]) => store.servicesByIds(ids)),
    user: new DataLoader((ids: readonly number[]) => store.usersByIds(ids)),
    /** Setlist of a service, in setlist order. */
    setlist: new DataLoader((serviceIds: readonly number[]) => store.setlistsForServices(serviceIds)),
    /** Services a song was performed in, by date. */
    performances: new DataLoader((songIds: readonly number[]) => store.servicesForSongs(songIds)),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
