// The payment reconciler: each tenant's latest payment read from its gateway once a period and on
// an operator's request, a process of its own (any number of replicas) on the tenants database;
// health on RECONCILER_HEALTH_PORT (kit's worker-process.ts).
import '@convo/kit/observability/register'; // first: tracing instruments what loads after it
import { runWorkerProcess } from '@convo/kit/worker-process';
import { createRepositories } from '../spec';
import { PaymentsService } from '../domain/payments/payments.service';
import { Reconciler } from '../domain/payments/reconciler';
import { Suspensions } from '../domain/payments/suspension';
import { readReconcilerConfig, reconcilerGatewayApis } from './config';
import { ReconcilerLoop } from './worker';

const { tenants: config, ...own } = readReconcilerConfig();
runWorkerProcess({
  database: 'convo_tenants',
  name: 'tenants-reconciler',
  logLevel: own.logLevel,
  healthPort: own.healthPort,
  mongodbUri: own.mongodbUri,
  serverSelectionTimeoutMs: own.serverSelectionTimeoutMs,
  shutdownGraceMs: own.shutdownGraceMs,
  describe: { reconcilerId: own.reconcilerId },
  async start(db, log) {
    const repos = createRepositories(db);
    await Promise.all(Object.values(repos.models).map((m) => m.createIndexes()));
    const apis = reconcilerGatewayApis(config);
    const service = new PaymentsService(repos.tenants, repos.payments, config.paymentWebhookSecrets, apis);
    const reconciler = new Reconciler(repos.tenants, repos.payments, service, apis, config.reconcile, log);
    const suspensions = new Suspensions(repos.payments, repos.apis, config.reconcile.suspendAfterDays, log);
    const loop = new ReconcilerLoop(
      repos.payments,
      reconciler,
      suspensions,
      {
        intervalMs: config.reconcile.intervalMs,
        pollMs: config.reconcile.pollMs,
        runnerId: own.reconcilerId,
      },
      log,
    );
    loop.start();
    return loop;
  },
});
