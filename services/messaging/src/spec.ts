import { createClient } from '@convo/kit';
import { buildSubgraph, type SubgraphTypes } from '@convo/kit/graphql/subgraph';
import { type ServiceSpec } from '@convo/kit/service';
import { ChannelLookup } from './channels/channel-lookup';
import { MessageReadRepository } from './db/message-read.repository';
import { MessagesRepository } from './db/messages.repository';
import { GridFsMediaStore } from './db/media.store';
import { IngestService } from './domain/ingest.service';
import { MediaService } from './domain/media.service';
import { InspectionService } from './domain/inspection.service';
import { ReadService } from './domain/read.service';
import { SendService } from './domain/send.service';
import { messagingHandlers } from './grpc/messaging.handlers';
import { messageReference } from './graphql/message.reference';
import { MessageResolver, TicketMessagesResolver } from './graphql/message.resolver';
import { TicketMessages } from './graphql/message.type';
import { DeliveryHealthResolver } from './graphql/delivery-health.resolver';
import { WebhookDeliveryResolver } from './graphql/webhook-delivery.resolver';
import { readMessagingConfig, type MessagingConfig } from './config';

export { readMessagingConfig, type MessagingConfig } from './config';

export const subgraphTypes: SubgraphTypes = {
  resolvers: [MessageResolver, TicketMessagesResolver, WebhookDeliveryResolver, DeliveryHealthResolver],
  orphanedTypes: [TicketMessages],
};

export const messagingService: ServiceSpec<'messaging', MessagingConfig> = {
  name: 'messaging',
  grpc: 'messaging',
  database: 'convo_messaging',
  ports: { grpc: 50052, graphql: 4002 },
  config: readMessagingConfig,
  async create({ db, log, config }) {
    const repo = new MessagesRepository(db);
    await repo.init();
    const peers = {
      // Every accepted send looks its ticket up: on one stream (the kit's grpc/call-stream.ts).
      tickets: createClient('tickets', config.ticketsAddr, { streamed: { GetTicket: true } }),
      tenants: createClient('tenants', config.tenantsAddr),
      engines: createClient('channelEngines', config.enginesAddr),
    };
    // One lookup for acceptance and ingest: a channel change ingest makes is seen by the sends.
    const channels = new ChannelLookup(peers.tenants, config.channelCacheMs);
    const send = new SendService(repo, peers, new MediaService(new GridFsMediaStore(db), config.media), log, channels);
    const inspection = new InspectionService(repo);
    const resolvers = new Map<unknown, unknown>([
      [MessageResolver, new MessageResolver(inspection)],
      [TicketMessagesResolver, new TicketMessagesResolver(inspection)],
      [WebhookDeliveryResolver, new WebhookDeliveryResolver(inspection)],
      [DeliveryHealthResolver, new DeliveryHealthResolver(inspection)],
    ]);
    const { schema } = await buildSubgraph({
      ...subgraphTypes,
      container: { get: (cls) => resolvers.get(cls) },
      references: {
        Message: messageReference(inspection),
        Ticket: (ref) => ({ id: Number(ref.id), tenantId: Number(ref.tenantId) }),
      },
    });
    const reads = new MessageReadRepository(db);
    await reads.init();
    const read = new ReadService(reads, peers.tickets);
    // Customer-webhook events are written here; the relay (relay/main.ts) delivers them.
    const ingest = new IngestService(repo, peers, log, channels, config.channelCacheMs);
    return { handlers: messagingHandlers(send, read, ingest), schema };
  },
};
