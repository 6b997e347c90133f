import { BSUID_PATTERN, LID_PATTERN } from '@convo/kit';

/**
 * The records the REST facade answers with (presenters.ts), as JSON Schema for the OpenAPI
 * document: every field listed, none beyond them (additionalProperties: false), so the e2e suite's
 * answer check (test/support/answer-check.ts) fails on any field added or renamed without them.
 */
export type Schema = Record<string, unknown>;

export const str = { type: 'string' };
export const int = { type: 'integer' };
export const bool = { type: 'boolean' };
export const nullable = (type: string) => ({ type: [type, 'null'] });
export const obj = (properties: Record<string, Schema>, required = Object.keys(properties), extra: Schema = {}) => ({
  type: 'object',
  properties,
  required,
  ...extra,
});
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const ErrorEnvelope = obj(
  {
    success: { const: false },
    error: { ...str, description: 'ERR_… code (docs/api/README.md, "Errors")' },
    message: { ...str, description: 'For a person' },
    details: {
      type: 'array',
      maxItems: 20,
      items: {
        anyOf: [
          obj({ field: str, message: str }),
          obj(
            { provider: str, status: { ...int, description: "The provider's HTTP status" }, transient: { ...bool, description: 'Worth retrying' } },
            ['provider'],
            { description: "ERR_PROVIDER_FAILED: the provider's answer (its body, code or trace id where it gave them)" },
          ),
        ],
      },
    },
    truncated: { ...bool, description: 'More than 20 field errors' },
  },
  ['success', 'error', 'message'],
  { examples: [{ success: false, error: 'ERR_VALIDATION', message: 'Invalid body', details: [{ field: 'ticketId', message: 'must be >= 1' }] }] },
);

export const Success = obj({ success: { const: true }, data: {} }, ['success', 'data'], { description: 'Every answer of success: `data` is the operation\'s result' });

/** A record: every field listed (presenters.ts), none beyond them. */
export const record = (properties: Record<string, Schema>, required = Object.keys(properties), extra: Schema = {}) =>
  obj(properties, required, { additionalProperties: false, ...extra });
export const list = (items: Schema) => ({ type: 'array', items });
export const ints = list(int);
export const strs = list(str);

/**
 * A contact's identities as every answer shows them (docs/api/contact-identities.md): `number`
 * always, the others only when known.
 */
const IDENTITIES = {
  number: { ...str, description: 'The phone number\'s digits (on social channels the platform user id); "" when the contact has none, known only by its BSUID or LID' },
  bsuid: { ...str, pattern: BSUID_PATTERN, description: 'waba: the business-scoped user id Meta gives the contact (`CC.<alphanumeric>`); when known' },
  parentBsuid: { ...str, pattern: BSUID_PATTERN, description: 'waba: the parent BSUID (`CC.ENT.<alphanumeric>`) where the business has one; when known' },
  lid: { ...str, pattern: LID_PATTERN, description: 'Unofficial engines: the contact\'s LID (`<digits>@lid`); when known' },
  username: { ...str, description: 'waba: the contact\'s WhatsApp username, for display only (it changes); when known' },
};
const requiredBut = (properties: Record<string, Schema>, optional: string[]) => Object.keys(properties).filter((k) => !optional.includes(k));
const SOMETIMES_KNOWN = ['bsuid', 'parentBsuid', 'lid', 'username'];
const TicketContact = { id: int, ...IDENTITIES, name: str, email: nullable('string') };

export const LastMessage = { type: ['object', 'null'], properties: { messageId: str, body: str, direction: str, at: str }, additionalProperties: false };

export const Ticket = record(
  {
    id: int,
    ticketId: int,
    status: { enum: ['open', 'pending', 'closed'] },
    whatsappId: int,
    contact: record(TicketContact, requiredBut(TicketContact, SOMETIMES_KNOWN)),
    userId: nullable('integer'),
    queueId: nullable('integer'),
    chatFlowId: nullable('integer'),
    kanbanId: nullable('integer'),
    reasonId: nullable('integer'),
    value: nullable('number'),
    externalKey: nullable('string'),
    botBuilderStatus: bool,
    llmAssistantStatus: bool,
    workflowStatus: bool,
    tagIds: ints,
    createdAt: str,
    updatedAt: str,
    closedAt: nullable('string'),
    paused: bool,
    pauseReason: nullable('string'),
    pausedAt: nullable('string'),
    evaluation: {
      type: ['object', 'null'],
      properties: { sentAt: str, messageId: str, answer: nullable('string'), answeredAt: nullable('string') },
      additionalProperties: false,
    },
    lastMessage: { ...LastMessage, description: 'Reads only: the newest message, null when there is none' },
  },
  ['id', 'ticketId', 'status', 'whatsappId', 'contact', 'tagIds', 'createdAt', 'updatedAt', 'paused', 'evaluation'],
);

export const Message = record({
  messageId: str,
  ticketId: int,
  whatsappId: int,
  direction: { enum: ['in', 'out'] },
  body: str,
  status: str,
  mediaUrl: nullable('string'),
  mimeType: nullable('string'),
  fileName: nullable('string'),
  subject: nullable('string'),
  interactive: { type: ['object', 'null'], properties: { type: str, content: {} }, description: 'Interactive sends: "<route>/<type>" and the content sent' },
  error: nullable('string'),
  providerMessageId: nullable('string'),
  via: nullable('string'),
  createdAt: str,
  updatedAt: str,
});

export const Note = record({ id: int, notes: str, ticketId: int, userId: nullable('integer'), idFront: nullable('string'), createdAt: str, updatedAt: str });

const ContactFields = {
  id: int,
  ...IDENTITIES,
  name: str,
  email: nullable('string'),
  firstName: nullable('string'),
  lastName: nullable('string'),
  businessName: nullable('string'),
  externalKey: nullable('string'),
  whatsappId: int,
  tagIds: ints,
  kanban: { ...nullable('integer'), description: "The contact's kanban column (updateContactKanban)" },
  walletIds: { ...ints, description: 'The users who own the contact (updateContactWallet)' },
  createdAt: str,
  updatedAt: str,
};
export const Contact = record(ContactFields, requiredBut(ContactFields, SOMETIMES_KNOWN));

export const CatalogItem = record({ id: int, name: str, createdAt: str });
export const KanbanColumn = record({ id: int, name: str, position: nullable('integer'), createdAt: str });
export const ChannelSummary = record({
  id: int,
  name: str,
  type: str,
  status: { enum: ['CONNECTED', 'DISCONNECTED'] },
  number: { ...nullable('string'), description: "waba: the phone-number id (tokenAPI); other kinds: null (the engine's number is not stored)" },
  wabaId: nullable('string'),
  pageId: nullable('string'),
  emailAddress: nullable('string'),
  hybridMode: str,
  linkedChannelId: nullable('integer'),
  createdAt: str,
  updatedAt: str,
});
export const User = record({ id: int, name: str, email: str, profile: str });
export const Pause = record({
  id: int,
  ticketId: int,
  pauseReason: str,
  startedAt: str,
  endedAt: nullable('string'),
  endedBy: nullable('string'),
  durationSeconds: nullable('integer'),
});

export const Tenant = record(
  {
    id: int,
    name: str,
    status: str,
    maxUsers: int,
    maxConnections: int,
    identity: nullable('string'),
    planId: nullable('integer'),
    paymentGateway: nullable('string'),
    gateway_a: { enum: ['enabled', 'disabled'] },
    paymentStatus: nullable('string'),
    supportChatEnabled: { enum: ['enabled', 'disabled'] },
    menuVisibility: strs,
    allowedChannels: strs,
    channelConnectionLimits: { type: 'object', additionalProperties: int },
    oauthEnabled: bool,
    oauthProxyUrl: nullable('string'),
    social_aWebhookProxyUrl: nullable('string'),
    social_aWebhookProxySecret: { ...nullable('string'), description: 'Masked (`****abcd`)' },
    social_bWebhookProxyUrl: nullable('string'),
    social_bWebhookProxySecret: { ...nullable('string'), description: 'Masked (`****abcd`)' },
    createdAt: str,
    updatedAt: str,
  },
  ['id', 'name', 'status', 'maxUsers', 'maxConnections', 'createdAt', 'updatedAt'],
  {
    description: 'The tenant record (docs/api/tenant.md); each stored payment-gateway account adds `<gateway>CustomerId` and `<gateway>Token` (masked)',
    patternProperties: { '^[a-z_]+(CustomerId|Token)$': str },
  },
);

export const Channel = record(
  {
    id: int,
    tenantId: int,
    name: str,
    status: str,
    type: str,
    tokenAPI: nullable('string'),
    wabaId: nullable('string'),
    hybridMode: str,
    linkedChannelId: nullable('integer'),
    engineUrl: { ...nullable('string'), description: 'A password in it is masked' },
    webhookEnabled: bool,
    webhookUrl: nullable('string'),
    webhookIncoming: bool,
    webhookSecret: { ...nullable('string'), description: 'Signs the customer webhooks (docs/webhooks.md)' },
    webhookSecretPrevious: { ...str, description: 'During a rotation: still signs until webhookSecretPreviousUntil' },
    webhookSecretPreviousUntil: str,
    pageId: nullable('string'),
    emailAddress: nullable('string'),
    sendIntervalMs: nullable('integer'),
    createdAt: str,
    updatedAt: str,
  },
  ['id', 'tenantId', 'name', 'status', 'type', 'hybridMode', 'webhookEnabled', 'webhookIncoming', 'createdAt', 'updatedAt'],
  { description: 'A channel (session); provider secrets are never returned' },
);

export const ApiIntegration = record(
  {
    apiId: str,
    name: str,
    sessionId: int,
    userId: int,
    tenant: int,
    urlServiceStatus: nullable('string'),
    urlMessageStatus: nullable('string'),
    authToken: { ...str, description: 'Only in the answer that creates it' },
    createdAt: str,
  },
  ['apiId', 'name', 'sessionId', 'tenant', 'createdAt'],
);

export const Hybrid = {
  oneOf: [
    record({ applied: { const: true }, whatsappId: int, hybridMode: str, linkedChannelId: nullable('integer') }),
    record({ applied: { const: false }, error: { ...str, description: 'The seed\'s ERR_HYBRID_… code' } }),
  ],
};

export const WebchatMessage = record({
  id: str,
  text: str,
  mediaUrl: nullable('string'),
  mimeType: nullable('string'),
  fileName: nullable('string'),
  interactiveType: nullable('string'),
  interactive: {},
  createdAt: str,
});
