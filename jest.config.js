/**
 * The suites by tier, one folder and one jest project each (`jest --selectProjects unit` runs one):
 *
 * - unit: functions and modules on their own, no server, no store file, no network.
 * - contract: the Store contract and the analytics contract, run against every store they can
 *   reach (SQLite always, Neo4j when NEO4J_URI names one) and the in-memory reference.
 * - e2e: real HTTP against a real server on a real store, the store TEST_STORE names (SQLite
 *   by default; `npm run test:neo4j` runs this tier again on Neo4j).
 * - neo4j: what only Neo4j has (plans, the Cypher TCK, maintained aggregates under concurrency,
 *   migrations, the cluster and replicas), against the server NEO4J_URI names, skipped without one.
 * - sqlite: what only the embedded file has (its plans, migrations, backups, several processes on one
 *   file, the demo calendar written into it).
 * - service: the process and its HTTP layer above the store (start and stop, configuration, rate
 *   limits, the GraphQL-over-HTTP audits), on the embedded store whatever TEST_STORE says.
 * - browser: pages in a real Chromium, looked at.
 * - meta: the repository itself (its docs' links, CI workflows, Dockerfile, the test tiers, the
 *   Neo4j test launcher).
 *
 * `npm run test:neo4j` selects NEO4J_PROJECTS (scripts/test-neo4j.ts): contract, e2e and neo4j.
 */
const TIERS = ['unit', 'contract', 'e2e', 'neo4j', 'sqlite', 'service', 'browser', 'meta'];

// Against a real Neo4j (NEO4J_URI, or NEO4J_LOCAL=1) every statement is a network round trip and
// the first run of each is planned: on a busy 2-core machine a suite's test can take a minute.
const testTimeout = process.env.NEO4J_URI || process.env.NEO4J_LOCAL === '1' ? 120000 : 30000;

/** @type {import('jest').Config} */
module.exports = {
  projects: TIERS.map((tier) => ({
    displayName: tier,
    testEnvironment: 'node',
    roots: [`<rootDir>/test/${tier}`],
    // Type checking is `npm run typecheck`'s job; transpiling alone keeps the suite fast.
    transform: { '^.+\\.ts$': 'ts-jest' },
    testTimeout,
  })),
  testTimeout,
  // Record every REST call's status; after the run, check each against the OpenAPI document.
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
