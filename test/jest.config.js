module.exports = {
  preset: '@convo/jest-preset',
  // e2e/: the mesh end to end; chaos/: two replicas of everything killed at random under load;
  // repo/: rules about the repository itself (fast, no mesh).
  testMatch: ['<rootDir>/e2e/**/*.test.ts', '<rootDir>/chaos/**/*.test.ts', '<rootDir>/repo/**/*.test.ts'],
  // Every query the meshes send is recorded (QUERY_LOG) for the index-coverage check, which runs
  // after this suite: jest.index-coverage.config.js.
  globalSetup: '<rootDir>/index-coverage/e2e-global-setup.ts',
  // The files on the shared mesh run last (support/shared-mesh-last.js).
  testSequencer: '<rootDir>/support/shared-mesh-last.js',
  // The test files that need no mesh of their own share one (support/shared-mesh.ts), started by
  // the first of them and stopped here, after the last.
  globalTeardown: '<rootDir>/index-coverage/e2e-global-teardown.ts',
  // The mesh is nine processes and a database: start-up takes seconds, not milliseconds.
  testTimeout: 120_000,
  // Each suite stops its mesh in afterAll; a straggling handle (a gRPC stream, a keep-alive socket)
  // must not hold CI open. The mesh kills its child processes when this process exits.
  forceExit: true,
};
