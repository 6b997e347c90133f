import { shownIdentities, type proto } from '@convo/kit';
import type { MessageDoc } from '../db/models';

// The bodies of customer webhooks, one function per `method` (docs/webhooks.md shows each).
// Absent values are null, as in the REST records, but for a contact's identities beyond the phone
// (docs/api/contact-identities.md): as in every answer, `number` is "" when the contact has none,
// and `bsuid`, `parentBsuid`, `lid` and `username` are there only when known.

const orNull = (s: string | undefined | null) => (s ? s : null);
const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The ticket as the external API's ticket record names its fields (a subset: what a receiver routes on). */
export function ticketSummary(t: proto.tickets.Ticket__Output) {
  return {
    id: t.id,
    status: t.status,
    whatsappId: t.channelId,
    contact: t.contact
      ? { id: t.contact.id, ...shownIdentities(t.contact), name: orNull(t.contact.name), email: orNull(t.contact.email) }
      : null,
    userId: t.userId ?? null,
    queueId: t.queueId ?? null,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** Who wrote: the event's contact, with the identities it carried besides (or instead of) the number. */
export interface Sender {
  number: string;
  name: string;
  email: string;
  bsuid?: string;
  parentBsuid?: string;
  lid?: string;
  username?: string;
}

/**
 * `method: "message"`: a contact wrote on the channel (every kind, e-mail included), or the business
 * wrote outside the API (`direction: "out"`, `fromMe: true`: an engine's own message, a Meta echo).
 * `msg.from` is the contact's number, null when it has none (an e-mail sender, one known only by its
 * BSUID or LID); its other identities follow it when the event carried them.
 */
export function messagePayload(
  m: MessageDoc,
  ticket: proto.tickets.Ticket__Output,
  channel: Pick<proto.tenants.Channel__Output, 'id' | 'type'>,
  from: Sender,
  raw: string,
) {
  const { number, ...identities } = shownIdentities(from);
  return {
    method: 'message' as const,
    msg: {
      messageId: m._id,
      ticketId: m.ticketId,
      whatsappId: channel.id,
      channelType: channel.type,
      direction: m.direction,
      fromMe: m.direction === 'out',
      from: orNull(number),
      ...identities,
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

/** The message a reaction, an edit or a deletion is about, by this platform's id, and its ticket. */
const about = <M extends string, T extends object>(method: M, m: MessageDoc, ticket: proto.tickets.Ticket__Output, msg: T) => ({
  method,
  msg: { messageId: m._id, ticketId: m.ticketId, whatsappId: m.channelId, ...msg },
  ticket: ticketSummary(ticket),
});

/** `method: "reaction"`: a reaction on a message (`emoji: ""` removes the sender's); `fromMe`: the business reacted. */
export const reactionPayload = (m: MessageDoc, ticket: proto.tickets.Ticket__Output, emoji: string, fromMe: boolean, at: Date) =>
  about('reaction', m, ticket, { emoji, fromMe, at: at.toISOString() });

/** `method: "edit"`: the message's text changed at the provider; `body` is the new one. */
export const editPayload = (m: MessageDoc, ticket: proto.tickets.Ticket__Output, body: string, fromMe: boolean, at: Date) =>
  about('edit', m, ticket, { body, fromMe, at: at.toISOString() });

/** `method: "delete"`: the message was deleted for everyone (its content stays in message reads). */
export const deletePayload = (m: MessageDoc, ticket: proto.tickets.Ticket__Output, fromMe: boolean, at: Date) =>
  about('delete', m, ticket, { fromMe, at: at.toISOString() });

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
      // waba: what Meta reported of the message's price, once a status carried it.
      ...(m.pricing && { pricing: { billable: m.pricing.billable, pricingModel: m.pricing.pricingModel, category: m.pricing.category } }),
      at: at.toISOString(),
    },
    ticket: { id: m.ticketId },
  };
}

/** `method: "service.status"`: the channel's engine connected or disconnected. */
export function serviceStatusPayload(
  channel: Pick<proto.tenants.Channel__Output, 'id' | 'tenantId' | 'name' | 'type'>,
  status: string,
  at: Date,
) {
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
