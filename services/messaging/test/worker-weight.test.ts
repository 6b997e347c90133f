import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The relay and the dispatcher serve no GraphQL: they must not load the service's spec (its
 * schema, Apollo, type-graphql, Fastify), which doubled the files a dispatcher loaded at start-up.
 * Each built entry point runs without MONGODB_URI, so it stops at its configuration, after every
 * import; a preloaded hook then lists the packages it loaded.
 */
describe('what a worker process loads', () => {
  const heavy = ['type-graphql', '@apollo/server', '@apollo/subgraph', 'fastify'];
  let dir: string;
  let hook: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'worker-weight-'));
    hook = join(dir, 'list-packages.js');
    writeFileSync(
      hook,
      `process.on('exit', () => {
        const pkgs = Object.keys(require.cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1]);
        require('node:fs').writeSync(1, JSON.stringify(${JSON.stringify(heavy)}.filter((p) => pkgs.includes(p))) + '\\n');
      });`,
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const loaded = (main: string): string[] => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'MONGODB_URI'));
    let out = '';
    try {
      out = execFileSync(process.execPath, ['-r', hook, join(__dirname, '..', 'dist', main)], {
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch (err) {
      out = (err as { stdout: string }).stdout; // exits 1: MONGODB_URI is required
    }
    return JSON.parse(out.trim().split('\n').pop()!);
  };

  it.each(['dispatcher/main.js', 'relay/main.js'])('%s loads no GraphQL or Fastify package', (main) => {
    expect(loaded(main)).toEqual([]);
  });
});
