// No circle of imports among the files of a workspace's src/, type-only imports included. ESLint's
// `import-x/no-cycle` (eslint.config.mjs) skips `import type` by design and has no option to count
// it, so a circle closed by type imports alone passes lint: it still ties every file of it to every
// other (none can be read, moved or split alone), and it becomes a run-time circle the day one of
// its imports brings a value. Read from the sources git knows (tracked, and new files not ignored),
// each file's imports as TypeScript's own pre-processor lists them (`import`, `import type`,
// `export … from`, `import()`, `require()`), relative ones resolved to files of the same src/.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import * as ts from 'typescript';

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 30_000 });
}

const root = git(['rev-parse', '--show-toplevel'], __dirname).trim();

/** The relative module specifiers of a TypeScript text, type-only imports included. */
export function relativeImportsOf(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith('./') || name.startsWith('../'));
}

/** The file of `files` that `specifier`, imported by `from`, names (`./x` → x.ts or x/index.ts; `./x.js` → x.ts). */
export function resolveImport(from: string, specifier: string, files: Set<string>): string | undefined {
  const base = posix.join(posix.dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, base].find((f) => files.has(f));
}

/** A circle of imports: every file on it (a strongly connected component), and a shortest path around it. */
export interface Cycle {
  files: string[];
  path: string[];
}

/** Each circle of a graph: its strongly connected components of more than one file, or a file importing itself. */
export function cyclesOf(graph: Map<string, string[]>): Cycle[] {
  // Tarjan's strongly connected components (recursive: a src/ folder is a few hundred files at most).
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return components.map((files) => ({ files, path: pathAround(files, graph) }));
}

/** A shortest path from the component's first file back to it, through the component (breadth first). */
function pathAround(component: string[], graph: Map<string, string[]>): string[] {
  const inside = new Set(component);
  const start = component[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0])!);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** How a circle reads in a failure: a path around it, then every file on it. */
function cycleLine({ files, path }: Cycle, dir: string): string {
  const name = (f: string) => posix.relative(dir, f);
  return `${dir}: ${path.map(name).join(' → ')} (${files.length} file${files.length === 1 ? '' : 's'} in the circle: ${files.map(name).join(', ')})`;
}

/** The src/ folder of every workspace of the root package.json. */
function sourceFolders(files: string[]): string[] {
  const globs = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  const isWorkspace = (dir: string) => globs.some((g) => (g.endsWith('/*') ? dirname(dir) === g.slice(0, -2) : dir === g));
  return files.filter((f) => f.endsWith('/package.json') && isWorkspace(dirname(f))).map((f) => `${dirname(f)}/src`);
}

/** The import graph of one src/ folder: each TypeScript file to the files of the folder it imports. */
function graphOf(src: string, files: string[]): Map<string, string[]> {
  const sources = files.filter((f) => f.startsWith(`${src}/`) && /\.tsx?$/.test(f) && existsSync(join(root, f)));
  const known = new Set(sources);
  return new Map(
    sources.map((file) => {
      const targets = relativeImportsOf(readFileSync(join(root, file), 'utf8')).flatMap((s) => resolveImport(file, s, known) ?? []);
      return [file, [...new Set(targets)]];
    }),
  );
}

describe('imports inside a workspace', () => {
  const files = git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root).split('\0').filter(Boolean);

  it('reads type-only imports, re-exports and dynamic imports, and resolves them to files', () => {
    const text = [
      "import type { A } from './a';",
      "import { type B, c } from '../b';",
      "export { D } from './d/index';",
      "export type { E } from './e.js';",
      "const f = await import('./f');",
      "type G = typeof import('./g');",
      "import h from 'fastify';",
      "// import { X } from './commented';",
    ].join('\n');
    expect(relativeImportsOf(text)).toEqual(expect.arrayContaining(['./a', '../b', './d/index', './e.js', './f', './g']));
    expect(relativeImportsOf(text)).not.toContain('fastify');
    expect(relativeImportsOf(text)).not.toContain('./commented');
    const known = new Set(['p/src/a.ts', 'p/src/d/index.ts', 'p/src/e.ts']);
    expect(resolveImport('p/src/x/y.ts', '../a', known)).toBe('p/src/a.ts');
    expect(resolveImport('p/src/y.ts', './d', known)).toBe('p/src/d/index.ts');
    expect(resolveImport('p/src/y.ts', './e.js', known)).toBe('p/src/e.ts');
    expect(resolveImport('p/src/y.ts', './missing', known)).toBeUndefined();
  });

  it('names each circle by a path around it, and passes a graph without one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ]);
    expect(cyclesOf(graph)).toEqual(
      expect.arrayContaining([
        { files: ['a', 'b', 'c'], path: ['a', 'b', 'c', 'a'] },
        { files: ['e'], path: ['e', 'e'] },
      ]),
    );
    expect(cyclesOf(graph)).toHaveLength(2);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
    const line = cycleLine(
      { files: ['gw/src/a.ts', 'gw/src/b.ts', 'gw/src/c.ts'], path: ['gw/src/a.ts', 'gw/src/b.ts', 'gw/src/a.ts'] },
      'gw/src',
    );
    expect(line).toBe('gw/src: a.ts → b.ts → a.ts (3 files in the circle: a.ts, b.ts, c.ts)');
  });

  it('finds the src/ folders of the workspaces', () => {
    expect(sourceFolders(files)).toEqual(expect.arrayContaining(['gateway/src', 'services/lib/kit/src', 'services/messaging/src']));
  });

  it('has no circle in any workspace, type-only imports included', () => {
    const found = sourceFolders(files).flatMap((src) => cyclesOf(graphOf(src, files)).map((cycle) => cycleLine(cycle, src)));
    expect(found).toEqual([]);
  });
});
