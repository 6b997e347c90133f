import { contactIdentity, type ContactIdentityKind, isBsuid, isLid, type proto, validation } from '@convo/kit';
import type { ContactDoc, TicketDoc, TicketStatus } from '../db/models';
import { ticketContactOf } from './contact-identities';

export type { TicketDoc };

export const iso = (d?: Date | null) => (d ? new Date(d).toISOString() : '');
const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

type Identities = Pick<proto.tickets.ContactRecord, 'bsuid' | 'parentBsuid' | 'lid' | 'username'>;

/**
 * A contact's identities beyond the phone as the answers carry them ('' when unknown). `number`
 * stays the stored key, which for a contact known only by its BSUID or LID is that identity: the
 * answers show it in its own field too, so that whoever shows the contact (kit's shownIdentities)
 * blanks the number and loses nothing.
 */
export function identityFields(c: Pick<ContactDoc, 'number' | 'bsuid' | 'parentBsuid' | 'lid' | 'username'>): Identities {
  const key = isBsuid(c.number) || isLid(c.number) ? contactIdentity(c.number) : undefined;
  const keyed = (kind: ContactIdentityKind) => (key?.kind === kind ? key.value : '');
  return {
    bsuid: c.bsuid || keyed('bsuid'),
    parentBsuid: c.parentBsuid || keyed('parentBsuid'),
    lid: c.lid || keyed('lid'),
    username: c.username ?? '',
  };
}

export function toTicket(t: TicketDoc): proto.tickets.Ticket {
  return {
    id: t._id,
    tenantId: t.tenantId,
    channelId: t.channelId,
    status: t.status,
    contact: {
      id: t.contactId,
      number: t.contact.number,
      name: t.contact.name,
      email: t.contact.email,
      lastInboundAt: iso(t.contact.lastInboundAt),
      ...identityFields(t.contact),
    },
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
    paused: t.paused ?? false,
    pauseReason: t.pauseReason ?? '',
    pausedAt: iso(t.pausedAt),
    evaluation: t.evaluation?.sentAt
      ? {
          sentAt: iso(t.evaluation.sentAt),
          messageId: t.evaluation.messageId,
          answer: t.evaluation.answer ?? '',
          answeredAt: iso(t.evaluation.answeredAt),
        }
      : null,
  };
}

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
