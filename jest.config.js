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
};
