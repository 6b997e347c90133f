import { Schema, type Connection } from 'mongoose';

export const TICKET_STATUSES = ['open', 'pending', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export interface ContactDoc {
  _id: number;
  tenantId: number;
  channelId: number;
  /** Digits only (E.164 without +), or the platform user id on social channels. */
  number: string;
  email: string;
  name: string;
  createdAt: Date;
}

export interface TicketDoc {
  _id: number;
  tenantId: number;
  channelId: number;
  contactId: number;
  contact: { number: string; name: string; email: string };
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

const opts = { versionKey: false as const };

export function registerModels(conn: Connection) {
  const contact = new Schema<ContactDoc>(
    { _id: Number, tenantId: Number, channelId: Number, number: String, email: String, name: String, createdAt: Date },
    opts,
  );
  contact.index({ tenantId: 1, channelId: 1, number: 1, email: 1 }, { unique: true });

  const ticket = new Schema<TicketDoc>(
    {
      _id: Number,
      tenantId: { type: Number, required: true },
      channelId: Number,
      contactId: Number,
      contact: { number: String, name: String, email: String },
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
      createdAt: Date,
      updatedAt: Date,
      closedAt: Date,
    },
    opts,
  );
  ticket.index({ tenantId: 1, _id: 1 });
  ticket.index({ tenantId: 1, contactId: 1, updatedAt: -1 });

  const key = new Schema<TicketKeyDoc>({ _id: String, ticketId: Number, createdAt: Date }, opts);

  return {
    Contact: conn.model<ContactDoc>('Contact', contact, 'contacts'),
    Ticket: conn.model<TicketDoc>('Ticket', ticket, 'tickets'),
    TicketKey: conn.model<TicketKeyDoc>('TicketKey', key, 'ticket_keys'),
  };
}

export type Models = ReturnType<typeof registerModels>;
