// What every process loads. What only a service process needs is imported by its sub-path (the
// `exports` of package.json), so the gateway and the workers do not load mongoose, Apollo's
// subgraph and type-graphql at start-up (a second of CPU per process, which nine processes
// starting on two cores feel):
//   @convo/kit/mongo                   connectDatabase, isDuplicateKey, nextSequence
//   @convo/kit/claims                  ClaimStore, insertOnce
//   @convo/kit/database-hooks          onDatabaseConnected (tooling preloaded into a process)
//   @convo/kit/service                 runService, startService, ServiceSpec
//   @convo/kit/worker-process          runWorkerProcess (the relay, dispatcher and reconciler)
//   @convo/kit/group-commit            groupCommit, perItemErrors
//   @convo/kit/grpc/health             checkHealth alone (the mesh supervisor, image checks)
//   @convo/kit/graphql/subgraph        buildSubgraph, SubgraphTypes, TenantScoped, NoTenantData
//   @convo/kit/graphql/tenant-scope    tenantScopePlugin (the gateway; the subgraphs through subgraph)
//   @convo/kit/graphql/{scalars,enums,loaders}  what the services' GraphQL types use
//   @convo/kit/graphql/write-sdl       writeSdl, subgraphSdl (every service's build step)
//   @convo/kit/meta-graph              MetaGraphClient, MetaGraphError (channel-engines' and social-config's Graph calls)
//   @convo/kit/observability/register  first import of every process's entry file
export * from './cache';
export * from './config';
export * from './errors';
export * from './logger';
export * from './process-runner';
export * from './media-links';
export * from './media-types';
export * from './secrets';
/** @grpc/grpc-js itself, so every package uses the one copy the kit does. */
export * as grpc from '@grpc/grpc-js';
export * from './grpc/protos';
export * from './grpc/status';
export * from './grpc/server';
export * from './grpc/client';
export * from './grpc/call-stream';
export * from './grpc/health';
export * from './grpc/credentials';
export * from './grpc/tls';
export * from './graphql/cursor';
export * from './graphql/caller';
export * as proto from './proto-types';
export * from './net';
export * from './channel-target';
export * from './channel-types';
export * from './payment-gateways';
export * from './json';
export * from './contact-number';
export * from './observability';
