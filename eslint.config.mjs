// One ESLint configuration for every workspace: each package's `npm run lint` (turbo: `npm run lint`
// at the root) runs `eslint .` in its folder, which finds this file.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// A package's public surface is its package.json `exports` (the kit's sub-paths: @convo/kit/mongo,
// @convo/kit/service, …), never the files of its dist/.
const distImports = {
  regex: '^@convo/[^/]+/dist(/|$)',
  message: "Import the package's declared sub-path (its package.json exports, e.g. @convo/kit/mongo), not its dist/.",
};
// Test helpers live in a package's test/ folder or in @convo/test-support, and only tests import them.
const testHelpers = {
  regex: '(^|/)(test|tests|testing|__tests__)(/|$)|(^|/)test-harness$|^@convo/(test-support|jest-preset)(/|$)',
  message: "Production code imports no test helper: they live in the package's test/ folder or @convo/test-support.",
};

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/generated/**',
      '**/.turbo/**',
      '**/coverage/**',
      '**/.cache/**',
      '**/supergraph.graphql',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.d.ts', '.js', '.json'] })],
    },
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process',
          'require',
          'module',
          'exports',
          '__dirname',
          'console',
          'performance',
          'URL',
          'Buffer',
          'setTimeout',
          'clearTimeout',
          'fetch',
        ].map((g) => [g, 'readonly']),
      ),
    },
    rules: {
      // Sees value imports only: the rule skips `import type` and has no option to count it.
      // test/repo/import-cycles.test.ts fails on any circle inside a src/ folder, type imports included.
      'import-x/no-cycle': 'error',
      // Configuration is read in one place per package, so that every setting is documented and checked there.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: "Read settings in the package's config module." },
      ],
      // No max-lines here: the one limit on a source file's length (350 lines, every line counted) is
      // test/repo/house-rules.test.ts, which sees every tracked src/ file, linted package or not.
      // Loaded gRPC definitions and dynamic JSON are typed at their edges; `any` stays visible as a warning.
      '@typescript-eslint/no-explicit-any': 'warn',
      // A handle declared first and set later is read by closures made before it is set (worker-process.ts).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-restricted-imports': ['error', { patterns: [distImports] }],
    },
  },
  {
    // Production code: the services, the gateway and the kit.
    files: ['services/*/src/**', 'services/lib/kit/src/**', 'gateway/src/**', 'gateway/console/**'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [distImports, testHelpers] }] },
  },
  {
    // Config modules, process entry points (main, CLIs, the mesh supervisor, which hands the
    // environment to its children, and the e2e suite's shared mesh), the development database launcher, the jest preset (it sets
    // the test processes' environment), scripts and tests.
    files: [
      '**/config.ts',
      '**/main.ts',
      '**/cli.ts',
      'services/lib/dev-mesh/src/mesh.ts',
      'services/lib/dev-mesh/src/shared-server.ts',
      'services/lib/dev-db/src/**',
      'services/lib/jest-preset/**',
      '**/scripts/**',
      '**/*.test.ts',
      '**/test/**',
      'test/**',
      '*.config.*',
      '**/*.config.*',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Tests load built modules and ES-module tools with require() and read JSON answers loosely.
    files: ['**/*.test.ts', '**/test/**', 'test/**', 'services/lib/test-support/**', '**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
