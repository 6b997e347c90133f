// The webhook relay: a process of its own (any number of replicas) on the messaging database. It
// serves no gRPC; /healthz (the loop goes round) and /readyz (database connected, loop running)
// answer on RELAY_HEALTH_PORT for probes and the mesh.
import { closeAllClients, connectDatabase, createClient, createLogger } from '@convo/kit';
import { listenHealth } from '../health-server';
import { OutboxRepository } from '../outbox/outbox.repository';
import { readRelayConfig } from './config';
import { Relay } from './relay';
import { Targets } from './targets';

async function main() {
  const config = readRelayConfig();
  const log = createLogger('messaging-relay', config.logLevel);
  const db = await connectDatabase(config.mongodbUri, 'convo_messaging');
  const outbox = new OutboxRepository(db);
  await outbox.init();
  const tenants = createClient('tenants', config.tenantsAddr, { deadlineMs: config.rpcDeadlineMs });
  const relay = new Relay(outbox, new Targets(tenants, config.targetCacheMs, config.rpcDeadlineMs), config, log);
  relay.start();

  let connected = true;
  db.on('disconnected', () => (connected = false));
  db.on('reconnected', () => (connected = true));
  const health = await listenHealth(config.healthPort, (path) => {
    if (path === '/healthz') return relay.healthy;
    if (path === '/readyz') return relay.healthy && connected;
    return undefined;
  });
  log.info({ relayId: config.relayId, healthPort: (health.address() as { port: number }).port }, 'relaying');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await relay.stop(config.shutdownGraceMs);
      health.close();
      closeAllClients();
      await db.close();
      log.info('stopped');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', (s) => void stop(s));
  process.once('SIGINT', (s) => void stop(s));
}

main().catch((err: unknown) => {
  createLogger('messaging-relay').fatal({ err }, 'failed to start');
  process.exit(1);
});
