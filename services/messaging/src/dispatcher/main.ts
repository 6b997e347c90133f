// The dispatcher: delivers queued outgoing messages to the providers, a process of its own (any
// number of replicas) on the messaging database; health on DISPATCHER_HEALTH_PORT (worker-process.ts).
import '@convo/kit/observability/register'; // first: tracing instruments what loads after it
import { createClient } from '@convo/kit';
import { MessagesRepository } from '../db/messages.repository';
import { signedMediaLink } from '../domain/media.service';
import { PartitionLeases } from '../leases/partitions';
import { ChannelIntegrations } from '../channels/channel-integrations';
import { ChannelLookup } from '../channels/channel-lookup';
import { observeDeliveryQueue } from '../queue-metrics';
import { runWorkerProcess } from '@convo/kit/worker-process';
import { readDispatcherConfig } from './config';
import { Dispatcher } from './dispatcher';

const config = readDispatcherConfig();
const { messaging } = config;
runWorkerProcess({
  database: 'convo_messaging',
  name: 'messaging-dispatcher',
  logLevel: config.logLevel,
  healthPort: config.healthPort,
  mongodbUri: config.mongodbUri,
  serverSelectionTimeoutMs: config.mongodbServerSelectionTimeoutMs,
  shutdownGraceMs: config.shutdownGraceMs,
  describe: { dispatcherId: config.dispatcherId },
  async start(db, log) {
    const repo = new MessagesRepository(db);
    const leases = new PartitionLeases(db, 'Dispatch', {
      partitions: config.partitions,
      leaseMs: config.leaseMs,
      owner: config.dispatcherId,
    });
    await Promise.all([repo.init(), leases.init()]);
    observeDeliveryQueue(repo, log);
    const tenants = createClient('tenants', messaging.tenantsAddr, { deadlineMs: config.rpcDeadlineMs, caller: 'messaging' });
    // One delivery per message: on one stream (DeliverStream, the kit's grpc/call-stream.ts).
    const engines = createClient('channelEngines', messaging.enginesAddr, { caller: 'messaging', streamed: { Deliver: true } });
    const tickets = createClient('tickets', messaging.ticketsAddr, { deadlineMs: config.rpcDeadlineMs, caller: 'messaging' });
    const dispatcher = new Dispatcher(
      repo,
      leases,
      {
        engines,
        channels: new ChannelLookup(tenants, messaging.channelCacheMs, config.rpcDeadlineMs),
        integrations: new ChannelIntegrations(tenants, messaging.channelCacheMs, config.rpcDeadlineMs),
        mediaLink: (mediaId, fileName) => signedMediaLink(messaging.media, mediaId, fileName),
        contactOf: async (tenantId, ticketId) => (await tickets.GetTicket({ tenantId, ticketId })).contact,
      },
      { ...config, attemptMs: messaging.providerDeadlineMs + config.rpcDeadlineMs, providerDeadlineMs: messaging.providerDeadlineMs },
      log,
    );
    dispatcher.start();
    return dispatcher;
  },
});
