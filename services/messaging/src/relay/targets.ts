import { grpc, isServiceError, TtlCache, type ServiceClient, type proto } from '@convo/kit';
import type { OutboxEventDoc } from '../outbox/outbox.models';

type Channel = proto.tenants.Channel__Output;
type Integration = proto.tenants.ApiIntegration__Output;

/** Where one event goes now, and the secrets that sign it (the current one first). */
export type Resolved = { url: string; secrets: string[] } | { cancel: string };

/**
 * Targets and secrets are read from tenants when an event is delivered, not when it was written:
 * a URL fixed or a secret rotated meanwhile applies to every retry. Answers are reused for a few
 * seconds, so a burst of events costs one lookup.
 */
export class Targets {
  private readonly channels: TtlCache<string, Channel | null>;
  private readonly integrations: TtlCache<string, Integration[] | null>;

  constructor(
    private readonly tenants: ServiceClient<'tenants'>,
    cacheMs: number,
    private readonly deadlineMs: number,
  ) {
    this.channels = new TtlCache(cacheMs, 10_000, 'channel');
    this.integrations = new TtlCache(cacheMs, 10_000, 'integration');
  }

  async resolve(event: OutboxEventDoc): Promise<Resolved> {
    const channel = await this.channel(event.tenantId, event.channelId);
    if (!channel) return { cancel: 'the channel no longer exists' };
    const secrets = signingSecrets(channel);
    if (event.target === 'channel') {
      if (!channel.webhookEnabled || !channel.webhookUrl) return { cancel: 'the channel webhook is switched off' };
      if (event.method === 'message' && !channel.webhookIncoming) return { cancel: 'incoming messages are switched off for the channel webhook' };
      return { url: channel.webhookUrl, secrets };
    }
    const integration = (await this.channelIntegrations(event.tenantId, event.channelId))?.find((i) => i.apiId === event.apiId);
    const url = integration && event.urlField ? integration[event.urlField] : '';
    if (!url) return { cancel: `the integration has no ${event.urlField || 'callback URL'} any more` };
    return { url, secrets };
  }

  /** null: the channel is gone (deleted, or never existed). */
  channel(tenantId: number, channelId: number): Promise<Channel | null> {
    return this.channels.getOrLoad(`${tenantId}:${channelId}`, () =>
      orNullIfMissing(this.tenants.GetChannel({ tenantId, channelId }, { deadlineMs: this.deadlineMs })),
    );
  }

  channelIntegrations(tenantId: number, channelId: number): Promise<Integration[] | null> {
    return this.integrations.getOrLoad(`${tenantId}:${channelId}`, async () => {
      const list = await orNullIfMissing(this.tenants.ListChannelIntegrations({ tenantId, channelId }, { deadlineMs: this.deadlineMs }));
      return list?.integrations ?? null;
    });
  }

  /** After a 410 switched the webhook off: the next event of the channel must see it. */
  async disableChannelWebhook(tenantId: number, channelId: number): Promise<void> {
    await this.tenants.UpdateChannel({ id: channelId, webhookEnabled: false, rotateWebhookSecret: false }, { deadlineMs: this.deadlineMs });
    this.channels.clear();
  }
}

/** The previous secret signs too until its overlap ends (tenants only returns it while it does). */
function signingSecrets(channel: Channel): string[] {
  const previousValid = channel.webhookSecretPrevious && Date.parse(channel.webhookSecretPreviousUntil) > Date.now();
  return [channel.webhookSecret, ...(previousValid ? [channel.webhookSecretPrevious] : [])].filter(Boolean);
}

async function orNullIfMissing<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (err) {
    if (isServiceError(err) && err.code === grpc.status.NOT_FOUND) return null;
    throw err;
  }
}
