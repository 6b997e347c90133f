import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The kit's index is what the gateway and the messaging workers load: it must not pull in the
 * service-only parts (mongoose, Apollo's subgraph, type-graphql), which cost every such process a
 * second of CPU at start-up. Those are imported by path (`@convo/kit/dist/service`, …). Runs the
 * built index (turbo builds before it tests) in a fresh Node.
 */
it("loads none of the service-only packages through the kit's index", () => {
  const index = join(__dirname, '..', 'dist', 'index.js');
  const script = `require(${JSON.stringify(index)});
    const heavy = Object.keys(require.cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1])
      .filter((p) => ['mongoose', 'type-graphql', '@apollo/subgraph', '@apollo/server'].includes(p));
    console.log(JSON.stringify([...new Set(heavy)]));`;
  expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))).toEqual([]);
});
