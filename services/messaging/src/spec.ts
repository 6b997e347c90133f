import { createClient, type EnvReader } from '@convo/kit';
import { buildSubgraph, type SubgraphTypes } from '@convo/kit/dist/graphql/subgraph';
import { type ServiceSpec } from '@convo/kit/dist/service';
import { MessageReadRepository } from './db/message-read.repository';
import { MessagesRepository } from './db/messages.repository';
import { GridFsMediaStore } from './db/media.store';
import { IngestService } from './domain/ingest.service';
import { MediaService, type MediaSettings } from './domain/media.service';
import { ReadService } from './domain/read.service';
import { SendService } from './domain/send.service';
import { messagingHandlers } from './grpc/messaging.handlers';
import { messageReference } from './graphql/message.reference';
import { MessageResolver, TicketMessagesResolver } from './graphql/message.resolver';
import { TicketMessages } from './graphql/message.type';
import { DeliveryHealthResolver } from './graphql/delivery-health.resolver';
import { WebhookDeliveryResolver } from './graphql/webhook-delivery.resolver';

export const subgraphTypes: SubgraphTypes = {
  resolvers: [MessageResolver, TicketMessagesResolver, WebhookDeliveryResolver, DeliveryHealthResolver],
  orphanedTypes: [TicketMessages],
};

export interface MessagingConfig {
  ticketsAddr: string;
  tenantsAddr: string;
  enginesAddr: string;
  providerDeadlineMs: number;
  channelCacheMs: number;
  media: MediaSettings;
}

export const readMessagingConfig = (env: EnvReader): MessagingConfig => ({
  ticketsAddr: env.str('TICKETS_GRPC_ADDR', '127.0.0.1:50051'),
  tenantsAddr: env.str('TENANTS_GRPC_ADDR', '127.0.0.1:50055'),
  enginesAddr: env.str('CHANNEL_ENGINES_GRPC_ADDR', '127.0.0.1:50053'),
  // Above the engines' own provider timeout, so that their clear error arrives first.
  providerDeadlineMs: env.int('PROVIDER_TIMEOUT_MS', 10_000) + 2_000,
  channelCacheMs: env.int('CHANNEL_CACHE_MS', 5_000),
  media: {
    maxBytes: env.int('MEDIA_MAX_BYTES', 16 * 1024 * 1024),
    // Where providers fetch stored media (the gateway's /media links). Loopback is right for npm start
    // only: in production (NODE_ENV=production, as in the images) a loopback, unset or placeholder
    // (.invalid) value refuses to start, since every media send would hand providers a dead link.
    publicBaseUrl: env.publicUrl('PUBLIC_BASE_URL', 'http://127.0.0.1:8080'),
    // Signed with the platform secret unless a dedicated one is set; the gateway verifies with the same.
    linkSecret: env.str('MEDIA_URL_SECRET', '') || env.str('SUPER_ADMIN_TOKEN', ''),
    linkTtlSeconds: env.int('MEDIA_LINK_TTL_SECONDS', 24 * 60 * 60),
    fetchConnectTimeoutMs: env.int('MEDIA_FETCH_CONNECT_TIMEOUT_MS', 5_000),
    fetchTotalTimeoutMs: env.int('MEDIA_FETCH_TIMEOUT_MS', 30_000),
  },
});

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
      tickets: createClient('tickets', config.ticketsAddr),
      tenants: createClient('tenants', config.tenantsAddr),
      engines: createClient('channelEngines', config.enginesAddr),
    };
    const send = new SendService(
      repo,
      peers,
      new MediaService(new GridFsMediaStore(db), config.media),
      log,
      config.channelCacheMs,
    );
    const resolvers = new Map<unknown, unknown>([
      [MessageResolver, new MessageResolver(repo)],
      [TicketMessagesResolver, new TicketMessagesResolver(repo)],
      [WebhookDeliveryResolver, new WebhookDeliveryResolver(repo.outbox)],
      [DeliveryHealthResolver, new DeliveryHealthResolver(repo)],
    ]);
    const { schema } = await buildSubgraph({
      ...subgraphTypes,
      container: { get: (cls) => resolvers.get(cls) },
      references: {
        Message: messageReference(repo),
        Ticket: (ref) => ({ id: Number(ref.id), tenantId: Number(ref.tenantId) }),
      },
    });
    const reads = new MessageReadRepository(db);
    await reads.init();
    const read = new ReadService(reads, createClient('tickets', config.ticketsAddr));
    // Customer-webhook events are written here; the relay (relay/main.ts) delivers them.
    const ingest = new IngestService(repo, peers, log, config.channelCacheMs);
    return { handlers: messagingHandlers(send, read, ingest), schema };
  },
};
