import { validation } from '@convo/kit';
import type { ContactDoc } from '../db/contact.model';
import type { TicketDoc, TicketStatus } from '../db/models';
import { ticketContactOf } from './contact-identities';

// What createTicket and OpenForContact build a new ticket from.

/** A ticket of the contact (on the contact's channel) with nothing applied yet. */
export function newTicketDoc(id: number, tenantId: number, contact: ContactDoc, status: TicketStatus): TicketDoc {
  const now = new Date();
  return {
    _id: id,
    tenantId,
    channelId: contact.channelId,
    contactId: contact._id,
    contact: { ...ticketContactOf(contact), ...(contact.lastInboundAt && { lastInboundAt: contact.lastInboundAt }) },
    status,
    userId: null,
    queueId: null,
    chatFlowId: null,
    kanbanId: null,
    reasonId: null,
    value: null,
    externalKey: '',
    botBuilderStatus: false,
    llmAssistantStatus: false,
    workflowStatus: false,
    tagIds: [],
    createdAt: now,
    updatedAt: now,
    closedAt: null,
  };
}

/** OpenForContact's inbound_at: an ISO time, or none; anything else is refused. */
export function inboundTime(raw: string): Date | undefined {
  if (!raw) return undefined;
  const at = new Date(raw);
  if (Number.isNaN(at.getTime())) throw validation('Invalid contact', [{ field: 'inbound_at', message: 'must be an ISO time' }]);
  return at;
}
