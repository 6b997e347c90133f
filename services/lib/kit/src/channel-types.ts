// The kinds of channel (session) the product has: the tenants service validates them, channel-engines
// has one driver per kind, and both subgraphs expose them as the one GraphQL enum ChannelType.

/** Unofficial WhatsApp engines; `whatsapp` is the default Baileys-style engine, i.e. engine_a. */
export const UNOFFICIAL_TYPES = [
  'whatsapp',
  'engine_a',
  'engine_b',
  'engine_c',
  'engine_d',
  'engine_e',
  'engine_f',
  'engine_g',
  'engine_h',
] as const;
/** The seed's session types, the social channels (CONVENTIONS.md) and the other channel kinds of the product. */
export const CHANNEL_TYPES = [...UNOFFICIAL_TYPES, 'waba', 'social_a', 'social_b', 'webchat', 'marketplace', 'webmail'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
