import { grpc, isServiceError, type proto, type ServiceClient } from '@convo/kit';
import type { MessageDoc, MessageStatus } from '../db/models';

// An inbound event of channel-engines as ingest reads it: who it names, when they wrote, and the
// message document it becomes.

type InboundEvent = proto.channelEngines.InboundEvent__Output;
type Channel = proto.tenants.Channel__Output;
type Ticket = proto.tickets.Ticket__Output;

/** An incoming message reached us: `delivered` is the status it is stored with. */
const INCOMING_STATUS: MessageStatus = 'delivered';

/**
 * The contact an event names, by its best identity (a phone, else its BSUID, parent BSUID or LID),
 * as tickets takes it in a contact's `number`.
 */
export const contactOfEvent = (e: InboundEvent) => e.from || e.bsuid || e.parentBsuid || e.lid;
/** The identities of an event, as OpenForContact takes them. */
export const eventIdentities = (e: InboundEvent) => ({
  number: e.from,
  bsuid: e.bsuid,
  parentBsuid: e.parentBsuid,
  lid: e.lid,
  username: e.username,
});

/** When the contact wrote, as the provider says (never in the future), ISO. */
export const inboundTime = (e: InboundEvent): string => {
  const now = Date.now();
  const at = Number(e.timestampMs);
  return new Date(at > 0 ? Math.min(at, now) : now).toISOString();
};

/** The stored document of an incoming message (an answer to a survey when `answersSurvey`). */
export function incomingDoc(messageId: string, channel: Channel, ticket: Ticket, e: InboundEvent, answersSurvey: boolean): MessageDoc {
  const now = new Date();
  const sentMs = Number(e.timestampMs);
  return {
    _id: messageId,
    tenantId: channel.tenantId,
    ticketId: ticket.id,
    channelId: channel.id,
    direction: 'in',
    body: e.body,
    status: INCOMING_STATUS,
    providerMessageId: e.providerMessageId,
    error: e.error,
    mediaUrl: e.mediaUrl,
    mediaId: '',
    mimeType: e.mimeType,
    fileName: e.fileName,
    externalKey: '',
    subject: e.subject,
    messageType: e.messageType || 'text',
    replyTo: e.replyTo,
    providerMediaId: e.providerMediaId,
    providerTimestamp: sentMs ? new Date(sentMs) : null,
    evaluationAnswer: answersSurvey,
    createdAt: now,
    updatedAt: now,
  };
}

type Result = proto.messaging.IngestResult;

/** What ingest answers of one event: its outcome, and the message and ticket it reached. */
export const ingestResult = (outcome: string, messageId = '', ticketId = 0): Result => ({ outcome, messageId, ticketId });
export const ignored = () => ingestResult('ignored');
export const hasCode = (err: unknown, ...codes: grpc.status[]) => isServiceError(err) && codes.includes(err.code);

/**
 * The contact's tickets on this channel, newest first. Tickets looks contacts up by any identity
 * (a number, digits up to 20 with numeric PSIDs/IGSIDs; a BSUID; a LID); an id it does not take
 * as one finds nothing.
 */
export async function contactTickets(client: ServiceClient<'tickets'>, channel: Channel, number: string): Promise<Ticket[]> {
  try {
    const { tickets } = await client.FindContactTickets({ tenantId: channel.tenantId, number, all: true });
    return tickets.filter((t) => t.channelId === channel.id);
  } catch (err) {
    if (hasCode(err, grpc.status.INVALID_ARGUMENT)) return [];
    throw err;
  }
}
