import Type, { type Static } from 'typebox';
import { Envelope, Exact, Nullable, OneOf } from './envelopes';

/**
 * The answers of the tenant API about channels and their integrations (tenantApiCreateSession,
 * PUT /whatsapp/{id}, tenantCreateApi, tenantDeleteApi); their requests are in tenant.schemas.ts.
 */

/** A channel (session); provider secrets are never returned. */
export const Channel = Exact(
  {
    id: Type.Integer(),
    tenantId: Type.Integer(),
    name: Type.String(),
    status: Type.String(),
    type: Type.String(),
    tokenAPI: Type.Optional(Nullable('string')),
    wabaId: Type.Optional(Nullable('string')),
    hybridMode: Type.String(),
    linkedChannelId: Type.Optional(Nullable('integer')),
    engineUrl: Type.Optional(Nullable('string', { description: 'A password in it is masked' })),
    webhookEnabled: Type.Boolean(),
    webhookUrl: Type.Optional(Nullable('string')),
    webhookIncoming: Type.Boolean(),
    webhookSecret: Type.Optional(Nullable('string', { description: 'Signs the customer webhooks (docs/webhooks.md)' })),
    webhookSecretPrevious: Type.Optional(Type.String({ description: 'During a rotation: still signs until webhookSecretPreviousUntil' })),
    webhookSecretPreviousUntil: Type.Optional(Type.String()),
    pageId: Type.Optional(Nullable('string')),
    emailAddress: Type.Optional(Nullable('string')),
    sendIntervalMs: Type.Optional(Nullable('integer')),
    marketingMessagesApi: Type.Optional(
      Type.Boolean({ description: "waba: MARKETING templates go through Meta's Marketing Messages API (marketing_messages)" }),
    ),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'Channel', description: 'A channel (session); provider secrets are never returned' },
);
export type ChannelRecord = Static<typeof Channel>;

export const ApiIntegration = Exact(
  {
    apiId: Type.String(),
    name: Type.String(),
    sessionId: Type.Integer(),
    userId: Type.Optional(Type.Integer()),
    tenant: Type.Integer(),
    urlServiceStatus: Type.Optional(Nullable('string')),
    urlMessageStatus: Type.Optional(Nullable('string')),
    authToken: Type.Optional(Type.String({ description: 'Only in the answer that creates it' })),
    createdAt: Type.String(),
  },
  { $id: 'ApiIntegration' },
);
export type ApiRecord = Static<typeof ApiIntegration>;

/** `data.hybrid`: the link as applied, or the seed's error code. */
export const Hybrid = OneOf(
  [
    Exact({ applied: Type.Literal(true), whatsappId: Type.Integer(), hybridMode: Type.String(), linkedChannelId: Nullable('integer') }),
    Exact({ applied: Type.Literal(false), error: Type.String({ description: "The seed's ERR_HYBRID_… code" }) }),
  ],
  { $id: 'Hybrid' },
);
export type HybridRecord = Static<typeof Hybrid>;

export const CreateSessionResult = Envelope(
  Exact({
    id: Type.Integer({ description: 'The new channel (= whatsapp.id)' }),
    whatsapp: Channel,
    api: ApiIntegration,
    hybrid: Type.Optional(Hybrid),
  }),
  { $id: 'CreateSessionResult' },
);
export const ChannelResult = Envelope(Exact({ whatsapp: Channel, hybrid: Type.Optional(Hybrid) }), { $id: 'ChannelResult' });
export const ApiResult = Envelope(Exact({ api: ApiIntegration }), { $id: 'ApiResult' });
export const ApiDeleted = Envelope(Exact({ apiId: Type.String(), deleted: Type.Boolean() }), { $id: 'ApiDeleted' });
