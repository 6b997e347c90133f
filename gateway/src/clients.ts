import { createClient, type ServiceClient } from '@convo/kit';
import type { GatewayConfig } from './config';

export interface Clients {
  tickets: ServiceClient<'tickets'>;
  messaging: ServiceClient<'messaging'>;
  channelEngines: ServiceClient<'channelEngines'>;
  socialConfig: ServiceClient<'socialConfig'>;
  tenants: ServiceClient<'tenants'>;
}

/** One client per peer for the life of the process. */
export function createClients(config: GatewayConfig): Clients {
  const deadlineMs = config.rpcDeadlineMs;
  return {
    tickets: createClient('tickets', config.peers.tickets, { deadlineMs }),
    messaging: createClient('messaging', config.peers.messaging, { deadlineMs: config.sendDeadlineMs }),
    // Number checks and social configuration call a provider before answering: they get the
    // provider timeout on top, like sends.
    channelEngines: createClient('channelEngines', config.peers.channelEngines, { deadlineMs: config.sendDeadlineMs }),
    socialConfig: createClient('socialConfig', config.peers.socialConfig, { deadlineMs: config.sendDeadlineMs }),
    tenants: createClient('tenants', config.peers.tenants, { deadlineMs }),
  };
}
