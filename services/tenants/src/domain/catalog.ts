// The enumerations of the seed and the decisions that map one vocabulary onto another
// (docs/api/tenant.md). Everything here is data; the rules that use it live beside it.
import { CHANNEL_TYPES, GATEWAY_ALIASES, PAYMENT_GATEWAYS, UNOFFICIAL_TYPES, type ChannelType, type PaymentGateway } from '@convo/kit';

export const TENANT_STATUSES = ['active', 'inactive'] as const;
export const PROFILES = ['admin', 'user'] as const;
export const PAYMENT_STATUSES = ['paid', 'pending', 'overdue', 'refunded', 'canceled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
/** The seed's name of a gateway named either way; undefined for anything else. */
export const canonicalGateway = (name: string): PaymentGateway | undefined =>
  isOneOf(PAYMENT_GATEWAYS, name)
    ? name
    : Object.prototype.hasOwnProperty.call(GATEWAY_ALIASES, name)
      ? GATEWAY_ALIASES[name as keyof typeof GATEWAY_ALIASES]
      : undefined;
export const ENABLED_DISABLED = ['enabled', 'disabled'] as const;

export const CHANNEL_STATUSES = ['DISCONNECTED', 'CONNECTED'] as const;
// Channel kinds are the kit's (channel-engines has a driver for each).
export { CHANNEL_TYPES, UNOFFICIAL_TYPES, type ChannelType };
// The payment gateways and their real names are the kit's (the gateway validates with them too).
export { GATEWAY_ALIASES, PAYMENT_GATEWAYS, type PaymentGateway };

export const HYBRID_MODES = ['disabled', 'two_numbers', 'coexistence'] as const;
export type HybridMode = (typeof HYBRID_MODES)[number];
/**
 * Transports a coexistence link accepts: the QR-code companion engines (engine_a/b/c and
 * `whatsapp`), which run beside the WhatsApp Business app on the same number, and engine_g, the
 * engine the seed names for the hybrid mode. Any unofficial engine may be the second number of
 * `two_numbers`.
 */
export const COEXISTENCE_TRANSPORTS: readonly string[] = ['whatsapp', 'engine_a', 'engine_b', 'engine_c', 'engine_g'];

export const MENU_VISIBILITY = [
  'Groups',
  'MassDispatch',
  'Kanban',
  'Tasks',
  'Api',
  'ChatBot',
  'Reports',
  'Campaigns',
  'PrivateChat',
  'Teams',
  'AllowedChannels',
] as const;

export const ALLOWED_CHANNELS = [
  'waba',
  'engine_a',
  'engine_d',
  'engine_e',
  'engine_f',
  'engine_g',
  'engine_h',
  'engine_c',
  'engine_b',
  'chat_a',
  'hub',
  'webchat',
  'marketplace_a',
  'marketplace_b',
  'social_c',
  'social_d',
  'social_e',
  'shop_a',
  'shop_b',
  'webmail',
  'email',
  'waba_oauth',
  'provider_a',
  'provider_b',
  'social_a_oauth',
  'social_b_oauth',
] as const;

/**
 * The allowedChannels entries that admit each session type. The first entry is also the key
 * under which channelConnectionLimits counts the type's channels (`whatsapp` counts as engine_a).
 * `hub` limits hub channels, a kind this installation does not create.
 */
export const CHANNEL_ENTRIES: Record<ChannelType, readonly string[]> = {
  whatsapp: ['engine_a'],
  engine_a: ['engine_a'],
  engine_b: ['engine_b'],
  engine_c: ['engine_c'],
  engine_d: ['engine_d'],
  engine_e: ['engine_e'],
  engine_f: ['engine_f'],
  engine_g: ['engine_g'],
  engine_h: ['engine_h'],
  waba: ['waba', 'waba_oauth'],
  social_a: ['social_a_oauth'],
  social_b: ['social_b_oauth'],
  webchat: ['webchat'],
  marketplace: ['marketplace_a', 'marketplace_b'],
  webmail: ['webmail', 'email'],
};

export const limitKeyOf = (type: ChannelType): string => CHANNEL_ENTRIES[type][0];

/** `waba_oauth` is counted as `waba`; every other allowedChannels value is its own key. */
export const LIMIT_KEY_ALIASES: Record<string, string> = { waba_oauth: 'waba' };

export const isOneOf = <T extends string>(values: readonly T[], v: string | undefined): v is T =>
  v !== undefined && (values as readonly string[]).includes(v);
