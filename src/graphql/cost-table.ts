import type { GraphQLScalarType } from 'graphql';
import type { Resolvers } from '../generated/graphql';
import { DEFAULT_PAIRINGS } from './resolvers/analytics';
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
  /** Items charged for any other list returned whole. */
  assumedListSize: number;
  /** The largest page `limit`, `first` and `last` accept; a larger value is refused when it runs. */
  maxListSize: number;
}

/** The largest page of every list (docs/API.md: `limit` and `first` are 1 to 1000). */
export const MAX_PAGE = 1000;

/**
 * The cost of every field that is not one value per item (docs/API.md, GraphQL: Limits). A new
 * list field needs no entry: its `limit`/`first`/`last` argument, or the assumed size, counts it.
 */
export const COST_TABLE: CostTable = {
  weights: {
    // Aggregates over the whole history: with the default limit (20,000) one document holds at
    // most four of them, as it held four when the limit was 5,000 and they weighed 1,000.
    'Query.songUsage': 4000,
    'Query.songsNotSungSince': 4000,
    'Query.newSongs': 4000,
    'Query.usageTimeline': 4000,
    'Query.artistUsage': 4000,
    'Query.songsSungWith': 2000,
    'Query.songUsageById': 800,
    // One batched statement per window and level, however many songs.
    'Song.usage': 2000,
  },
  sizes: {
    'Query.songsConnection': DEFAULT_FIRST,
    'Query.servicesConnection': DEFAULT_FIRST,
    'Query.songsSungWith': DEFAULT_PAIRINGS,
    // One entry per ServiceType of the filter: at most the three types.
    'SongUsage.byServiceType': 3,
  },
  assumedListSize: MAX_PAGE,
  maxListSize: MAX_PAGE,
};
