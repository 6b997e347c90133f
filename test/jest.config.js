module.exports = {
  preset: '@convo/jest-preset',
  testMatch: ['<rootDir>/e2e/**/*.test.ts'],
  // The mesh is six processes and a database: start-up takes seconds, not milliseconds.
  testTimeout: 120_000,
};
