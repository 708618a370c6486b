/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  // Type checking is `npm run typecheck`'s job; transpiling alone keeps the suite fast.
  transform: { '^.+\\.ts$': 'ts-jest' },
  testTimeout: 30000,
  // Record every REST call's status; after the run, check each against the OpenAPI document.
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
