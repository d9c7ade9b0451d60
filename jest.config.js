// Jest: engine unit tests beside the code (src/**/*.spec.ts), API tests in test/ (*.e2e-spec.ts) against the
// real app on an embedded PostgreSQL started once in globalSetup, one fresh database per test file.
module.exports = {
  rootDir: '.',
  moduleFileExtensions: ['js', 'json', 'ts'],
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  testEnvironment: 'node',
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // the longest files first (test/sequencer.js), so that the workers end together
  testSequencer: '<rootDir>/test/sequencer.js',
  testTimeout: 60000,
  maxWorkers: 2,
};
