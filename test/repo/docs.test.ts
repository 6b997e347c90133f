// The docs (README.md, docs/**/*.md, deploy/README.md) say what the repository has. Four checks,
// each a plain pattern over the text, so that a reader can tell what passes:
//  - a count of processes ("nine processes", "9 Node processes") is the dev mesh's, read from its
//    own list (DEPLOYMENTS of @convo/dev-mesh); a count followed by its list in parentheses
//    ("four processes (gateway, channel-engines, messaging, tickets)") names some of them, and the
//    list must hold that many;
//  - a kit sub-path (`@convo/kit/<sub-path>`) is one services/lib/kit/package.json exports, and the
//    sub-path list of docs/development.md (its bullet "A package's surface") names every one;
//  - a file named from the repository root in inline code (`gateway/src/app.ts`: a path whose
//    folder is one of the repository's, holding tracked files; placeholders such as `<service>` or
//    `*` aside) or by a relative link (`[text](../storage.md#anchor)`, from the page's folder)
//    exists. A path whose folder the repository has not (a package's own `test/x.ts`, another
//    project's `docs/…`, a build output under `dist/`) is not read as one of its files;
//  - an `npm run <script>` (in prose or a code block) is a script of the root package.json, where a
//    reader types it.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

const { DEPLOYMENTS } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 30_000 });
}

const root = git(['rev-parse', '--show-toplevel'], __dirname).trim();
const readJson = <T>(file: string) => JSON.parse(readFileSync(join(root, file), 'utf8')) as T;

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const NUMBER = `\\d+|${NUMBER_WORDS.join('|')}`;

/** A number as written: digits or a word up to twelve. */
export function numberOf(text: string): number {
  return /^\d+$/.test(text) ? Number(text) : NUMBER_WORDS.indexOf(text.toLowerCase());
}

/** Each line of a text with its number (from 1) and what `pattern` (global) matched on it. */
function matchesByLine(text: string, pattern: RegExp): { line: number; m: RegExpMatchArray }[] {
  return text.split('\n').flatMap((content, i) => [...content.matchAll(pattern)].map((m) => ({ line: i + 1, m })));
}

/** Counts of processes that are neither the mesh's nor the length of the list that follows them. */
export function wrongProcessCounts(text: string, meshProcesses: number): string[] {
  const count = new RegExp(`\\b(${NUMBER}) (?:Node )?processes\\b(?: \\(([^)]*)\\))?`, 'gi');
  return matchesByLine(text, count).flatMap(({ line, m }) => {
    const n = numberOf(m[1]);
    const listed = m[2]?.split(/,\s*|\s+and\s+/).filter(Boolean).length;
    const right = listed === undefined ? meshProcesses : listed;
    return n === right ? [] : [`${line}: "${m[0]}" (${listed === undefined ? `the mesh has ${meshProcesses}` : `${listed} listed`})`];
  });
}

/** The kit sub-paths a text names (`@convo/kit/graphql/write-sdl` → `graphql/write-sdl`), by line. */
export function kitSubPaths(text: string): { line: number; subPath: string }[] {
  return matchesByLine(text, /@convo\/kit\/([a-z0-9][a-z0-9/.-]*[a-z0-9])/g).map(({ line, m }) => ({ line, subPath: m[1] }));
}

/** Text outside fenced code blocks (their lines kept, blank, so that line numbers hold). */
export function withoutCodeBlocks(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

/** Inline code that reads as a path from the repository root: no placeholder, and its folder one of `folders`. */
export function rootPaths(text: string, folders: Set<string>): { line: number; path: string }[] {
  return matchesByLine(withoutCodeBlocks(text), /`([^`\s]+)`/g).flatMap(({ line, m }) => {
    const path = m[1].replace(/:\d+(?:-\d+)?$/, '').replace(/\/$/, '');
    const placeholder = /[<>*{}…$?]|\.\.\./.test(path);
    return !placeholder && path.includes('/') && folders.has(posix.dirname(path)) ? [{ line, path }] : [];
  });
}

/** Every folder that holds a tracked file, at any depth. */
export function foldersOf(files: string[]): Set<string> {
  const folders = new Set<string>();
  for (const file of files) for (let dir = posix.dirname(file); dir !== '.'; dir = posix.dirname(dir)) folders.add(dir);
  return folders;
}

/** The targets of relative links (`[text](target)`: no scheme, not only an anchor), without anchor or query. */
export function relativeLinks(text: string): { line: number; target: string }[] {
  return matchesByLine(withoutCodeBlocks(text), /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g).flatMap(({ line, m }) => {
    const target = m[1].replace(/[#?].*$/, '');
    return target && !/^[a-z][a-z0-9+.-]*:/i.test(m[1]) ? [{ line, target }] : [];
  });
}

/** The scripts an `npm run <script>` of the text names, by line. */
export function npmRuns(text: string): { line: number; script: string }[] {
  return matchesByLine(text, /\bnpm run ([a-z0-9][\w:.-]*[\w])/gi).map(({ line, m }) => ({ line, script: m[1] }));
}

describe('the docs', () => {
  const files = git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root).split('\0').filter(Boolean);
  const docs = files
    .filter((f) => f === 'README.md' || f === 'deploy/README.md' || (f.startsWith('docs/') && f.endsWith('.md')))
    .filter((f) => existsSync(join(root, f)));
  const text = (doc: string) => readFileSync(join(root, doc), 'utf8');
  const kitExports = Object.keys(readJson<{ exports: Record<string, string> }>('services/lib/kit/package.json').exports)
    .filter((k) => k !== '.')
    .map((k) => k.slice(2));
  const folders = foldersOf(files);

  it('reads counts, sub-paths, paths, links and scripts as documented', () => {
    expect(numberOf('nine')).toBe(9);
    expect(numberOf('12')).toBe(12);
    const counts =
      'eight Node processes load\nthe nine processes\nthrough four processes (gateway, channel-engines, messaging and tickets)\nthree processes (a, b)';
    expect(wrongProcessCounts(counts, 9)).toEqual(['1: "eight Node processes" (the mesh has 9)', '4: "three processes (a, b)" (2 listed)']);
    expect(kitSubPaths("the kit's `@convo/kit/graphql/write-sdl`, and @convo/kit/meta-graph.")).toEqual([
      { line: 1, subPath: 'graphql/write-sdl' },
      { line: 1, subPath: 'meta-graph' },
    ]);
    expect(foldersOf(['gateway/src/app.ts', 'README.md'])).toEqual(new Set(['gateway', 'gateway/src']));
    const prose = [
      'see `gateway/src/app.ts:12`, `gateway/src/`, `services/<service>/subgraph.graphql`, `gateway/dist/main.js`, `/webhooks/meta`',
      '```',
      '`gateway/src/in-a-block.ts`',
      '```',
    ].join('\n');
    expect(rootPaths(prose, new Set(['gateway', 'gateway/src']))).toEqual([
      { line: 1, path: 'gateway/src/app.ts' },
      { line: 1, path: 'gateway/src' },
    ]);
    expect(relativeLinks('[a](../storage.md#index), [b](#here), [c](https://x.org/a), [d](docs/api/ "t")')).toEqual([
      { line: 1, target: '../storage.md' },
      { line: 1, target: 'docs/api/' },
    ]);
    expect(npmRuns('`npm run bench:inbound`; then npm run reset.')).toEqual([
      { line: 1, script: 'bench:inbound' },
      { line: 1, script: 'reset' },
    ]);
  });

  it('are read from README.md, docs/ and deploy/README.md', () => {
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'deploy/README.md', 'docs/development.md', 'docs/api/graphql.md']));
  });

  it("name no count of processes but the dev mesh's", () => {
    expect(DEPLOYMENTS.length).toBeGreaterThan(5);
    const found = docs.flatMap((doc) => wrongProcessCounts(text(doc), DEPLOYMENTS.length).map((hit) => `${doc}:${hit}`));
    expect(found).toEqual([]);
  });

  it('name only kit sub-paths the kit exports, and the list in docs/development.md names each', () => {
    expect(kitExports).toEqual(expect.arrayContaining(['mongo', 'graphql/write-sdl']));
    const unknown = docs.flatMap((doc) =>
      kitSubPaths(text(doc)).flatMap(({ line, subPath }) =>
        kitExports.includes(subPath) ? [] : [`${doc}:${line}: @convo/kit/${subPath}`],
      ),
    );
    expect(unknown).toEqual([]);
    // The list is the bullet "A package's surface is its `exports`"; it writes the first sub-path
    // in full and the rest as `/<sub-path>`.
    const development = text('docs/development.md');
    const start = development.indexOf("- **A package's surface is its `exports`.**");
    expect(start).toBeGreaterThan(0);
    const list = development.slice(start, development.indexOf('\n- ', start + 1));
    const unlisted = kitExports.filter(
      (sub) => sub !== 'package.json' && !list.includes(`\`@convo/kit/${sub}\``) && !list.includes(`\`/${sub}\``),
    );
    expect(unlisted).toEqual([]);
  });

  it('name only files that exist, in inline code from the root or by a relative link', () => {
    const missing = docs.flatMap((doc) => [
      ...rootPaths(text(doc), folders).flatMap(({ line, path }) => (existsSync(join(root, path)) ? [] : [`${doc}:${line}: \`${path}\``])),
      ...relativeLinks(text(doc)).flatMap(({ line, target }) =>
        existsSync(join(root, dirname(doc), target)) ? [] : [`${doc}:${line}: (${posix.normalize(target)})`],
      ),
    ]);
    expect(missing).toEqual([]);
  });

  it('give only npm scripts that the root package.json has', () => {
    const scripts = Object.keys(readJson<{ scripts: Record<string, string> }>('package.json').scripts);
    const unknown = docs.flatMap((doc) =>
      npmRuns(text(doc)).flatMap(({ line, script }) => (scripts.includes(script) ? [] : [`${doc}:${line}: npm run ${script}`])),
    );
    expect(unknown).toEqual([]);
  });
});
