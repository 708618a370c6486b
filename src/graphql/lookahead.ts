import { getArgumentValues, getNamedType, isObjectType, Kind, type FieldNode, type GraphQLResolveInfo } from 'graphql';
import type { Page } from '../store/types';
import { pageOf } from './resolvers/paging';

/**
 * The page the query asks of the `songs` of the record being resolved, when it asks it plainly:
 * one `songs` field right in the selection (not in a fragment), without directives, with valid
 * arguments. Otherwise null, and Service.songs reads its page itself. Query.service uses it to
 * read a service and that page in one store call (`service(id) { songs }` was two Neo4j
 * transactions, one after the other: docs/performance.md).
 */
export function songsPageAsked(info: GraphQLResolveInfo): Page | null {
  if (info.fieldNodes.length !== 1) return null;
  const asked = (info.fieldNodes[0].selectionSet?.selections ?? []).filter(
    (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === 'songs',
  );
  if (asked.length !== 1 || (asked[0].directives?.length ?? 0) > 0) return null;
  const type = getNamedType(info.returnType);
  const field = isObjectType(type) ? type.getFields().songs : undefined;
  if (!field) return null;
  try {
    return pageOf(getArgumentValues(field, asked[0], info.variableValues));
  } catch {
    // A page the field refuses is refused by Service.songs itself, at its own path.
    return null;
  }
}
