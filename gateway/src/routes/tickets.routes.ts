import type { proto } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { lastMessageRecord, ticketRecord } from '../presenters';
import { ApiParams } from '../schemas/common';
import {
  CreateTicketBody,
  CreateTicketResult,
  ListTicketsQuery,
  NumberBody,
  TicketIdBody,
  TicketList,
  TicketPage,
  TicketResult,
  UpdateQueueBody,
  UpdateTicketBody,
} from '../schemas/ticket.schemas';
import { principalOf, security } from './principal';

const tags = ['tickets'];

/** Ticket records of a read, each with its last message: one messaging call for the whole list. */
export async function withLastMessages(clients: Clients, tenantId: number, tickets: proto.tickets.Ticket__Output[]) {
  if (!tickets.length) return [];
  const { messages } = await clients.messaging.LastMessages({ tenantId, ticketIds: tickets.map((t) => t.id) });
  const last = new Map(messages.map((m) => [m.ticketId, lastMessageRecord(m)]));
  return tickets.map((t) => ticketRecord(t, last.get(t.id) ?? null));
}

const idList = (csv?: string) => (csv ? csv.split(',').map((s) => Number(s.trim())) : []);

/** Ticket operations of the external API: create, read, update. */
export async function ticketRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/createTicket',
    {
      schema: {
        summary: 'Open a ticket and send its first message',
        params: ApiParams,
        body: CreateTicketBody,
        response: { 200: CreateTicketResult },
        tags,
        security,
      },
    },
    async (req) => {
      const b = req.body;
      const { tenantId, sessionId } = principalOf(req);
      // One operation in messaging: the checks, the ticket and its first message queued, or nothing.
      // A deduplicated create (same externalKey) answers the first ticket and queues nothing.
      const { ticket, created, messageId } = await clients.messaging.OpenTicket({
        ticket: {
          tenantId,
          channelId: b.number ? sessionId : b.channelId!,
          number: b.number ?? '',
          email: b.number ? '' : (b.email ?? ''),
          status: b.status ?? '',
          userId: b.userId,
          // null is "not set" on a new ticket (the seed types both as integer or null).
          queueId: b.queueId ?? undefined,
          chatFlowId: b.chatFlowId ?? undefined,
          kanbanId: b.kanbanId,
          reasonId: b.reasonId,
          value: b.value,
          externalKey: b.externalKey ?? '',
        },
        body: b.body,
        validateNumber: b.validateNumber ?? false,
      });
      return {
        success: true as const,
        data: { ticketId: ticket!.id, created, messageId: messageId || null, ticket: ticketRecord(ticket!) },
      };
    },
  );

  r.get(
    '/listTickets',
    {
      schema: {
        summary: 'A page of tickets, most recently active first',
        params: ApiParams,
        querystring: ListTicketsQuery,
        response: { 200: TicketPage },
        tags,
        security,
      },
    },
    async (req) => {
      const q = req.query;
      const tenantId = principalOf(req).tenantId;
      const queueIds = idList(q.queuesIds);
      const channelIds = idList(q.whatsappIds);
      const page = await clients.tickets.ListTickets({
        tenantId,
        page: q.pageNumber,
        status: q.status ?? '',
        search: q.searchParam ?? '',
        queueIds,
        channelIds,
      });
      return {
        success: true as const,
        data: {
          tickets: await withLastMessages(clients, tenantId, page.tickets),
          count: page.count,
          hasMore: page.hasMore,
          pageNumber: page.page,
          pageSize: page.pageSize,
        },
      };
    },
  );

  r.post(
    '/showticket',
    {
      schema: {
        summary: "A contact number's current ticket",
        params: ApiParams,
        body: NumberBody,
        response: { 200: TicketResult },
        tags,
        security,
      },
    },
    async (req) => {
      const tenantId = principalOf(req).tenantId;
      const { tickets } = await clients.tickets.FindContactTickets({ tenantId, number: req.body.number, all: false });
      const [record] = await withLastMessages(clients, tenantId, tickets);
      return { success: true as const, data: record };
    },
  );

  r.post(
    '/showallticket',
    {
      schema: {
        summary: 'Every ticket of a contact number',
        params: ApiParams,
        body: NumberBody,
        response: { 200: TicketList },
        tags,
        security,
      },
    },
    async (req) => {
      const tenantId = principalOf(req).tenantId;
      const { tickets } = await clients.tickets.FindContactTickets({ tenantId, number: req.body.number, all: true });
      return { success: true as const, data: { tickets: await withLastMessages(clients, tenantId, tickets), count: tickets.length } };
    },
  );

  r.post(
    '/showTicketById',
    {
      schema: {
        summary: 'One ticket by id, with its last message',
        params: ApiParams,
        body: TicketIdBody,
        response: { 200: TicketResult },
        tags,
        security,
      },
    },
    async (req) => {
      const tenantId = principalOf(req).tenantId;
      const ticketId = req.body.ticketId;
      // Both at once: the last-message read is tenant-filtered, so asking before the ticket is known leaks nothing.
      const [ticket, { messages }] = await Promise.all([
        clients.tickets.GetTicket({ tenantId, ticketId }),
        clients.messaging.LastMessages({ tenantId, ticketIds: [ticketId] }),
      ]);
      return { success: true as const, data: ticketRecord(ticket, messages[0] ? lastMessageRecord(messages[0]) : null) };
    },
  );

  r.post(
    '/updateticketinfo',
    {
      schema: {
        summary: "Change a ticket's status, user, queue, chat flow, kanban column, reason or bot flags",
        params: ApiParams,
        body: UpdateTicketBody,
        response: { 200: TicketResult },
        tags,
        security,
      },
    },
    async (req) => {
      const b = req.body;
      const tenantId = principalOf(req).tenantId;
      const ticket = await clients.tickets.UpdateTicket({
        tenantId,
        ticketId: b.ticketId,
        status: b.status ?? '',
        userId: b.userId,
        queueId: b.queueId ?? undefined,
        clearQueue: b.queueId === null,
        chatFlowId: b.chatFlowId ?? undefined,
        clearChatFlow: b.chatFlowId === null,
        // Checked by the tickets service: another tenant's or an unknown id → 404.
        kanbanId: b.kanbanId ?? undefined,
        clearKanban: b.kanbanId === null,
        reasonId: b.reasonId ?? undefined,
        clearReason: b.reasonId === null,
        botBuilderStatus: b.botBuilderStatus,
        llmAssistantStatus: b.llmAssistantStatus,
        workflowStatus: b.workflowStatus,
      });
      return { success: true as const, data: ticketRecord(ticket) };
    },
  );

  r.post(
    '/updatequeue',
    {
      schema: {
        summary: 'Move a ticket to a queue',
        params: ApiParams,
        body: UpdateQueueBody,
        response: { 200: TicketResult },
        tags,
        security,
      },
    },
    async (req) => {
      const { ticketId, queueId } = req.body;
      const ticket = await clients.tickets.SetQueue({ tenantId: principalOf(req).tenantId, ticketId, queueId });
      return { success: true as const, data: ticketRecord(ticket) };
    },
  );
}
