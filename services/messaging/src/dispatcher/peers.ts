import type { proto, ServiceClient } from '@convo/kit';
import type { ChannelIntegrations } from '../channels/channel-integrations';
import type { ChannelLookup } from '../channels/channel-lookup';

/** What the dispatcher's attempts (messages and changes) ask of the other services. */
export interface DispatchPeers {
  /** channel-engines' deliveries (its client streams them: DeliverStream). */
  engines: Pick<ServiceClient<'channelEngines'>, 'Deliver'>;
  /** Channels (with their credentials), kept for a few seconds. */
  channels: Pick<ChannelLookup, 'find'>;
  /** Their integrations (who listens for statuses), kept for a few seconds. */
  integrations: Pick<ChannelIntegrations, 'of'>;
  /** A signed link to a stored file, made when the attempt is made. */
  mediaLink(mediaId: string, fileName: string): string;
  /** The ticket's contact as tickets has it now (its identities: see addressAtDelivery). */
  contactOf(tenantId: number, ticketId: number): Promise<proto.tickets.Contact__Output | null | undefined>;
}
