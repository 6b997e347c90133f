import { GATEWAY_ALIASES, PAYMENT_GATEWAYS } from '@convo/kit';
import Type, { type Static } from 'typebox';
import { rule } from '../validation/rules';
import { Count, Id, NonEmpty, StringEnum } from './common';
import { Envelope, Exact, Nullable } from './envelopes';
import { gatewayAliasFields } from './payment-aliases';

export const SESSION_TYPES = [
  'whatsapp',
  'engine_a',
  'engine_b',
  'engine_c',
  'engine_d',
  'engine_e',
  'engine_f',
  'engine_g',
  'engine_h',
  'waba',
  'social_a',
  'social_b',
  'webchat',
  'marketplace',
  'webmail',
] as const;

const gatewayPairs = Object.fromEntries(
  PAYMENT_GATEWAYS.flatMap((g) => [
    [`${g}CustomerId`, Type.Optional(Type.String({ minLength: 1, maxLength: 256 }))],
    [`${g}Token`, Type.Optional(Type.String({ minLength: 1, maxLength: 1024 }))],
  ]),
);

/** Store: send only the pair of the chosen gateway. */
function strayPairs(b: Record<string, unknown>) {
  const gw = typeof b.paymentGateway === 'string' ? b.paymentGateway : '';
  return PAYMENT_GATEWAYS.filter((g) => g !== gw).flatMap((g) =>
    [`${g}CustomerId`, `${g}Token`]
      .filter((f) => b[f] !== undefined)
      .map((field) => ({
        field,
        message: gw ? `does not belong to ${gw}` : 'needs paymentGateway',
      })),
  );
}

export const StoreTenantBody = Type.Object(
  {
    status: StringEnum(['active', 'inactive']),
    name: NonEmpty('Company name', 200),
    maxUsers: Count({ description: 'Ignored when planId is given' }),
    maxConnections: Count({ description: 'Ignored when planId is given; 0 = unlimited' }),
    acceptTerms: Type.Boolean({ description: 'Must be true' }),
    email: Type.String({ format: 'email', maxLength: 254, description: 'Administrator e-mail' }),
    password: Type.String({ minLength: 8, maxLength: 256, description: 'At least 8 characters with digits and special characters' }),
    userName: NonEmpty('Administrator full name', 200),
    profile: StringEnum(['admin', 'user']),
    planId: Type.Optional(Id('Plan whose limits override maxUsers and maxConnections')),
    identity: Type.Optional(
      Type.String({ maxLength: 32, description: 'Tax id (CPF/CNPJ); one tenant per identity; the key of tenantApiUpdateTenant' }),
    ),
    paymentGateway: Type.Optional(
      StringEnum(PAYMENT_GATEWAYS, { description: `Or the real name: ${Object.keys(GATEWAY_ALIASES).join(', ')}` }),
    ),
    gateway_a: Type.Optional(StringEnum(['enabled'], { description: 'Legacy gateway_a mode flag; sent with gateway_a' })),
    ...gatewayPairs,
    ...gatewayAliasFields(['enabled']),
  },
  rule('storeTenant', strayPairs),
);
export type StoreTenantBody = Static<typeof StoreTenantBody> & Record<string, unknown>;

export const ShowTenantBody = Type.Object({ id: Id('Tenant id') });

export const ListTenantsQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Default 1' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default 20, at most 100' })),
  status: Type.Optional(StringEnum(['active', 'inactive'])),
  name: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive "contains", matched literally' })),
});
export type ListTenantsQuery = Static<typeof ListTenantsQuery>;

/** Dispatcher pacing of one channel: least milliseconds between two sends (0: unpaced), at most a minute. */
const SendIntervalMs = Type.Integer({
  minimum: 0,
  maximum: 60_000,
  description: "least milliseconds between two sends on the channel; unset: the kind's default",
});
const optionalUrl = Type.Optional(Type.String({ maxLength: 2048 }));
const namesList = (description: string) => Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64, description }));

export const UpdateTenantBody = Type.Object({
  identity: Type.String({ minLength: 1, maxLength: 32, description: 'Tax id of the tenant to update' }),
  status: Type.Optional(StringEnum(['active', 'inactive'])),
  maxUsers: Type.Optional(Count()),
  maxConnections: Type.Optional(Count({ description: '0 = unlimited; a plan’s limit wins' })),
  paymentGateway: Type.Optional(
    StringEnum([...PAYMENT_GATEWAYS, 'none'], {
      description: `none clears the gateway; or the real name: ${Object.keys(GATEWAY_ALIASES).join(', ')}`,
    }),
  ),
  gateway_a: Type.Optional(StringEnum(['enabled', 'disabled'], { description: 'Legacy gateway_a mode' })),
  ...gatewayPairs,
  ...gatewayAliasFields(['enabled', 'disabled']),
  supportChatEnabled: Type.Optional(StringEnum(['enabled', 'disabled'])),
  menuVisibility: namesList('Groups, MassDispatch, Kanban, Tasks, Api, ChatBot, Reports, Campaigns, PrivateChat, Teams, AllowedChannels'),
  allowedChannels: namesList('Channel types of the seed; empty = every type'),
  channelConnectionLimits: Type.Optional(
    Type.Record(Type.String({ maxLength: 64 }), Type.Integer({ minimum: 0, maximum: 1_000_000 }), {
      description: 'Per channel type (allowedChannels values); 0 = unlimited; replaces the stored limits',
    }),
  ),
  oauthEnabled: Type.Optional(Type.Boolean()),
  oauthProxyUrl: optionalUrl,
  social_aWebhookProxyUrl: optionalUrl,
  social_aWebhookProxySecret: Type.Optional(Type.String({ maxLength: 1024, description: 'Returned masked' })),
  social_bWebhookProxyUrl: optionalUrl,
  social_bWebhookProxySecret: Type.Optional(Type.String({ maxLength: 1024, description: 'Returned masked' })),
});
export type UpdateTenantBody = Static<typeof UpdateTenantBody> & Record<string, unknown>;

/**
 * Link fields are taken as sent: a value that is not a valid id or mode is a `data.hybrid` error,
 * not a request error, since the channel is created (or edited) regardless.
 */
const linkField = (description: string) => Type.Optional(Type.Unknown({ description }));

export const CreateSessionBody = Type.Object({
  tenant: Id('Tenant id'),
  name: NonEmpty('Channel name', 200),
  status: Type.Optional(StringEnum(['DISCONNECTED', 'CONNECTED'])),
  type: StringEnum(SESSION_TYPES),
  tokenAPI: Type.Optional(Type.String({ pattern: '^[0-9]+$', maxLength: 64, description: 'waba: phone-number id, digits only' })),
  wabaId: Type.Optional(Type.String({ maxLength: 64 })),
  bmToken: Type.Optional(Type.String({ maxLength: 1024 })),
  hybridMode: linkField('disabled (default), two_numbers or coexistence'),
  linkedChannelId: linkField('waba: the unofficial channel that becomes the transport'),
  linkToWhatsappId: linkField('unofficial engine: the waba channel made to point at this one'),
  engineUrl: optionalUrl,
  engineToken: Type.Optional(Type.String({ maxLength: 1024 })),
  webhookEnabled: Type.Optional(Type.Boolean()),
  webhookUrl: optionalUrl,
  webhookIncoming: Type.Optional(Type.Boolean()),
  pageId: Type.Optional(Type.String({ maxLength: 64 })),
  pageToken: Type.Optional(Type.String({ maxLength: 1024 })),
  emailAddress: Type.Optional(Type.String({ maxLength: 254, description: 'webmail: the From address (required for webmail)' })),
  sendIntervalMs: Type.Optional(SendIntervalMs),
});
export type CreateSessionBody = Static<typeof CreateSessionBody>;

export const WhatsappParams = Type.Object({ whatsappId: Id('Channel id') });

export const UpdateWhatsappBody = Type.Object({
  name: Type.Optional(NonEmpty('Channel name', 200)),
  status: Type.Optional(StringEnum(['DISCONNECTED', 'CONNECTED'])),
  hybridMode: linkField('disabled, two_numbers or coexistence (waba only)'),
  linkedChannelId: linkField('waba: the transport channel; null clears the link'),
  engineUrl: optionalUrl,
  engineToken: Type.Optional(Type.String({ maxLength: 1024 })),
  webhookEnabled: Type.Optional(Type.Boolean()),
  webhookUrl: optionalUrl,
  webhookIncoming: Type.Optional(Type.Boolean()),
  pageId: Type.Optional(Type.String({ maxLength: 64 })),
  pageToken: Type.Optional(Type.String({ maxLength: 1024 })),
  emailAddress: Type.Optional(Type.String({ maxLength: 254, description: 'webmail: the From address' })),
  sendIntervalMs: Type.Optional(Type.Union([SendIntervalMs, Type.Null()], { description: "null: back to the kind's default pacing" })),
  rotateWebhookSecret: Type.Optional(
    Type.Boolean({ description: 'true: a new webhook signing secret; the old one also signs for 24 hours' }),
  ),
  marketingMessagesApi: Type.Optional(
    Type.Boolean({
      description: "waba only: MARKETING templates through Meta's Marketing Messages API (POST /{phone-number-id}/marketing_messages)",
    }),
  ),
});
export type UpdateWhatsappBody = Static<typeof UpdateWhatsappBody>;

const nullableUrl = (description: string) =>
  Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 2048, description }));

export const CreateApiBody = Type.Object({
  name: NonEmpty('Integration name', 200),
  sessionId: Id('A channel of the tenant'),
  urlServiceStatus: nullableUrl('Channel connection status callbacks'),
  urlMessageStatus: nullableUrl('Message status callbacks'),
  userId: Id('A user of the tenant'),
  authToken: Type.String({
    minLength: 32,
    maxLength: 512,
    description: 'Bearer token of the new integration (32+ characters); stored hashed',
  }),
  tenant: Id('Tenant id'),
});
export type CreateApiBody = Static<typeof CreateApiBody>;

export const DeleteApiBody = Type.Object({
  sessionId: Id(),
  userId: Id(),
  tenant: Id(),
  apiId: Type.String({ format: 'uuid', maxLength: 36 }),
});
export type DeleteApiBody = Static<typeof DeleteApiBody>;

export const PaymentWebhookParams = Type.Object({ gateway: Type.String({ maxLength: 32 }) });

// ---- answers -----------------------------------------------------------------------------------

const Flag = StringEnum(['enabled', 'disabled']);
const AT = '2026-11-26T12:00:00.000Z';

/** The tenant record of the tenant API; gateway tokens and proxy secrets come back masked (`****abcd`). */
export const Tenant = Exact(
  {
    id: Type.Integer(),
    name: Type.String(),
    status: Type.String(),
    maxUsers: Type.Integer(),
    maxConnections: Type.Integer(),
    identity: Type.Optional(Nullable('string')),
    planId: Type.Optional(Nullable('integer')),
    paymentGateway: Type.Optional(Nullable('string')),
    gateway_a: Type.Optional(Flag),
    paymentStatus: Type.Optional(Nullable('string')),
    supportChatEnabled: Type.Optional(Flag),
    menuVisibility: Type.Optional(Type.Array(Type.String())),
    allowedChannels: Type.Optional(Type.Array(Type.String())),
    channelConnectionLimits: Type.Optional(Type.Unsafe<Record<string, number>>({ type: 'object', additionalProperties: Type.Integer() })),
    oauthEnabled: Type.Optional(Type.Boolean()),
    oauthProxyUrl: Type.Optional(Nullable('string')),
    social_aWebhookProxyUrl: Type.Optional(Nullable('string')),
    social_aWebhookProxySecret: Type.Optional(Nullable('string', { description: 'Masked (`****abcd`)' })),
    social_bWebhookProxyUrl: Type.Optional(Nullable('string')),
    social_bWebhookProxySecret: Type.Optional(Nullable('string', { description: 'Masked (`****abcd`)' })),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    $id: 'Tenant',
    description:
      'The tenant record (docs/api/tenant.md); each stored payment-gateway account adds `<gateway>CustomerId` and `<gateway>Token` (masked)',
    patternProperties: { '^[a-z_]+(CustomerId|Token)$': Type.String() },
  },
);
export type TenantRecord = Static<typeof Tenant>;

export const TenantPage = Envelope(
  Exact({ tenants: Type.Array(Tenant), page: Type.Integer(), limit: Type.Integer(), total: Type.Integer(), hasMore: Type.Boolean() }),
  { $id: 'TenantPage' },
);
export const TenantResult = Envelope(Tenant, { $id: 'TenantResult' });
export const StoreTenantResult = Envelope(
  Exact({
    id: Type.Integer({ description: 'The new tenant (= tenant.id)' }),
    tenant: Tenant,
    adminUser: Exact({ id: Type.Integer(), tenantId: Type.Integer(), name: Type.String(), email: Type.String(), profile: Type.String() }),
  }),
  {
    $id: 'StoreTenantResult',
    example: {
      id: 7,
      tenant: { id: 7, name: 'Acme Ltda', status: 'active', maxUsers: 10, maxConnections: 5, createdAt: AT, updatedAt: AT },
      adminUser: { id: 12, tenantId: 7, name: 'Ana', email: 'ana@acme.example', profile: 'admin' },
    },
  },
);
