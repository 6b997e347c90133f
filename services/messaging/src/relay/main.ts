// The webhook relay: a process of its own (any number of replicas) on the messaging database. It
// serves no gRPC; /healthz (the process is alive: the loop goes round, or the database is still
// awaited) and /readyz (database connected, loop running) answer on RELAY_HEALTH_PORT for probes
// and the mesh. A database that is slow to come up is waited for (retried with capped backoff,
// /readyz 503 meanwhile), never a reason to exit.
import { closeAllClients, connectDatabase, createClient, createLogger } from '@convo/kit';
import type { Connection } from 'mongoose';
import { listenHealth } from '../health-server';
import { OutboxRepository } from '../outbox/outbox.repository';
import { readRelayConfig } from './config';
import { Relay } from './relay';
import { Targets } from './targets';

/** Set by SIGTERM/SIGINT: from then on, stop() owns the exit. */
let stopping = false;

async function main() {
  const config = readRelayConfig();
  const log = createLogger('messaging-relay', config.logLevel);

  let relay: Relay | undefined;
  let db: Connection | undefined;
  let connected = false;
  const health = await listenHealth(config.healthPort, (path) => {
    if (path === '/healthz') return relay ? relay.healthy : true;
    if (path === '/readyz') return connected && !!relay?.healthy;
    return undefined;
  });
  log.info({ relayId: config.relayId, healthPort: (health.address() as { port: number }).port }, 'starting');

  const starting = new AbortController();
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    starting.abort(new Error(`${signal} during start-up`));
    try {
      await relay?.stop(config.shutdownGraceMs);
      health.close();
      closeAllClients();
      await db?.close();
      log.info('stopped');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', (s) => void stop(s));
  process.once('SIGINT', (s) => void stop(s));

  db = await connectDatabase(config.mongodbUri, 'convo_messaging', {
    log,
    signal: starting.signal,
    serverSelectionTimeoutMs: config.mongodbServerSelectionTimeoutMs,
  });
  connected = true;
  db.on('disconnected', () => (connected = false));
  db.on('reconnected', () => (connected = true));
  const outbox = new OutboxRepository(db);
  await outbox.init();
  if (stopping) return;
  const tenants = createClient('tenants', config.tenantsAddr, { deadlineMs: config.rpcDeadlineMs });
  relay = new Relay(outbox, new Targets(tenants, config.targetCacheMs, config.rpcDeadlineMs), config, log);
  relay.start();
  log.info({ relayId: config.relayId }, 'relaying');
}

main().catch((err: unknown) => {
  if (stopping) return; // a start-up cut short by a signal: stop() exits
  createLogger('messaging-relay').fatal({ err }, 'failed to start');
  process.exit(1);
});
