import type { ServiceType } from '../../generated/graphql';
import type { ServiceFilter } from '../../store/types';

/**
 * The `serviceTypes` argument as the store's filter, sorted and without repeats so that equal
 * filters share a loader and a cursor. An empty list means no filter, like an absent one.
 */
export function serviceFilter(args: { serviceTypes?: readonly ServiceType[] | null }): ServiceFilter {
  if (!args.serviceTypes?.length) return {};
  return { serviceTypes: [...new Set(args.serviceTypes)].sort() };
}
