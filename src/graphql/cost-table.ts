import type { GraphQLScalarType } from 'graphql';
import { SETLIST_MAX_SONGS } from '../domain/setlist';
import { MAX_PAGE } from '../domain/validation';
import type { Resolvers } from '../generated/graphql';
import { DEFAULT_PAIRINGS } from './resolvers/analytics';
import { ROOT_OPERATIONS } from './operations';
import { SUGGESTION_PARAMETERS } from '../domain/analytics/suggestions';
import { DEFAULT_FIRST } from './resolvers/paging';

/**
 * `Type.field` of every object field of the schema, from the generated resolver types: a key of
 * the tables below that names no field (a typo, a field since removed) does not compile.
 */
export type FieldCoordinate = {
  [T in keyof Resolvers]-?: NonNullable<Resolvers[T]> extends GraphQLScalarType
    ? never
    : `${T & string}.${Exclude<keyof NonNullable<Resolvers[T]>, `__${string}`> & string}`;
}[keyof Resolvers];

/** What the cost rule (./cost.ts) needs to know beyond the schema. */
export interface CostTable {
  /**
   * Work in the database, added once per field in the document: each such field runs as one
   * statement per level, batched over all its parents, so its weight is not multiplied by them.
   */
  weights: Partial<Record<FieldCoordinate, number>>;
  /**
   * Items of a list field (or, for a connection, of its page) when no `limit`/`first`/`last`
   * argument is given: the resolver's default, or a real bound.
   */
  sizes: Partial<Record<FieldCoordinate, number>>;
  /**
   * The most items a list field can hold, whatever its `limit` asks for: charged at most this
   * many, with or without one (a setlist: SETLIST_MAX_SONGS).
   */
  bounds: Partial<Record<FieldCoordinate, number>>;
  /** Items charged for any other list returned whole. */
  assumedListSize: number;
  /** The largest page `limit`, `first` and `last` accept; a larger value is refused when it runs. */
  maxListSize: number;
}

function rootWeights(): Partial<Record<FieldCoordinate, number>> {
  return Object.fromEntries(ROOT_OPERATIONS.filter((op) => op.weight !== undefined).map((op) => [op.field, op.weight]));
}

/**
 * The cost of every field that is not one value per item (docs/API.md, GraphQL: Limits). A new
 * list field needs no entry: its `limit`/`first`/`last` argument, or the assumed size, counts it.
 */
export const COST_TABLE: CostTable = {
  weights: {
    // The root fields' weights are the operation table's (./operations.ts).
    ...rootWeights(),
    // One batched statement per window and level, however many songs.
    'Song.usage': 5_000,
    // The same: each song's links within the horizon, one batched statement per horizon and level.
    'Song.rotation': 5_000,
  },
  sizes: {
    'Query.songsConnection': DEFAULT_FIRST,
    'Query.servicesConnection': DEFAULT_FIRST,
    'Query.songsSungWith': DEFAULT_PAIRINGS,
    'Query.suggestSongs': SUGGESTION_PARAMETERS.limit.default,
    // One per weighted part (src/domain/analytics/suggestions.ts), and a few reasons.
    'SongSuggestion.parts': 4,
    'SongSuggestion.reasons': 5,
    // One entry per ServiceType of the filter: at most the three types.
    'SongUsage.byServiceType': 3,
  },
  bounds: {
    // A service holds at most SETLIST_MAX_SONGS songs (refused above it by both stores).
    'Service.songs': SETLIST_MAX_SONGS,
    'Service.setlist': SETLIST_MAX_SONGS,
    // These answer the setlist after the write.
    'Mutation.addSongToService': SETLIST_MAX_SONGS,
    'Mutation.setServiceSongs': SETLIST_MAX_SONGS,
  },
  assumedListSize: MAX_PAGE,
  maxListSize: MAX_PAGE,
};
