import { TtlCache, type proto, type ServiceClient } from '@convo/kit';
import { orNullIfMissing } from './channel-lookup';

type Integration = proto.tenants.ApiIntegration__Output;

/**
 * A channel's API integrations (their callback URLs), kept for a few seconds: the dispatcher asks
 * whether anyone listens for a message's statuses, the relay where a status event goes.
 */
export class ChannelIntegrations {
  private readonly integrations: TtlCache<string, Integration[] | null>;

  constructor(
    private readonly tenants: Pick<ServiceClient<'tenants'>, 'ListChannelIntegrations'>,
    cacheMs: number,
    private readonly deadlineMs: number,
  ) {
    this.integrations = new TtlCache(cacheMs, 10_000, 'integration');
  }

  /** null: the channel is gone. */
  of(tenantId: number, channelId: number): Promise<Integration[] | null> {
    return this.integrations.getOrLoad(`${tenantId}:${channelId}`, async () => {
      const list = await orNullIfMissing(this.tenants.ListChannelIntegrations({ tenantId, channelId }, { deadlineMs: this.deadlineMs }));
      return list?.integrations ?? null;
    });
  }
}
