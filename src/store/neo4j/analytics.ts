import type { AnalyticsStore } from '../analytics-types';

const pending = () => Promise.reject(new Error('analytics are not yet implemented on Neo4j'));

/** Placeholder until the Cypher statements land. */
export const neo4jAnalyticsPending: AnalyticsStore = {
  songUsage: pending,
  usageOfSongs: pending,
  songsSungWith: pending,
  serviceSpan: pending,
  usageTimeline: pending,
  artistUsage: pending,
};
