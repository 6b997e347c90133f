import { validation } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator, Principal } from '../auth';
import type { Clients } from '../clients';
import { ticketRecord } from '../presenters';
import { ApiParams } from '../schemas/common';
import { CreateTicketBody, SendMessageBody, TicketIdBody, UpdateTicketBody } from '../schemas/ticket.schemas';

const principalOf = (req: FastifyRequest): Principal => req.principal!;

/** The external API: `{base_url}/v2/api/external/{apiId}/<operation>`, integration token only. */
export async function externalRoutes(app: FastifyInstance, { clients, auth }: { clients: Clients; auth: Authenticator }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('onRequest', auth.external);
  const security = [{ bearer: [] }];

  r.post('/createTicket', { schema: { params: ApiParams, body: CreateTicketBody, tags: ['tickets'], security } }, async (req) => {
    const b = req.body;
    const { tenantId, sessionId } = principalOf(req);
    if (!b.number && !(b.email && b.channelId)) {
      throw validation('Invalid ticket', [{ field: 'number', message: 'is required unless email and channelId are sent' }]);
    }
    const { ticket, created } = await clients.tickets.CreateTicket({
      tenantId,
      channelId: b.number ? sessionId : b.channelId!,
      number: b.number ?? '',
      email: b.number ? '' : (b.email ?? ''),
      status: b.status ?? '',
      userId: b.userId,
      queueId: b.queueId,
      chatFlowId: b.chatFlowId,
      kanbanId: b.kanbanId,
      reasonId: b.reasonId,
      value: b.value,
      externalKey: b.externalKey ?? '',
    });
    // A deduplicated create (same externalKey) answers the first ticket and sends nothing again.
    const sent = created ? await clients.messaging.SendByTicket({ tenantId, ticketId: ticket!.id, body: b.body }) : undefined;
    const fresh = created ? await clients.tickets.GetTicket({ tenantId, ticketId: ticket!.id }) : ticket!;
    return {
      success: true,
      data: { ticketId: fresh.id, created, messageId: sent?.messageId ?? null, ticket: ticketRecord(fresh) },
    };
  });

  r.post('/showTicketById', { schema: { params: ApiParams, body: TicketIdBody, tags: ['tickets'], security } }, async (req) => ({
    success: true,
    data: ticketRecord(await clients.tickets.GetTicket({ tenantId: principalOf(req).tenantId, ticketId: req.body.ticketId })),
  }));

  r.post('/updateticketinfo', { schema: { params: ApiParams, body: UpdateTicketBody, tags: ['tickets'], security } }, async (req) => {
    const b = req.body;
    const ticket = await clients.tickets.UpdateTicket({
      tenantId: principalOf(req).tenantId,
      ticketId: b.ticketId,
      status: b.status ?? '',
      userId: b.userId,
      queueId: b.queueId ?? undefined,
      clearQueue: b.queueId === null,
      chatFlowId: b.chatFlowId ?? undefined,
      clearChatFlow: b.chatFlowId === null,
      botBuilderStatus: b.botBuilderStatus,
      llmAssistantStatus: b.llmAssistantStatus,
      workflowStatus: b.workflowStatus,
    });
    return { success: true, data: ticketRecord(ticket) };
  });

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
