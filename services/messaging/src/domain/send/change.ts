import {
  conflict,
  contactAddress,
  currentTraceparent,
  type grpc,
  Issues,
  type MessageChange,
  notFound,
  type proto,
  reactionProblem,
  takesChange,
  validation,
} from '@convo/kit';
import type { MessageDoc } from '../../db/models';
import { newMessageId } from '../message-id';
import { requireTimeLeft } from '../send-checks';
import type { Acceptance } from './acceptance';

const CHANGES: readonly MessageChange[] = ['react', 'edit', 'delete'];
/** The longest emoji sequence a reaction takes (a family or a flag with its modifiers stays well under it). */
export const MAX_EMOJI_CHARS = 32;
/** An edit's text: WhatsApp's limit of a text message. */
export const MAX_EDIT_CHARS = 4096;

const WHAT: Record<MessageChange, string> = { react: 'react to', edit: 'edit', delete: 'delete' };

/**
 * sendReaction, editMessage, deleteMessage (CONVENTIONS.md "The whole conversation"): a change to a
 * stored message of the tenant, accepted like a send (stored, then delivered by the dispatcher in
 * the message's ticket's order, so a reaction to a message just sent goes out after it) and shown
 * on the message once the provider took it (dispatcher/changes.ts).
 *
 * Refused at once: a message that is not the tenant's, or not of the conversation a reaction names
 * → 404 ERR_MESSAGE_NOT_FOUND; a kind whose provider cannot make the change → 400
 * ERR_CHANNEL_MISMATCH; an edit or deletion of the contact's message → 400 ERR_MESSAGE_NOT_FROM_ME;
 * a message that failed (the provider never had it) → 409 ERR_MESSAGE_NOT_SENT; a change to a
 * message deleted for everyone → 409 ERR_MESSAGE_DELETED.
 */
export async function sendChange(
  core: Acceptance,
  req: proto.messaging.SendChangeRequest__Output,
  deadline?: grpc.Deadline,
): Promise<proto.messaging.SendChangeResponse> {
  const kind = req.change as MessageChange;
  new Issues()
    .check(CHANGES.includes(kind), 'change', 'must be react, edit or delete')
    .check(!!req.messageId, 'messageId', 'is required')
    .check(kind !== 'react' || [...req.emoji].length <= MAX_EMOJI_CHARS, 'emoji', `must be at most ${MAX_EMOJI_CHARS} characters`)
    .check(kind !== 'edit' || !!req.body.trim(), 'body', 'is required')
    .check(kind !== 'edit' || req.body.length <= MAX_EDIT_CHARS, 'body', `must be at most ${MAX_EDIT_CHARS} characters`)
    .throwIfAny('Invalid change');
  const { tenantId } = req;
  const target = await core.repo.findById(tenantId, req.messageId);
  if (!target || (req.ticketId && target.ticketId !== req.ticketId)) throw notFound('message');
  const { ticket } = await core.tickets.get(tenantId, target.ticketId);
  // By number: a message of that contact's conversation on the integration's channel.
  if (req.number && (target.channelId !== req.channelId || !isContact(ticket.contact, req.number))) throw notFound('message');
  const channel = await core.channels.get(tenantId, target.channelId);
  if (!takesChange(channel.type, kind))
    throw validation(
      `${channel.type} channels cannot ${WHAT[kind]} a message`,
      [{ field: 'messageId', message: `its channel is ${channel.type}, whose provider cannot ${WHAT[kind]} a message` }],
      'ERR_CHANNEL_MISMATCH',
    );
  refuseState(target, kind, channel.type, req.emoji);
  requireTimeLeft(deadline);
  const now = new Date();
  const traceparent = currentTraceparent();
  const changeId = newMessageId(now.getTime());
  const doc: MessageDoc & { change: { kind: MessageChange; targetId: string; emoji?: string; body?: string } } = {
    _id: changeId,
    tenantId,
    ticketId: target.ticketId,
    channelId: target.channelId,
    direction: 'out',
    body: '',
    status: 'queued',
    to: (ticket.contact && contactAddress(ticket.contact)) || target.to || '',
    change: {
      kind,
      targetId: target._id,
      ...(kind === 'react' && { emoji: req.emoji }),
      ...(kind === 'edit' && { body: req.body }),
    },
    ...(traceparent && { traceparent }),
    createdAt: now,
    updatedAt: now,
  };
  await core.repo.changes.insert(doc);
  return { ticketId: target.ticketId, messageId: target._id, changeId };
}

function refuseState(target: MessageDoc, kind: MessageChange, channelType: string, emoji: string): void {
  if (kind === 'react') {
    const problem = reactionProblem(channelType, emoji);
    if (problem) throw validation('This channel cannot show that reaction', [{ field: 'emoji', message: problem }]);
  }
  if (kind !== 'react' && target.direction !== 'out')
    throw validation(
      `Only messages the business sent can be ${kind === 'edit' ? 'edited' : 'deleted'}`,
      [{ field: 'messageId', message: "is the contact's message" }],
      'ERR_MESSAGE_NOT_FROM_ME',
    );
  if (target.status === 'failed') throw conflict('ERR_MESSAGE_NOT_SENT', 'The message was never delivered: there is nothing to change');
  if (target.deleted) throw conflict('ERR_MESSAGE_DELETED', 'The message was deleted for everyone');
}

function isContact(contact: proto.tickets.Contact__Output | null | undefined, key: string): boolean {
  if (!contact) return false;
  return [contact.number, contact.lid, contact.bsuid, contact.parentBsuid].some((id) => !!id && id === key);
}
