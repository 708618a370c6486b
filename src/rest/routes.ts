import type { FieldCoordinate } from '../graphql/cost-table';
import { GRAPHQL_ONLY, ROOT_OPERATIONS, type RestBinding, type RootOperation } from '../graphql/operations';

/**
 * The REST API v1 (docs/API.md) as a view of the operation table (src/graphql/operations.ts): each
 * root field with a REST binding is one route. SOFA builds each route's operation from the field;
 * the binding only says where the field lives on the REST wire. Path parameter names are the
 * field's argument names, which is how the operation's variables are filled in.
 */
export interface RestRoute extends Omit<RestBinding, 'alsoAt'> {
  /** `Query.songs`, `Mutation.createSong`, ... */
  field: RootOperation['field'];
  /** The field's operation: access, rule, summary. */
  operation: RootOperation;
  /** Set on a binding's `alsoAt` route: the field's main path, the one SOFA derives and documents. */
  aliasOf?: string;
  /** Arguments this route does not take (a binding's `alsoAt.without`). */
  without?: readonly string[];
}

/** Path parameters as written in a route (`:id`). */
export const pathParams = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);

/**
 * Express tries routes in order, so of two paths that can match the same URL the more specific
 * must come first: `/users/me` before `/users/:id`, `/songs/notSungSince/:date` before
 * `/songs/:songId/usage`. Two such paths differ first where one has a literal and the other a
 * parameter, so ordering paths segment by segment, a literal before any parameter and literals by
 * their text, puts every such pair right. Routes of one path keep the table's order.
 */
function bySpecificity(a: RestRoute, b: RestRoute): number {
  const as = a.path.split('/');
  const bs = b.path.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const ap = as[i].startsWith(':');
    const bp = bs[i].startsWith(':');
    if (ap !== bp) return ap ? 1 : -1;
    if (!ap && as[i] !== bs[i]) return as[i] < bs[i] ? -1 : 1;
  }
  return as.length - bs.length;
}

export const ROUTES: readonly RestRoute[] = ROOT_OPERATIONS.flatMap((operation): RestRoute[] => {
  if (operation.rest === GRAPHQL_ONLY) return [];
  const { alsoAt, ...binding } = operation.rest;
  const main = { ...binding, field: operation.field, operation };
  return alsoAt === undefined ? [main] : [main, { ...main, path: alsoAt.path, aliasOf: binding.path, without: alsoAt.without }];
}).sort(bySpecificity);

/**
 * Relation fields are GraphQL-only: REST records are exactly the flat shapes of docs/API.md.
 * SOFA is given a view of the schema without them, so its operations never select them. So are
 * the licensing fields: the v1 song record is exactly {id, name, artists}; REST reads the licensing
 * details in the usage report's rows (SongUsage.ccliNumber, SongUsage.copyright) and writes them
 * in song bodies.
 */
const RECORD_FIELDS_HIDDEN: readonly FieldCoordinate[] = [
  'Song.ccliNumber',
  'Song.copyright',
  'Song.services',
  'Song.usage',
  'Song.rotation',
  'Service.songs',
  'Service.setlist',
];

/** What REST never shows: the fields above, and the root fields the table marks GraphQL-only. */
export const GRAPHQL_ONLY_FIELDS: readonly FieldCoordinate[] = [
  ...RECORD_FIELDS_HIDDEN,
  ...ROOT_OPERATIONS.filter((op) => op.rest === GRAPHQL_ONLY).map((op) => op.field),
];
