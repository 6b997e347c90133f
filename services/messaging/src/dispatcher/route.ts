import { isBsuid, type proto } from '@convo/kit';
import type { ChannelLookup } from '../channels/channel-lookup';
import type { MessageDoc } from '../db/models';

type Channel = proto.tenants.Channel__Output;

/**
 * Coexistence: the interactive types a waba channel's linked engine carries (in its own dialect:
 * channel-engines' waba-on-engine), and the engine kinds that can. Templates never leave that way.
 */
const LINKED_INTERACTIVE = new Set(['waba/button', 'waba/list']);
const INTERACTIVE_CARRIERS = new Set(['engine_a', 'engine_b', 'engine_c']);

/** The channel a message leaves through now, and how its record names that way (`via`). */
export interface Route {
  through: Channel;
  via: string;
}

/**
 * The way a message leaves, decided now (the link may have gone down since acceptance): on a
 * waba channel in coexistence, a routeVia "auto" message still inside the contact's window (as
 * acceptance read it) leaves through the linked channel while that one is CONNECTED, buttons and
 * lists too when the linked engine shows them; templates, out-of-window messages, and everything
 * while the link is down take the official API. Other kinds leave through their own channel (no
 * `via` recorded).
 */
export async function routeOf(message: MessageDoc, channel: Channel, to: string, channels: Pick<ChannelLookup, 'find'>): Promise<Route> {
  // Other kinds have one way out: nothing to record (a field every message would carry).
  if (channel.type !== 'waba') return { through: channel, via: '' };
  const divert =
    message.routeVia === 'auto' &&
    // An engine reaches a phone, never a BSUID.
    !isBsuid(to) &&
    (!message.interactiveType || LINKED_INTERACTIVE.has(message.interactiveType)) &&
    channel.hybridMode === 'coexistence' &&
    !!channel.linkedChannelId &&
    (message.windowUntil?.getTime() ?? 0) > Date.now();
  if (divert) {
    const linked = await channels.find(message.tenantId, channel.linkedChannelId!).catch(() => null);
    const carries = !message.interactiveType || INTERACTIVE_CARRIERS.has(linked?.type ?? '');
    if (linked?.status === 'CONNECTED' && carries) return { through: linked, via: 'linked' };
  }
  return { through: channel, via: 'official' };
}
