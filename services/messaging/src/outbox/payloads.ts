import type { proto } from '@convo/kit';
import type { MessageDoc } from '../db/models';

// The bodies of customer webhooks, one function per `method` (docs/webhooks.md shows each).
// Absent values are null, as in the REST records.

const orNull = (s: string | undefined | null) => (s ? s : null);
const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The ticket as the external API's ticket record names its fields (a subset: what a receiver routes on). */
export function ticketSummary(t: proto.tickets.Ticket__Output) {
  return {
    id: t.id,
    status: t.status,
    whatsappId: t.channelId,
    contact: t.contact ? { id: t.contact.id, number: orNull(t.contact.number), name: orNull(t.contact.name), email: orNull(t.contact.email) } : null,
    userId: t.userId ?? null,
    queueId: t.queueId ?? null,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** `method: "message"`: a contact wrote on the channel (every kind, e-mail included). */
export function messagePayload(
  m: MessageDoc,
  ticket: proto.tickets.Ticket__Output,
  channel: Pick<proto.tenants.Channel__Output, 'id' | 'type'>,
  from: { number: string; name: string; email: string },
  raw: string,
) {
  return {
    method: 'message' as const,
    msg: {
      messageId: m._id,
      ticketId: m.ticketId,
      whatsappId: channel.id,
      channelType: channel.type,
      direction: 'in' as const,
      fromMe: false,
      from: orNull(from.number),
      contactName: orNull(from.name),
      email: orNull(from.email),
      type: m.messageType || 'text',
      body: m.body,
      subject: orNull(m.subject),
      mediaUrl: orNull(m.mediaUrl),
      mimeType: orNull(m.mimeType),
      fileName: orNull(m.fileName),
      providerMediaId: orNull(m.providerMediaId),
      providerMessageId: m.providerMessageId ?? '',
      replyTo: orNull(m.replyTo),
      evaluationAnswer: m.evaluationAnswer ?? false,
      timestamp: iso(m.providerTimestamp ?? m.createdAt),
      createdAt: m.createdAt.toISOString(),
      raw: parseRaw(raw),
    },
    ticket: ticketSummary(ticket),
  };
}

/** `method: "message.status"`: one of our sent messages changed state (sent, delivered, read, failed). */
export function statusPayload(m: MessageDoc, at: Date) {
  return {
    method: 'message.status' as const,
    msg: {
      messageId: m._id,
      ticketId: m.ticketId,
      whatsappId: m.channelId,
      direction: m.direction,
      status: m.status,
      providerMessageId: orNull(m.providerMessageId),
      error: orNull(m.error),
      via: orNull(m.via),
      at: at.toISOString(),
    },
    ticket: { id: m.ticketId },
  };
}

/** `method: "service.status"`: the channel's engine connected or disconnected. */
export function serviceStatusPayload(channel: Pick<proto.tenants.Channel__Output, 'id' | 'tenantId' | 'name' | 'type'>, status: string, at: Date) {
  return {
    method: 'service.status' as const,
    whatsappId: channel.id,
    status,
    session: { id: channel.id, tenantId: channel.tenantId, name: channel.name, type: channel.type, status },
    at: at.toISOString(),
  };
}

/** The provider's own event, kept as JSON (null when there is none or it is not JSON). */
function parseRaw(raw: string): unknown {
  if (!raw) return null;
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}
