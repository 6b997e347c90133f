module.exports = {
  preset: '@convo/jest-preset',
  testMatch: ['<rootDir>/e2e/**/*.test.ts'],
  // The mesh is six processes and a database: start-up takes seconds, not milliseconds.
  testTimeout: 120_000,
  // Each suite stops its mesh in afterAll; a straggling handle (a gRPC stream, a keep-alive socket)
  // must not hold CI open. The mesh kills its child processes when this process exits.
  forceExit: true,
};
