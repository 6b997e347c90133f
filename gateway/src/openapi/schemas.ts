/**
 * The answers of the REST facade as JSON Schema, for the OpenAPI document only (Fastify does not
 * serialize with them: a route's answer is what its handler returns, see presenters.ts). They
 * become `components.schemas`; operations refer to them by name.
 */
type Schema = Record<string, unknown>;

const str = { type: 'string' };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const nullable = (type: string) => ({ type: [type, 'null'] });
const obj = (properties: Record<string, Schema>, required = Object.keys(properties), extra: Schema = {}) => ({
  type: 'object',
  properties,
  required,
  ...extra,
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const ErrorEnvelope = obj(
  {
    success: { const: false },
    error: { ...str, description: 'ERR_… code (README, "Errors")' },
    message: { ...str, description: 'For a person' },
    details: { type: 'array', maxItems: 20, items: obj({ field: str, message: str }) },
    truncated: { ...bool, description: 'More than 20 field errors' },
  },
  ['success', 'error', 'message'],
  { examples: [{ success: false, error: 'ERR_VALIDATION', message: 'Invalid body', details: [{ field: 'ticketId', message: 'must be >= 1' }] }] },
);

const Success = obj({ success: { const: true }, data: {} }, ['success', 'data'], { description: 'Every answer of success: `data` is the operation\'s result' });

const Ticket = obj(
  {
    id: int,
    ticketId: int,
    status: { enum: ['open', 'pending', 'closed'] },
    whatsappId: int,
    contact: obj({ id: int, number: str, name: str, email: nullable('string') }),
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
    tagIds: { type: 'array', items: int },
    createdAt: str,
    updatedAt: str,
    closedAt: nullable('string'),
    paused: bool,
    pauseReason: nullable('string'),
    pausedAt: nullable('string'),
    evaluation: { type: ['object', 'null'] },
    lastMessage: { type: ['object', 'null'], description: 'Reads only' },
  },
  ['id', 'ticketId', 'status', 'whatsappId', 'contact', 'createdAt', 'updatedAt'],
);

const Tenant = obj({ id: int, name: str, status: str, maxUsers: int, maxConnections: int, createdAt: str, updatedAt: str }, ['id', 'name', 'status'], {
  description: 'The tenant record (README, "Tenant API"); further fields as listed there',
});
const Channel = obj({ id: int, tenantId: int, name: str, status: str, type: str, hybridMode: str, linkedChannelId: nullable('integer') }, ['id', 'tenantId', 'name', 'type'], {
  description: 'A channel (session); provider secrets are never returned',
});
const ApiIntegration = obj(
  { apiId: str, name: str, sessionId: int, userId: int, tenant: int, authToken: { ...str, description: 'Only in the answer that creates it' } },
  ['apiId', 'name', 'sessionId', 'tenant'],
);

/** Each operation's `data`, where this document spells it out; the others answer `Success`. */
const envelopeOf = (data: Schema, example?: unknown) =>
  obj({ success: { const: true }, data }, ['success', 'data'], example === undefined ? {} : { examples: [{ success: true, data: example }] });

export const COMPONENT_SCHEMAS: Record<string, Schema> = {
  ErrorEnvelope,
  Success,
  Ticket,
  Tenant,
  Channel,
  ApiIntegration,
  CreateTicketResult: envelopeOf(
    obj({ ticketId: int, created: bool, messageId: nullable('string'), ticket: ref('Ticket') }),
    { ticketId: 42, created: true, messageId: '3f6c…', ticket: { id: 42, ticketId: 42, status: 'open' } },
  ),
  TicketResult: envelopeOf(ref('Ticket')),
  TicketPage: envelopeOf(obj({ tickets: { type: 'array', items: ref('Ticket') }, count: int, hasMore: bool, pageNumber: int, pageSize: int })),
  StoreTenantResult: envelopeOf(obj({ id: { ...int, description: 'The new tenant (= tenant.id)' }, tenant: ref('Tenant'), adminUser: obj({ id: int, name: str, email: str, profile: str }, ['id']) }), {
    id: 7,
    tenant: { id: 7, name: 'Acme Ltda', status: 'active' },
    adminUser: { id: 12, name: 'Ana', email: 'ana@acme.example', profile: 'admin' },
  }),
  CreateSessionResult: envelopeOf(
    obj({ id: { ...int, description: 'The new channel (= whatsapp.id)' }, whatsapp: ref('Channel'), api: ref('ApiIntegration'), hybrid: { type: 'object' } }, ['id', 'whatsapp', 'api']),
  ),
};

/** operationId → the success schema of its 200, beyond the generic `Success`. */
export const SUCCESS_OF: Record<string, string> = {
  createTicket: 'CreateTicketResult',
  showTicketById: 'TicketResult',
  listTickets: 'TicketPage',
  tenantApiStoreTenant: 'StoreTenantResult',
  tenantApiCreateSession: 'CreateSessionResult',
};
