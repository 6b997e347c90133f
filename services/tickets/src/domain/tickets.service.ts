import { conflict, notFound, validation, type FieldIssue, type proto } from '@convo/kit';
import type { UpdateQuery } from 'mongoose';
import type { TicketsRepository } from '../db/tickets.repository';
import { TICKET_STATUSES, type TicketDoc, type TicketStatus } from '../db/models';
import { normalizeNumber } from './numbers';

/** createTicket's externalKey deduplicates for this long (the seed leaves it open; see README). */
export const CREATE_KEY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long a repeat of an externalKey waits for the concurrent call that holds it to insert its ticket. */
const KEY_WAIT_MS = 2_000;
/** Status of a ticket created without one: the API opened the conversation by writing first. */
export const DEFAULT_STATUS: TicketStatus = 'open';

const isStatus = (s: string): s is TicketStatus => (TICKET_STATUSES as readonly string[]).includes(s);

export class TicketsService {
  constructor(private readonly repo: TicketsRepository) {}

  async createTicket(req: proto.tickets.CreateTicketRequest__Output) {
    const issues: FieldIssue[] = [];
    if (req.status && req.status !== 'open' && req.status !== 'pending') {
      issues.push({ field: 'status', message: 'must be open or pending' });
    }
    if (!req.number && !req.email) issues.push({ field: 'number', message: 'is required (or email and channelId)' });
    if (issues.length) throw validation('Invalid ticket', issues);
    const number = req.number ? normalizeNumber(req.number) : '';
    const email = req.email.trim().toLowerCase();

    const id = await this.repo.nextId('ticket');
    const keyId = req.externalKey ? `${req.tenantId}:${req.externalKey}` : '';
    if (keyId && !(await this.repo.claimKey(keyId, id))) {
      const key = await this.repo.findKey(keyId);
      const stillFresh = key && key.createdAt.getTime() > Date.now() - CREATE_KEY_WINDOW_MS;
      if (stillFresh || !(await this.repo.takeOverExpiredKey(keyId, new Date(Date.now() - CREATE_KEY_WINDOW_MS), id))) {
        // A concurrent call may hold the key and not have inserted its ticket yet: wait for it.
        const existing = key && (await this.awaitTicket(req.tenantId, key.ticketId));
        if (!existing) throw conflict('ERR_TICKET_CREATION_IN_PROGRESS', 'A ticket with this externalKey is being created');
        return { ticket: toTicket(existing), created: false };
      }
    }

    try {
      const contact = await this.repo.findOrCreateContact(req.tenantId, req.channelId, number, email);
      const now = new Date();
      const ticket: TicketDoc = {
        _id: id,
        tenantId: req.tenantId,
        channelId: req.channelId,
        contactId: contact._id,
        contact: { number: contact.number, name: contact.name, email: contact.email },
        status: (req.status || DEFAULT_STATUS) as TicketStatus,
        userId: req.userId ?? null,
        queueId: req.queueId ?? null,
        chatFlowId: req.chatFlowId ?? null,
        kanbanId: req.kanbanId ?? null,
        reasonId: req.reasonId ?? null,
        value: req.value ?? null,
        externalKey: req.externalKey,
        botBuilderStatus: false,
        llmAssistantStatus: false,
        workflowStatus: false,
        tagIds: [],
        createdAt: now,
        updatedAt: now,
        closedAt: null,
      };
      await this.repo.insertTicket(ticket);
      return { ticket: toTicket(ticket), created: true };
    } catch (err) {
      if (keyId) await this.repo.releaseKey(keyId, id);
      throw err;
    }
  }

  /** The ticket once it exists, or null after `waitMs` (its creator failed or is stuck). */
  private async awaitTicket(tenantId: number, id: number, waitMs = KEY_WAIT_MS) {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const ticket = await this.repo.findTicket(tenantId, id);
      if (ticket || Date.now() >= deadline) return ticket;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async getTicket(tenantId: number, id: number) {
    const ticket = await this.repo.findTicket(tenantId, id);
    if (!ticket) throw notFound('ticket');
    return toTicket(ticket);
  }

  async updateTicket(req: proto.tickets.UpdateTicketRequest__Output) {
    if (req.status && !isStatus(req.status)) {
      throw validation('Invalid ticket update', [{ field: 'status', message: 'must be open, pending or closed' }]);
    }
    const set: Partial<TicketDoc> = { updatedAt: new Date() };
    if (req.status) {
      set.status = req.status as TicketStatus;
      set.closedAt = req.status === 'closed' ? new Date() : null;
    }
    if (req.userId !== undefined) set.userId = req.userId;
    if (req.clearQueue) set.queueId = null;
    else if (req.queueId !== undefined) set.queueId = req.queueId;
    if (req.clearChatFlow) set.chatFlowId = null;
    else if (req.chatFlowId !== undefined) set.chatFlowId = req.chatFlowId;
    if (req.botBuilderStatus !== undefined) set.botBuilderStatus = req.botBuilderStatus;
    if (req.llmAssistantStatus !== undefined) set.llmAssistantStatus = req.llmAssistantStatus;
    if (req.workflowStatus !== undefined) set.workflowStatus = req.workflowStatus;
    const updated = await this.repo.updateTicket(req.tenantId, req.ticketId, { $set: set } as UpdateQuery<TicketDoc>);
    if (!updated) throw notFound('ticket');
    return toTicket(updated);
  }
}

const iso = (d?: Date | null) => (d ? new Date(d).toISOString() : '');
const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

export function toTicket(t: TicketDoc): proto.tickets.Ticket {
  return {
    id: t._id,
    tenantId: t.tenantId,
    channelId: t.channelId,
    status: t.status,
    contact: { id: t.contactId, number: t.contact.number, name: t.contact.name, email: t.contact.email },
    userId: opt(t.userId),
    queueId: opt(t.queueId),
    chatFlowId: opt(t.chatFlowId),
    kanbanId: opt(t.kanbanId),
    reasonId: opt(t.reasonId),
    value: opt(t.value),
    externalKey: t.externalKey,
    botBuilderStatus: t.botBuilderStatus,
    llmAssistantStatus: t.llmAssistantStatus,
    workflowStatus: t.workflowStatus,
    tagIds: t.tagIds,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
    closedAt: iso(t.closedAt),
  };
}
