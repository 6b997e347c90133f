import { channelEnginesService } from '@convo/channel-engines';
import { createClient, createLogger, type proto } from '@convo/kit';
import { startTestMesh, SUPER_ADMIN_TOKEN, type TestService } from '@convo/test-support';
import { tenantsService } from '@convo/tenants';
import { ticketsService } from '@convo/tickets';
import { MessagesRepository } from '../../src/db/messages.repository';
import { readDispatcherConfig } from '../../src/dispatcher/config';
import { Dispatcher } from '../../src/dispatcher/dispatcher';
import { ChannelIntegrations } from '../../src/channels/channel-integrations';
import { ChannelLookup } from '../../src/channels/channel-lookup';
import { signedMediaLink } from '../../src/domain/media.service';
import { PartitionLeases } from '../../src/leases/partitions';
import { messagingService } from '../../src/spec';

/** The real messaging service and the real peers it calls, each with a client. */
export interface MessagingWithPeers {
  messaging: TestService<'messaging'>;
  tickets: TestService<'tickets'>;
  tenants: TestService<'tenants'>;
  /** A dispatcher on messaging's database (in this process, as its own process would run it). */
  dispatcher: Dispatcher;
  /** Waits until the dispatcher has settled the message (any status but queued, or `until`). */
  settled(
    tenantId: number,
    messageId: string,
    until?: (m: proto.messaging.Message__Output) => boolean,
  ): Promise<proto.messaging.Message__Output>;
  stop(): Promise<void>;
}

/**
 * Tickets, tenants and channel-engines, then messaging pointed at them, on one embedded database,
 * and a dispatcher delivering what messaging accepts; `env` goes to every one of them (and to the
 * dispatcher's settings: DISPATCH_*, DELIVERY_*).
 */
export async function startMessagingWithPeers(name: string, env: Record<string, string> = {}): Promise<MessagingWithPeers> {
  const mesh = await startTestMesh(name, env);
  let dispatcher: Dispatcher | undefined;
  try {
    const [tenants, engines] = await Promise.all([mesh.start(tenantsService), mesh.start(channelEnginesService)]);
    // Tickets asks tenants whether a user named on a ticket is the ticket's tenant's.
    const tickets = await mesh.start(ticketsService, { env: { TENANTS_GRPC_ADDR: tenants.address } });
    const peerEnv = { TICKETS_GRPC_ADDR: tickets.address, TENANTS_GRPC_ADDR: tenants.address, CHANNEL_ENGINES_GRPC_ADDR: engines.address };
    const messaging = await mesh.start(messagingService, { env: peerEnv, deadlineMs: 15_000 });

    const config = readDispatcherConfig({
      MONGODB_URI: mesh.database.uri,
      SUPER_ADMIN_TOKEN,
      DISPATCH_POLL_MS: '20',
      DISPATCH_ROUND_MS: '200',
      CHANNEL_CACHE_MS: '0',
      ...peerEnv,
      ...env,
    });
    const repo = new MessagesRepository(messaging.db);
    const leases = new PartitionLeases(messaging.db, 'Dispatch', {
      partitions: config.partitions,
      leaseMs: config.leaseMs,
      owner: config.dispatcherId,
    });
    await leases.init();
    const { providerDeadlineMs } = config.messaging;
    const ticketsClient = createClient('tickets', tickets.address, { caller: 'messaging' });
    const tenantsClient = createClient('tenants', tenants.address, { caller: 'messaging' });
    dispatcher = new Dispatcher(
      repo,
      leases,
      {
        // As the dispatcher's process calls: as messaging (tenants hands it the channel's credentials).
        engines: createClient('channelEngines', engines.address, { caller: 'messaging' }),
        channels: new ChannelLookup(tenantsClient, 0, config.rpcDeadlineMs),
        integrations: new ChannelIntegrations(tenantsClient, 0, config.rpcDeadlineMs),
        mediaLink: (mediaId, fileName) => signedMediaLink(config.messaging.media, mediaId, fileName),
        contactOf: async (tenantId, ticketId) => (await ticketsClient.GetTicket({ tenantId, ticketId })).contact,
      },
      { ...config, attemptMs: providerDeadlineMs + config.rpcDeadlineMs, providerDeadlineMs },
      createLogger('dispatcher-test', 'silent'),
    );
    dispatcher.start();
    const running = dispatcher;

    const settled: MessagingWithPeers['settled'] = async (tenantId, messageId, until = (m) => m.status !== 'queued') => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const message = await messaging.client.GetMessage({ tenantId, messageId });
        if (until(message)) return message;
        if (Date.now() > deadline) throw new Error(`message ${messageId} still ${message.status} (attempts so far unknown) after 20 s`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    return {
      messaging,
      tickets,
      tenants,
      dispatcher: running,
      settled,
      stop: async () => {
        await running.stop(1_000);
        await mesh.stop();
      },
    };
  } catch (err) {
    await dispatcher?.stop(0);
    await mesh.stop();
    throw err;
  }
}

/** A tenant (Acme) with one engine_a channel whose engine is at `engineUrl`. */
export async function tenantWithEngine(
  tenants: TestService<'tenants'>['client'],
  engineUrl: string,
): Promise<{ tenantId: number; channelId: number }> {
  const { tenant } = await tenants.StoreTenant({
    status: 'active',
    name: 'Acme',
    maxUsers: 5,
    maxConnections: 5,
    acceptTerms: true,
    email: 'owner@acme.example',
    password: 'secret-pass1',
    userName: 'Owner',
    profile: 'admin',
  });
  const session = await tenants.CreateSession({
    tenant: tenant!.id,
    name: 'WhatsApp',
    type: 'engine_a',
    engineUrl,
    engineToken: 'eng-tok',
  });
  return { tenantId: tenant!.id, channelId: session.whatsapp!.id };
}
