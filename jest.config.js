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
  // Each test file's ESM module graph (the AWS SDK, CDK) stays in the process that ran it: in band (Jest's
  // choice on 2 cores) the heap grew ~10 MB a file, past 2.3 GB by the 57th, toward Node's 4 GB limit,
  // and the last suites' deadlines lost out to garbage collection (races.test.ts failed after 28
  // minutes). A worker that has grown past this is replaced between files.
  workerIdleMemoryLimit: '512MB',
  // Two workers on a 2-core machine: one file's CPU (a CDK synth, a handler) overlaps another's waits
  // (DynamoDB Local, npm start, a browser). Measured on one such machine: 5 min 24 s against 10 min 56 s
  // with one worker, every test green in both. Fixed rather than per core, so that the deadline and
  // race tests run as they were measured here.
  maxWorkers: 2,
};
