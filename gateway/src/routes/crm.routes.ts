import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clients } from '../clients';
import { catalogRecord, kanbanRecord, ticketRecord } from '../presenters';
import { ApiParams } from '../schemas/common';
import {
  CatalogDeleted,
  CatalogPageQuery,
  CatalogResult,
  IdParams,
  KanbanBody,
  KanbanPage,
  KanbanResult,
  KanbanUpdateBody,
  QueueDataBody,
  ReasonBody,
  ReasonPage,
  UpdateTagBody,
} from '../schemas/crm.schemas';
import { TicketResult } from '../schemas/ticket.schemas';
import { principalOf, security } from './principal';

const page = (p: { count: number; hasMore: boolean; page: number; pageSize: number }) => ({
  count: p.count,
  hasMore: p.hasMore,
  pageNumber: p.page,
  pageSize: p.pageSize,
});

/**
 * Kanban columns and reasons (list, create, update, delete), queues created by name and a ticket's
 * tags replaced (docs/api/beyond-the-seed.md). The tickets service owns them all: it answers
 * 404 for another tenant's id, clears a deleted column or reason from the tickets that carried it,
 * and refuses an unknown kanbanId/reasonId in createTicket and updateticketinfo.
 */
export async function crmRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tenantOf = (req: FastifyRequest) => principalOf(req).tenantId;

  // ---- kanban columns --------------------------------------------------------------------------

  r.get(
    '/listKanban',
    {
      schema: {
        params: ApiParams,
        querystring: CatalogPageQuery,
        response: { 200: KanbanPage },
        tags: ['kanban'],
        security,
        summary: "A page of the tenant's kanban columns, by name",
      },
    },
    async (req) => {
      const res = await clients.tickets.ListKanbans({
        tenantId: tenantOf(req),
        page: req.query.pageNumber,
        search: req.query.searchParam ?? '',
      });
      return { success: true as const, data: { kanbans: res.items.map(kanbanRecord), ...page(res) } };
    },
  );

  r.post(
    '/createKanban',
    {
      schema: {
        params: ApiParams,
        body: KanbanBody,
        response: { 200: KanbanResult },
        tags: ['kanban'],
        security,
        summary: 'Create a kanban column (a name the tenant has answers that column)',
      },
    },
    async (req) => {
      const item = await clients.tickets.SaveCatalogItem({
        tenantId: tenantOf(req),
        kind: 'kanban',
        id: 0,
        name: req.body.name,
        position: req.body.position,
      });
      return { success: true as const, data: kanbanRecord(item) };
    },
  );

  const updateKanban = async (req: FastifyRequest<{ Params: { id: number }; Body: { name?: string; position?: number } }>) => {
    const item = await clients.tickets.SaveCatalogItem({
      tenantId: tenantOf(req),
      kind: 'kanban',
      id: req.params.id,
      name: req.body.name ?? '',
      position: req.body.position,
    });
    return { success: true as const, data: kanbanRecord(item) };
  };
  const deleteOf = (kind: 'kanban' | 'reason') => async (req: FastifyRequest<{ Params: { id: number } }>) => {
    const res = await clients.tickets.DeleteCatalogItem({ tenantId: tenantOf(req), kind, id: req.params.id });
    return { success: true as const, data: { id: res.id, deleted: true as const, ticketsCleared: res.ticketsCleared } };
  };

  const kanbanUpdate = {
    params: IdParams,
    body: KanbanUpdateBody,
    response: { 200: KanbanResult },
    tags: ['kanban'],
    security,
    summary: 'Rename or move a kanban column of the tenant',
  };
  r.put('/updateKanban/:id', { schema: { ...kanbanUpdate, operationId: 'updateKanban' } }, updateKanban);
  // Public clients post their updates and deletes: the same operation.
  r.post(
    '/updateKanban/:id',
    {
      schema: {
        ...kanbanUpdate,
        operationId: 'updateKanbanPost',
        summary: 'Rename or move a kanban column (POST, as public clients send it)',
      },
    },
    updateKanban,
  );
  const kanbanDelete = {
    params: IdParams,
    response: { 200: CatalogDeleted },
    tags: ['kanban'],
    security,
    summary: 'Delete a kanban column; the tickets and contacts on it are taken off the board',
  };
  r.delete('/deleteKanban/:id', { schema: { ...kanbanDelete, operationId: 'deleteKanban' } }, deleteOf('kanban'));
  r.post(
    '/deleteKanban/:id',
    { schema: { ...kanbanDelete, operationId: 'deleteKanbanPost', summary: 'Delete a kanban column (POST, as public clients send it)' } },
    deleteOf('kanban'),
  );

  // ---- reasons ---------------------------------------------------------------------------------

  r.get(
    '/listReasons',
    {
      schema: {
        params: ApiParams,
        querystring: CatalogPageQuery,
        response: { 200: ReasonPage },
        tags: ['reasons'],
        security,
        summary: "A page of the tenant's reasons, by name",
      },
    },
    async (req) => {
      const res = await clients.tickets.ListReasons({
        tenantId: tenantOf(req),
        page: req.query.pageNumber,
        search: req.query.searchParam ?? '',
      });
      return { success: true as const, data: { reasons: res.items.map(catalogRecord), ...page(res) } };
    },
  );

  r.post(
    '/createReason',
    {
      schema: {
        params: ApiParams,
        body: ReasonBody,
        response: { 200: CatalogResult },
        tags: ['reasons'],
        security,
        summary: 'Create a reason (a name the tenant has answers that reason)',
      },
    },
    async (req) => {
      const item = await clients.tickets.SaveCatalogItem({ tenantId: tenantOf(req), kind: 'reason', id: 0, name: req.body.name });
      return { success: true as const, data: catalogRecord(item) };
    },
  );

  const updateReason = async (req: FastifyRequest<{ Params: { id: number }; Body: { name: string } }>) => {
    const item = await clients.tickets.SaveCatalogItem({ tenantId: tenantOf(req), kind: 'reason', id: req.params.id, name: req.body.name });
    return { success: true as const, data: catalogRecord(item) };
  };
  const reasonUpdate = {
    params: IdParams,
    body: ReasonBody,
    response: { 200: CatalogResult },
    tags: ['reasons'],
    security,
    summary: 'Rename a reason of the tenant',
  };
  r.put('/updateReason/:id', { schema: { ...reasonUpdate, operationId: 'updateReason' } }, updateReason);
  r.post(
    '/updateReason/:id',
    { schema: { ...reasonUpdate, operationId: 'updateReasonPost', summary: 'Rename a reason (POST, as public clients send it)' } },
    updateReason,
  );
  const reasonDelete = {
    params: IdParams,
    response: { 200: CatalogDeleted },
    tags: ['reasons'],
    security,
    summary: 'Delete a reason; the tickets that carried it no longer do',
  };
  r.delete('/deleteReason/:id', { schema: { ...reasonDelete, operationId: 'deleteReason' } }, deleteOf('reason'));
  r.post(
    '/deleteReason/:id',
    { schema: { ...reasonDelete, operationId: 'deleteReasonPost', summary: 'Delete a reason (POST, as public clients send it)' } },
    deleteOf('reason'),
  );

  // ---- queues and tags -------------------------------------------------------------------------

  r.post(
    '/createQueueData',
    {
      schema: {
        params: ApiParams,
        body: QueueDataBody,
        response: { 200: CatalogResult },
        tags: ['catalogs'],
        security,
        summary: 'Create a queue by name (a name the tenant has answers that queue)',
      },
    },
    async (req) => {
      const item = await clients.tickets.SaveCatalogItem({ tenantId: tenantOf(req), kind: 'queue', id: 0, name: req.body.queue });
      return { success: true as const, data: catalogRecord(item) };
    },
  );

  r.post(
    '/updatetag',
    {
      schema: {
        params: ApiParams,
        body: UpdateTagBody,
        response: { 200: TicketResult },
        tags: ['tickets'],
        security,
        summary: "Replace a ticket's tags",
      },
    },
    async (req) => {
      const { ticketId, tagIds, tag } = req.body;
      const ticket = await clients.tickets.SetTags({ tenantId: tenantOf(req), ticketId, tagIds: tagIds ?? [tag!] });
      return { success: true as const, data: ticketRecord(ticket) };
    },
  );
}
