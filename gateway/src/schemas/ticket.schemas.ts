import Type, { type Static } from 'typebox';
import { rule } from '../validation/rules';
import { Amount, ContactId, Id, ID_TEXT, NonEmpty, NullableId, StringEnum } from './common';
import { IDENTITIES } from './contact.schemas';
import { AcceptedOr, Envelope, Exact, Nullable, NullableObject, PAGE } from './envelopes';

/** Comma-separated ids, as the seed's listTickets filters are written: `1,2,3`. */
const IdList = (description: string) => Type.String({ pattern: `^ *${ID_TEXT} *(, *${ID_TEXT} *)*$`, maxLength: 1100, description });

export const CreateTicketBody = Type.Object(
  {
    body: NonEmpty('First message, sent to the contact'),
    number: Type.Optional(
      ContactId("The contact on the integration's channel (validateNumber checks a number, not another identity, on the network first)"),
    ),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'E-mail variant, with channelId' })),
    channelId: Type.Optional(Id('Webmail channel of the e-mail variant')),
    externalKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    userId: Type.Optional(Id()),
    status: Type.Optional(StringEnum(['open', 'pending'])),
    validateNumber: Type.Optional(
      Type.Boolean({ description: "Checks a phone number on the channel's network first; a BSUID or a LID is not checked" }),
    ),
    queueId: Type.Optional(NullableId('null: no queue (as absent)')),
    chatFlowId: Type.Optional(NullableId('null: no chat flow (as absent)')),
    kanbanId: Type.Optional(Id()),
    reasonId: Type.Optional(Id()),
    value: Type.Optional(Amount()),
  },
  rule('createTicket', (b) =>
    b.number || (b.email && b.channelId) ? [] : [{ field: 'number', message: 'is required unless email and channelId are sent' }],
  ),
);
export type CreateTicketBody = Static<typeof CreateTicketBody>;

export const TicketIdBody = Type.Object({ ticketId: Id() });

export const UpdateTicketBody = Type.Object({
  ticketId: Id(),
  userId: Type.Optional(Id()),
  status: Type.Optional(StringEnum(['open', 'pending', 'closed'])),
  queueId: Type.Optional(NullableId('null unassigns the queue')),
  chatFlowId: Type.Optional(NullableId('null detaches the chat flow')),
  kanbanId: Type.Optional(NullableId('A kanban column of the tenant (createKanban); null takes the ticket off the board')),
  reasonId: Type.Optional(NullableId('A reason of the tenant (createReason); null clears it')),
  botBuilderStatus: Type.Optional(Type.Boolean()),
  llmAssistantStatus: Type.Optional(Type.Boolean()),
  workflowStatus: Type.Optional(Type.Boolean()),
});
export type UpdateTicketBody = Static<typeof UpdateTicketBody>;

export const ListTicketsQuery = Type.Object({
  pageNumber: Type.Integer({ minimum: 1, maximum: 100_000, default: 1, description: '1-based; pages hold 20 tickets' }),
  status: Type.Optional(StringEnum(['open', 'pending', 'closed'])),
  searchParam: Type.Optional(
    Type.String({ maxLength: 100, description: "Plain text in the contact's name, number, e-mail, BSUID, LID or username" }),
  ),
  queuesIds: Type.Optional(IdList('Comma-separated queue ids')),
  whatsappIds: Type.Optional(IdList('Comma-separated channel ids')),
});
export type ListTicketsQuery = Static<typeof ListTicketsQuery>;

export const NumberBody = Type.Object({ number: ContactId("Any identity of the contact, across the tenant's channels") });

export const UpdateQueueBody = Type.Object({ ticketId: Id(), queueId: Id('A queue of the tenant (GraphQL createQueue)') });

export const AddTagBody = Type.Object(
  {
    ticketId: Id(),
    tagId: Type.Optional(Id('A tag of the tenant (GraphQL createTag)')),
    tagIds: Type.Optional(Type.Array(Id(), { minItems: 1, maxItems: 50, description: 'Several tags at once' })),
  },
  rule('addTag', (b) => (b.tagId !== undefined || b.tagIds !== undefined ? [] : [{ field: 'tagId', message: 'send tagId or tagIds' }])),
);
export type AddTagBody = Static<typeof AddTagBody>;

export const RemoveTagBody = Type.Object({ ticketId: Id(), tagId: Id() });

export const CreateNotesBody = Type.Object({
  notes: NonEmpty('Note text, for agents only', 10_000),
  ticketId: Id(),
  userId: Type.Optional(Id('Author')),
  idFront: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Client key: a repeat answers the same note' })),
});
export type CreateNotesBody = Static<typeof CreateNotesBody>;

export const PauseParams = Type.Object({ apiId: Type.String({ minLength: 1, maxLength: 64 }), ticketId: Id() });
export const PauseStartBody = Type.Object({ pauseReason: NonEmpty('Why the ticket is paused', 500) });

export const SendEvaluationBody = Type.Object({
  ticketId: Id(),
  externalKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Deduplicates for 24 hours' })),
  force: Type.Optional(Type.Boolean({ default: false, description: 'Send again although already sent' })),
});
export type SendEvaluationBody = Static<typeof SendEvaluationBody>;

export const ShowAllMessagesBody = Type.Object({
  ticket: Type.String({ pattern: `^${ID_TEXT}$`, maxLength: 10, description: 'Ticket id as text, e.g. "42"' }),
});

export const SearchMessagesQuery = Type.Object({
  ticketId: Id(),
  searchParam: Type.String({ minLength: 1, maxLength: 200, description: 'Plain text, case-insensitive' }),
  page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});
export type SearchMessagesQuery = Static<typeof SearchMessagesQuery>;

export const MessageIdQuery = Type.Object({ messageId: Type.String({ minLength: 1, maxLength: 64 }) });

// ---- answers -----------------------------------------------------------------------------------

const TicketContact = Exact({ id: Type.Integer(), ...IDENTITIES, name: Type.String(), email: Nullable('string') });

/** The newest message of a ticket, as reads show it. */
const LastMessage = Type.Object({ messageId: Type.String(), body: Type.String(), direction: Type.String(), at: Type.String() });
export type LastMessageRecord = Static<typeof LastMessage>;

const TicketStatus = StringEnum(['open', 'pending', 'closed']);

/** The ticket record (docs/api/external.md, "Ticket record"). */
export const Ticket = Exact(
  {
    id: Type.Integer(),
    ticketId: Type.Integer(),
    status: TicketStatus,
    whatsappId: Type.Integer(),
    contact: TicketContact,
    userId: Type.Optional(Nullable('integer')),
    queueId: Type.Optional(Nullable('integer')),
    chatFlowId: Type.Optional(Nullable('integer')),
    kanbanId: Type.Optional(Nullable('integer')),
    reasonId: Type.Optional(Nullable('integer')),
    value: Type.Optional(Nullable('number')),
    externalKey: Type.Optional(Nullable('string')),
    botBuilderStatus: Type.Optional(Type.Boolean()),
    llmAssistantStatus: Type.Optional(Type.Boolean()),
    workflowStatus: Type.Optional(Type.Boolean()),
    tagIds: Type.Array(Type.Integer()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    closedAt: Type.Optional(Nullable('string')),
    paused: Type.Boolean(),
    pauseReason: Type.Optional(Nullable('string')),
    pausedAt: Type.Optional(Nullable('string')),
    evaluation: NullableObject(
      Type.Object({ sentAt: Type.String(), messageId: Type.String(), answer: Nullable('string'), answeredAt: Nullable('string') }),
    ),
    lastMessage: Type.Optional(NullableObject(LastMessage, { description: 'Reads only: the newest message, null when there is none' })),
  },
  { $id: 'Ticket' },
);
export type TicketRecord = Static<typeof Ticket>;

export const Note = Exact(
  {
    id: Type.Integer(),
    notes: Type.String(),
    ticketId: Type.Integer(),
    userId: Nullable('integer'),
    idFront: Nullable('string'),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'Note' },
);
export const Pause = Exact(
  {
    id: Type.Integer(),
    ticketId: Type.Integer(),
    pauseReason: Type.String(),
    startedAt: Type.String(),
    endedAt: Nullable('string'),
    endedBy: Nullable('string'),
    durationSeconds: Nullable('integer'),
  },
  { $id: 'Pause' },
);

const AT = '2026-11-26T12:00:00.000Z';
export const CreateTicketResult = Envelope(
  Exact({ ticketId: Type.Integer(), created: Type.Boolean(), messageId: Nullable('string'), ticket: Ticket }),
  {
    $id: 'CreateTicketResult',
    example: {
      ticketId: 42,
      created: true,
      messageId: '3f6c…',
      ticket: {
        id: 42,
        ticketId: 42,
        status: 'open',
        whatsappId: 3,
        contact: { id: 9, number: '5511987654321', name: 'Ana', email: null },
        tagIds: [],
        createdAt: AT,
        updatedAt: AT,
        paused: false,
        evaluation: null,
      },
    },
  },
);
export const TicketResult = Envelope(Ticket, {
  $id: 'TicketResult',
  // A contact an unofficial engine knows by its LID and its phone (docs/api/contact-identities.md).
  example: {
    id: 43,
    ticketId: 43,
    status: 'pending',
    whatsappId: 5,
    contact: { id: 10, number: '5511912345678', lid: '148592765938274@lid', name: 'Bruno', email: null },
    userId: null,
    queueId: null,
    chatFlowId: null,
    kanbanId: null,
    reasonId: null,
    value: null,
    externalKey: null,
    botBuilderStatus: false,
    llmAssistantStatus: false,
    workflowStatus: false,
    tagIds: [],
    createdAt: AT,
    updatedAt: '2026-11-26T12:05:00.000Z',
    closedAt: null,
    paused: false,
    pauseReason: null,
    pausedAt: null,
    evaluation: null,
    lastMessage: null,
  },
});
export const TicketList = Envelope(Exact({ tickets: Type.Array(Ticket), count: Type.Integer() }), { $id: 'TicketList' });
export const TicketPage = Envelope(Exact({ tickets: Type.Array(Ticket), ...PAGE }), { $id: 'TicketPage' });
export const NoteResult = Envelope(Note, { $id: 'NoteResult' });
export const NotePage = Envelope(Exact({ ticketId: Type.Integer(), notes: Type.Array(Note), ...PAGE }), { $id: 'NotePage' });
export const PausePage = Envelope(Exact({ ticketId: Type.Integer(), pauses: Type.Array(Pause), ...PAGE }), { $id: 'PausePage' });
export const EvaluationResult = AcceptedOr(
  'EvaluationResult',
  Exact({
    message: Type.String(),
    ticketId: Type.Integer(),
    messageId: Type.String(),
    evaluation: Ticket.properties.evaluation,
    ticket: Ticket,
  }),
);
