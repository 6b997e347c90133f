// Build step: composes the five subgraphs' SDL into the supergraph the gateway serves, so that
// the gateway's start-up does not depend on every subgraph being up.
import { composeServices } from '@apollo/composition';
import * as engines from '@convo/channel-engines';
import { buildSubgraph, type SubgraphTypes } from '@convo/kit';
import * as messaging from '@convo/messaging';
import * as social from '@convo/social-config';
import * as tenants from '@convo/tenants';
import * as tickets from '@convo/tickets';
import { writeFileSync } from 'node:fs';
import { parse } from 'graphql';
import type { SubgraphName } from './config';
import { SUPERGRAPH_PATH } from './graphql';

async function main() {
  const subgraphs: Record<SubgraphName, SubgraphTypes> = {
    tickets: tickets.subgraphTypes,
    messaging: messaging.subgraphTypes,
    engines: engines.subgraphTypes,
    social: social.subgraphTypes,
    tenants: tenants.subgraphTypes,
  };
  const services = [];
  for (const [name, types] of Object.entries(subgraphs)) {
    const { sdl } = await buildSubgraph(types);
    services.push({ name, url: `http://${name}.invalid/graphql`, typeDefs: parse(sdl) });
  }
  const result = composeServices(services);
  if (result.errors?.length) {
    for (const e of result.errors) console.error(`composition error: ${e.message}`);
    process.exit(1);
  }
  writeFileSync(SUPERGRAPH_PATH, result.supergraphSdl!);
  console.log(`supergraph composed from ${services.length} subgraphs → ${SUPERGRAPH_PATH}`);
}

void main();
