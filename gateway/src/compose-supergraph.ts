// Build step: composes the five subgraphs' SDL into the supergraph the gateway serves, so that
// the gateway's start-up does not depend on every subgraph being up. Each service's build writes
// its SDL to `services/<service>/subgraph.graphql` (kit's write-sdl); the gateway reads those
// files and depends on no service's code (turbo.json builds the services first).
import { composeServices } from '@apollo/composition';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'graphql';
import type { SubgraphName } from './config';
import { SUBGRAPH_FILES, SUPERGRAPH_PATH } from './schema-files';

const NAMES = Object.keys(SUBGRAPH_FILES) as SubgraphName[];

/** The supergraph's SDL, composed from each subgraph's (in one order, whatever the object's); throws with every composition error. */
export function composeSupergraph(sdls: Record<SubgraphName, string>): string {
  const services = NAMES.map((name) => ({ name, url: `http://${name}.invalid/graphql`, typeDefs: parse(sdls[name]) }));
  const result = composeServices(services);
  if (result.errors?.length) throw new Error(result.errors.map((e) => `composition error: ${e.message}`).join('\n'));
  return result.supergraphSdl!;
}

function readSubgraphs(): Record<SubgraphName, string> {
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      throw new Error(`${file} is missing: build the services first (npm run build builds them before the gateway)`);
    }
  };
  return Object.fromEntries(NAMES.map((name) => [name, read(SUBGRAPH_FILES[name])])) as Record<SubgraphName, string>;
}

function main() {
  const sdls = readSubgraphs();
  writeFileSync(SUPERGRAPH_PATH, composeSupergraph(sdls));
  console.log(`supergraph composed from ${NAMES.length} subgraph files → ${SUPERGRAPH_PATH}`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
