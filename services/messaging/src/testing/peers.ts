import { channelEnginesService } from '@convo/channel-engines';
import { startTestMesh, type TestService } from '@convo/test-support';
import { tenantsService } from '@convo/tenants';
import { ticketsService } from '@convo/tickets';
import { messagingService } from '../server';

/** The real messaging service and the real peers it calls, each with a client. */
export interface MessagingWithPeers {
  messaging: TestService<'messaging'>;
  tickets: TestService<'tickets'>;
  tenants: TestService<'tenants'>;
  stop(): Promise<void>;
}

/**
 * Tickets, tenants and channel-engines, then messaging pointed at them, on one embedded database;
 * `env` goes to every one of them. Messaging's client waits up to 15 s: a send may wait on a slow
 * provider for the whole PROVIDER_TIMEOUT_MS.
 */
export async function startMessagingWithPeers(name: string, env: Record<string, string> = {}): Promise<MessagingWithPeers> {
  const mesh = await startTestMesh(name, env);
  try {
    const [tickets, tenants, engines] = await Promise.all([mesh.start(ticketsService), mesh.start(tenantsService), mesh.start(channelEnginesService)]);
    const messaging = await mesh.start(messagingService, {
      env: { TICKETS_GRPC_ADDR: tickets.address, TENANTS_GRPC_ADDR: tenants.address, CHANNEL_ENGINES_GRPC_ADDR: engines.address },
      deadlineMs: 15_000,
    });
    return { messaging, tickets, tenants, stop: mesh.stop };
  } catch (err) {
    await mesh.stop();
    throw err;
  }
}
