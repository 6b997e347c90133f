// Build step of every service (`node -e "require('@convo/kit/graphql/write-sdl').writeSdl('dist/spec.js', 'subgraph.graphql')"`):
// writes the service's subgraph schema, taken from the module's `subgraphTypes` export, as SDL. The
// gateway's build composes the supergraph from these files, without depending on the services' code.
// The file is tracked, so that a schema change shows in review; test/repo/graphql-contract.test.ts
// compares it with `subgraphSdl` of the built code.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildSubgraph, type SubgraphTypes } from './subgraph';

/** The SDL file's text for the `subgraphTypes` that `modulePath` (relative to the working folder) exports. */
export async function subgraphSdl(modulePath: string): Promise<string> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const types = (require(resolve(modulePath)) as { subgraphTypes?: SubgraphTypes }).subgraphTypes;
  if (!types) throw new Error(`${modulePath} exports no subgraphTypes`);
  const { sdl } = await buildSubgraph(types);
  return `${sdl}\n`;
}

/** Writes the SDL of the `subgraphTypes` that `modulePath` (relative to the working folder) exports to `out`. */
export async function writeSdl(modulePath: string, out: string): Promise<void> {
  writeFileSync(out, await subgraphSdl(modulePath));
  console.log(`subgraph SDL → ${out}`);
}

// Also a command: `node <this file> <module exporting subgraphTypes> <output .graphql>`.
if (require.main === module) {
  const [modulePath, out] = process.argv.slice(2);
  (modulePath && out
    ? writeSdl(modulePath, out)
    : Promise.reject(new Error('usage: write-sdl.js <module exporting subgraphTypes> <output .graphql>'))
  ).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
