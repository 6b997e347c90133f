import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { messageRecord } from '../presenters';
import { ApiParams } from '../schemas/common';
import { MessageHistory, MessageResult, MessageSearch } from '../schemas/message.schemas';
import { MessageIdQuery, SearchMessagesQuery, ShowAllMessagesBody } from '../schemas/ticket.schemas';
import { principalOf, security } from './principal';

const tags = ['messages'];

/** Reading a ticket's messages: all of them, a search, or one by id. */
export async function messageReadRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/showAllMessages',
    {
      schema: {
        summary: 'The newest messages of a ticket, in conversation order',
        params: ApiParams,
        body: ShowAllMessagesBody,
        response: { 200: MessageHistory },
        tags,
        security,
      },
    },
    async (req) => {
      // The seed sends the ticket id as text; the schema admits digits only.
      const ticketId = Number(req.body.ticket);
      const page = await clients.messaging.ListTicketMessages({ tenantId: principalOf(req).tenantId, ticketId });
      return { success: true as const, data: { ticketId, messages: page.messages.map(messageRecord), hasMore: page.hasMore } };
    },
  );

  r.get(
    '/searchMessages',
    {
      schema: {
        summary: "A page of a ticket's messages containing a text",
        params: ApiParams,
        querystring: SearchMessagesQuery,
        response: { 200: MessageSearch },
        tags,
        security,
      },
    },
    async (req) => {
      const q = req.query;
      const page = await clients.messaging.SearchMessages({
        tenantId: principalOf(req).tenantId,
        ticketId: q.ticketId,
        search: q.searchParam,
        page: q.page,
        limit: q.limit,
      });
      return {
        success: true as const,
        data: { messages: page.messages.map(messageRecord), count: page.count, hasMore: page.hasMore, page: page.page, limit: page.limit },
      };
    },
  );

  r.get(
    '/getMessageByMessageId',
    {
      schema: {
        summary: 'One message by id',
        params: ApiParams,
        querystring: MessageIdQuery,
        response: { 200: MessageResult },
        tags,
        security,
      },
    },
    async (req) => {
      const message = await clients.messaging.GetMessage({ tenantId: principalOf(req).tenantId, messageId: req.query.messageId });
      return { success: true as const, data: messageRecord(message) };
    },
  );
}
