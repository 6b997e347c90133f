import { registerEnumType } from 'type-graphql';
import { CHANNEL_TYPES } from '../channel-types';

/**
 * A GraphQL enum whose value names are the domain's own values (`fanned_out`, `engine_a`): the
 * answers carry the same words as REST. Only for values that are GraphQL names; a domain value
 * that is not (`message.status`) needs an explicit `{ message_status: 'message.status' }` map.
 */
export function domainEnum<const T extends string>(values: readonly T[], name: string, description?: string): { [K in T]: K } {
  const map = Object.fromEntries(values.map((v) => [v, v])) as { [K in T]: K };
  registerEnumType(map, { name, description });
  return map;
}

/**
 * The channel kinds, one definition for the two subgraphs that expose them (tenants: Channel.type;
 * channel-engines: the driver of a delivery), as federation composes only identical enums.
 */
export const ChannelTypeEnum = domainEnum(
  CHANNEL_TYPES,
  'ChannelType',
  'The kind of a channel (session), which picks its provider driver.',
);
