import { grpc, isServiceError, TtlCache, type proto, type ServiceClient } from '@convo/kit';

type Channel = proto.tenants.Channel__Output;

/** Any tenant's channel: the inbound path learns the tenant from the channel it finds. */
export const ANY_TENANT = 0;

/**
 * A tenant's channels as the tenants service has them, kept for a few seconds (CHANNEL_CACHE_MS):
 * channels change rarely and every send, inbound event and webhook needs one, so a short staleness
 * saves a hop each. One cache per process, whoever asks (acceptance, ingest, the dispatcher, the
 * relay):
 *
 * - callers missing the same channel at once share one read;
 * - a channel that is not there (NOT_FOUND) is never kept: one created a moment ago is found at
 *   the next ask, and one deleted is not served from a kept answer;
 * - a change this process makes to a channel (its connection status, its webhook switched off)
 *   drops everything kept, including reads under way, so the next ask sees the change.
 */
export class ChannelLookup {
  private readonly channels: TtlCache<string, Channel>;

  constructor(
    private readonly tenants: Pick<ServiceClient<'tenants'>, 'GetChannel' | 'FindChannelByAccount'>,
    cacheMs: number,
    /** Each read's deadline, when the client's own is not the one wanted. */
    private readonly deadlineMs?: number,
  ) {
    this.channels = new TtlCache(cacheMs, 10_000, 'channel');
  }

  /** The tenant's channel (ANY_TENANT: whoever's it is); another tenant's or none is NOT_FOUND, thrown. */
  get(tenantId: number, channelId: number): Promise<Channel> {
    return this.channels.getOrLoad(idKey(tenantId, channelId), () => this.tenants.GetChannel({ tenantId, channelId }, this.callOptions()));
  }

  /** As `get`, with null for a channel that is gone (deleted, or never existed). */
  find(tenantId: number, channelId: number): Promise<Channel | null> {
    return orNullIfMissing(this.get(tenantId, channelId));
  }

  /** The channel of a provider account (Meta's phone-number id, page id); none is NOT_FOUND, thrown. */
  byAccount(type: string, accountId: string): Promise<Channel> {
    return this.channels.getOrLoad(`${type}:${accountId}`, () =>
      this.tenants.FindChannelByAccount({ type, accountId }, this.callOptions()),
    );
  }

  /**
   * This process changed the channel: nothing kept from before is served again. `updated` (the
   * channel as the change left it, when the change answered it) is kept at once.
   */
  changed(updated?: Channel): void {
    this.channels.clear();
    if (!updated) return;
    this.channels.set(idKey(updated.tenantId, updated.id), updated);
    this.channels.set(idKey(ANY_TENANT, updated.id), updated);
  }

  private callOptions() {
    return this.deadlineMs === undefined ? {} : { deadlineMs: this.deadlineMs };
  }
}

const idKey = (tenantId: number, channelId: number) => `${tenantId}:${channelId}`;

/** null for NOT_FOUND; any other failure is thrown. */
export async function orNullIfMissing<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (err) {
    if (isServiceError(err) && err.code === grpc.status.NOT_FOUND) return null;
    throw err;
  }
}
