import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { noteRecord, ticketRecord } from '../presenters';
import { ApiParams } from '../schemas/common';
import {
  AddTagBody,
  CreateNotesBody,
  PauseParams,
  PauseStartBody,
  RemoveTagBody,
  SendEvaluationBody,
} from '../schemas/ticket.schemas';
import { principalOf, security } from './principal';

const tags = ['tickets'];

/** What is done to a ticket besides updating it: tags, notes, pauses and the satisfaction survey. */
export async function ticketActionRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post('/addTag', { schema: { params: ApiParams, body: AddTagBody, tags, security } }, async (req) => {
    const b = req.body;
    const tagIds = [...(b.tagId ? [b.tagId] : []), ...(b.tagIds ?? [])];
    const ticket = await clients.tickets.AddTags({ tenantId: principalOf(req).tenantId, ticketId: b.ticketId, tagIds });
    return { success: true, data: ticketRecord(ticket) };
  });

  r.post('/removeTag', { schema: { params: ApiParams, body: RemoveTagBody, tags, security } }, async (req) => {
    const { ticketId, tagId } = req.body;
    const ticket = await clients.tickets.RemoveTag({ tenantId: principalOf(req).tenantId, ticketId, tagId });
    return { success: true, data: ticketRecord(ticket) };
  });

  r.post('/createNotes', { schema: { params: ApiParams, body: CreateNotesBody, tags, security } }, async (req) => {
    const b = req.body;
    const note = await clients.tickets.CreateNote({
      tenantId: principalOf(req).tenantId,
      ticketId: b.ticketId,
      userId: b.userId,
      notes: b.notes,
      idFront: b.idFront ?? '',
    });
    return { success: true, data: noteRecord(note) };
  });

  r.post('/ticket/pause/start/:ticketId', { schema: { params: PauseParams, body: PauseStartBody, tags, security } }, async (req) => {
    const ticket = await clients.tickets.StartPause({
      tenantId: principalOf(req).tenantId,
      ticketId: req.params.ticketId,
      pauseReason: req.body.pauseReason,
    });
    return { success: true, data: ticketRecord(ticket) };
  });

  r.post('/ticket/pause/end/:ticketId', { schema: { params: PauseParams, tags, security } }, async (req) => {
    const ticket = await clients.tickets.EndPause({ tenantId: principalOf(req).tenantId, ticketId: req.params.ticketId });
    return { success: true, data: ticketRecord(ticket) };
  });

  r.post('/sendEvaluation', { schema: { params: ApiParams, body: SendEvaluationBody, tags, security } }, async (req) => {
    const b = req.body;
    const tenantId = principalOf(req).tenantId;
    const ticketId = b.ticketId;
    const sent = await clients.messaging.SendEvaluation({ tenantId, ticketId, force: b.force ?? false, externalKey: b.externalKey ?? '' });
    if (sent.skipped) return { success: true, idempotent: true, skipped: true, ticketId };
    const { messageId } = sent;
    const record = ticketRecord(sent.ticket!);
    return { success: true, data: { message: 'Evaluation sent', ticketId, messageId, evaluation: record.evaluation, ticket: record } };
  });
}
