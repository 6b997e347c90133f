import { ConfigError, EnvReader } from '@convo/kit';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { readMessagingConfig, type MessagingConfig } from '../config';

/** Channel kinds that speak through an unofficial engine: a burst there can get a number banned. */
const ENGINE_KINDS = ['engine_a', 'engine_b', 'engine_c', 'engine_d', 'engine_e', 'engine_f', 'engine_g', 'engine_h', 'whatsapp'];

/**
 * The least time between two sends on one channel, per kind: unofficial engines two a second
 * (a person typing fast), the Cloud API and the Send API far above a conversation's pace (80
 * messages/s is the Cloud API's default throughput), e-mail and bridges a few a second, web chat
 * unpaced (nothing leaves the platform). A channel's own `sendIntervalMs` wins over these.
 */
export const DEFAULT_INTERVAL_MS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(ENGINE_KINDS.map((k) => [k, 500])),
  waba: 12,
  social_a: 20,
  social_b: 20,
  webmail: 200,
  marketplace: 200,
  webchat: 0,
};

export interface DispatcherConfig {
  mongodbUri: string;
  mongodbServerSelectionTimeoutMs: number;
  messaging: MessagingConfig;
  dispatcherId: string;
  healthPort: number;
  /** Work is split by channel into this many partitions, each held by one dispatcher at a time. */
  partitions: number;
  leaseMs: number;
  /** How often leases are renewed and rebalanced. */
  roundMs: number;
  /** Idle poll of the queue. */
  pollMs: number;
  batchSize: number;
  /** Tickets delivered at the same time (each ticket's messages go one after another). */
  concurrency: number;
  retryWindowMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Pacing per channel kind, after DISPATCH_INTERVAL_MS_<KIND> overrides. */
  intervalMs: Record<string, number>;
  rpcDeadlineMs: number;
  shutdownGraceMs: number;
  logLevel: string;
}

const MINUTE = 60_000;

export function readDispatcherConfig(env: NodeJS.ProcessEnv = process.env): DispatcherConfig {
  const r = new EnvReader(env);
  const messaging = readMessagingConfig(r);
  const rpcDeadlineMs = r.int('RPC_DEADLINE_MS', 5_000);
  const intervalMs = Object.fromEntries(
    Object.entries(DEFAULT_INTERVAL_MS).map(([kind, ms]) => [kind, r.int(`DISPATCH_INTERVAL_MS_${kind.toUpperCase()}`, ms)]),
  );
  const config: DispatcherConfig = {
    mongodbUri: r.str('MONGODB_URI'),
    mongodbServerSelectionTimeoutMs: r.int('MONGODB_SERVER_SELECTION_TIMEOUT_MS', 10_000),
    messaging,
    dispatcherId: r.str('DISPATCHER_ID', '') || `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    healthPort: r.int('DISPATCHER_HEALTH_PORT', 4013),
    partitions: r.int('DISPATCH_PARTITIONS', 64),
    // One attempt (a channel lookup and the provider call) several times over: a lease is renewed
    // once a third of it is used and dropped with less than a third left, so a held lease always
    // outlives an attempt started under it.
    leaseMs: r.int('DISPATCH_LEASE_MS', 3 * (messaging.providerDeadlineMs + rpcDeadlineMs) + 10_000),
    roundMs: r.int('DISPATCH_ROUND_MS', 2_000),
    pollMs: r.int('DISPATCH_POLL_MS', 100),
    batchSize: r.int('DISPATCH_BATCH', 500),
    concurrency: r.int('DISPATCH_CONCURRENCY', 64),
    retryWindowMs: r.int('DELIVERY_RETRY_WINDOW_MS', 60 * MINUTE),
    backoffBaseMs: r.int('DELIVERY_BACKOFF_BASE_MS', 2_000),
    backoffMaxMs: r.int('DELIVERY_BACKOFF_MAX_MS', 5 * MINUTE),
    intervalMs,
    rpcDeadlineMs,
    shutdownGraceMs: r.int('SHUTDOWN_GRACE_MS', 10_000),
    logLevel: r.str('LOG_LEVEL', 'info'),
  };
  r.done();
  const attemptMs = messaging.providerDeadlineMs + rpcDeadlineMs;
  if (config.leaseMs <= 2 * attemptMs + config.roundMs) {
    throw new ConfigError(
      `DISPATCH_LEASE_MS (${config.leaseMs}) must exceed 2 × (PROVIDER_TIMEOUT_MS + 2 s + RPC_DEADLINE_MS) + DISPATCH_ROUND_MS`,
    );
  }
  if (config.partitions < 1 || config.concurrency < 1 || config.batchSize < 1 || config.pollMs < 1 || config.roundMs < 1) {
    throw new ConfigError(
      'DISPATCH_PARTITIONS, DISPATCH_CONCURRENCY, DISPATCH_BATCH, DISPATCH_POLL_MS and DISPATCH_ROUND_MS must be positive',
    );
  }
  return config;
}
