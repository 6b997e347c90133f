// The GraphQL contract is tracked: each service's subgraph SDL and the composed supergraph are
// committed as the build writes them (docs/development.md "The GraphQL contract in git"), so that
// a schema change shows as a diff in review. This test makes them again from the built code (each
// service's dist/ through the kit's subgraphSdl, in a process of its own as its build does; the
// supergraph through the gateway's composeSupergraph) and compares them with git's copy (the index:
// what is committed, or staged to be). Not with the file on disk: the build rewrites that, so after
// a build it always matches, and only git's copy shows a change nobody committed. Needs a build
// first (`npm test` builds; alone: `npm run build`).
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';

/** The gateway's schema-files.js: where the contract's files are. */
interface SchemaFiles {
  SUBGRAPH_FILES: Record<string, string>;
  SUPERGRAPH_PATH: string;
}
/** The gateway's compose-supergraph.js: the composition its build runs. */
interface Composer {
  composeSupergraph(sdls: Record<string, string>): string;
}

/** A service's build step that writes its SDL: the module it reads and the file it writes. */
interface SdlStep {
  dir: string;
  module: string;
  out: string;
}

function git(args: string[], cwd: string): string {
  // Its complaint about an untracked path is this test's to word (verdict).
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 30_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

const root = git(['rev-parse', '--show-toplevel'], __dirname).trim();
const gatewayDist = join(dirname(require.resolve('@convo/gateway/package.json')), 'dist');

/** The write-sdl step of a package's build script (`…writeSdl('dist/spec.js', 'subgraph.graphql')…`), if it has one. */
export function sdlStepOf(dir: string, buildScript: string): SdlStep | undefined {
  const m = /\bwriteSdl\(\s*'([^']+)'\s*,\s*'([^']+)'\s*\)/.exec(buildScript);
  return m ? { dir, module: m[1], out: join(dir, m[2]) } : undefined;
}

/**
 * Why a tracked schema file fails the check, or undefined when git's copy is what the build makes.
 * `committed` is git's copy (undefined: not tracked), `onDisk` the working tree's.
 */
export function verdict(file: string, made: string, committed: string | undefined, onDisk: string | undefined): string | undefined {
  if (committed === made) return undefined;
  if (committed === undefined) return `${file} is not tracked: run \`npm run build\` and commit it`;
  if (onDisk === made)
    return `${file} has a schema change the build wrote that is not committed: review it (git diff ${file}) and commit it`;
  return `${file} is not what the build makes of the current code: run \`npm run build\` and commit ${file}`;
}

/** Git's copy of a file (the index), or undefined when git does not track it. */
function committedText(file: string): string | undefined {
  try {
    return git(['show', `:${file}`], root);
  } catch {
    return undefined;
  }
}

const onDisk = (file: string) => (existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : undefined);

/** Every workspace build that writes a subgraph's SDL. */
function sdlSteps(): SdlStep[] {
  return git(['ls-files', '-z'], root)
    .split('\0')
    .filter((file) => /(^|\/)package\.json$/.test(file))
    .flatMap((file) => {
      const build = (JSON.parse(readFileSync(join(root, file), 'utf8')) as { scripts?: { build?: string } }).scripts?.build ?? '';
      return sdlStepOf(dirname(file), build) ?? [];
    });
}

/** The SDL a step writes, made in a process of its own (type-graphql keeps its metadata in one global per process). */
async function makeSdl(step: SdlStep): Promise<string> {
  const script = "require('@convo/kit/graphql/write-sdl').subgraphSdl(process.argv[1]).then((sdl) => process.stdout.write(sdl))";
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, step.module], {
    cwd: join(root, step.dir),
    maxBuffer: 16 * 1024 * 1024,
    timeout: 90_000,
  });
  return stdout;
}

describe('the GraphQL contract in git', () => {
  it('reads the SDL step of a build script, and says what to do about a file', () => {
    const build = `tsc -p tsconfig.build.json && node -e "require('@convo/kit/graphql/write-sdl').writeSdl('dist/spec.js', 'subgraph.graphql')"`;
    expect(sdlStepOf('services/tickets', build)).toEqual({
      dir: 'services/tickets',
      module: 'dist/spec.js',
      out: 'services/tickets/subgraph.graphql',
    });
    expect(sdlStepOf('gateway', 'tsc -p tsconfig.build.json')).toBeUndefined();
    expect(verdict('a.graphql', 'type A', 'type A', 'type B')).toBeUndefined();
    expect(verdict('a.graphql', 'type A', undefined, 'type A')).toMatch(/not tracked: run `npm run build` and commit it/);
    expect(verdict('a.graphql', 'type A', 'type B', 'type A')).toMatch(/not committed: review it \(git diff a.graphql\) and commit it/);
    expect(verdict('a.graphql', 'type A', 'type B', 'type B')).toMatch(/run `npm run build` and commit a.graphql/);
  });

  it("has each service's subgraph SDL and the supergraph committed as the build makes them", async () => {
    const steps = sdlSteps();
    const { SUBGRAPH_FILES, SUPERGRAPH_PATH } = require(join(gatewayDist, 'schema-files.js')) as SchemaFiles;
    const { composeSupergraph } = require(join(gatewayDist, 'compose-supergraph.js')) as Composer;
    const subgraphs = Object.fromEntries(Object.entries(SUBGRAPH_FILES).map(([name, file]) => [name, relative(root, file)]));
    // The gateway composes exactly the files the services' builds write.
    expect(Object.values(subgraphs).sort()).toEqual(steps.map((s) => s.out).sort());

    const made = new Map(await Promise.all(steps.map(async (s): Promise<[string, string]> => [s.out, await makeSdl(s)])));
    const supergraph = relative(root, SUPERGRAPH_PATH);
    made.set(supergraph, composeSupergraph(Object.fromEntries(Object.entries(subgraphs).map(([name, file]) => [name, made.get(file)!]))));

    const failures = [...made].flatMap(([file, text]) => verdict(file, text, committedText(file), onDisk(file)) ?? []);
    expect(failures).toEqual([]);
  });
});
