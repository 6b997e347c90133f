// Where the GraphQL contract lives on disk: each service's build writes its subgraph's SDL (kit's
// write-sdl), the gateway's build composes them into the supergraph (compose-supergraph.ts), and
// the gateway serves that (graphql.ts). All six files are tracked, so that a schema change shows
// in review (test/repo/graphql-contract.test.ts fails when one is not what the build writes).
// Nothing else here: the build step, the gateway and that test load this module without the rest.
import { join } from 'node:path';
import type { SubgraphName } from './config';

const SERVICES_DIR = join(__dirname, '..', '..', 'services');

/** Each subgraph's SDL file, by the name the gateway routes to it. */
export const SUBGRAPH_FILES: Record<SubgraphName, string> = {
  tickets: join(SERVICES_DIR, 'tickets', 'subgraph.graphql'),
  messaging: join(SERVICES_DIR, 'messaging', 'subgraph.graphql'),
  engines: join(SERVICES_DIR, 'channel-engines', 'subgraph.graphql'),
  social: join(SERVICES_DIR, 'social-config', 'subgraph.graphql'),
  tenants: join(SERVICES_DIR, 'tenants', 'subgraph.graphql'),
};

/** The composed supergraph, which the gateway serves: start-up needs no subgraph to be up. */
export const SUPERGRAPH_PATH = join(__dirname, '..', 'supergraph.graphql');
