// Build step: composes the five subgraphs' SDL into the supergraph the gateway serves, so that
// the gateway's start-up does not depend on every subgraph being up. Each service's build writes
// its SDL to `services/<service>/subgraph.graphql` (kit's write-sdl); the gateway reads those
// files and depends on no service's code (turbo.json builds the services first).
import { composeServices } from '@apollo/composition';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'graphql';
import type { SubgraphName } from './config';
import { SUPERGRAPH_PATH } from './graphql';

const SERVICES_DIR = join(__dirname, '..', '..', 'services');

/** Each subgraph's SDL file, by the name the gateway routes to it. */
export const SUBGRAPH_FILES: Record<SubgraphName, string> = {
  tickets: join(SERVICES_DIR, 'tickets', 'subgraph.graphql'),
  messaging: join(SERVICES_DIR, 'messaging', 'subgraph.graphql'),
  engines: join(SERVICES_DIR, 'channel-engines', 'subgraph.graphql'),
  social: join(SERVICES_DIR, 'social-config', 'subgraph.graphql'),
  tenants: join(SERVICES_DIR, 'tenants', 'subgraph.graphql'),
};

function main() {
  const services = Object.entries(SUBGRAPH_FILES).map(([name, file]) => {
    let sdl: string;
    try {
      sdl = readFileSync(file, 'utf8');
    } catch {
      throw new Error(`${file} is missing: build the services first (npm run build builds them before the gateway)`);
    }
    return { name, url: `http://${name}.invalid/graphql`, typeDefs: parse(sdl) };
  });
  const result = composeServices(services);
  if (result.errors?.length) {
    for (const e of result.errors) console.error(`composition error: ${e.message}`);
    process.exit(1);
  }
  writeFileSync(SUPERGRAPH_PATH, result.supergraphSdl!);
  console.log(`supergraph composed from ${services.length} subgraph files → ${SUPERGRAPH_PATH}`);
}

if (require.main === module) main();
