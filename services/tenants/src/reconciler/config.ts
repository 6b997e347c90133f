import { EnvReader } from '@convo/kit';
import { hostname } from 'node:os';
import { GatewayApis } from '../domain/payments/gateway-apis';
import { readTenantsConfig, type TenantsConfig } from '../spec';

/** The payment reconciler's settings: the process's own, and the tenants service's it shares. */
export interface ReconcilerConfig {
  tenants: TenantsConfig;
  logLevel: string;
  healthPort: number;
  mongodbUri: string;
  /** One connection attempt's wait for a server (attempts are retried with backoff). */
  serverSelectionTimeoutMs: number;
  shutdownGraceMs: number;
  /** Names this process among the reconcilers; unique per process. */
  reconcilerId: string;
}

export function readReconcilerConfig(env: NodeJS.ProcessEnv = process.env): ReconcilerConfig {
  const r = new EnvReader(env);
  const config: ReconcilerConfig = {
    tenants: readTenantsConfig(r),
    logLevel: r.str('LOG_LEVEL', 'info'),
    healthPort: r.int('RECONCILER_HEALTH_PORT', 4015),
    mongodbUri: r.str('MONGODB_URI'),
    serverSelectionTimeoutMs: r.int('MONGODB_SERVER_SELECTION_TIMEOUT_MS', 10_000),
    shutdownGraceMs: r.int('SHUTDOWN_GRACE_MS', 10_000),
    reconcilerId: r.str('RECONCILER_ID', '') || `${hostname()}-${process.pid}`,
  };
  r.done();
  return config;
}

/** The gateways' APIs as the reconciler reads them: each gateway's reads paced at PAYMENT_RECONCILE_RATE_PER_SECOND. */
export function reconcilerGatewayApis(config: TenantsConfig): GatewayApis {
  return new GatewayApis({ ...config.paymentApis, readsPerSecond: config.reconcile.ratePerSecond });
}
