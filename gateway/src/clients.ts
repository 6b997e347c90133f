import { createClient, type proto, type ServiceClient } from '@convo/kit';
import type { GatewayConfig } from './config';

export interface Clients {
  tickets: ServiceClient<'tickets'>;
  messaging: ServiceClient<'messaging'>;
  channelEngines: ServiceClient<'channelEngines'>;
  socialConfig: ServiceClient<'socialConfig'>;
  tenants: ServiceClient<'tenants'>;
}

/** The name the gateway's gRPC calls carry (mesh credential, kit grpc/credentials.ts). */
const CALLER = 'gateway';

/** One client per peer for the life of the process. */
export function createClients(config: GatewayConfig): Clients {
  const deadlineMs = config.rpcDeadlineMs;
  return {
    tickets: createClient('tickets', config.peers.tickets, { deadlineMs, caller: CALLER }),
    // Sends go on one stream (the kit's grpc/call-stream.ts), but those carrying a file inline: its
    // megabytes would hold up the sends behind it on the stream.
    messaging: createClient('messaging', config.peers.messaging, {
      deadlineMs: config.sendDeadlineMs,
      caller: CALLER,
      streamed: { SendByTicket: (req: proto.messaging.SendByTicketRequest) => !req.media?.data?.length },
    }),
    // Number checks and social configuration call a provider before answering: they get the
    // provider timeout on top, like sends.
    channelEngines: createClient('channelEngines', config.peers.channelEngines, { deadlineMs: config.sendDeadlineMs, caller: CALLER }),
    socialConfig: createClient('socialConfig', config.peers.socialConfig, { deadlineMs: config.sendDeadlineMs, caller: CALLER }),
    tenants: createClient('tenants', config.peers.tenants, { deadlineMs, caller: CALLER }),
  };
}
