import { AppError } from '../errors';
import type { Keyset } from '../store/types';

/**
 * Opaque connection cursors: a keyset position (the sort key and id of the last item seen) plus
 * what it belongs to (list, order, filter), as base64url JSON. A cursor is only ever compared with
 * the list's own order, so paging never scans an offset; one that does not decode, is malformed,
 * or belongs to another list, order or filter (a stale cursor kept across a change of sort) is
 * BAD_REQUEST. A cursor whose record was deleted since still works: the position stands.
 */
export interface CursorScope {
  list: 'songs' | 'services';
  sort: string;
  /** Canonical filter text (e.g. sorted service types); '' for none. */
  filter: string;
  /** The type of the sort key: names are strings, ids and dates integers. */
  keyType: 'string' | 'integer';
}

const VERSION = 1;
const MAX_CURSOR = 2048;

export function encodeCursor(scope: CursorScope, key: string | number, id: number): string {
  return Buffer.from(JSON.stringify([VERSION, scope.list, scope.sort, scope.filter, key, id])).toString('base64url');
}

const badCursor = (why: string) => new AppError('BAD_REQUEST', `after is not a valid cursor for this list: ${why}`);

export function decodeCursor(scope: CursorScope, cursor: string): Keyset {
  if (cursor.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw badCursor('malformed');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor('malformed');
  }
  if (!Array.isArray(parsed) || parsed.length !== 6 || parsed[0] !== VERSION) throw badCursor('malformed');
  const [, list, sort, filter, key, id] = parsed as unknown[];
  if (list !== scope.list || sort !== scope.sort || filter !== scope.filter) {
    throw badCursor('it belongs to another list, order or filter');
  }
  const keyOk =
    scope.keyType === 'string' ? typeof key === 'string' : typeof key === 'number' && Number.isSafeInteger(key);
  if (!keyOk || typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) throw badCursor('malformed');
  return { key: key as string | number, id };
}
