import { shownIdentities, withoutPassword, type proto } from '@convo/kit';
import type { Static } from 'typebox';
import type { ApiRecord, ChannelRecord, HybridRecord } from './schemas/channel.schemas';
import type { ContactRecord } from './schemas/contact.schemas';
import type { CatalogItem, ChannelSummary, KanbanColumn, User } from './schemas/crm.schemas';
import type { MessageRecord } from './schemas/message.schemas';
import type { TenantRecord } from './schemas/tenant.schemas';
import type { LastMessageRecord, Note, Pause, TicketRecord } from './schemas/ticket.schemas';

/**
 * The records the REST facade answers with. Each presenter returns the static type of its
 * record's schema (schemas/*.schemas.ts), which is the answer the OpenAPI document shows: a field
 * added, renamed or of another type here fails the type check until the schema says the same.
 */

const orNull = <T>(v: T | undefined) => (v === undefined ? null : v);

/** The newest message of a ticket, as reads show it. */
export const lastMessageRecord = (m: proto.messaging.LastMessage__Output): LastMessageRecord => ({
  messageId: m.messageId,
  body: m.body,
  direction: m.direction,
  at: m.createdAt,
});

const ticketContact = (c: proto.tickets.Contact__Output): TicketRecord['contact'] => ({
  id: c.id,
  ...shownIdentities(c),
  name: c.name,
  email: c.email || null,
});

/**
 * The ticket record (docs/api/external.md, "Ticket record"). Reads pass the ticket's last message (null when it
 * has none); answers of changes leave `lastMessage` out rather than pay a call for it. Its contact,
 * like every contact an answer shows, never shows the key a contact known only by its BSUID or LID
 * holds in `number` (docs/api/contact-identities.md): `number` is "" then, and the identities sit
 * beside it, each only when known.
 */
export const ticketRecord = (t: proto.tickets.Ticket__Output, lastMessage?: LastMessageRecord | null): TicketRecord => ({
  id: t.id,
  ticketId: t.id,
  // The tickets service writes no other status.
  status: t.status as TicketRecord['status'],
  whatsappId: t.channelId,
  // Every ticket carries its contact; the field is nullable only by proto3's rule for message fields.
  contact: t.contact ? ticketContact(t.contact) : (null as unknown as TicketRecord['contact']),
  userId: orNull(t.userId),
  queueId: orNull(t.queueId),
  chatFlowId: orNull(t.chatFlowId),
  kanbanId: orNull(t.kanbanId),
  reasonId: orNull(t.reasonId),
  value: orNull(t.value),
  externalKey: t.externalKey || null,
  botBuilderStatus: t.botBuilderStatus,
  llmAssistantStatus: t.llmAssistantStatus,
  workflowStatus: t.workflowStatus,
  tagIds: t.tagIds,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
  closedAt: t.closedAt || null,
  paused: t.paused,
  pauseReason: t.pauseReason || null,
  pausedAt: t.pausedAt || null,
  evaluation: t.evaluation
    ? {
        sentAt: t.evaluation.sentAt,
        messageId: t.evaluation.messageId,
        answer: t.evaluation.answer || null,
        answeredAt: t.evaluation.answeredAt || null,
      }
    : null,
  ...(lastMessage === undefined ? {} : { lastMessage }),
});

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** The message record of every message read (docs/api/external.md, "Message record"). */
export const messageRecord = (m: proto.messaging.Message__Output): MessageRecord => ({
  messageId: m.messageId,
  ticketId: m.ticketId,
  whatsappId: m.channelId,
  // messaging stores no other direction.
  direction: m.direction as MessageRecord['direction'],
  body: m.body,
  status: m.status,
  mediaUrl: m.mediaUrl || null,
  mimeType: m.mimeType || null,
  fileName: m.fileName || null,
  subject: m.subject || null,
  // Interactive sends: "<route>/<type>" and the content sent, so a later choice can be matched.
  interactive: m.interactiveType ? { type: m.interactiveType, content: parseJson(m.interactiveJson) } : null,
  error: m.error || null,
  providerMessageId: m.providerMessageId || null,
  // Outgoing on a waba channel: the way it left ("official" or "linked"); null elsewhere.
  via: m.via || null,
  // Outgoing on waba: what Meta's statuses reported of its price; null until one did, and elsewhere.
  pricing: m.pricing ? { billable: m.pricing.billable, pricingModel: m.pricing.pricingModel, category: m.pricing.category } : null,
  reactions: m.reactions.map((r) => ({ emoji: r.emoji, fromMe: r.fromMe, at: r.at })),
  edited: m.edited,
  editHistory: m.editHistory.map((h) => ({ body: h.body, at: h.at })),
  deleted: m.deleted,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

export const noteRecord = (n: proto.tickets.Note__Output): Static<typeof Note> => ({
  id: n.id,
  notes: n.notes,
  ticketId: n.ticketId,
  userId: orNull(n.userId),
  idFront: n.idFront || null,
  createdAt: n.createdAt,
  updatedAt: n.updatedAt || n.createdAt,
});

/** A contact of a channel (showcontact, createContact, updateContact, listContacts). */
export const contactRecord = (c: proto.tickets.ContactRecord__Output): ContactRecord => ({
  id: c.id,
  ...shownIdentities(c),
  name: c.name,
  email: c.email || null,
  firstName: c.firstName || null,
  lastName: c.lastName || null,
  businessName: c.businessName || null,
  externalKey: c.externalKey || null,
  whatsappId: c.channelId,
  tagIds: c.tagIds,
  kanban: c.kanbanId ?? null,
  walletIds: c.walletIds,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

/** A kanban column of listKanban / createKanban / updateKanban. */
export const kanbanRecord = (c: proto.tickets.CatalogItem__Output): Static<typeof KanbanColumn> => ({
  id: c.id,
  name: c.name,
  position: c.position ?? null,
  createdAt: c.createdAt,
});

/**
 * A channel as the external API shows it (listChannels, showChannelById): what it is, its state,
 * its number and its hybrid link. No secret of any kind (provider tokens, the webhook signing
 * secret), and no engine address.
 */
export const channelSummary = (c: proto.tenants.Channel__Output): Static<typeof ChannelSummary> => ({
  id: c.id,
  name: c.name,
  type: c.type,
  // tenants stores no other channel status.
  status: c.status as Static<typeof ChannelSummary>['status'],
  number: c.type === 'waba' ? c.tokenApi || null : null,
  wabaId: c.wabaId || null,
  pageId: c.pageId || null,
  emailAddress: c.emailAddress || null,
  hybridMode: c.hybridMode,
  linkedChannelId: orNull(c.linkedChannelId),
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

/** A tag or a queue of listTags / listQueues. */
export const catalogRecord = (c: proto.tickets.CatalogItem__Output): Static<typeof CatalogItem> => ({
  id: c.id,
  name: c.name,
  createdAt: c.createdAt,
});

/** A user of listUsers (no credentials of any kind). */
export const userRecord = (u: proto.tenants.User__Output): Static<typeof User> => ({
  id: u.id,
  name: u.name,
  email: u.email,
  profile: u.profile,
});

/** One entry of a ticket's pause log. */
export const pauseRecord = (p: proto.tickets.Pause__Output): Static<typeof Pause> => ({
  id: p.id,
  ticketId: p.ticketId,
  pauseReason: p.pauseReason,
  startedAt: p.startedAt,
  endedAt: p.endedAt || null,
  endedBy: p.endedBy || null,
  durationSeconds: p.endedAt ? Math.round((Date.parse(p.endedAt) - Date.parse(p.startedAt)) / 1000) : null,
});

/** `<gateway>CustomerId` and `<gateway>Token` of every stored gateway account, the token masked. */
const gatewayFields = (t: proto.tenants.Tenant__Output) =>
  Object.fromEntries(
    t.gatewayAccounts.flatMap((a) => [
      [`${a.gateway}CustomerId`, a.customerId],
      [`${a.gateway}Token`, a.tokenHint],
    ]),
  );

/** `social_aWebhookProxyUrl`, `social_aWebhookProxySecret` (masked) and the same for social_b. */
const proxyFields = (t: proto.tenants.Tenant__Output) =>
  Object.fromEntries(
    ['social_a', 'social_b'].flatMap((channel) => {
      const p = t.webhookProxies.find((w) => w.channel === channel);
      return [
        [`${channel}WebhookProxyUrl`, p?.url || null],
        [`${channel}WebhookProxySecret`, p?.secretHint || null],
      ];
    }),
  );

/** The tenant record of the tenant API; gateway tokens and proxy secrets come back masked (`****abcd`). */
export const tenantRecord = (t: proto.tenants.Tenant__Output): TenantRecord => ({
  id: t.id,
  name: t.name,
  status: t.status,
  maxUsers: t.maxUsers,
  maxConnections: t.maxConnections,
  identity: t.identity || null,
  planId: orNull(t.planId),
  paymentGateway: t.paymentGateway || null,
  gateway_a: t.gatewayAEnabled ? 'enabled' : 'disabled',
  paymentStatus: t.paymentStatus || null,
  ...gatewayFields(t),
  supportChatEnabled: t.supportChatEnabled ? 'enabled' : 'disabled',
  menuVisibility: t.menuVisibility,
  allowedChannels: t.allowedChannels,
  channelConnectionLimits: t.channelConnectionLimits,
  oauthEnabled: t.oauthEnabled,
  oauthProxyUrl: t.oauthProxyUrl || null,
  ...proxyFields(t),
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});

/** An API integration; `authToken` only in the answer of tenantApiCreateSession, which generated it. */
export const apiRecord = (a: proto.tenants.ApiIntegration__Output): ApiRecord => ({
  apiId: a.apiId,
  name: a.name,
  sessionId: a.sessionId,
  userId: a.userId,
  tenant: a.tenant,
  urlServiceStatus: a.urlServiceStatus || null,
  urlMessageStatus: a.urlMessageStatus || null,
  ...(a.authToken ? { authToken: a.authToken } : {}),
  createdAt: a.createdAt,
});

/** `data.hybrid`: the link as applied, or the seed's error code. */
export const hybridRecord = (h: proto.tenants.HybridResult__Output): HybridRecord =>
  h.applied
    ? { applied: true, whatsappId: h.whatsappId, hybridMode: h.hybridMode, linkedChannelId: orNull(h.linkedChannelId) }
    : { applied: false, error: h.error };

/**
 * Provider secrets (bmToken, engineToken, pageToken, an SMTP password) are never returned. The webhook signing secret
 * is: the customer needs it to verify webhooks, and only the super-admin reads channel records.
 */
export const channelRecord = (c: proto.tenants.Channel__Output): ChannelRecord => ({
  id: c.id,
  tenantId: c.tenantId,
  name: c.name,
  status: c.status,
  type: c.type,
  tokenAPI: c.tokenApi || null,
  wabaId: c.wabaId || null,
  hybridMode: c.hybridMode,
  linkedChannelId: orNull(c.linkedChannelId),
  engineUrl: withoutPassword(c.engineUrl) || null,
  webhookEnabled: c.webhookEnabled,
  webhookUrl: c.webhookUrl || null,
  webhookIncoming: c.webhookIncoming,
  webhookSecret: c.webhookSecret || null,
  ...(c.webhookSecretPrevious
    ? { webhookSecretPrevious: c.webhookSecretPrevious, webhookSecretPreviousUntil: c.webhookSecretPreviousUntil }
    : {}),
  pageId: c.pageId || null,
  emailAddress: c.emailAddress || null,
  sendIntervalMs: c.sendIntervalMs ?? null,
  ...(c.type === 'waba' ? { marketingMessagesApi: c.marketingMessagesApi } : {}),
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});
