// The workspaces' import graph, read from the sources git knows (`git ls-files`: tracked, and new
// files not ignored, so a file is checked before it is committed): each package's
// imports of `@convo/*` packages, in its code and in its package.json scripts. Production code is a
// package's `src/` (test files aside); the rest (test/, scripts/, the test workspace) is test and
// build code. The rules:
//  - every import of a workspace is declared in the importing package's package.json (production
//    code: `dependencies`; test and build code: `dependencies` or `devDependencies`);
//  - a service (services/<name>) depends in production only on services/lib/* packages: its
//    `dependencies` and its src/ imports name no other service, the gateway or the test workspace;
//  - production code (of the packages that run in production) imports no test tooling
//    (@convo/test-support, the jest preset, a test/ or testing/ folder, a test harness);
//  - a sub-path of a package with an `exports` map is one it declares, and no import names a package's dist/;
//  - the declared graph (devDependencies too, as turbo orders builds by it) has no cycle.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  exports?: string | Record<string, unknown>;
  typesVersions?: Record<string, Record<string, string[]>>;
}

interface Workspace {
  /** The folder, relative to the repository root (`services/messaging`). */
  dir: string;
  manifest: Manifest;
}

/** One import of one file: the specifier as written, and whether the file is production code. */
interface Import {
  file: string;
  specifier: string;
  production: boolean;
}

const SCOPE = '@convo/';
const CODE = /\.(ts|tsx|js|cjs|mjs)$/;

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 30_000 });
}

/** The module specifiers of a source text: import/export … from, import(), require(), require.resolve(), bare import. */
export function specifiersOf(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\b(?:import|require|require\.resolve)\s*\(\s*['"]([^'"]+)['"]/g,
  ];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) found.push(m[1]);
  return found;
}

/** The workspace package a specifier names (`@convo/kit` for `@convo/kit/mongo`), or undefined. */
export function packageOf(specifier: string): string | undefined {
  if (!specifier.startsWith(SCOPE)) return undefined;
  return specifier.split('/').slice(0, 2).join('/');
}

/** Production code: under the package's src/, not a test file. */
export function isProduction(workspace: Workspace, file: string): boolean {
  const inside = posix.relative(workspace.dir, file);
  if (workspace.manifest.name === '@convo/e2e') return false;
  return inside.startsWith('src/') && !/\.test\.tsx?$/.test(inside);
}

/** A relative import or a package that is test tooling. */
export function isTestTooling(specifier: string): boolean {
  return (
    ['@convo/test-support', '@convo/jest-preset', '@convo/e2e'].includes(packageOf(specifier) ?? '') ||
    /^\.\.?\/(?:.*\/)?(?:test|tests|testing|__tests__)(?:\/|$)/.test(specifier) ||
    /^\.\.?\/(?:.*\/)?test-harness$/.test(specifier) ||
    ['jest', '@jest/globals'].includes(specifier)
  );
}

/** Packages that never run in production (the dev mesh runs the tests' meshes and preloads their tooling). */
const TOOLING = new Set([
  '@convo/dev-mesh',
  '@convo/dev-db',
  '@convo/test-support',
  '@convo/jest-preset',
  '@convo/e2e',
  '@convo/deploy-tools',
]);

const isService = (dir: string) => /^services\/[^/]+$/.test(dir) && dir !== 'services/lib';
const isLib = (dir: string) => dir.startsWith('services/lib/');

/** Every violation of the rules above, as readable lines. */
export function violations(workspaces: Workspace[], imports: Map<string, Import[]>): string[] {
  const byName = new Map(workspaces.map((w) => [w.manifest.name, w]));
  const out: string[] = [];
  for (const w of workspaces) {
    const { name, dependencies = {}, devDependencies = {} } = w.manifest;
    const prodDeps = Object.keys(dependencies).filter((d) => byName.has(d));
    if (isService(w.dir)) {
      for (const dep of prodDeps) {
        if (!isLib(byName.get(dep)!.dir))
          out.push(`${name}: depends on ${dep} (${byName.get(dep)!.dir}); a service depends only on services/lib/*`);
      }
    }
    for (const imp of imports.get(name) ?? []) {
      const target = packageOf(imp.specifier);
      if (imp.production && !TOOLING.has(name) && isTestTooling(imp.specifier))
        out.push(`${imp.file}: production code imports test tooling ${imp.specifier}`);
      if (!target || target === name) continue;
      const to = byName.get(target);
      if (!to) {
        out.push(`${imp.file}: imports ${imp.specifier}, which no workspace provides`);
        continue;
      }
      if (imp.production && !(target in dependencies)) {
        out.push(`${imp.file}: imports ${imp.specifier}, but ${target} is not in ${name}'s dependencies`);
      } else if (!imp.production && !(target in dependencies) && !(target in devDependencies)) {
        out.push(`${imp.file}: imports ${imp.specifier}, but ${target} is not in ${name}'s dependencies or devDependencies`);
      }
      if (imp.production && isService(w.dir) && !isLib(to.dir)) {
        out.push(`${imp.file}: imports ${imp.specifier} (${to.dir}); a service's code depends only on services/lib/*`);
      }
      const sub = imp.specifier.slice(target.length);
      if (/^\/dist(\/|$)/.test(sub)) out.push(`${imp.file}: imports ${imp.specifier}: a package's dist/ is not its public surface`);
      else if (sub && typeof to.manifest.exports === 'object' && !(`.${sub}` in to.manifest.exports)) {
        out.push(`${imp.file}: imports ${imp.specifier}, a sub-path ${target}'s exports do not declare`);
      }
    }
  }
  // Cycles through dependencies and devDependencies (turbo refuses to order such a graph).
  const edges = (w: Workspace) => Object.keys({ ...w.manifest.dependencies, ...w.manifest.devDependencies }).filter((d) => byName.has(d));
  const state = new Map<string, 'open' | 'done'>();
  const visit = (name: string, path: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'open') {
      out.push(`dependency cycle: ${[...path.slice(path.indexOf(name)), name].join(' → ')}`);
      return;
    }
    state.set(name, 'open');
    for (const dep of edges(byName.get(name)!)) visit(dep, [...path, name]);
    state.set(name, 'done');
  };
  for (const w of workspaces) visit(w.manifest.name, []);
  return out;
}

const root = git(['rev-parse', '--show-toplevel'], __dirname).trim();

/** The workspaces of the root package.json, with their manifests. */
function readWorkspaces(files: string[]): Workspace[] {
  const globs = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  const matches = (dir: string) => globs.some((g) => (g.endsWith('/*') ? dirname(dir) === g.slice(0, -2) : dir === g));
  return files
    .filter((f) => f.endsWith('/package.json') && matches(dirname(f)) && existsSync(join(root, f)))
    .map((f) => ({ dir: dirname(f), manifest: JSON.parse(readFileSync(join(root, f), 'utf8')) as Manifest }));
}

/** Each workspace's imports: its tracked code files (not those of a workspace nested in it) and its scripts. */
function readImports(workspaces: Workspace[], files: string[]): Map<string, Import[]> {
  const owner = (file: string) => workspaces.filter((w) => file.startsWith(`${w.dir}/`)).sort((a, b) => b.dir.length - a.dir.length)[0];
  const imports = new Map<string, Import[]>(workspaces.map((w) => [w.manifest.name, []]));
  for (const file of files) {
    const w = owner(file);
    if (!w || !CODE.test(file) || !existsSync(join(root, file))) continue;
    const production = isProduction(w, file);
    for (const specifier of specifiersOf(readFileSync(join(root, file), 'utf8')))
      imports.get(w.manifest.name)!.push({ file, specifier, production });
  }
  for (const w of workspaces) {
    for (const [script, command] of Object.entries(w.manifest.scripts ?? {})) {
      // A build or start script runs with the package's production dependencies.
      const production = !/test|bench|lint/.test(script);
      for (const specifier of specifiersOf(command))
        imports.get(w.manifest.name)!.push({ file: `${w.dir}/package.json (scripts.${script})`, specifier, production });
    }
  }
  return imports;
}

describe('the workspaces import graph', () => {
  const files = git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root).split('\0').filter(Boolean);
  const workspaces = readWorkspaces(files);

  it('reads the specifiers of every form of import', () => {
    // This file is read as the test workspace's code too: what it names here is declared there.
    const text = [
      "import a from '@convo/kit';",
      "import { b,\n  c } from '@convo/kit/mongo';",
      "import type { D } from '@convo/test-support';",
      "export { E } from '@convo/kit/graphql/enums';",
      "import '@convo/kit/observability/register';",
      "const f = await import('@convo/test-support/query-log');",
      "require('@convo/dev-db'); require.resolve('@convo/dev-mesh/package.json');",
      `node -e "require('@convo/kit/graphql/write-sdl').writeSdl('dist/spec.js', 'subgraph.graphql')"`,
    ].join('\n');
    expect(specifiersOf(text)).toEqual(
      expect.arrayContaining([
        '@convo/kit',
        '@convo/kit/mongo',
        '@convo/test-support',
        '@convo/kit/graphql/enums',
        '@convo/kit/observability/register',
        '@convo/test-support/query-log',
        '@convo/dev-db',
        '@convo/dev-mesh/package.json',
        '@convo/kit/graphql/write-sdl',
      ]),
    );
    expect(packageOf('@convo/kit/graphql/enums')).toBe('@convo/kit');
    expect(packageOf('mongoose')).toBeUndefined();
  });

  it('finds every workspace of the root package.json', () => {
    const dirs = workspaces.map((w) => w.dir);
    expect(dirs).toEqual(
      expect.arrayContaining([
        'services/lib/kit',
        'services/lib/test-support',
        'services/messaging',
        'services/tenants',
        'gateway',
        'test',
        'deploy/tools',
      ]),
    );
  });

  it('flags a service that reaches another service, an undeclared import, test tooling in src/, a dist/ path, an undeclared sub-path and a cycle', () => {
    const ws = (dir: string, manifest: Omit<Manifest, 'name'> & { name?: string }): Workspace => ({
      dir,
      manifest: { name: `@convo/${dir.split('/').pop()}`, ...manifest },
    });
    const fake = [
      ws('services/lib/kit', { exports: { '.': './dist/index.js', './mongo': './dist/mongo.js' } }),
      ws('services/lib/test-support', { dependencies: { '@convo/kit': '*' } }),
      ws('services/tickets', { dependencies: { '@convo/kit': '*' }, devDependencies: { '@convo/test-support': '*' } }),
      ws('services/messaging', {
        dependencies: { '@convo/kit': '*', '@convo/tickets': '*' },
        devDependencies: { '@convo/test-support': '*' },
      }),
      ws('services/lib/loop-a', { dependencies: { '@convo/loop-b': '*' } }),
      ws('services/lib/loop-b', { devDependencies: { '@convo/loop-a': '*' } }),
    ];
    const imp = (file: string, specifier: string, production = file.includes('/src/')): Import => ({ file, specifier, production });
    // Assembled, so that a search of the repository for dist imports finds none in this file.
    const distMongo = ['@convo/kit', 'dist', 'mongo'].join('/');
    const imports = new Map<string, Import[]>([
      [
        '@convo/tickets',
        [
          imp('services/tickets/src/a.ts', '@convo/kit'), // fine
          imp('services/tickets/src/b.ts', '@convo/kit/mongo'), // fine: declared sub-path
          imp('services/tickets/test/c.test.ts', '@convo/test-support'), // fine: a test's devDependency
          imp('services/tickets/src/d.ts', '@convo/test-support'), // test tooling in production, and not a dependency
          imp('services/tickets/src/e.ts', distMongo), // dist
          imp('services/tickets/src/f.ts', '@convo/kit/service'), // not in the exports
          imp('services/tickets/src/g.ts', '../testing/peers'), // test tooling in production
          imp('services/tickets/test/h.test.ts', '@convo/dev-db'), // no such workspace here
        ],
      ],
      [
        '@convo/messaging',
        [
          imp('services/messaging/src/a.ts', '@convo/tickets'), // another service
          imp('services/messaging/test/b.test.ts', '@convo/channel-engines'), // not a workspace of this graph
        ],
      ],
    ]);
    expect(violations(fake, imports).sort()).toEqual(
      [
        '@convo/messaging: depends on @convo/tickets (services/tickets); a service depends only on services/lib/*',
        "services/messaging/src/a.ts: imports @convo/tickets (services/tickets); a service's code depends only on services/lib/*",
        'services/messaging/test/b.test.ts: imports @convo/channel-engines, which no workspace provides',
        'services/tickets/src/d.ts: production code imports test tooling @convo/test-support',
        "services/tickets/src/d.ts: imports @convo/test-support, but @convo/test-support is not in @convo/tickets's dependencies",
        `services/tickets/src/e.ts: imports ${distMongo}: a package's dist/ is not its public surface`,
        "services/tickets/src/f.ts: imports @convo/kit/service, a sub-path @convo/kit's exports do not declare",
        'services/tickets/src/g.ts: production code imports test tooling ../testing/peers',
        'services/tickets/test/h.test.ts: imports @convo/dev-db, which no workspace provides',
        'dependency cycle: @convo/loop-a → @convo/loop-b → @convo/loop-a',
      ].sort(),
    );
  });

  it('gives TypeScript each sub-path Node gets: typesVersions and exports name the same ones', () => {
    // The packages compile with moduleResolution "node", which reads typesVersions, not exports.
    const surfaces = workspaces
      .filter((w) => typeof w.manifest.exports === 'object')
      .map((w) => {
        const exported = Object.keys(w.manifest.exports as object)
          .filter((k) => k !== '.' && k !== './package.json')
          .map((k) => k.slice(2))
          .sort();
        const typed = Object.keys(w.manifest.typesVersions?.['*'] ?? {}).sort();
        return { name: w.manifest.name, exported, typed };
      });
    expect(surfaces.map((s) => s.name)).toEqual(expect.arrayContaining(['@convo/kit', '@convo/test-support']));
    for (const s of surfaces) expect({ name: s.name, typed: s.typed }).toEqual({ name: s.name, typed: s.exported });
  });

  it('holds for the repository', () => {
    expect(violations(workspaces, readImports(workspaces, files))).toEqual([]);
  });
});
