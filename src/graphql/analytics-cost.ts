import { GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';

/**
 * Extra cost of the fields that aggregate in the database. graphql-armor's cost limit counts every
 * field alike, so a document asking for ten all-time reports would cost as little as ten song
 * names; this rule charges each analytic what it is worth against the same GRAPHQL_MAX_COST.
 * With the default limit (5000) one document may hold four root analytics.
 */
export const ANALYTICS_COST: Readonly<Record<string, number>> = {
  'Query.songUsage': 1000,
  'Query.songUsageById': 200,
  'Query.songsNotSungSince': 1000,
  'Query.newSongs': 1000,
  'Query.songsSungWith': 500,
  'Query.usageTimeline': 1000,
  'Query.artistUsage': 1000,
  // One batched statement per window and level, however many songs.
  'Song.usage': 500,
};

export function analyticsCostRule(maxCost: number) {
  return (context: ValidationContext): ASTVisitor => {
    let cost = 0;
    let reported = false;
    return {
      Field(node) {
        const parent = context.getParentType();
        const weight = parent ? ANALYTICS_COST[`${parent.name}.${node.name.value}`] : undefined;
        if (!weight) return;
        cost += weight;
        if (cost > maxCost && !reported) {
          reported = true;
          context.reportError(
            new GraphQLError(`Query Cost limit of ${maxCost} exceeded: analytics fields alone cost ${cost}`, {
              nodes: [node],
            }),
          );
        }
      },
    };
  };
}
