import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import { buildSchema } from 'graphql';
import { readFileSync } from 'node:fs';
import { CALLER_HEADER, callerHeaderValue } from '@convo/kit';
import { tenantScopePlugin } from '@convo/kit/graphql/tenant-scope';
import type { Authenticator } from './auth';
import type { GatewayConfig, SubgraphName } from './config';
import type { Clients } from './clients';
import type { RateLimits } from './rate-limits';
import { graphqlCallerHook, SessionStatus, type GraphqlCaller } from './dashboard/access';
import { formatGatewayError, operationResolutionPlugin } from './dashboard/graphql-errors';
import { complexityPlugin, depthRule } from './dashboard/limits';
import { loginRoutes } from './dashboard/login.routes';
import { explorerRedirect } from './browser-pages';
import { SessionSigner } from './dashboard/session';
import { SUPERGRAPH_PATH } from './schema-files';
import { subgraphTarget } from './subgraph-fetch';

interface Context {
  caller: GraphqlCaller;
}

const SUBGRAPH_TIMEOUT_MS = 10_000;

/**
 * Subgraphs are internal and answer the gateway, which sends the subgraph token once it has
 * checked the caller (and, for a tenant session, that the operation stays inside its tenant).
 */
class ForwardingDataSource extends RemoteGraphQLDataSource<Context> {
  constructor(
    options: ConstructorParameters<typeof RemoteGraphQLDataSource<Context>>[0],
    private readonly subgraphToken: string,
  ) {
    super(options);
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<Context>): void {
    const caller = (context as Context).caller;
    if (!caller) return;
    request.http?.headers.set('authorization', `Bearer ${this.subgraphToken}`);
    // The services apply their caller-dependent rules (fields only the operator may set) to this.
    request.http?.headers.set(CALLER_HEADER, callerHeaderValue(caller));
  }
}

export async function mountGraphql(
  app: FastifyInstance,
  config: GatewayConfig,
  auth: Authenticator,
  clients: Clients,
  rateLimits?: RateLimits,
): Promise<() => Promise<void>> {
  const limits = config.dashboard;
  const sessions = new SessionSigner(limits.sessionSecret, limits.sessionTtlSeconds);
  const supergraphSdl = readFileSync(SUPERGRAPH_PATH, 'utf8');
  const gateway = new ApolloGateway({
    supergraphSdl,
    buildService: ({ name }) => {
      const { url, fetcher } = subgraphTarget(config.subgraphs[name as SubgraphName], SUBGRAPH_TIMEOUT_MS);
      return new ForwardingDataSource({ url, fetcher: fetcher as never }, config.subgraphToken);
    },
  });
  // The schema the gateway serves omits the `@tag`s that declare each root field's tenant scope; the supergraph keeps them.
  const supergraph = buildSchema(supergraphSdl);
  const apollo = new ApolloServer<Context>({
    gateway,
    includeStacktraceInErrorResponses: false,
    formatError: formatGatewayError,
    introspection: limits.introspection,
    validationRules: [depthRule(limits)],
    plugins: [
      fastifyApolloDrainPlugin(app),
      operationResolutionPlugin<Context>(),
      tenantScopePlugin<Context>(supergraph),
      complexityPlugin<Context>(limits),
    ],
  });
  await apollo.start();
  await app.register(loginRoutes, { clients, sessions, rateLimits });
  await app.register(async (scope) => {
    scope.addHook('onRequest', explorerRedirect);
    scope.addHook('onRequest', graphqlCallerHook(auth, sessions, new SessionStatus(clients, limits.sessionCheckMs)));
    await scope.register(fastifyApollo(apollo), {
      path: '/graphql',
      context: async (req) => ({ caller: req.graphqlCaller! }),
    });
  });
  return () => apollo.stop();
}
