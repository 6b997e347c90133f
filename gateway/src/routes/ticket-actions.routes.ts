import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { noteRecord, ticketRecord } from '../presenters';
import { ApiParams } from '../schemas/common';
import {
  AddTagBody,
  CreateNotesBody,
  EvaluationResult,
  NoteResult,
  PauseParams,
  PauseStartBody,
  RemoveTagBody,
  SendEvaluationBody,
  TicketResult,
} from '../schemas/ticket.schemas';
import { principalOf, security } from './principal';

const tags = ['tickets'];

/** What is done to a ticket besides updating it: tags, notes, pauses and the satisfaction survey. */
export async function ticketActionRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/addTag',
    { schema: { summary: 'Add tags to a ticket', params: ApiParams, body: AddTagBody, response: { 200: TicketResult }, tags, security } },
    async (req) => {
      const b = req.body;
      const tagIds = [...(b.tagId ? [b.tagId] : []), ...(b.tagIds ?? [])];
      const ticket = await clients.tickets.AddTags({ tenantId: principalOf(req).tenantId, ticketId: b.ticketId, tagIds });
      return { success: true as const, data: ticketRecord(ticket) };
    },
  );

  r.post(
    '/removeTag',
    {
      schema: {
        summary: 'Take a tag off a ticket',
        params: ApiParams,
        body: RemoveTagBody,
        response: { 200: TicketResult },
        tags,
        security,
      },
    },
    async (req) => {
      const { ticketId, tagId } = req.body;
      const ticket = await clients.tickets.RemoveTag({ tenantId: principalOf(req).tenantId, ticketId, tagId });
      return { success: true as const, data: ticketRecord(ticket) };
    },
  );

  r.post(
    '/createNotes',
    {
      schema: {
        summary: 'Add an internal note to a ticket',
        params: ApiParams,
        body: CreateNotesBody,
        response: { 200: NoteResult },
        tags,
        security,
      },
    },
    async (req) => {
      const b = req.body;
      const note = await clients.tickets.CreateNote({
        tenantId: principalOf(req).tenantId,
        ticketId: b.ticketId,
        userId: b.userId,
        notes: b.notes,
        idFront: b.idFront ?? '',
      });
      return { success: true as const, data: noteRecord(note) };
    },
  );

  r.post(
    '/ticket/pause/start/:ticketId',
    { schema: { summary: 'Pause a ticket', params: PauseParams, body: PauseStartBody, response: { 200: TicketResult }, tags, security } },
    async (req) => {
      const ticket = await clients.tickets.StartPause({
        tenantId: principalOf(req).tenantId,
        ticketId: req.params.ticketId,
        pauseReason: req.body.pauseReason,
      });
      return { success: true as const, data: ticketRecord(ticket) };
    },
  );

  r.post(
    '/ticket/pause/end/:ticketId',
    { schema: { summary: "End a ticket's pause", params: PauseParams, response: { 200: TicketResult }, tags, security } },
    async (req) => {
      const ticket = await clients.tickets.EndPause({ tenantId: principalOf(req).tenantId, ticketId: req.params.ticketId });
      return { success: true as const, data: ticketRecord(ticket) };
    },
  );

  r.post(
    '/sendEvaluation',
    {
      schema: {
        summary: 'Send the satisfaction survey of a ticket',
        params: ApiParams,
        body: SendEvaluationBody,
        response: { 200: EvaluationResult },
        tags,
        security,
      },
    },
    async (req) => {
      const b = req.body;
      const tenantId = principalOf(req).tenantId;
      const ticketId = b.ticketId;
      const sent = await clients.messaging.SendEvaluation({
        tenantId,
        ticketId,
        force: b.force ?? false,
        externalKey: b.externalKey ?? '',
      });
      if (sent.skipped) return { success: true as const, idempotent: true as const, skipped: true as const, ticketId };
      const { messageId } = sent;
      const record = ticketRecord(sent.ticket!);
      return {
        success: true as const,
        data: { message: 'Evaluation sent', ticketId, messageId, evaluation: record.evaluation, ticket: record },
      };
    },
  );
}
