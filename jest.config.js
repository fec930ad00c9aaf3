// Two projects: unit (no services) and integration (a real Temporal dev server, started once
// for the run by the global setup).
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] };

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 120_000,
  projects: [
    { displayName: 'unit', testEnvironment: 'node', transform, testTimeout: 30_000, testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      testTimeout: 120_000,
      transform,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
    },
  ],
};
