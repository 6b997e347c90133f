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

/** A change to a message sent before: a reaction, an edit of its text, its deletion for everyone. */
export type MessageChange = 'react' | 'edit' | 'delete';

/**
 * The changes each kind's provider takes (CONVENTIONS.md "The whole conversation"): messaging refuses
 * the others at acceptance (ERR_CHANNEL_MISMATCH), and channel-engines' driver of each kind listed
 * sends them (its test checks the table against the drivers). The Cloud API and Messenger/Instagram
 * react but cannot edit or delete a business message.
 */
export const MESSAGE_CHANGES: Partial<Record<ChannelType, readonly MessageChange[]>> = {
  waba: ['react'],
  social_a: ['react'],
  social_b: ['react'],
  engine_a: ['react', 'edit', 'delete'],
  engine_b: ['react', 'edit', 'delete'],
  engine_c: ['react', 'edit', 'delete'],
  engine_d: ['react', 'edit', 'delete'],
  engine_e: ['react', 'edit', 'delete'],
  engine_f: ['react', 'edit', 'delete'],
  engine_g: ['react', 'edit', 'delete'],
  engine_h: ['react', 'edit', 'delete'],
  // whatsapp-web.js REST (chrishubert/whatsapp-api) has react and delete routes, none to edit.
  whatsapp: ['react', 'delete'],
};

/** Whether a kind's provider takes this change. */
export const takesChange = (kind: string, change: MessageChange): boolean =>
  MESSAGE_CHANGES[kind as ChannelType]?.includes(change) ?? false;

/** Instagram (social_a) reacts with one reaction, the heart (Meta's `reaction: "love"`); Messenger with any emoji. */
export const INSTAGRAM_HEARTS: readonly string[] = ['❤️', '❤', 'love'];

/** Why a kind cannot show this reaction ('' when it can; "" removes a reaction everywhere). */
export function reactionProblem(kind: string, emoji: string): string {
  return kind === 'social_a' && emoji && !INSTAGRAM_HEARTS.includes(emoji) ? 'must be ❤️ on social_a (Instagram) channels' : '';
}
