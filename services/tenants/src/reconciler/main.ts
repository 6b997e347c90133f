// The payment reconciler: each tenant's latest payment read from its gateway once a period and on
// an operator's request, a process of its own (any number of replicas) on the tenants database;
// health on RECONCILER_HEALTH_PORT (kit's worker-process.ts).
import '@convo/kit/observability/register'; // first: tracing instruments what loads after it
import { EnvReader } from '@convo/kit';
import { runWorkerProcess } from '@convo/kit/worker-process';
import { hostname } from 'node:os';
import { createRepositories, readTenantsConfig } from '../spec';
import { GatewayApis } from '../domain/payments/gateway-apis';
import { PaymentsService } from '../domain/payments/payments.service';
import { Reconciler } from '../domain/payments/reconciler';
import { Suspensions } from '../domain/payments/suspension';
import { ReconcilerLoop } from './worker';

const env = new EnvReader(process.env);
const config = readTenantsConfig(env);
runWorkerProcess({
  database: 'convo_tenants',
  name: 'tenants-reconciler',
  logLevel: env.str('LOG_LEVEL', 'info'),
  healthPort: env.int('RECONCILER_HEALTH_PORT', 4015),
  mongodbUri: env.str('MONGODB_URI'),
  serverSelectionTimeoutMs: env.int('MONGODB_SERVER_SELECTION_TIMEOUT_MS', 10_000),
  shutdownGraceMs: env.int('SHUTDOWN_GRACE_MS', 10_000),
  describe: { reconcilerId: env.str('RECONCILER_ID', '') || `${hostname()}-${process.pid}` },
  async start(db, log) {
    const repos = createRepositories(db);
    await Promise.all(Object.values(repos.models).map((m) => m.createIndexes()));
    const apis = new GatewayApis(config.paymentApis);
    const service = new PaymentsService(repos.tenants, repos.payments, config.paymentWebhookSecrets, apis);
    const reconciler = new Reconciler(repos.tenants, repos.payments, service, apis, config.reconcile, log);
    const suspensions = new Suspensions(repos.payments, repos.apis, config.reconcile.suspendAfterDays, log);
    const loop = new ReconcilerLoop(repos.payments, reconciler, suspensions, {
      intervalMs: config.reconcile.intervalMs,
      pollMs: config.reconcile.pollMs,
      runnerId: env.str('RECONCILER_ID', '') || `${hostname()}-${process.pid}`,
    }, log);
    loop.start();
    return loop;
  },
});
