// What the dev mesh takes and what it hands back (mesh.ts starts it).
import type { Database } from '@convo/dev-db';
import type { ChildProcess } from 'node:child_process';

export interface MeshOptions {
  /** Pick free ports (tests) instead of the documented defaults. */
  freePorts?: boolean;
  gatewayPort?: number;
  superAdminToken?: string;
  /** Extra environment for every process (e.g. ENGINE_URL). */
  env?: Record<string, string>;
  onLine?: (part: string, line: string) => void;
  /** Called when a process exits while the mesh is meant to be up. */
  onCrash?: (part: string, code: number | null) => void;
  /**
   * Keeps the database (`<dataDir>/db`) and the generated super-admin token
   * (`<dataDir>/super-admin-token`) across stops and starts; without it both are thrown away.
   */
  dataDir?: string;
  /** Restarts a process that exits unexpectedly, with backoff (after onCrash reports it). */
  restartOnCrash?: boolean;
  /**
   * Starts the gateway and the workers with the services rather than after them (npm start). The
   * nine processes load their code at once and the gateway, the longest to load, no longer waits
   * for the services' turn: the cores stay busy to the end (`npm run bench:start`, docs/benchmarks.md). Each
   * process takes longer to come up, so each gets the services' 60 s.
   */
  startTogether?: boolean;
  /**
   * How long each process may take to be ready (default: the services 60 s, the gateway and the
   * workers 30 s, or 60 s with startTogether; MESH_START_TIMEOUT_MS sets it from outside). Benches
   * on a busy shared machine give more.
   */
  startDeadlineMs?: number;
  /**
   * Replicas per deployment (a service, `gateway`, `messaging-relay`, `messaging-dispatcher`; `*`
   * for every one), over MESH_REPLICAS_<NAME> (`MESH_REPLICAS_MESSAGING=2`) and MESH_REPLICAS.
   */
  replicas?: Record<string, number>;
}

export interface Mesh {
  /** The first gateway replica's URL. */
  gatewayUrl: string;
  /** Every gateway replica's URL (one unless replicas were asked for). */
  gatewayUrls: string[];
  /** Each deployment's replicas, by process name (`messaging` → [`messaging`, `messaging-2`]). */
  replicas: Record<string, string[]>;
  graphqlUrl: string;
  superAdminToken: string;
  /** Each service replica's gRPC address (`127.0.0.1:<port>`), by process name. */
  grpcAddresses: Record<string, string>;
  database: Database;
  processes: Map<string, ChildProcess>;
  /**
   * Where each process listens, by process name: `http` is its HTTP port's base URL (the gateway's
   * REST port, a service's GraphQL port, a worker's health port; each serves /metrics there),
   * `grpc` a service's gRPC address.
   */
  endpoints: Map<string, { http: string; grpc?: string }>;
  /** The environment every process of the mesh was given (addresses, tokens, MESH_SECRET): for another replica. */
  env: Record<string, string>;
  /** Starts a webhook relay (another replica, or one killed before) and waits until it is ready. */
  startRelay(name?: string): Promise<ChildProcess>;
  /** Starts a message dispatcher (another replica, or one killed before) and waits until it is ready. */
  startDispatcher(name?: string, env?: Record<string, string>): Promise<ChildProcess>;
  /** SIGKILLs a process of the mesh (a service, the gateway, a worker) and waits until it is gone. */
  kill(name: string): Promise<void>;
  /** Starts a killed process again, as it was started (plus `env`, for that start only), and waits until it is ready. */
  restart(name: string, env?: Record<string, string>): Promise<void>;
  /** Stops a process as Kubernetes does in a rolling update (SIGTERM, SIGKILL after 15 s) and waits until it is gone. */
  terminate(name: string): Promise<void>;
  stop(): Promise<void>;
}
