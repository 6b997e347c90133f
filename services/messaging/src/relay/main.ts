// The webhook relay: delivers the outbox's customer webhooks, a process of its own (any number of
// replicas) on the messaging database; health on RELAY_HEALTH_PORT (worker-process.ts).
import '@convo/kit/observability/register'; // first: tracing instruments what loads after it
import { createClient } from '@convo/kit';
import { OutboxRepository } from '../outbox/outbox.repository';
import { observeWebhookOutbox } from '../queue-metrics';
import { runWorkerProcess } from '@convo/kit/worker-process';
import { readRelayConfig } from './config';
import { Relay } from './relay';
import { relayTargets } from './targets';

const config = readRelayConfig();
runWorkerProcess({
  database: 'convo_messaging',
  name: 'messaging-relay',
  logLevel: config.logLevel,
  healthPort: config.healthPort,
  mongodbUri: config.mongodbUri,
  serverSelectionTimeoutMs: config.mongodbServerSelectionTimeoutMs,
  shutdownGraceMs: config.shutdownGraceMs,
  describe: { relayId: config.relayId },
  async start(db, log) {
    const outbox = new OutboxRepository(db);
    await outbox.init();
    observeWebhookOutbox(outbox, log);
    const tenants = createClient('tenants', config.tenantsAddr, { deadlineMs: config.rpcDeadlineMs, caller: 'messaging' });
    const relay = new Relay(outbox, relayTargets(tenants, config.targetCacheMs, config.rpcDeadlineMs), config, log);
    relay.start();
    return relay;
  },
});
