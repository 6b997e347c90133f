import type { proto, ServiceClient } from '@convo/kit';
import { ChannelIntegrations } from '../channels/channel-integrations';
import { ChannelLookup } from '../channels/channel-lookup';
import type { OutboxEventDoc } from '../outbox/outbox.models';

type Channel = proto.tenants.Channel__Output;

/** Where one event goes now, and the secrets that sign it (the current one first). */
export type Resolved = { url: string; secrets: string[] } | { cancel: string };

/**
 * Targets and secrets are read from tenants when an event is delivered, not when it was written:
 * a URL fixed or a secret rotated meanwhile applies to every retry. The channel lookup and the
 * integrations keep answers for a few seconds, so a burst of events costs one lookup.
 */
export class Targets {
  constructor(
    private readonly tenants: Pick<ServiceClient<'tenants'>, 'UpdateChannel'>,
    private readonly channels: Pick<ChannelLookup, 'find' | 'changed'>,
    readonly integrations: Pick<ChannelIntegrations, 'of'>,
    private readonly deadlineMs: number,
  ) {}

  async resolve(event: OutboxEventDoc): Promise<Resolved> {
    const channel = await this.channels.find(event.tenantId, event.channelId);
    if (!channel) return { cancel: 'the channel no longer exists' };
    const secrets = signingSecrets(channel);
    if (event.target === 'channel') {
      if (!channel.webhookEnabled || !channel.webhookUrl) return { cancel: 'the channel webhook is switched off' };
      if (event.method === 'message' && !channel.webhookIncoming)
        return { cancel: 'incoming messages are switched off for the channel webhook' };
      return { url: channel.webhookUrl, secrets };
    }
    const integration = (await this.integrations.of(event.tenantId, event.channelId))?.find((i) => i.apiId === event.apiId);
    const url = integration && event.urlField ? integration[event.urlField] : '';
    if (!url) return { cancel: `the integration has no ${event.urlField || 'callback URL'} any more` };
    return { url, secrets };
  }

  /** After a 410 switched the webhook off: the next event of the channel must see it. */
  async disableChannelWebhook(tenantId: number, channelId: number): Promise<void> {
    await this.tenants.UpdateChannel({ id: channelId, webhookEnabled: false, rotateWebhookSecret: false }, { deadlineMs: this.deadlineMs });
    this.channels.changed();
  }
}

/** The relay's targets: channels and integrations read from tenants, each kept `cacheMs`. */
export function relayTargets(tenants: ServiceClient<'tenants'>, cacheMs: number, deadlineMs: number): Targets {
  return new Targets(
    tenants,
    new ChannelLookup(tenants, cacheMs, deadlineMs),
    new ChannelIntegrations(tenants, cacheMs, deadlineMs),
    deadlineMs,
  );
}

/** The previous secret signs too until its overlap ends (tenants only returns it while it does). */
function signingSecrets(channel: Channel): string[] {
  const previousValid = channel.webhookSecretPrevious && Date.parse(channel.webhookSecretPreviousUntil) > Date.now();
  return [channel.webhookSecret, ...(previousValid ? [channel.webhookSecretPrevious] : [])].filter(Boolean);
}
