/**
 * The answers of the REST facade as JSON Schema, for the OpenAPI document only (Fastify does not
 * serialize with them: a route's answer is what its handler returns, see presenters.ts). They
 * become `components.schemas`; operations refer to them by name.
 */
import {
  ApiIntegration, bool, CatalogItem, Channel, ChannelSummary, Contact, KanbanColumn, ErrorEnvelope, Hybrid, int, list, Message, Note, nullable, obj, Pause, record, ref, Success, str, Tenant, Ticket, User, WebchatMessage,
  type Schema,
} from './records';

/** The paging fields of the external API's lists (docs/api/pagination.md). */
const PAGE = { count: int, hasMore: bool, pageNumber: int, pageSize: int };
const pageOf = (name: string, item: Schema, extra: Record<string, Schema> = {}) => record({ ...extra, [name]: list(item), ...PAGE });

const envelopeOf = (data: Schema, example?: unknown) =>
  obj({ success: { const: true }, data }, ['success', 'data'], { additionalProperties: false, ...(example === undefined ? {} : { examples: [{ success: true, data: example }] }) });

/**
 * A send is accepted (stored, then delivered by the dispatcher: docs/sending.md); a repeated
 * Idempotency-Key whose first send was skipped answers `skipped` without `data`.
 */
const acceptedOr = (data: Schema, example: unknown) => ({
  oneOf: [
    envelopeOf(data, example),
    obj({ success: { const: true }, idempotent: { const: true }, skipped: { const: true }, ticketId: int }, undefined, { additionalProperties: false }),
  ],
});
const SendAccepted = record({ message: str, ticketId: int, messageId: str });

export const COMPONENT_SCHEMAS: Record<string, Schema> = {
  ErrorEnvelope,
  Success,
  Ticket,
  Message,
  Note,
  Contact,
  CatalogItem,
  KanbanColumn,
  ChannelSummary,
  User,
  Pause,
  Tenant,
  Channel,
  ApiIntegration,
  Hybrid,
  WebchatMessage,
  CreateTicketResult: envelopeOf(
    record({ ticketId: int, created: bool, messageId: nullable('string'), ticket: ref('Ticket') }),
    {
      ticketId: 42,
      created: true,
      messageId: '3f6c…',
      ticket: {
        id: 42, ticketId: 42, status: 'open', whatsappId: 3, contact: { id: 9, number: '5511987654321', name: 'Ana', email: null },
        tagIds: [], createdAt: '2026-11-26T12:00:00.000Z', updatedAt: '2026-11-26T12:00:00.000Z', paused: false, evaluation: null,
      },
    },
  ),
  TicketResult: envelopeOf(ref('Ticket'), {
    // A contact an unofficial engine knows by its LID and its phone (docs/api/contact-identities.md).
    id: 43, ticketId: 43, status: 'pending', whatsappId: 5,
    contact: { id: 10, number: '5511912345678', lid: '148592765938274@lid', name: 'Bruno', email: null },
    userId: null, queueId: null, chatFlowId: null, kanbanId: null, reasonId: null, value: null, externalKey: null,
    botBuilderStatus: false, llmAssistantStatus: false, workflowStatus: false, tagIds: [],
    createdAt: '2026-11-26T12:00:00.000Z', updatedAt: '2026-11-26T12:05:00.000Z', closedAt: null,
    paused: false, pauseReason: null, pausedAt: null, evaluation: null, lastMessage: null,
  }),
  TicketList: envelopeOf(record({ tickets: list(ref('Ticket')), count: int })),
  TicketPage: envelopeOf(pageOf('tickets', ref('Ticket'))),
  SendResult: acceptedOr(SendAccepted, { message: 'Message accepted for delivery', ticketId: 42, messageId: '3f6c…' }),
  EvaluationResult: acceptedOr(record({ message: str, ticketId: int, messageId: str, evaluation: Ticket.properties.evaluation, ticket: ref('Ticket') }), undefined),
  TemplateList: envelopeOf(
    record({
      templates: list(
        record({
          name: str,
          language: str,
          category: str,
          status: str,
          parameters: record({ header: int, body: int, buttons: list(record({ index: int, type: str, parameters: int })) }),
        }),
      ),
    }),
    { templates: [{ name: 'order_update', language: 'pt_BR', category: 'UTILITY', status: 'APPROVED', parameters: { header: 0, body: 2, buttons: [] } }] },
  ),
  PresenceResult: envelopeOf(record({ ticketId: int, state: { enum: ['typing', 'paused'] }, applied: bool })),
  MessageResult: envelopeOf(ref('Message')),
  MessageHistory: envelopeOf(record({ ticketId: int, messages: list(ref('Message')), hasMore: bool })),
  MessageSearch: envelopeOf(record({ messages: list(ref('Message')), count: int, hasMore: bool, page: int, limit: int })),
  NoteResult: envelopeOf(ref('Note')),
  NotePage: envelopeOf(pageOf('notes', ref('Note'), { ticketId: int })),
  PausePage: envelopeOf(pageOf('pauses', ref('Pause'), { ticketId: int })),
  ContactResult: envelopeOf(ref('Contact'), {
    // A waba contact who never gave the business its number: known by its BSUID and username.
    id: 11, number: '', bsuid: 'BR.13491208655302741918', username: 'ana.souza', name: 'Ana Souza', email: null,
    firstName: null, lastName: null, businessName: null, externalKey: null, whatsappId: 3, tagIds: [], kanban: null, walletIds: [],
    createdAt: '2026-11-26T12:00:00.000Z', updatedAt: '2026-11-26T12:00:00.000Z',
  }),
  ContactCreated: envelopeOf(record({ contact: ref('Contact'), created: bool })),
  ContactPage: envelopeOf(pageOf('contacts', ref('Contact'))),
  TagPage: envelopeOf(pageOf('tags', ref('CatalogItem'))),
  QueuePage: envelopeOf(pageOf('queues', ref('CatalogItem'))),
  UserPage: envelopeOf(pageOf('users', ref('User'))),
  KanbanPage: envelopeOf(pageOf('kanbans', ref('KanbanColumn'))),
  KanbanResult: envelopeOf(ref('KanbanColumn'), { id: 3, name: 'Negotiation', position: 2, createdAt: '2026-11-26T12:00:00.000Z' }),
  ReasonPage: envelopeOf(pageOf('reasons', ref('CatalogItem'))),
  CatalogResult: envelopeOf(ref('CatalogItem')),
  CatalogDeleted: envelopeOf(record({ id: int, deleted: { const: true }, ticketsCleared: { ...int, description: 'Tickets that carried it and no longer do' } })),
  ChannelList: envelopeOf(record({ channels: list(ref('ChannelSummary')), count: int })),
  ChannelSummaryResult: envelopeOf(ref('ChannelSummary')),
  ContactExtraInfo: envelopeOf(record({ contactId: int, extraInfo: list(record({ name: str, value: str })) }), { contactId: 9, extraInfo: [{ name: 'Plan', value: 'Gold' }] }),
  MessagePage: envelopeOf(record({ ticketId: int, messages: list(ref('Message')), hasMore: bool, pageNumber: int, pageSize: int })),
  SocialConfigResult: envelopeOf({ type: 'object', description: 'The configuration as stored after Meta accepted it (docs/api/social-config.md)' }),
  TenantPage: envelopeOf(record({ tenants: list(ref('Tenant')), page: int, limit: int, total: int, hasMore: bool })),
  TenantResult: envelopeOf(ref('Tenant')),
  StoreTenantResult: envelopeOf(
    record({ id: { ...int, description: 'The new tenant (= tenant.id)' }, tenant: ref('Tenant'), adminUser: record({ id: int, tenantId: int, name: str, email: str, profile: str }) }),
    {
      id: 7,
      tenant: { id: 7, name: 'Acme Ltda', status: 'active', maxUsers: 10, maxConnections: 5, createdAt: '2026-11-26T12:00:00.000Z', updatedAt: '2026-11-26T12:00:00.000Z' },
      adminUser: { id: 12, tenantId: 7, name: 'Ana', email: 'ana@acme.example', profile: 'admin' },
    },
  ),
  CreateSessionResult: envelopeOf(
    record({ id: { ...int, description: 'The new channel (= whatsapp.id)' }, whatsapp: ref('Channel'), api: ref('ApiIntegration'), hybrid: ref('Hybrid') }, ['id', 'whatsapp', 'api']),
  ),
  ChannelResult: envelopeOf(record({ whatsapp: ref('Channel'), hybrid: ref('Hybrid') }, ['whatsapp'])),
  ApiResult: envelopeOf(record({ api: ref('ApiIntegration') })),
  ApiDeleted: envelopeOf(record({ apiId: str, deleted: bool })),
  InboundResult: envelopeOf(
    record({
      received: { ...int, description: 'Events in the body' },
      results: list(record({ outcome: { enum: ['stored', 'duplicate', 'status_applied', 'status_unknown_message', 'connection_applied', 'ignored'] }, messageId: str, ticketId: int })),
    }),
  ),
  PaymentWebhookResult: envelopeOf(record({ received: { const: true }, applied: bool, duplicate: bool })),
  WebchatVisitor: envelopeOf(record({ visitorId: str, visitorToken: str })),
  WebchatMessages: envelopeOf(record({ messages: list(ref('WebchatMessage')), cursor: { ...nullable('string'), description: 'Pass as `after` to poll on' } })),
  WebchatSent: envelopeOf(record({ id: str, messageId: nullable('string'), duplicate: bool })),
};

const SUCCESS_OF: Record<string, string> = {
  createTicket: 'CreateTicketResult',
  listTickets: 'TicketPage',
  showticket: 'TicketResult',
  showallticket: 'TicketList',
  showTicketById: 'TicketResult',
  updateticketinfo: 'TicketResult',
  updatequeue: 'TicketResult',
  addTag: 'TicketResult',
  removeTag: 'TicketResult',
  createNotes: 'NoteResult',
  ticketPauseStart: 'TicketResult',
  ticketPauseEnd: 'TicketResult',
  sendEvaluation: 'EvaluationResult',
  sendPresence: 'PresenceResult',
  templates: 'TemplateList',
  showAllMessages: 'MessageHistory',
  searchMessages: 'MessageSearch',
  getMessageByMessageId: 'MessageResult',
  socialAIceBreakers: 'SocialConfigResult',
  socialAPersistentMenu: 'SocialConfigResult',
  socialBGreeting: 'SocialConfigResult',
  socialBPersonas: 'SocialConfigResult',
  // The same routes under the channels' real names (routes/segments.ts).
  instagramIceBreakers: 'SocialConfigResult',
  instagramPersistentMenu: 'SocialConfigResult',
  messengerGreeting: 'SocialConfigResult',
  messengerPersonas: 'SocialConfigResult',
  showcontact: 'ContactResult',
  createContact: 'ContactCreated',
  updateContact: 'ContactResult',
  listContacts: 'ContactPage',
  listTags: 'TagPage',
  listQueues: 'QueuePage',
  listUsers: 'UserPage',
  listNotes: 'NotePage',
  updateNote: 'NoteResult',
  ticketPauseLogs: 'PausePage',
  listKanban: 'KanbanPage',
  createKanban: 'KanbanResult',
  updateKanban: 'KanbanResult',
  updateKanbanPost: 'KanbanResult',
  deleteKanban: 'CatalogDeleted',
  deleteKanbanPost: 'CatalogDeleted',
  listReasons: 'ReasonPage',
  createReason: 'CatalogResult',
  updateReason: 'CatalogResult',
  updateReasonPost: 'CatalogResult',
  deleteReason: 'CatalogDeleted',
  deleteReasonPost: 'CatalogDeleted',
  createQueueData: 'CatalogResult',
  updatetag: 'TicketResult',
  listChannels: 'ChannelList',
  showChannelById: 'ChannelSummaryResult',
  getContactExtraInfo: 'ContactExtraInfo',
  contactsSearch: 'ContactPage',
  updateContactKanban: 'ContactResult',
  updateContactWallet: 'ContactResult',
  listMessages: 'MessagePage',
  tenantApiListTenants: 'TenantPage',
  tenantApiStoreTenant: 'StoreTenantResult',
  tenantApiShowTenant: 'TenantResult',
  tenantApiUpdateTenant: 'TenantResult',
  tenantApiCreateSession: 'CreateSessionResult',
  tenantCreateApi: 'ApiResult',
  tenantDeleteApi: 'ApiDeleted',
  putWhatsapp: 'ChannelResult',
  webhooksPayments: 'PaymentWebhookResult',
  webhooksMeta: 'InboundResult',
  webhooksEngine: 'InboundResult',
  webchatVisitors: 'WebchatVisitor',
  getWebchatMessages: 'WebchatMessages',
  webchatMessages: 'WebchatSent',
};

const SEND_OPS = ['sendMessageByTicket', 'sendToNumber', 'url', 'base64', 'voice', 'sendButtonWABA', 'sendListWABA', 'group', 'groupMediaUrl', 'template', 'templateBody', 'templateMarketingBody'];

/** operationId → the success schema of its 200; every operation has one (a test checks it). */
export function successOf(operationId: string): string | undefined {
  if (SEND_OPS.includes(operationId) || operationId.startsWith('sendInteractive')) return 'SendResult';
  return SUCCESS_OF[operationId];
}
