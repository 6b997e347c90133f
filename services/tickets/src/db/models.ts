import { Schema, type Connection } from 'mongoose';
import { contactSchema, type ContactDoc } from './contact.model';
import { countSchemas, type TicketCountDoc, type TicketSlotDoc } from './listing';

export const TICKET_STATUSES = ['open', 'pending', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** A ticket's copy of its contact. */
export interface TicketContact {
  number: string;
  name: string;
  email: string;
  lastInboundAt?: Date;
  bsuid?: string;
  parentBsuid?: string;
  lid?: string;
  username?: string;
}

/** One pause of a ticket (the pause log): open while `endedAt` is null. */
export interface PauseDoc {
  _id: number;
  tenantId: number;
  ticketId: number;
  pauseReason: string;
  startedAt: Date;
  endedAt: Date | null;
  /** 'end' (ticket/pause/end) or 'close' (the ticket was closed); '' while the pause lasts. */
  endedBy: '' | 'end' | 'close';
}

export interface EvaluationDoc {
  sentAt: Date;
  messageId: string;
  answer?: string | null;
  answeredAt?: Date | null;
}

export interface TicketDoc {
  _id: number;
  tenantId: number;
  channelId: number;
  contactId: number;
  /**
   * The contact's identities and name, copied here so that a send reads them with the ticket (kept
   * by every change of the contact); `lastInboundAt` is the contact's as of this ticket.
   */
  contact: TicketContact;
  status: TicketStatus;
  userId?: number | null;
  queueId?: number | null;
  chatFlowId?: number | null;
  kanbanId?: number | null;
  reasonId?: number | null;
  value?: number | null;
  externalKey: string;
  botBuilderStatus: boolean;
  llmAssistantStatus: boolean;
  workflowStatus: boolean;
  tagIds: number[];
  /** Tickets stored before pausing existed have no pause fields: absent reads as not paused. */
  paused?: boolean;
  pauseReason?: string | null;
  pausedAt?: Date | null;
  evaluation?: EvaluationDoc | null;
  createdAt: Date;
  updatedAt: Date;
  closedAt?: Date | null;
}

/** Claims an externalKey of createTicket; its _id is `<tenantId>:<key>`, so the claim is atomic. */
export interface TicketKeyDoc {
  _id: string;
  ticketId: number;
  createdAt: Date;
}

/** Tags, queues, kanban columns and reasons: tenant entities referenced by tickets. */
export interface CatalogDoc {
  _id: number;
  tenantId: number;
  name: string;
  /** Kanban columns: their order on the board. */
  position?: number | null;
  createdAt: Date;
  updatedAt?: Date;
}

export interface NoteDoc {
  _id: number;
  tenantId: number;
  ticketId: number;
  userId?: number | null;
  notes: string;
  idFront: string;
  createdAt: Date;
  updatedAt?: Date;
}

/** A note's idFront, `<tenantId>:<idFront>`: the unique _id makes the claim atomic on any database. */
export interface NoteKeyDoc {
  _id: string;
  noteId: number;
  createdAt: Date;
}

/**
 * Claims of sendEvaluation. `_id` is `once:<ticketId>` (the survey of a ticket) or
 * `key:<tenantId>:<externalKey>`; `claimId` tells which call holds it, so an abort frees only its own.
 */
export interface EvaluationClaimDoc {
  _id: string;
  ticketId: number;
  claimId: string;
  createdAt: Date;
}

/**
 * OpenForContact's claim on opening the next ticket of a contact. `_id` is
 * `<tenantId>:<contactId>:<id of the contact's last ticket, 0 for none>`: callers that all found no
 * current ticket name the same claim, so one of them creates the ticket and the others wait for it;
 * once that ticket closes, the next one is claimed under a new `_id`.
 */
export interface OpenClaimDoc {
  _id: string;
  ticketId: number;
  createdAt: Date;
}

/**
 * A ticket as listTickets lists it: a copy of the ticket (`_id` = the ticket's id) and its `slot`,
 * the hour of `updatedAt`, written with every write of the ticket. A page reads the rows of a few
 * slots (see listing.ts) and answers them as they are, with no lookup per ticket.
 */
export type TicketRowDoc = TicketDoc & { slot: number };

const opts = { versionKey: false as const };

export function registerModels(conn: Connection) {
  const contact = contactSchema(opts);

  const ticketFields = {
    _id: Number,
    tenantId: { type: Number, required: true },
    channelId: Number,
    contactId: Number,
    contact: {
      number: String,
      name: String,
      email: String,
      lastInboundAt: Date,
      bsuid: String,
      parentBsuid: String,
      lid: String,
      username: String,
    },
    status: String,
    userId: Number,
    queueId: Number,
    chatFlowId: Number,
    kanbanId: Number,
    reasonId: Number,
    value: Number,
    externalKey: { type: String, default: '' },
    botBuilderStatus: { type: Boolean, default: false },
    llmAssistantStatus: { type: Boolean, default: false },
    workflowStatus: { type: Boolean, default: false },
    tagIds: { type: [Number], default: [] },
    paused: { type: Boolean, default: false },
    pauseReason: String,
    pausedAt: Date,
    evaluation: { type: new Schema<EvaluationDoc>({ sentAt: Date, messageId: String, answer: String, answeredAt: Date }, { _id: false }) },
    createdAt: Date,
    updatedAt: Date,
    closedAt: Date,
  };
  const ticket = new Schema<TicketDoc>(ticketFields, opts);
  ticket.index({ tenantId: 1, _id: 1 });
  // findCurrentTicketOfContact: the contact's most recently active open or pending ticket.
  ticket.index({ tenantId: 1, contactId: 1, updatedAt: -1, _id: -1 });
  // OpenForContact: the contact's last ticket (ids grow with time), whatever its status.
  ticket.index({ tenantId: 1, contactId: 1, _id: -1 });
  // A tag taken off a ticket stays on its contact while another of the contact's tickets has it.
  ticket.index({ tenantId: 1, contactId: 1, tagIds: 1 });
  // listTickets: newest activity first, with or without a status; the id breaks ties so pages are stable.
  ticket.index({ tenantId: 1, updatedAt: -1, _id: -1 });
  ticket.index({ tenantId: 1, status: 1, updatedAt: -1, _id: -1 });
  // listTickets filtered by queues or channels ($in ranges merged in index order).
  ticket.index({ tenantId: 1, queueId: 1, updatedAt: -1, _id: -1 });
  ticket.index({ tenantId: 1, channelId: 1, updatedAt: -1, _id: -1 });
  // The dashboard's tickets filtered by tag or by assigned user (GraphQL `tickets`).
  ticket.index({ tenantId: 1, tagIds: 1, updatedAt: -1, _id: -1 });
  ticket.index({ tenantId: 1, userId: 1, updatedAt: -1, _id: -1 });
  // A deleted kanban column or reason is cleared from the tickets carrying it.
  ticket.index({ tenantId: 1, kanbanId: 1 });
  ticket.index({ tenantId: 1, reasonId: 1 });
  // showticket / showallticket: a contact number across the tenant's channels, its current ticket
  // (latest activity) and all its tickets (newest first).
  ticket.index({ tenantId: 1, 'contact.number': 1, updatedAt: -1, _id: -1 });
  ticket.index({ tenantId: 1, 'contact.number': 1, createdAt: -1, _id: -1 });

  const row = new Schema<TicketRowDoc>({ ...ticketFields, slot: Number }, opts);
  // listTickets: the rows of one slot, with or without a status (sorted in memory: a slot is an hour).
  row.index({ tenantId: 1, slot: 1, status: 1 });
  // listTickets with a free-text search: the same orders as the ticket indexes above.
  row.index({ tenantId: 1, updatedAt: -1, _id: -1 });
  row.index({ tenantId: 1, status: 1, updatedAt: -1, _id: -1 });
  row.index({ tenantId: 1, queueId: 1, updatedAt: -1, _id: -1 });
  row.index({ tenantId: 1, channelId: 1, updatedAt: -1, _id: -1 });
  // A contact renamed: the name on its tickets' rows.
  row.index({ tenantId: 1, contactId: 1 });

  const counts = countSchemas(opts);
  const key = new Schema<TicketKeyDoc>({ _id: String, ticketId: Number, createdAt: Date }, opts);

  const catalog = () => {
    const schema = new Schema<CatalogDoc>(
      { _id: Number, tenantId: { type: Number, required: true }, name: String, position: Number, createdAt: Date, updatedAt: Date },
      opts,
    );
    // A name is unique in its tenant: creating it again answers the existing entity.
    schema.index({ tenantId: 1, name: 1 }, { unique: true });
    schema.index({ tenantId: 1, _id: 1 });
    return schema;
  };

  const note = new Schema<NoteDoc>(
    {
      _id: Number,
      tenantId: { type: Number, required: true },
      ticketId: Number,
      userId: Number,
      notes: String,
      idFront: String,
      createdAt: Date,
    },
    opts,
  );
  // listNotes: a ticket's notes oldest first, the id breaking ties.
  note.index({ tenantId: 1, ticketId: 1, createdAt: 1, _id: 1 });
  note.add({ updatedAt: Date });
  const pause = new Schema<PauseDoc>(
    {
      _id: Number,
      tenantId: { type: Number, required: true },
      ticketId: Number,
      pauseReason: String,
      startedAt: Date,
      endedAt: Date,
      endedBy: String,
    },
    opts,
  );
  // The pause log of a ticket, and its open pause (endedAt null), both after tenant and ticket.
  pause.index({ tenantId: 1, ticketId: 1, startedAt: 1, _id: 1 });
  // endPauses: the ticket's open pauses (endedAt null).
  pause.index({ tenantId: 1, ticketId: 1, endedAt: 1 });
  const noteKey = new Schema<NoteKeyDoc>({ _id: String, noteId: Number, createdAt: Date }, opts);
  const evaluationClaim = new Schema<EvaluationClaimDoc>({ _id: String, ticketId: Number, claimId: String, createdAt: Date }, opts);
  evaluationClaim.index({ claimId: 1 });
  const openClaim = new Schema<OpenClaimDoc>({ _id: String, ticketId: Number, createdAt: Date }, opts);
  // DiscardTicket frees the claim of the ticket it discards.
  openClaim.index({ ticketId: 1 });

  return {
    Contact: conn.model<ContactDoc>('Contact', contact, 'contacts'),
    Ticket: conn.model<TicketDoc>('Ticket', ticket, 'tickets'),
    TicketRow: conn.model<TicketRowDoc>('TicketRow', row, 'ticket_rows'),
    TicketCount: conn.model<TicketCountDoc>('TicketCount', counts.tenant, 'ticket_counts'),
    TicketSlot: conn.model<TicketSlotDoc>('TicketSlot', counts.slot, 'ticket_slots'),
    TicketKey: conn.model<TicketKeyDoc>('TicketKey', key, 'ticket_keys'),
    Tag: conn.model<CatalogDoc>('Tag', catalog(), 'tags'),
    Queue: conn.model<CatalogDoc>('Queue', catalog(), 'queues'),
    Kanban: conn.model<CatalogDoc>('Kanban', catalog(), 'kanbans'),
    Reason: conn.model<CatalogDoc>('Reason', catalog(), 'reasons'),
    Note: conn.model<NoteDoc>('Note', note, 'notes'),
    NoteKey: conn.model<NoteKeyDoc>('NoteKey', noteKey, 'note_keys'),
    EvaluationClaim: conn.model<EvaluationClaimDoc>('EvaluationClaim', evaluationClaim, 'evaluation_claims'),
    OpenClaim: conn.model<OpenClaimDoc>('OpenClaim', openClaim, 'open_claims'),
    Pause: conn.model<PauseDoc>('Pause', pause, 'pauses'),
  };
}

export type Models = ReturnType<typeof registerModels>;
