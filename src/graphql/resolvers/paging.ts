import { checkPage } from '../../domain/validation';
import type { GraphQLContext } from '../context';

/**
 * Apply optional limit/offset to a whole list and note the full count for the transport
 * (REST answers it as X-Total-Count).
 */
export function page<T>(ctx: GraphQLContext, items: T[], args: { limit?: number | null; offset?: number | null }): T[] {
  const { limit, offset = 0 } = checkPage(args);
  ctx.meta.totalCount = items.length;
  if (limit === undefined && offset === 0) return items;
  return items.slice(offset, limit === undefined ? undefined : offset + limit);
}
