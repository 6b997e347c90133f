// What every process loads. What only a service process needs is imported by path, so the
// gateway and the workers do not load mongoose, Apollo's subgraph and type-graphql at start-up
// (a second of CPU per process, which eight processes starting on two cores feel):
//   @convo/kit/dist/mongo            connectDatabase, isDuplicateKey, nextSequence
//   @convo/kit/dist/service          runService, startService, ServiceSpec
//   @convo/kit/dist/graphql/subgraph buildSubgraph, SubgraphTypes
//   @convo/kit/dist/query-log        recordServerIndexes (the e2e suite's index check)
export * from './cache';
export * from './config';
export * from './errors';
export * from './logger';
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
export * from './contact-number';
export * from './observability';
