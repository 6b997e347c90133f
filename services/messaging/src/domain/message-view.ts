import type { proto } from '@convo/kit';
import type { MessageDoc } from '../db/models';

export function toMessage(m: MessageDoc): proto.messaging.Message {
  return {
    messageId: m._id,
    tenantId: m.tenantId,
    ticketId: m.ticketId,
    channelId: m.channelId,
    direction: m.direction,
    body: m.body,
    status: m.status,
    providerMessageId: m.providerMessageId ?? '',
    error: m.error ?? '',
    mediaUrl: m.mediaUrl ?? '',
    mimeType: m.mimeType ?? '',
    fileName: m.fileName ?? '',
    interactiveType: m.interactiveType ?? '',
    interactiveJson: m.interactiveJson ?? '',
    subject: m.subject ?? '',
    via: m.via ?? '',
    pricing: m.pricing ? { billable: m.pricing.billable, pricingModel: m.pricing.pricingModel, category: m.pricing.category } : null,
    reactions: (m.reactions ?? []).map((r) => ({ emoji: r.emoji, fromMe: r.fromMe, at: r.at.toISOString() })),
    edited: m.edited ?? false,
    editHistory: (m.editHistory ?? []).map((h) => ({ body: h.body, at: h.at.toISOString() })),
    deleted: m.deleted ?? false,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

/**
 * E-mail replies stay in the contact's thread: "Re: <their latest subject>". Without one (the
 * ticket was opened by us) the driver derives a subject from the text.
 */
export const replySubject = (subject: string): string => (!subject || /^re:/i.test(subject) ? subject : `Re: ${subject}`);
