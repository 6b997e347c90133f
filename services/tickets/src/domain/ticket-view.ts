import type { proto } from '@convo/kit';
import type { ContactDoc } from '../db/contact.model';
import type { TicketDoc } from '../db/models';

export type { TicketDoc };

export const iso = (d?: Date | null) => (d ? new Date(d).toISOString() : '');
const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/** A contact's identities beyond the phone as the answers carry them ('' when unknown). */
export function identityFields(
  c: Pick<ContactDoc, 'bsuid' | 'parentBsuid' | 'lid' | 'username'>,
): Pick<proto.tickets.ContactRecord, 'bsuid' | 'parentBsuid' | 'lid' | 'username'> {
  return { bsuid: c.bsuid ?? '', parentBsuid: c.parentBsuid ?? '', lid: c.lid ?? '', username: c.username ?? '' };
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
