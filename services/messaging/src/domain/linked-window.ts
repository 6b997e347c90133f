import { TtlCache, type ServiceClient, type proto } from '@convo/kit';

type Channel = proto.tenants.Channel__Output;

/** Kinds a waba channel may link in coexistence (tenants' COEXISTENCE_TRANSPORTS). */
const TRANSPORTS = new Set(['whatsapp', 'engine_a', 'engine_b', 'engine_c', 'engine_g']);

/**
 * Coexistence: a waba channel and its linked engine are one WhatsApp number, so a contact writing
 * to the engine writes to the number, and Meta's 24-hour window opens for the official channel too.
 * The contact's window on the waba channel moves (its contact and current ticket, no ticket opened),
 * so that a send there, and routeVia "auto" back through the link, are accepted.
 */
export class LinkedWindows {
  /** Per tenant: its waba channels in coexistence, by the id of the channel each links. */
  private readonly links: TtlCache<number, Map<number, Channel>>;

  constructor(
    private readonly peers: { tickets: ServiceClient<'tickets'>; tenants: ServiceClient<'tenants'> },
    channelCacheMs: number,
  ) {
    this.links = new TtlCache(channelCacheMs, 10_000, 'coexistence_links');
  }

  /** The contact wrote to `channel` at `inboundAt` (ISO): the waba channel linking it, if any, learns it. */
  async contactWrote(channel: Channel, number: string, name: string, inboundAt: string): Promise<void> {
    if (!TRANSPORTS.has(channel.type) || !number) return;
    const waba = (await this.linksOf(channel.tenantId)).get(channel.id);
    if (!waba) return;
    await this.peers.tickets.OpenForContact({
      tenantId: waba.tenantId,
      channelId: waba.id,
      number,
      email: '',
      name,
      inboundAt,
      windowOnly: true,
    });
  }

  private async linksOf(tenantId: number): Promise<Map<number, Channel>> {
    const hit = this.links.get(tenantId);
    if (hit) return hit;
    const { channels } = await this.peers.tenants.ListChannels({ tenantId });
    const links = new Map(
      channels.filter((c) => c.type === 'waba' && c.hybridMode === 'coexistence' && c.linkedChannelId).map((c) => [c.linkedChannelId!, c]),
    );
    this.links.set(tenantId, links);
    return links;
  }
}
