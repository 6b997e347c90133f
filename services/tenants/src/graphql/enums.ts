import { domainEnum } from '@convo/kit/graphql/enums';
import {
  ALLOWED_CHANNELS,
  CHANNEL_STATUSES,
  HYBRID_MODES,
  PAYMENT_GATEWAYS,
  PAYMENT_STATUSES,
  PROFILES,
  TENANT_STATUSES,
} from '../domain/catalog';

export { ChannelTypeEnum } from '@convo/kit/graphql/enums';

export const TenantStatusEnum = domainEnum(
  TENANT_STATUSES,
  'TenantStatus',
  'inactive: every integration of the tenant is refused (ERR_TENANT_INACTIVE).',
);
export const ChannelStatusEnum = domainEnum(CHANNEL_STATUSES, 'ChannelStatus', "The channel's connection to its provider.");
export const HybridModeEnum = domainEnum(
  HYBRID_MODES,
  'HybridMode',
  'How the channel is linked to another one on the same number (docs/api/tenant.md, hybrid links).',
);
export const PaymentGatewayEnum = domainEnum(PAYMENT_GATEWAYS, 'PaymentGateway');
export const PaymentStatusEnum = domainEnum(PAYMENT_STATUSES, 'PaymentStatus');
export const UserProfileEnum = domainEnum(PROFILES, 'UserProfile');
export const AllowedChannelEnum = domainEnum(
  ALLOWED_CHANNELS,
  'AllowedChannel',
  "An entry of a tenant's or plan's allowedChannels (the seed's vocabulary), admitting one or more channel types.",
);
