/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  // Type checking is `npm run typecheck`'s job; transpiling alone keeps the suite fast.
  transform: { '^.+\\.ts$': 'ts-jest' },
  testTimeout: 30000,
};
