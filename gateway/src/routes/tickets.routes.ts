import { validation } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { ticketRecord } from '../presenters';
import { ApiParams } from '../schemas/common';
import { CreateTicketBody, TicketIdBody, UpdateTicketBody } from '../schemas/ticket.schemas';
import { principalOf, security } from './external';

/** Ticket operations of the external API. */
export async function ticketRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

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
}
