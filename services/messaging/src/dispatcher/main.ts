// The dispatcher: delivers queued outgoing messages to the providers, a process of its own (any
// number of replicas) on the messaging database. It serves no gRPC; /healthz (the process is
// alive: the loop goes round, or the database is still awaited) and /readyz (database connected,
// loop running) answer on DISPATCHER_HEALTH_PORT. A database that is slow to come up is waited for
// (retried with capped backoff, /readyz 503 meanwhile), never a reason to exit.
import { closeAllClients, connectDatabase, createClient, createLogger } from '@convo/kit';
import type { Connection } from 'mongoose';
import { MessagesRepository } from '../db/messages.repository';
import { signedMediaLink } from '../domain/media.service';
import { listenHealth } from '../health-server';
import { PartitionLeases } from '../leases/partitions';
import { Targets } from '../relay/targets';
import { readDispatcherConfig } from './config';
import { Dispatcher } from './dispatcher';

let stopping = false;

async function main() {
  const config = readDispatcherConfig();
  const { messaging } = config;
  const log = createLogger('messaging-dispatcher', config.logLevel);

  let dispatcher: Dispatcher | undefined;
  let db: Connection | undefined;
  let connected = false;
  const health = await listenHealth(config.healthPort, (path) => {
    if (path === '/healthz') return dispatcher ? dispatcher.healthy : true;
    if (path === '/readyz') return connected && !!dispatcher?.healthy;
    return undefined;
  });
  log.info({ dispatcherId: config.dispatcherId, healthPort: (health.address() as { port: number }).port }, 'starting');

  const starting = new AbortController();
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    starting.abort(new Error(`${signal} during start-up`));
    try {
      await dispatcher?.stop(config.shutdownGraceMs);
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
  const repo = new MessagesRepository(db);
  const leases = new PartitionLeases(db, 'Dispatch', { partitions: config.partitions, leaseMs: config.leaseMs, owner: config.dispatcherId });
  await Promise.all([repo.init(), leases.init()]);
  if (stopping) return;
  const tenants = createClient('tenants', messaging.tenantsAddr, { deadlineMs: config.rpcDeadlineMs });
  const engines = createClient('channelEngines', messaging.enginesAddr);
  dispatcher = new Dispatcher(
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
  log.info({ dispatcherId: config.dispatcherId }, 'dispatching');
}

main().catch((err: unknown) => {
  if (stopping) return; // a start-up cut short by a signal: stop() exits
  createLogger('messaging-dispatcher').fatal({ err }, 'failed to start');
  process.exit(1);
});
