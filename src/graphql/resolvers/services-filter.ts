import type { ServiceSort, ServiceType } from '../../generated/graphql';
import type { ServiceFilter, ServiceQuery } from '../../store/types';

/**
 * The `serviceTypes` argument as the store's filter, sorted and without repeats so that equal
 * filters share a loader and a cursor. An empty list means no filter, like an absent one.
 */
export function serviceFilter(args: { serviceTypes?: readonly ServiceType[] | null }): ServiceFilter {
  if (!args.serviceTypes?.length) return {};
  return { serviceTypes: [...new Set(args.serviceTypes)].sort() };
}

/** The filter and the `sort` argument (DATE_ASC when absent): a song's services (Song.services, withSong). */
export function serviceQuery(args: { serviceTypes?: readonly ServiceType[] | null; sort?: ServiceSort | null }): ServiceQuery {
  return { ...serviceFilter(args), sort: args.sort ?? 'DATE_ASC' };
}
