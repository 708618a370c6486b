import type { ServiceSort, SongSort } from './types';

/**
 * The statement of each list order, by name. Both adapters name their statements alike
 * (src/store/sqlite/statements.ts, src/store/neo4j/statements.ts), so one table serves both and
 * each adapter's StatementName type checks it.
 */
export const SONG_PAGE = {
  ID_ASC: 'songsPageIdAsc',
  ID_DESC: 'songsPageIdDesc',
  NAME_ASC: 'songsPageNameAsc',
  NAME_DESC: 'songsPageNameDesc',
} as const satisfies Record<SongSort, string>;

export const SONG_AFTER = {
  ID_ASC: 'songsAfterIdAsc',
  ID_DESC: 'songsAfterIdDesc',
  NAME_ASC: 'songsAfterNameAsc',
  NAME_DESC: 'songsAfterNameDesc',
} as const satisfies Record<SongSort, string>;

export const SERVICE_PAGE = { DATE_ASC: 'servicesPageDateAsc', DATE_DESC: 'servicesPageDateDesc' } as const satisfies Record<
  ServiceSort,
  string
>;

export const SERVICE_AFTER = {
  DATE_ASC: 'servicesAfterDateAsc',
  DATE_DESC: 'servicesAfterDateDesc',
} as const satisfies Record<ServiceSort, string>;

/** A song's page of services (Song.services, withSong), in either date order. */
export const SONG_SERVICES = {
  DATE_ASC: 'servicesForSongs',
  DATE_DESC: 'servicesForSongsDesc',
} as const satisfies Record<ServiceSort, string>;

/** One entry per order of a name table above: `{ [statement name]: make(order) }`. */
export function perOrder<O extends string, N extends string, V>(names: Record<O, N>, make: (order: O) => V): Record<N, V> {
  return Object.fromEntries((Object.entries(names) as [O, N][]).map(([order, name]) => [name, make(order)])) as Record<N, V>;
}
