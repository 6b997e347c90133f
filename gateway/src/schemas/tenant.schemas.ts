import Type, { type Static } from 'typebox';
import { Id, NonEmpty, StringEnum } from './common';

export const PAYMENT_GATEWAYS = ['gateway_a', 'gateway_b', 'gateway_c', 'gateway_d'] as const;
export const SESSION_TYPES = [
  'whatsapp', 'engine_a', 'engine_b', 'engine_c', 'engine_d', 'engine_e', 'engine_f', 'engine_g', 'engine_h',
  'waba', 'social_a', 'social_b', 'webchat', 'marketplace', 'webmail',
] as const;

const gatewayPairs = Object.fromEntries(
  PAYMENT_GATEWAYS.flatMap((g) => [
    [`${g}CustomerId`, Type.Optional(Type.String({ minLength: 1, maxLength: 256 }))],
    [`${g}Token`, Type.Optional(Type.String({ minLength: 1, maxLength: 1024 }))],
  ]),
);

export const StoreTenantBody = Type.Object({
  status: StringEnum(['active', 'inactive']),
  name: NonEmpty('Company name', 200),
  maxUsers: Type.Integer({ minimum: 0, description: 'Ignored when planId is given' }),
  maxConnections: Type.Integer({ minimum: 0, description: 'Ignored when planId is given' }),
  acceptTerms: Type.Boolean({ description: 'Must be true' }),
  email: Type.String({ format: 'email', maxLength: 254, description: 'Administrator e-mail' }),
  password: Type.String({ minLength: 8, maxLength: 256, description: 'At least 8 characters with digits and special characters' }),
  userName: NonEmpty('Administrator full name', 200),
  profile: StringEnum(['admin', 'user']),
  planId: Type.Optional(Id('Plan whose limits override maxUsers and maxConnections')),
  identity: Type.Optional(Type.String({ maxLength: 32, description: 'Tax id (CPF/CNPJ)' })),
  paymentGateway: Type.Optional(StringEnum(PAYMENT_GATEWAYS)),
  gateway_a: Type.Optional(StringEnum(['enabled'], { description: 'Legacy gateway_a mode flag; sent with gateway_a' })),
  ...gatewayPairs,
});
export type StoreTenantBody = Static<typeof StoreTenantBody> & Record<string, unknown>;

export const ShowTenantBody = Type.Object({ id: Id('Tenant id') });

const optionalUrl = Type.Optional(Type.String({ maxLength: 2048 }));
export const CreateSessionBody = Type.Object({
  tenant: Id('Tenant id'),
  name: NonEmpty('Channel name', 200),
  status: Type.Optional(StringEnum(['DISCONNECTED', 'CONNECTED'])),
  type: StringEnum(SESSION_TYPES),
  tokenAPI: Type.Optional(Type.String({ pattern: '^[0-9]+$', maxLength: 64, description: 'waba: phone-number id, digits only' })),
  wabaId: Type.Optional(Type.String({ maxLength: 64 })),
  bmToken: Type.Optional(Type.String({ maxLength: 1024 })),
  hybridMode: Type.Optional(Type.String({ maxLength: 32 })),
  linkedChannelId: Type.Optional(Type.Unknown()),
  linkToWhatsappId: Type.Optional(Type.Unknown()),
  engineUrl: optionalUrl,
  engineToken: Type.Optional(Type.String({ maxLength: 1024 })),
  webhookEnabled: Type.Optional(Type.Boolean()),
  webhookUrl: optionalUrl,
  webhookIncoming: Type.Optional(Type.Boolean()),
  pageId: Type.Optional(Type.String({ maxLength: 64 })),
  pageToken: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type CreateSessionBody = Static<typeof CreateSessionBody>;
