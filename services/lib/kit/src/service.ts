import type { Connection } from 'mongoose';
import type { GraphQLSchema } from 'graphql';
import { EnvReader, processEnv } from './config';
import { DomainError } from './errors';
import { createLogger, type Logger } from './logger';
import { connectDatabase } from './mongo';
import { closeAllClients } from './grpc/client';
import { loadService, type ServiceName, type ServiceRegistry } from './grpc/protos';
import { carriedMethod, startGrpcServer, type AsyncHandlers } from './grpc/server';
import { healthPort } from './grpc/tls';
import { grpcHost, meshTrust, setMeshCaller } from './grpc/credentials';
import { startSubgraphServer } from './graphql/subgraph';
import { flushTraces } from './observability/tracing';
import { runProcess } from './process-runner';

export interface ServiceContext<C> {
  db: Connection;
  log: Logger;
  config: C;
}

export interface ServiceParts<N extends ServiceName> {
  handlers: AsyncHandlers<ServiceRegistry[N]['handlers']>;
  schema: GraphQLSchema;
  close?(): Promise<void>;
}

export interface ServiceSpec<N extends ServiceName, C> {
  /** Log name, e.g. `tickets`. */
  name: string;
  grpc: N;
  database: string;
  ports: { grpc: number; graphql: number };
  /** Reads the service's own settings; problems are reported with the common ones. */
  config(env: EnvReader): C;
  create(ctx: ServiceContext<C>): Promise<ServiceParts<N>>;
}

export interface BaseConfig {
  mongodbUri: string;
  /** One connection attempt's wait for a server (and each operation's, later). */
  mongodbServerSelectionTimeoutMs: number;
  grpcPort: number;
  graphqlPort: number;
  /** What the gateway presents to the subgraphs (SUBGRAPH_TOKEN, required). */
  subgraphToken: string;
  shutdownGraceMs: number;
}

export interface RunningService<C> {
  grpcPort: number;
  graphqlPort: number;
  config: C & BaseConfig;
  db: Connection;
  stop(): Promise<void>;
}

const unavailable = () => new DomainError('unavailable', 'ERR_UNAVAILABLE', 'Service is starting or stopping');

export interface StartOptions {
  /** Aborting gives up waiting for the database (SIGTERM during start-up): startService rejects. */
  signal?: AbortSignal;
}

/**
 * Wiring shared by every service: config → gRPC server (health NOT_SERVING) → database → domain
 * → subgraph → SERVING. Nothing is served before the database is connected, and a database that
 * is slow to come up is waited for (retried with capped backoff, health NOT_SERVING meanwhile),
 * never a reason to exit. The health service `liveness` answers SERVING from the first moment:
 * it says the process is alive, whatever the database does.
 */
export async function startService<N extends ServiceName, C>(
  spec: ServiceSpec<N, C>,
  env: NodeJS.ProcessEnv = processEnv,
  opts: StartOptions = {},
): Promise<RunningService<C>> {
  const reader = new EnvReader(env);
  const config: C & BaseConfig = {
    mongodbUri: reader.str('MONGODB_URI'),
    mongodbServerSelectionTimeoutMs: reader.int('MONGODB_SERVER_SELECTION_TIMEOUT_MS', 10_000),
    grpcPort: reader.int('GRPC_PORT', spec.ports.grpc),
    graphqlPort: reader.int('GRAPHQL_PORT', spec.ports.graphql),
    // A secret of its own, never the super-admin token: a service never needs that one.
    subgraphToken: reader.secret('SUBGRAPH_TOKEN'),
    shutdownGraceMs: reader.int('SHUTDOWN_GRACE_MS', 10_000),
    ...spec.config(reader),
  };
  reader.independent({ SUBGRAPH_TOKEN: config.subgraphToken, MESH_SECRET: env.MESH_SECRET ?? '' });
  reader.done();
  const log = createLogger(spec.name, env.LOG_LEVEL);

  let parts: ServiceParts<N> | undefined;
  const forward: Record<string, (req: unknown, call: unknown) => Promise<unknown>> = {};
  const { definition } = loadService(spec.grpc);
  for (const method of Object.keys(definition)) {
    // A call stream is served by the server from its unary method's (forwarded) handler.
    if (carriedMethod(definition, method)) continue;
    forward[method] = async (req, call) => {
      const fn = (parts?.handlers as Record<string, (r: unknown, c: unknown) => Promise<unknown>> | undefined)?.[method];
      if (!fn) throw unavailable();
      return fn(req, call);
    };
  }
  // Loopback unless GRPC_HOST says otherwise; calls must carry the mesh credential, and this
  // process's own calls carry the service's name (grpc/credentials.ts).
  const meshEnv = env.MESH_SECRET || env.GRPC_TLS_CA ? env : processEnv;
  setMeshCaller(spec.name);
  const grpcServer = await startGrpcServer(
    spec.grpc,
    forward as never,
    config.grpcPort,
    log,
    grpcHost(env),
    meshTrust(meshEnv),
    healthPort(env),
  );
  let db: Connection | undefined;
  try {
    db = await connectDatabase(config.mongodbUri, spec.database, {
      log,
      signal: opts.signal,
      serverSelectionTimeoutMs: config.mongodbServerSelectionTimeoutMs,
    });
    parts = await spec.create({ db, log, config });
  } catch (err) {
    await grpcServer.shutdown(0);
    await db?.close();
    throw err;
  }
  const subgraph = await startSubgraphServer(parts.schema, config.graphqlPort, {
    token: config.subgraphToken,
    log,
    host: grpcHost(env),
  });
  db.on('disconnected', () => grpcServer.setServing(false));
  db.on('reconnected', () => grpcServer.setServing(true));
  grpcServer.setServing(true);
  log.info({ grpcPort: grpcServer.port, graphqlPort: subgraph.port, database: spec.database }, 'serving');

  const connection = db;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      grpcServer.setServing(false);
      await subgraph.close();
      await grpcServer.shutdown(config.shutdownGraceMs);
      await parts?.close?.();
      closeAllClients();
      await connection.close();
      await flushTraces();
      log.info('stopped');
    })());
  return { grpcPort: grpcServer.port, graphqlPort: subgraph.port, config, db: connection, stop };
}

/**
 * Process entry point: start, then stop gracefully on SIGTERM/SIGINT. A signal that arrives while
 * the database is still awaited stops the attempts and exits 0; only a configuration error or a
 * failing domain start-up exits 1.
 */
export function runService<N extends ServiceName, C>(spec: ServiceSpec<N, C>): void {
  runProcess({ name: spec.name, start: (signal) => startService(spec, processEnv, { signal }) });
}
