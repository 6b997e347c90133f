import { validation } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { ApiParams } from '../schemas/common';
import { SendMessageBody } from '../schemas/ticket.schemas';
import { principalOf, security } from './external';

/** sendMessageByTicket: the one way to send to any ticket, whatever the channel kind. */
export async function messageRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/sendMessageByTicket', { schema: { params: ApiParams, body: SendMessageBody, tags: ['messages'], security } }, async (req) => {
    const b = req.body;
    const sources = (['mediaUrl', 'base64Data'] as const).filter((f) => b[f] !== undefined);
    if (sources.length > 1) {
      throw validation('At most one media source per request', sources.map((field) => ({ field, message: 'only one of media, mediaUrl, base64Data' })));
    }
    if (sources.length) {
      throw validation('Media sending is not available in this release', sources.map((field) => ({ field, message: 'not supported yet; send text' })), 'ERR_MEDIA_UNSUPPORTED');
    }
    if (!b.body) throw validation('Invalid message', [{ field: 'body', message: 'is required for a text message' }]);
    const res = await clients.messaging.SendByTicket({
      tenantId: principalOf(req).tenantId,
      ticketId: b.ticketId,
      body: b.body,
      externalKey: b.externalKey ?? '',
      reopen: b.reopen ?? false,
      isClosed: b.isClosed ?? false,
    });
    if (res.skipped) return { success: true, idempotent: true, skipped: true, ticketId: res.ticketId };
    return { success: true, data: { message: 'Message accepted for delivery', ticketId: res.ticketId, messageId: res.messageId } };
  });
}
