import { ConfigError, EnvReader, parseAllowList, type AllowList } from '@convo/kit';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

export interface RelayConfig {
  mongodbUri: string;
  /** One connection attempt's wait for a server (attempts are retried with backoff). */
  mongodbServerSelectionTimeoutMs: number;
  tenantsAddr: string;
  /** Names this process in the attempt log; unique per process. */
  relayId: string;
  healthPort: number;
  /** The wait between rounds when nothing is due. */
  pollMs: number;
  /**
   * The wait after a round that claimed events, doubling with each round that finds nothing, up to
   * `pollMs`: while events keep coming, one waits about this long for its relay.
   */
  busyPollMs: number;
  batchSize: number;
  concurrency: number;
  /** How long a claimed event is this relay's: longer than anything one attempt can take. */
  leaseMs: number;
  timeoutMs: number;
  connectTimeoutMs: number;
  /** A failing event is retried until it is at least this old, then it is dead. */
  retryWindowMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Finished events (and their attempts) are kept this long for inspection, then pruned. */
  retentionMs: number;
  targetCacheMs: number;
  rpcDeadlineMs: number;
  shutdownGraceMs: number;
  allowPrivate: AllowList;
  logLevel: string;
}

const HOUR = 60 * 60 * 1000;

export function readRelayConfig(env: NodeJS.ProcessEnv = process.env): RelayConfig {
  const r = new EnvReader(env);
  const timeoutMs = r.int('WEBHOOK_TIMEOUT_MS', 10_000);
  const rpcDeadlineMs = r.int('RPC_DEADLINE_MS', 5_000);
  const config: RelayConfig = {
    mongodbUri: r.str('MONGODB_URI'),
    mongodbServerSelectionTimeoutMs: r.int('MONGODB_SERVER_SELECTION_TIMEOUT_MS', 10_000),
    tenantsAddr: r.str('TENANTS_GRPC_ADDR', '127.0.0.1:50055'),
    relayId: r.str('RELAY_ID', '') || `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    healthPort: r.int('RELAY_HEALTH_PORT', 4012),
    pollMs: r.int('RELAY_POLL_MS', 500),
    // 20 rather than 50: in bench:inbound at a steady 40 events/s, the customer got events at p50
    // 52 and p99 128 ms (median of three) against 85 and 393 ms, with the same commands per event
    // at the peak (docs/benchmarks.md).
    busyPollMs: r.int('RELAY_BUSY_POLL_MS', 20),
    batchSize: r.int('RELAY_BATCH', 50),
    concurrency: r.int('RELAY_CONCURRENCY', 8),
    // Target resolution (two gRPC calls at most) plus the request, with room to spare.
    leaseMs: r.int('RELAY_LEASE_MS', 2 * (timeoutMs + 2 * rpcDeadlineMs) + 10_000),
    timeoutMs,
    connectTimeoutMs: Math.min(r.int('WEBHOOK_CONNECT_TIMEOUT_MS', 5_000), timeoutMs),
    retryWindowMs: r.int('WEBHOOK_RETRY_WINDOW_MS', 24 * HOUR),
    backoffBaseMs: r.int('WEBHOOK_BACKOFF_BASE_MS', 5_000),
    backoffMaxMs: r.int('WEBHOOK_BACKOFF_MAX_MS', HOUR),
    retentionMs: r.int('WEBHOOK_RETENTION_MS', 7 * 24 * HOUR),
    targetCacheMs: r.int('CHANNEL_CACHE_MS', 5_000),
    rpcDeadlineMs,
    shutdownGraceMs: r.int('SHUTDOWN_GRACE_MS', 10_000),
    allowPrivate: parseAllowList(env.WEBHOOK_ALLOWED_PRIVATE),
    logLevel: r.str('LOG_LEVEL', 'info'),
  };
  r.done();
  // A lease shorter than one attempt would let a second relay deliver while the first still waits.
  if (config.leaseMs <= timeoutMs + 2 * rpcDeadlineMs) {
    throw new ConfigError(
      `RELAY_LEASE_MS (${config.leaseMs}) must exceed WEBHOOK_TIMEOUT_MS + 2 × RPC_DEADLINE_MS (${timeoutMs + 2 * rpcDeadlineMs})`,
    );
  }
  if (!config.pollMs || !config.busyPollMs || !config.concurrency || !config.batchSize || !timeoutMs) {
    throw new ConfigError('RELAY_POLL_MS, RELAY_BUSY_POLL_MS, RELAY_CONCURRENCY, RELAY_BATCH and WEBHOOK_TIMEOUT_MS must be positive');
  }
  return config;
}
