import { closeAllClients, createClient, type ServiceClient, type ServiceName } from '@convo/kit';
import { startService, type RunningService, type ServiceSpec } from '@convo/kit/service';
import { startDatabase, type Database } from '@convo/dev-db';

/**
 * The token the tests call the test services' subgraphs with: their SUBGRAPH_TOKEN (the tests
 * play the gateway). Named for the platform token the gateway checks before it calls a subgraph.
 */
export const SUPER_ADMIN_TOKEN = 'x'.repeat(24);

/** A real service on ports chosen by the system, with a gRPC client of it. */
export interface TestService<N extends ServiceName, C = unknown> extends RunningService<C> {
  client: ServiceClient<N>;
  /** `127.0.0.1:<grpc port>`: a peer's `*_GRPC_ADDR`, or the address of another client. */
  address: string;
}

export interface StartOptions {
  /** Adds to (or overrides) the settings of the mesh, for this service only. */
  env?: Record<string, string>;
  /** The default deadline of the client's calls (the kit's default otherwise). */
  deadlineMs?: number;
}

/** Services of one test file on one embedded database (each service keeps its own database name). */
export interface TestMesh {
  database: Database;
  /** Starts a service; it is stopped with the mesh, or earlier by its own stop(). */
  start<N extends ServiceName, C>(spec: ServiceSpec<N, C>, opts?: StartOptions): Promise<TestService<N, C>>;
  /** Closes every client, stops the services (the last started first), then the database. */
  stop(): Promise<void>;
}

/**
 * Starts the embedded database for a test file. `name` labels the database's run; `env` adds to
 * the settings every service of the mesh gets (ports 0, a fixed super-admin token, silent logs).
 */
export async function startTestMesh(name: string, env: Record<string, string> = {}): Promise<TestMesh> {
  const database = await startDatabase({ name });
  const base = {
    MONGODB_URI: database.uri,
    GRPC_PORT: '0',
    GRAPHQL_PORT: '0',
    SUBGRAPH_TOKEN: SUPER_ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    ...env,
  };
  const running: Array<RunningService<unknown>> = [];
  return {
    database,
    async start(spec, opts = {}) {
      const svc = await startService(spec, { ...base, ...opts.env });
      running.push(svc);
      const address = `127.0.0.1:${svc.grpcPort}`;
      return { ...svc, address, client: createClient(spec.grpc, address, { deadlineMs: opts.deadlineMs }) };
    },
    async stop() {
      closeAllClients();
      // A service's stop() may run more than once: the ones a test stopped itself are no-ops here.
      for (const svc of running.splice(0).reverse()) await svc.stop();
      await database.stop();
    },
  };
}

export interface ServiceForTestOptions extends StartOptions {
  /** Labels the database's run. */
  name: string;
}

/** One service over a database of its own; stop() stops both. */
export async function startServiceForTest<N extends ServiceName, C>(
  spec: ServiceSpec<N, C>,
  { name, ...opts }: ServiceForTestOptions,
): Promise<TestService<N, C>> {
  const mesh = await startTestMesh(name);
  const svc = await mesh.start(spec, opts).catch(async (err: unknown) => {
    await mesh.stop();
    throw err;
  });
  return { ...svc, stop: mesh.stop };
}
