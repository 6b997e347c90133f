import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Authenticator } from './auth';
import type { GatewayConfig, SubgraphName } from './config';

/** Composed at build time by compose-supergraph.ts; start-up needs no subgraph to be up. */
export const SUPERGRAPH_PATH = join(__dirname, '..', 'supergraph.graphql');

interface Context {
  authorization?: string;
}

const SUBGRAPH_TIMEOUT_MS = 10_000;

/** Forwards the caller's super-admin token: subgraphs check it again. */
class ForwardingDataSource extends RemoteGraphQLDataSource<Context> {
  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<Context>): void {
    const auth = (context as Context).authorization;
    if (auth) request.http?.headers.set('authorization', auth);
  }
}

const fetchWithTimeout = ((url: string, init: RequestInit) =>
  fetch(url, { ...init, signal: AbortSignal.timeout(SUBGRAPH_TIMEOUT_MS) })) as never;

export async function mountGraphql(app: FastifyInstance, config: GatewayConfig, auth: Authenticator): Promise<() => Promise<void>> {
  const gateway = new ApolloGateway({
    supergraphSdl: readFileSync(SUPERGRAPH_PATH, 'utf8'),
    buildService: ({ name }) =>
      new ForwardingDataSource({ url: config.subgraphs[name as SubgraphName], fetcher: fetchWithTimeout }),
  });
  const apollo = new ApolloServer<Context>({
    gateway,
    includeStacktraceInErrorResponses: false,
    plugins: [fastifyApolloDrainPlugin(app)],
  });
  await apollo.start();
  await app.register(async (scope) => {
    scope.addHook('onRequest', auth.superAdmin);
    await scope.register(fastifyApollo(apollo), {
      path: '/graphql',
      context: async (req) => ({ authorization: req.headers.authorization }),
    });
  });
  return () => apollo.stop();
}
