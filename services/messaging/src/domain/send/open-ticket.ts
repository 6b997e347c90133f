import { type grpc, notFound, type proto, validation } from '@convo/kit';
import { newMessageId } from '../message-id';
import type { Acceptance } from './acceptance';

/**
 * createTicket as one operation: the checks that write nothing (the e-mail variant's channel must
 * be a webmail channel; validateNumber asks the channel's network), then the ticket, then its
 * first message queued. If the message cannot be queued the new ticket is discarded (and its
 * externalKey freed): both or neither. A repeated externalKey answers the first ticket and
 * queues nothing.
 */
export async function openTicket(
  core: Acceptance,
  req: proto.messaging.OpenTicketRequest__Output,
  deadline?: grpc.Deadline,
): Promise<proto.messaging.OpenTicketResponse> {
  const t = req.ticket;
  if (!t) throw validation('Invalid ticket', [{ field: 'ticket', message: 'is required' }]);
  if (!req.body.trim()) throw validation('Invalid ticket', [{ field: 'body', message: 'is required: the first message' }]);
  const { tenantId } = t;
  if (!t.number) {
    // The e-mail variant names its channel: another tenant's is NOT_FOUND, as if absent.
    const channel = await core.channels.get(tenantId, t.channelId);
    if (channel.type !== 'webmail') {
      throw validation(
        'The e-mail variant needs a webmail channel',
        [{ field: 'channelId', message: `channel ${channel.id} is ${channel.type}, not webmail` }],
        'ERR_CHANNEL_NOT_WEBMAIL',
      );
    }
  } else if (req.validateNumber) {
    await core.channels.requireOnNetwork(await core.channels.get(tenantId, t.channelId), t.number);
  }
  const { ticket, created } = await core.peers.tickets.CreateTicket(t);
  if (!ticket) throw notFound('ticket');
  if (!created) return { ticket, created: false, messageId: '' };
  const messageId = newMessageId();
  try {
    const channel = await core.channels.target(tenantId, ticket, {});
    await core.enqueue(ticket, channel, { messageId, body: req.body, externalKey: '' }, {}, deadline);
  } catch (err) {
    await core.peers.tickets.DiscardTicket({ tenantId, ticketId: ticket.id }).catch((undo: unknown) => {
      core.log.error({ err: undo, ticketId: ticket.id }, 'new ticket not discarded after its first message was refused');
    });
    throw err;
  }
  return { ticket, created: true, messageId };
}
