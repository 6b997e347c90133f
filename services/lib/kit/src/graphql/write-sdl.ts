// Build step of every service (`node ../lib/kit/dist/graphql/write-sdl.js dist/spec.js subgraph.graphql`): writes the
// service's subgraph schema, taken from the module's `subgraphTypes` export, as SDL. The gateway's
// build composes the supergraph from these files, without depending on the services' code.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildSubgraph, type SubgraphTypes } from './subgraph';

async function main(modulePath: string | undefined, out: string | undefined): Promise<void> {
  if (!modulePath || !out) throw new Error('usage: write-sdl.js <module exporting subgraphTypes> <output .graphql>');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const types = (require(resolve(modulePath)) as { subgraphTypes?: SubgraphTypes }).subgraphTypes;
  if (!types) throw new Error(`${modulePath} exports no subgraphTypes`);
  const { sdl } = await buildSubgraph(types);
  writeFileSync(out, `${sdl}\n`);
  console.log(`subgraph SDL → ${out}`);
}

main(process.argv[2], process.argv[3]).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
