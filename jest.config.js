/** Jest in ESM mode with @swc/jest emitting decorator metadata (stack-notes.md), through test/support/transform.mjs. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '<rootDir>/test/support/transform.mjs',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 60000,
  // Three files at a time on two cores: the browser and job tests spend much of their time waiting (a camera prompt, a verdict, a webhook), so a third file fills the gaps (jest 585 s -> 483 s on a fresh clone).
  maxWorkers: 3,
};
