/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  // Type checking is `npm run typecheck`'s job; transpiling alone keeps the suite fast.
  transform: { '^.+\\.ts$': 'ts-jest' },
  // Against a real Neo4j (NEO4J_URI, or NEO4J_LOCAL=1) every statement is a network round trip and
  // the first run of each is planned: on a busy 2-core machine a suite's test can take a minute.
  testTimeout: process.env.NEO4J_URI || process.env.NEO4J_LOCAL === '1' ? 120000 : 30000,
  // Record every REST call's status; after the run, check each against the OpenAPI document.
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
