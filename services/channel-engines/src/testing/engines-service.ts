import type * as grpc from '@grpc/grpc-js';
import { closeAllClients, createClient, startService, type ServiceClient } from '@convo/kit';
import { startDatabase } from '@convo/dev-db';
import type { Connection } from 'mongoose';
import { channelEnginesService } from '../server';

/** The real channel-engines service on port 0 over a database of its own, and a gRPC client of it. */
export interface RunningEngines {
  client: ServiceClient<'channelEngines'>;
  /** The service's own connection, to read what it recorded (deliveries, the web chat queue). */
  db: Connection;
  stop(): Promise<void>;
}

/**
 * Starts the service for a test file; `env` adds to (or overrides) the settings every such test
 * uses, e.g. META_GRAPH_URL pointing at a fake Graph API. `name` labels the database's run.
 */
export async function startEnginesService(name: string, env: Record<string, string> = {}): Promise<RunningEngines> {
  const database = await startDatabase({ name });
  const svc = await startService(channelEnginesService, {
    MONGODB_URI: database.uri,
    GRPC_PORT: '0',
    GRAPHQL_PORT: '0',
    SUPER_ADMIN_TOKEN: 'x'.repeat(24),
    LOG_LEVEL: 'silent',
    PROVIDER_TIMEOUT_MS: '1000',
    ...env,
  }).catch(async (err: unknown) => {
    await database.stop();
    throw err;
  });
  return {
    client: createClient('channelEngines', `127.0.0.1:${svc.grpcPort}`),
    db: svc.db,
    stop: async () => {
      closeAllClients();
      await svc.stop();
      await database.stop();
    },
  };
}

/** The gRPC error of a call that must fail. */
export async function rpcError(call: Promise<unknown>): Promise<grpc.ServiceError> {
  return call.then(
    () => {
      throw new Error('expected the call to fail, it succeeded');
    },
    (e: grpc.ServiceError) => e,
  );
}
