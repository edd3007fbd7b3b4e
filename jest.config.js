// ESM throughout: Middy 7 is ESM-only, so jest runs in ESM mode (npm test passes
// --experimental-vm-modules to the pinned Node 24) and @swc/jest strips the types.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2024' },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // After the run: every AWS call the handler tests recorded, against the template's IAM policies.
  reporters: ['default', '<rootDir>/test/iam/reporter.mjs'],
  testTimeout: 30_000,
  // Each test file's ESM module graph (the AWS SDK, CDK) stays in the process that ran it: in band, over
  // the whole run, the heap grew past 2 GB and neared Node's 4 GB limit, and the last suites' deadlines
  // lost out to garbage collection (races.test.ts failed after 28 minutes). A worker that has grown past
  // this is replaced between files; setting it also makes Jest use a worker on a 2-core machine, where
  // it would otherwise run every file in its own process.
  workerIdleMemoryLimit: '512MB',
};
