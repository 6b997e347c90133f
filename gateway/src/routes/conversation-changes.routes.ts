import { MESSAGE_CHANGES, type MessageChange, type proto } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clients } from '../clients';
import { ApiParams, contactKeyOf } from '../schemas/common';
import { ChangeResult, DeleteMessageBody, EditMessageBody, SendReactionBody } from '../schemas/conversation.schemas';
import { principalOf, security } from './principal';

const tags = ['messages'];
/** The kinds whose provider takes a change, from the kit's one table (MESSAGE_CHANGES). */
const kindsThat = (change: MessageChange) =>
  Object.entries(MESSAGE_CHANGES)
    .filter(([, changes]) => changes?.includes(change))
    .map(([kind]) => (kind === 'social_a' ? 'social_a (❤️ only)' : kind))
    .join(', ');

const ACCEPTED = { react: 'Reaction accepted for delivery', edit: 'Edit accepted for delivery', delete: 'Deletion accepted for delivery' };

/**
 * sendReaction, editMessage, deleteMessage (CONVENTIONS.md "The whole conversation";
 * docs/api/beyond-the-seed.md): a change to a message of the integration's tenant, accepted like a
 * send (messaging's SendChange stores and queues it; the dispatcher delivers it after the ticket's
 * earlier sends) and answered before any provider call.
 */
export async function conversationChangeRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  const change = async (
    req: FastifyRequest,
    kind: keyof typeof ACCEPTED,
    fields: Partial<proto.messaging.SendChangeRequest>,
  ): Promise<ChangeResult> => {
    const { tenantId, sessionId } = principalOf(req);
    const res = await clients.messaging.SendChange({ tenantId, channelId: sessionId, change: kind, ...fields });
    return {
      success: true as const,
      data: { message: ACCEPTED[kind], ticketId: res.ticketId, messageId: res.messageId, changeId: res.changeId },
    };
  };

  r.post(
    '/sendReaction',
    {
      schema: {
        params: ApiParams,
        body: SendReactionBody,
        response: { 200: ChangeResult },
        tags,
        security,
        summary: 'React to a message of a conversation (emoji "" removes our reaction)',
        description:
          `Where the channel reacts: ${kindsThat('react')}; elsewhere 400 ERR_CHANNEL_MISMATCH. ` +
          "An unknown message, another tenant's, or one not of the conversation named: 404 ERR_MESSAGE_NOT_FOUND.",
      },
    },
    async (req) => {
      const b = req.body;
      return change(req, 'react', {
        messageId: b.messageId,
        ticketId: b.ticketId ?? 0,
        number: b.number === undefined ? '' : contactKeyOf(b.number),
        emoji: b.emoji,
      });
    },
  );

  r.post(
    '/editMessage',
    {
      schema: {
        params: ApiParams,
        body: EditMessageBody,
        response: { 200: ChangeResult },
        tags,
        security,
        summary: 'Edit the text of a message the business sent',
        description:
          `Where the engine edits: ${kindsThat('edit')}; elsewhere (the Cloud API and Messenger/Instagram cannot) 400 ERR_CHANNEL_MISMATCH. ` +
          "The contact's message: 400 ERR_MESSAGE_NOT_FROM_ME; a failed or deleted message: 409 ERR_MESSAGE_NOT_SENT / ERR_MESSAGE_DELETED.",
      },
    },
    async (req) => change(req, 'edit', { messageId: req.body.messageId, body: req.body.body }),
  );

  r.post(
    '/deleteMessage',
    {
      schema: {
        params: ApiParams,
        body: DeleteMessageBody,
        response: { 200: ChangeResult },
        tags,
        security,
        summary: 'Delete a message the business sent, for everyone',
        description:
          `Where the engine deletes for everyone: ${kindsThat('delete')}; elsewhere 400 ERR_CHANNEL_MISMATCH. ` +
          "The contact's message: 400 ERR_MESSAGE_NOT_FROM_ME; a failed or deleted message: 409 ERR_MESSAGE_NOT_SENT / ERR_MESSAGE_DELETED.",
      },
    },
    async (req) => change(req, 'delete', { messageId: req.body.messageId }),
  );
}
