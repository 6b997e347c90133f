import 'reflect-metadata';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { buildSubgraphSchema } from '@apollo/subgraph';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import Fastify from 'fastify';
import { GraphQLError, parse, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { DomainError, unauthenticated } from '../errors';
import { domainToHttp, grpcToHttp, isServiceError } from '../grpc/status';
import { buildSchema, createResolversMap, Directive, type BuildSchemaOptions, type ContainerType } from 'type-graphql';
import type { Logger } from '../logger';
import { instrumentFastify, METRICS_PATH } from '../observability/http-metrics';
import { traceIdServerFactory } from '../observability/http-trace';
import { bearerMatches } from '../secrets';
import { CALLER_HEADER, parseCallerHeader, type SubgraphContext } from './caller';
import { checkTenantScopes, tenantScopePlugin, tenantScopeTag } from './tenant-scope';

const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable", "@external", "@requires", "@tag"])';

/**
 * `__resolveReference`: the representation holds the entity's key fields, which differ per entity;
 * the context is the request's (see loaders.ts: references of one request are batched through it).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ReferenceResolver = (reference: any, context: unknown) => unknown;

export interface SubgraphOptions {
  resolvers: BuildSchemaOptions['resolvers'];
  orphanedTypes?: BuildSchemaOptions['orphanedTypes'];
  /** Instances of the resolver classes, built with their dependencies by the service. */
  container?: ContainerType;
  /** `__resolveReference` per entity type name. */
  references?: Record<string, ReferenceResolver>;
}

/** The type-graphql classes of a subgraph: enough to print its SDL without any database. */
export type SubgraphTypes = Pick<SubgraphOptions, 'resolvers' | 'orphanedTypes'>;

export interface Subgraph {
  schema: GraphQLSchema;
  sdl: string;
}

/** type-graphql schema → federation 2 subgraph (the shape of type-graphql's federation example). */
export async function buildSubgraph(options: SubgraphOptions): Promise<Subgraph> {
  const base = await buildSchema({
    resolvers: options.resolvers,
    orphanedTypes: options.orphanedTypes,
    container: options.container,
    skipCheck: true,
    validate: false,
  });
  const sdl = `${FEDERATION_LINK}\n\n${printSchemaWithDirectives(base)}`;
  const resolvers = createResolversMap(base) as Record<string, Record<string, unknown>>;
  for (const [typeName, resolve] of Object.entries(options.references ?? {})) {
    resolvers[typeName] = { ...(resolvers[typeName] ?? {}), __resolveReference: resolve };
  }
  const schema = buildSubgraphSchema({ typeDefs: parse(sdl), resolvers: resolvers as never });
  checkTenantScopes(schema);
  return { schema, sdl };
}

/**
 * Declares a root field a tenant administrator may ask, for the tenant its argument `arg` names
 * (`tenantId`, or `id` for `tenant(id)`): the gateway and the subgraph refuse any other tenant's
 * session. A root field without `@TenantScoped` or `@NoTenantData` is the platform's only.
 */
export const TenantScoped = (arg: string) => Directive(`@tag(name: "${tenantScopeTag.arg(arg)}")`);

/** Declares a root field a tenant administrator may ask that holds no tenant's data (a catalogue every tenant reads alike). */
export const NoTenantData = () => Directive(`@tag(name: "${tenantScopeTag.none}")`);

/** Apollo's codes for a request the schema refuses: the message is about the request itself. */
const REQUEST_ERROR_CODES: readonly string[] = [
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
];

/**
 * A domain error (raised here or by a gRPC service behind the resolver) keeps its `ERR_` code in
 * `extensions.code`, and its field issues in `extensions.details`, through the gateway to the
 * client; the message is the one REST would answer. A request the schema refuses answers
 * `ERR_VALIDATION` with graphql-js's message (it names the request's own fields). Anything else
 * (a bug, a driver's or a library's error) says `Internal error` and nothing more: its message
 * may name collections, hosts or internal state.
 */
export function formatSubgraphError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const unwrapped = unwrapResolverError(error);
  // A domain error thrown by a resolver, or carried by a GraphQLError a plugin raised for one.
  const original =
    unwrapped instanceof GraphQLError && unwrapped.originalError instanceof DomainError ? unwrapped.originalError : unwrapped;
  const http = original instanceof DomainError ? domainToHttp(original) : isServiceError(original) ? grpcToHttp(original) : undefined;
  if (http) {
    const { error: code, message, details } = http.body;
    return { ...formatted, message, extensions: { ...formatted.extensions, code, ...(details ? { details } : {}) } };
  }
  const { path, locations } = formatted;
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && REQUEST_ERROR_CODES.includes(code)) {
    return { message: formatted.message, ...(locations && { locations }), ...(path && { path }), extensions: { code: 'ERR_VALIDATION' } };
  }
  return { message: 'Internal error', ...(path && { path }), extensions: { code: 'ERR_INTERNAL' } };
}

export interface SubgraphServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves a subgraph at /graphql. Subgraphs are internal: only the gateway calls them, once it has
 * checked its caller, with the subgraph token (SUBGRAPH_TOKEN), which is checked here.
 */
export async function startSubgraphServer(
  schema: GraphQLSchema,
  port: number,
  opts: { token: string; log: Logger; host?: string },
): Promise<SubgraphServer> {
  // Export off, the kit carries the trace id itself (observability/http-trace.ts).
  const app = Fastify({ logger: false, serverFactory: traceIdServerFactory() });
  const apollo = new ApolloServer<SubgraphContext>({
    schema,
    includeStacktraceInErrorResponses: false,
    formatError: formatSubgraphError,
    plugins: [fastifyApolloDrainPlugin(app), ApolloServerPluginInlineTraceDisabled(), tenantScopePlugin<SubgraphContext>(schema)],
  });
  await apollo.start();
  // /metrics answers without the token: Prometheus scrapes it (the network policy limits who may).
  instrumentFastify(app);
  app.addHook('onRequest', async (req, reply) => {
    if (req.url === METRICS_PATH) return;
    if (!bearerMatches(req.headers.authorization, opts.token)) {
      const { status, body } = domainToHttp(unauthenticated('Subgraph token required'));
      await reply.code(status).send(body);
    }
  });
  // Only the gateway holds the token: the caller it names is the one it checked.
  await app.register(fastifyApollo(apollo), {
    path: '/graphql',
    context: async (req): Promise<SubgraphContext> => ({ caller: parseCallerHeader(req.headers[CALLER_HEADER]) }),
  });
  await app.listen({ port, host: opts.host ?? '0.0.0.0' });
  const address = app.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: async () => {
      await app.close();
    },
  };
}
