// The dispatcher: delivers queued outgoing messages to the providers, a process of its own (any
// number of replicas) on the messaging database. It serves no gRPC; /healthz (the loop goes round)
// and /readyz (database connected, loop running) answer on DISPATCHER_HEALTH_PORT.
import { closeAllClients, connectDatabase, createClient, createLogger } from '@convo/kit';
import { MessagesRepository } from '../db/messages.repository';
import { signedMediaLink } from '../domain/media.service';
import { listenHealth } from '../health-server';
import { PartitionLeases } from '../leases/partitions';
import { Targets } from '../relay/targets';
import { readDispatcherConfig } from './config';
import { Dispatcher } from './dispatcher';

async function main() {
  const config = readDispatcherConfig();
  const { messaging } = config;
  const log = createLogger('messaging-dispatcher', config.logLevel);
  const db = await connectDatabase(config.mongodbUri, 'convo_messaging');
  const repo = new MessagesRepository(db);
  const leases = new PartitionLeases(db, 'Dispatch', { partitions: config.partitions, leaseMs: config.leaseMs, owner: config.dispatcherId });
  await Promise.all([repo.init(), leases.init()]);
  const tenants = createClient('tenants', messaging.tenantsAddr, { deadlineMs: config.rpcDeadlineMs });
  const engines = createClient('channelEngines', messaging.enginesAddr);
  const dispatcher = new Dispatcher(
    repo,
    leases,
    {
      engines,
      targets: new Targets(tenants, messaging.channelCacheMs, config.rpcDeadlineMs),
      mediaLink: (mediaId, fileName) => signedMediaLink(messaging.media, mediaId, fileName),
    },
    { ...config, attemptMs: messaging.providerDeadlineMs + config.rpcDeadlineMs, providerDeadlineMs: messaging.providerDeadlineMs },
    log,
  );
  dispatcher.start();

  let connected = true;
  db.on('disconnected', () => (connected = false));
  db.on('reconnected', () => (connected = true));
  const health = await listenHealth(config.healthPort, (path) => {
    if (path === '/healthz') return dispatcher.healthy;
    if (path === '/readyz') return dispatcher.healthy && connected;
    return undefined;
  });
  log.info({ dispatcherId: config.dispatcherId, healthPort: (health.address() as { port: number }).port }, 'dispatching');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await dispatcher.stop(config.shutdownGraceMs);
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
  createLogger('messaging-dispatcher').fatal({ err }, 'failed to start');
  process.exit(1);
});
