// One jest preset for every workspace: swc with legacy decorators and metadata, which
// type-graphql needs to infer GraphQL types from TypeScript ones.
module.exports = {
  testEnvironment: 'node',
  setupFiles: [require.resolve('./mesh-secret.js')],
  // Each file's time at the end of the run, slowest first (file-times.js).
  reporters: ['default', require.resolve('./file-times.js')],
  testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // A straggling handle must not hold CI open once every test has answered (channel-engines' suite
  // twice stayed up for minutes after its last test with nothing jest's detectOpenHandles reports);
  // the e2e suite's own config says the same.
  forceExit: true,
  // typebox 1.x (and cookie, under fastify's inject) ship ES modules only: swc turns them into
  // CommonJS like our sources.
  transformIgnorePatterns: ['/node_modules/(?!(typebox|cookie)/)'],
  transform: {
    '^.+\\.(ts|mjs|js)$': [
      require.resolve('@swc/jest'),
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
};
