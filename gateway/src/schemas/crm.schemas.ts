import Type from 'typebox';
import { rule } from '../validation/rules';
import { Id, NullableId, StringEnum } from './common';
import { Envelope, Exact, Nullable, PAGE } from './envelopes';

/**
 * Kanban columns, reasons, queues, a ticket's tags, channels, contacts by id and a page of
 * messages: the routes beyond the seed that public clients call (docs/api/beyond-the-seed.md), in the shapes those clients send.
 */

const Name = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
const Position = Type.Integer({ minimum: 0, maximum: 10_000, description: 'Order of the column on the board' });
const PageNumber = Type.Integer({ minimum: 1, maximum: 10_000, default: 1, description: '1-based; pages hold 20 entries' });
const SearchParam = Type.Optional(Type.String({ maxLength: 100, description: 'Plain text, case-insensitive' }));

export const CatalogPageQuery = Type.Object({ pageNumber: PageNumber, searchParam: SearchParam });
export const IdParams = Type.Object({ apiId: Type.String({ minLength: 1, maxLength: 64 }), id: Id() });

export const KanbanBody = Type.Object({
  name: Name("The column's name; a name the tenant has answers that column"),
  position: Type.Optional(Position),
});
export const KanbanUpdateBody = Type.Object(
  { name: Type.Optional(Name('The new name')), position: Type.Optional(Position) },
  rule('kanbanUpdate', (b) =>
    b.name !== undefined || b.position !== undefined ? [] : [{ field: 'name', message: 'send name or position' }],
  ),
);
export const ReasonBody = Type.Object({ name: Name("The reason's name; a name the tenant has answers that reason") });

/** createQueueData: the queue's name in `queue`; the client's other fields (isActive, business hours) are accepted and not kept. */
export const QueueDataBody = Type.Object({
  queue: Name("The queue's name; a name the tenant has answers that queue"),
  isActive: Type.Optional(Type.Boolean()),
  businessHours: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 7 })),
  messageBusinessHours: Type.Optional(Type.String({ maxLength: 1000 })),
});

/** updatetag: the ticket's tags become exactly these (`tag`, one id, as older clients send it). */
export const UpdateTagBody = Type.Object(
  {
    ticketId: Id(),
    tagIds: Type.Optional(Type.Array(Id(), { maxItems: 50, description: 'The tags the ticket keeps; [] clears them' })),
    tag: Type.Optional(Id('One tag: the same as tagIds [tag]')),
  },
  rule('updateTag', (b) => (b.tagIds !== undefined || b.tag !== undefined ? [] : [{ field: 'tagIds', message: 'send tagIds (or tag)' }])),
);

export const ChannelIdBody = Type.Object({ id: Id('A channel of the tenant') });

export const ContactIdQuery = Type.Object({ contactId: Id() });

export const ContactSearchBody = Type.Object({
  searchParam: Type.Optional(
    Type.String({ maxLength: 100, description: 'Plain text in the name, number or e-mail; "" lists every contact' }),
  ),
  // No default on either, so that the one sent is the one read (pageNumber wins; absent: 1).
  pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: '1-based; pages hold 20 entries' })),
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 10_000, description: 'The page under the name some clients send it; pageNumber wins' }),
  ),
  tagId: Type.Optional(NullableId('Contacts one of whose tickets has this tag')),
});

export const ContactKanbanBody = Type.Object({
  contactId: Id(),
  kanban: NullableId('A kanban column of the tenant; null takes the contact off the board'),
});

export const ContactWalletBody = Type.Object(
  {
    contactId: Id(),
    walletId: Type.Optional(NullableId('One user of the tenant; null empties the wallet')),
    walletIds: Type.Optional(Type.Array(Id(), { maxItems: 20, description: 'Users of the tenant; replaces the wallet, [] empties it' })),
  },
  rule('contactWallet', (b) =>
    b.walletId !== undefined && b.walletIds !== undefined
      ? [{ field: 'walletIds', message: 'send walletId or walletIds, not both' }]
      : b.walletId === undefined && b.walletIds === undefined
        ? [{ field: 'walletIds', message: 'send walletId or walletIds' }]
        : [],
  ),
);

export const ListMessagesQuery = Type.Object({ ticketId: Id(), pageNumber: PageNumber });

// ---- answers -----------------------------------------------------------------------------------

/** A tag, a queue or a reason. */
export const CatalogItem = Exact({ id: Type.Integer(), name: Type.String(), createdAt: Type.String() }, { $id: 'CatalogItem' });
export const KanbanColumn = Exact(
  { id: Type.Integer(), name: Type.String(), position: Nullable('integer'), createdAt: Type.String() },
  { $id: 'KanbanColumn' },
);
/** A user of listUsers (no credentials of any kind). */
export const User = Exact({ id: Type.Integer(), name: Type.String(), email: Type.String(), profile: Type.String() }, { $id: 'User' });

/** A channel as the external API shows it: what it is, its state, its number and its hybrid link; no secret, no engine address. */
export const ChannelSummary = Exact(
  {
    id: Type.Integer(),
    name: Type.String(),
    type: Type.String(),
    status: StringEnum(['CONNECTED', 'DISCONNECTED']),
    number: Nullable('string', {
      description: "waba: the phone-number id (tokenAPI); other kinds: null (the engine's number is not stored)",
    }),
    wabaId: Nullable('string'),
    pageId: Nullable('string'),
    emailAddress: Nullable('string'),
    hybridMode: Type.String(),
    linkedChannelId: Nullable('integer'),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'ChannelSummary' },
);

export const TagPage = Envelope(Exact({ tags: Type.Array(CatalogItem), ...PAGE }), { $id: 'TagPage' });
export const QueuePage = Envelope(Exact({ queues: Type.Array(CatalogItem), ...PAGE }), { $id: 'QueuePage' });
export const UserPage = Envelope(Exact({ users: Type.Array(User), ...PAGE }), { $id: 'UserPage' });
export const ReasonPage = Envelope(Exact({ reasons: Type.Array(CatalogItem), ...PAGE }), { $id: 'ReasonPage' });
export const CatalogResult = Envelope(CatalogItem, { $id: 'CatalogResult' });
export const KanbanPage = Envelope(Exact({ kanbans: Type.Array(KanbanColumn), ...PAGE }), { $id: 'KanbanPage' });
export const KanbanResult = Envelope(KanbanColumn, {
  $id: 'KanbanResult',
  example: { id: 3, name: 'Negotiation', position: 2, createdAt: '2026-11-26T12:00:00.000Z' },
});
export const CatalogDeleted = Envelope(
  Exact({
    id: Type.Integer(),
    deleted: Type.Literal(true),
    ticketsCleared: Type.Integer({ description: 'Tickets that carried it and no longer do' }),
  }),
  { $id: 'CatalogDeleted' },
);
export const ChannelList = Envelope(Exact({ channels: Type.Array(ChannelSummary), count: Type.Integer() }), { $id: 'ChannelList' });
export const ChannelSummaryResult = Envelope(ChannelSummary, { $id: 'ChannelSummaryResult' });
