import { isHttpUrl, type FieldIssue } from '@convo/kit';
import Type, { type Static } from 'typebox';
import { rule } from '../validation/rules';
import { Id, StringEnum } from './common';
import { Envelope, Exact, Nullable } from './envelopes';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
export const MEDIA_SOURCES = ['media', 'mediaUrl', 'base64Data'] as const;

export const isUpload = (v: unknown): v is UploadedFile => typeof v === 'object' && v !== null && Buffer.isBuffer((v as UploadedFile).data);

/**
 * A message's content: one media source at most, each well formed (a multipart file; an http(s)
 * URL; base64 with its mimeType and fileName, rewritten without a `data:` prefix or whitespace),
 * and a body when there is no file (unless `fileRequired`: the schema itself requires the source).
 * Whether a URL's host is public is the service's check.
 */
export function contentRules(b: Record<string, any>, fileRequired = false): FieldIssue[] {
  const sources = MEDIA_SOURCES.filter((f) => b[f] !== undefined);
  if (sources.length > 1) return sources.map((field) => ({ field, message: 'send only one of media, mediaUrl, base64Data' }));
  const issues: FieldIssue[] = [];
  if (b.media !== undefined && !isUpload(b.media)) issues.push({ field: 'media', message: 'must be a multipart file' });
  if (b.mediaUrl !== undefined && !isHttpUrl(b.mediaUrl)) issues.push({ field: 'mediaUrl', message: 'must be a public http or https URL' });
  if (typeof b.base64Data === 'string') {
    if (!b.mimeType) issues.push({ field: 'mimeType', message: 'is required with base64Data' });
    if (!b.fileName) issues.push({ field: 'fileName', message: 'is required with base64Data' });
    const compact = b.base64Data.replace(/^data:[^;,]+;base64,/, '').replace(/\s+/g, '');
    if (!compact || compact.length % 4 !== 0 || !BASE64.test(compact)) issues.push({ field: 'base64Data', message: 'must be base64' });
    else b.base64Data = compact;
  }
  if (!fileRequired && !sources.length && !b.body) issues.push({ field: 'body', message: 'is required for a text message' });
  return issues;
}

/**
 * Official (waba) channels in coexistence: "auto" lets a message inside the contact's 24-hour
 * window leave through the linked channel while it is connected (decided at delivery); "official"
 * (the default) keeps the Cloud API. Other channels ignore it.
 */
export const RouteVia = Type.Optional(
  Type.Union([Type.Literal('auto'), Type.Literal('official')], { description: 'waba coexistence: auto or official (default)' }),
);

/** The same schema validates the JSON body and the multipart form fields (parsed from text). */
export const SendMessageBody = Type.Object(
  {
    ticketId: Id(),
    body: Type.Optional(Type.String({ maxLength: 4096, description: 'Text, or the caption of a file' })),
    externalKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Idempotency key (120 s)' })),
    reopen: Type.Optional(Type.Boolean({ default: false, description: 'Must be true to send to a closed ticket' })),
    isClosed: Type.Optional(Type.Boolean({ default: false, description: 'Closes the ticket after sending' })),
    mediaUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'Public http(s) URL; no redirects, no private hosts' })),
    base64Data: Type.Optional(Type.String({ maxLength: 25_165_824, description: 'File content in base64; needs mimeType and fileName' })),
    mimeType: Type.Optional(Type.String({ maxLength: 128 })),
    fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Without extension' })),
    media: Type.Optional(Type.Unknown({ description: 'multipart/form-data file field' })),
    routeVia: RouteVia,
  },
  rule('messageContent', (b) => contentRules(b)),
);
export type SendMessageBody = Static<typeof SendMessageBody>;

/** What @fastify/multipart's onFile hands over for the `media` file field. */
export interface UploadedFile {
  data: Buffer;
  mimeType: string;
  fileName: string;
  truncated: boolean;
}

// ---- answers -----------------------------------------------------------------------------------

/** What Meta's statuses reported of a waba message's price (their `pricing`), or null. */
const PRICING_FIELDS = {
  billable: Type.Boolean({ description: 'Whether Meta charges the message' }),
  pricingModel: Type.String({ description: '"PMP": per-message pricing (since July 2025)' }),
  category: Type.String({ description: 'What the message is charged as: marketing, utility, authentication, service…' }),
};
const MessagePricing = Type.Unsafe<{ billable: boolean; pricingModel: string; category: string } | null>({
  type: ['object', 'null'],
  properties: PRICING_FIELDS,
  required: Object.keys(PRICING_FIELDS),
  additionalProperties: false,
  description: "Outgoing on waba: the price Meta reported in the message's statuses; null until one did, and on other kinds",
});

/** The message record of every message read (docs/api/external.md, "Message record"). */
export const Message = Exact(
  {
    messageId: Type.String(),
    ticketId: Type.Integer(),
    whatsappId: Type.Integer(),
    direction: StringEnum(['in', 'out']),
    body: Type.String(),
    status: Type.String(),
    mediaUrl: Nullable('string'),
    mimeType: Nullable('string'),
    fileName: Nullable('string'),
    subject: Nullable('string'),
    interactive: Type.Unsafe<{ type: string; content: unknown } | null>({
      type: ['object', 'null'],
      properties: { type: Type.String(), content: Type.Unknown() },
      description: 'Interactive sends: "<route>/<type>" and the content sent',
    }),
    error: Nullable('string'),
    providerMessageId: Nullable('string'),
    via: Nullable('string'),
    pricing: MessagePricing,
    reactions: Type.Array(Type.Object({ emoji: Type.String(), fromMe: Type.Boolean(), at: Type.String() }), {
      description: 'Reactions received, one per side',
    }),
    edited: Type.Boolean(),
    editHistory: Type.Array(Type.Object({ body: Type.String(), at: Type.String() }), {
      description: 'The earlier texts of an edited message, oldest first',
    }),
    deleted: Type.Boolean({ description: 'Deleted for everyone at the provider; the content is kept' }),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'Message' },
);
export type MessageRecord = Static<typeof Message>;

export const MessageResult = Envelope(Message, { $id: 'MessageResult' });
export const MessageHistory = Envelope(Exact({ ticketId: Type.Integer(), messages: Type.Array(Message), hasMore: Type.Boolean() }), {
  $id: 'MessageHistory',
});
export const MessageSearch = Envelope(
  Exact({ messages: Type.Array(Message), count: Type.Integer(), hasMore: Type.Boolean(), page: Type.Integer(), limit: Type.Integer() }),
  { $id: 'MessageSearch' },
);
export const MessagePage = Envelope(
  Exact({
    ticketId: Type.Integer(),
    messages: Type.Array(Message),
    hasMore: Type.Boolean(),
    pageNumber: Type.Integer(),
    pageSize: Type.Integer(),
  }),
  { $id: 'MessagePage' },
);
export const PresenceResult = Envelope(
  Exact({ ticketId: Type.Integer(), state: StringEnum(['typing', 'paused']), applied: Type.Boolean() }),
  { $id: 'PresenceResult' },
);
