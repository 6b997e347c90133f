import type { grpc, proto } from '@convo/kit';
import { newMessageId } from '../message-id';
import type { Acceptance } from './acceptance';

/**
 * sendEvaluation as one operation: tickets claims the survey (once per ticket unless forced,
 * once per externalKey), the survey is queued, then the claim is completed with its message. A
 * survey that cannot be queued frees the claims, so a retry sends it.
 */
export async function sendEvaluation(
  core: Acceptance,
  req: proto.messaging.SendEvaluationRequest__Output,
  deadline?: grpc.Deadline,
): Promise<proto.messaging.SendEvaluationResponse> {
  const { tenantId, ticketId } = req;
  const begun = await core.peers.tickets.BeginEvaluation({ tenantId, ticketId, force: req.force, externalKey: req.externalKey });
  if (!begun.proceed) return { skipped: true, messageId: '', ticket: begun.ticket };
  const messageId = newMessageId();
  try {
    const ticket = begun.ticket ?? (await core.peers.tickets.GetTicket({ tenantId, ticketId }));
    const channel = await core.channels.target(tenantId, ticket, {});
    await core.enqueue(ticket, channel, { messageId, body: begun.body, externalKey: '' }, {}, deadline);
  } catch (err) {
    await core.peers.tickets.AbortEvaluation({ tenantId, ticketId, claimId: begun.claimId }).catch((undo: unknown) => {
      core.log.error({ err: undo, ticketId }, 'evaluation claims not freed after the survey was refused');
    });
    throw err;
  }
  const ticket = await core.peers.tickets.CompleteEvaluation({ tenantId, ticketId, claimId: begun.claimId, messageId });
  return { skipped: false, messageId, ticket };
}
