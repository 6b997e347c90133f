import type { proto } from '@convo/kit';
import type { TicketDoc } from '../db/models';

export type { TicketDoc };

export const iso = (d?: Date | null) => (d ? new Date(d).toISOString() : '');
const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

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
      bsuid: t.contact.bsuid ?? '',
      parentBsuid: t.contact.parentBsuid ?? '',
      lid: t.contact.lid ?? '',
      username: t.contact.username ?? '',
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
