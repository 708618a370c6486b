import type { GraphQLResolveInfo } from 'graphql';
import { checkPage, MAX_PAGE } from '../../domain/validation';
import { AppError } from '../../errors';
import type { KeysetPage, KeysetResult, Page, Paged } from '../../store/types';
import type { GraphQLContext } from '../context';
import { decodeCursor, encodeCursor, type CursorScope } from '../cursor';

/** limit/offset arguments, checked (docs/API.md), as the store's Page. */
export const pageOf = (args: { limit?: number | null; offset?: number | null }): Page => checkPage(args);

/**
 * The items of a page the store answered. A root field's total is kept by response key for the
 * transport (REST sends it as X-Total-Count); nested lists have no such header to fill.
 */
export function itemsOf<T>(ctx: GraphQLContext, info: GraphQLResolveInfo, paged: Paged<T>): T[] {
  if (!info.path.prev) ctx.totalCounts.set(String(info.path.key), paged.totalCount);
  return paged.items;
}

export const DEFAULT_FIRST = 20;

/** A Relay connection page from a keyset read of the store. */
export async function connection<T extends { id: number }>(
  args: { first?: number | null; after?: string | null },
  scope: CursorScope,
  keyOf: (node: T) => string | number,
  read: (page: KeysetPage) => Promise<KeysetResult<T>>,
) {
  const first = args.first ?? DEFAULT_FIRST;
  if (first < 1 || first > MAX_PAGE) throw new AppError('BAD_REQUEST', `first must be between 1 and ${MAX_PAGE}`);
  const after = args.after == null ? undefined : decodeCursor(scope, args.after);
  const result = await read({ first, after });
  const edges = result.items.map((node) => ({ cursor: encodeCursor(scope, keyOf(node), node.id), node }));
  return {
    edges,
    totalCount: result.totalCount,
    pageInfo: {
      hasNextPage: result.hasNextPage,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
