// Three projects: unit (no services), integration (a real Temporal dev server, started once for
// the run by the global setup) and backends (also real services: dockerd, sshd, ... started by
// scripts/services/*.sh, found through HERMES_TEST_* variables).
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
  // @noble/* ship only ES modules; Jest's CommonJS runtime needs them compiled (Node itself loads them with require).
  '/node_modules/@noble/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
};
const transformIgnorePatterns = ['/node_modules/(?!@noble/)'];
// Most test files wait (on a Temporal server, a sandboxed command, an approval's timeout) far more
// than they compute: run alone, one file at a time (Jest's default on two cores, one fewer than the
// cores), they left a 2-core machine 85% idle and the suite took 47 minutes; two at a time, about
// half. Tests that time the worker's thread leave out what waiting for a core costs it
// (test/helpers/event-loop-stall.ts).
const maxWorkers = Math.max(2, require('node:os').availableParallelism() - 1);
// Only these folders are crawled: service state under .tmp/ (dockerd, postgres) holds many files.
const roots = ['<rootDir>/src', '<rootDir>/test'];
const setupFilesAfterEnv = ['<rootDir>/test/helpers/close-small-spawner.ts'];

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 120_000,
  maxWorkers,
  // The default summary, then which suites were skipped and why (test/helpers/skipped-reporter.js).
  reporters: ['default', '<rootDir>/test/helpers/skipped-reporter.js'],
  projects: [
    { displayName: 'unit', testEnvironment: 'node', transform, transformIgnorePatterns, roots, setupFilesAfterEnv, testTimeout: 30_000, testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      roots,
      testTimeout: 120_000,
      transform,
      transformIgnorePatterns,
      setupFilesAfterEnv,
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
    },
    {
      displayName: 'backends',
      testEnvironment: 'node',
      roots,
      testTimeout: 180_000,
      transform,
      transformIgnorePatterns,
      setupFilesAfterEnv,
      testMatch: ['<rootDir>/test/backends/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
    },
  ],
};
