import { channelTarget, type grpc, type proto, validation } from '@convo/kit';
import { deadlineMs } from '../send-checks';
import type { Acceptance } from './acceptance';

/**
 * sendPresence: typing / paused shown to the ticket's contact through the channel's driver, at
 * once (not a message: nothing is stored or queued). A kind without the notion answers applied
 * false; a provider failure is the answer (ERR_PROVIDER_FAILED).
 */
export async function sendPresence(
  core: Acceptance,
  req: proto.messaging.SendPresenceRequest__Output,
  deadline?: grpc.Deadline,
): Promise<proto.messaging.SendPresenceResponse> {
  if (req.state !== 'typing' && req.state !== 'paused')
    throw validation('Invalid presence', [{ field: 'state', message: 'must be typing or paused' }]);
  const { tenantId, ticketId } = req;
  // The contact's number and the channel, which never change: a kept copy serves.
  const { ticket } = await core.tickets.get(tenantId, ticketId);
  const to = ticket.contact?.number;
  if (!to) return { ticketId, state: req.state, applied: false };
  const channel = await core.channels.get(tenantId, ticket.channelId);
  // The Cloud API shows typing in answer to the contact's latest message.
  const replyTo = channel.type === 'waba' && req.state === 'typing' ? await core.repo.lastInboundProviderId(tenantId, ticketId) : '';
  const at = deadlineMs(deadline);
  const { applied } = await core.peers.engines.SendPresence(
    { channel: channelTarget(channel), to, state: req.state, replyTo },
    at === undefined ? {} : { deadlineMs: Math.max(1, at - Date.now() - 50) },
  );
  return { ticketId, state: req.state, applied };
}
