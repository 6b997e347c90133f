import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { catalogRecord, contactRecord, noteRecord, pauseRecord, userRecord } from '../presenters';
import { ApiParams } from '../schemas/common';
import {
  CatalogQuery,
  ContactBody,
  ContactNumberBody,
  ListContactsQuery,
  ListNotesQuery,
  PageQuery,
  PauseLogParams,
  UpdateNoteBody,
} from '../schemas/beyond-seed.schemas';
import { principalOf, security } from './principal';

/** A page of any list: the seed's listTickets paging (pages of 20, count over all pages, hasMore). */
const page = (p: { count: number; hasMore: boolean; page: number; pageSize: number }) => ({
  count: p.count,
  hasMore: p.hasMore,
  pageNumber: p.page,
  pageSize: p.pageSize,
});

/**
 * Contacts, the tenant's catalogs (tags, queues, users), notes and the pause log (docs/api/beyond-the-seed.md, "Routes
 * beyond the seed"). Every read and change is the integration's tenant's; another tenant's id is
 * 404 as if absent. Contacts are addressed by number on the integration's channel.
 */
export async function directoryRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // ---- contacts --------------------------------------------------------------------------------

  r.post('/showcontact', { schema: { params: ApiParams, body: ContactNumberBody, tags: ['contacts'], security } }, async (req) => {
    const { tenantId, sessionId } = principalOf(req);
    const contact = await clients.tickets.GetContact({ tenantId, channelId: sessionId, number: req.body.number });
    return { success: true, data: contactRecord(contact) };
  });

  r.post('/createContact', { schema: { params: ApiParams, body: ContactBody, tags: ['contacts'], security } }, async (req) => {
    const { tenantId, sessionId } = principalOf(req);
    const { contact, created } = await clients.tickets.CreateContact({ tenantId, channelId: sessionId, ...req.body, hasExtraInfo: req.body.extraInfo !== undefined });
    return { success: true, data: { contact: contactRecord(contact!), created } };
  });

  r.post('/updateContact', { schema: { params: ApiParams, body: ContactBody, tags: ['contacts'], security } }, async (req) => {
    const { tenantId, sessionId } = principalOf(req);
    const contact = await clients.tickets.UpdateContact({ tenantId, channelId: sessionId, ...req.body, hasExtraInfo: req.body.extraInfo !== undefined });
    return { success: true, data: contactRecord(contact) };
  });

  r.get('/listContacts', { schema: { params: ApiParams, querystring: ListContactsQuery, tags: ['contacts'], security } }, async (req) => {
    const q = req.query;
    const res = await clients.tickets.ListContacts({ tenantId: principalOf(req).tenantId, page: q.pageNumber, search: q.searchParam ?? '', tagId: q.tagId });
    return { success: true, data: { contacts: res.contacts.map(contactRecord), ...page(res) } };
  });

  // ---- catalogs of the tenant ------------------------------------------------------------------

  r.get('/listTags', { schema: { params: ApiParams, querystring: CatalogQuery, tags: ['catalogs'], security } }, async (req) => {
    const res = await clients.tickets.ListTags({ tenantId: principalOf(req).tenantId, page: req.query.pageNumber, search: req.query.searchParam ?? '' });
    return { success: true, data: { tags: res.items.map(catalogRecord), ...page(res) } };
  });

  r.get('/listQueues', { schema: { params: ApiParams, querystring: CatalogQuery, tags: ['catalogs'], security } }, async (req) => {
    const res = await clients.tickets.ListQueues({ tenantId: principalOf(req).tenantId, page: req.query.pageNumber, search: req.query.searchParam ?? '' });
    return { success: true, data: { queues: res.items.map(catalogRecord), ...page(res) } };
  });

  r.get('/listUsers', { schema: { params: ApiParams, querystring: CatalogQuery, tags: ['catalogs'], security } }, async (req) => {
    const res = await clients.tenants.ListUsers({ tenantId: principalOf(req).tenantId, page: req.query.pageNumber, search: req.query.searchParam ?? '' });
    return { success: true, data: { users: res.users.map(userRecord), ...page(res) } };
  });

  // ---- notes and the pause log -----------------------------------------------------------------

  r.get('/listNotes', { schema: { params: ApiParams, querystring: ListNotesQuery, tags: ['tickets'], security } }, async (req) => {
    const { ticketId, pageNumber } = req.query;
    const res = await clients.tickets.ListNotes({ tenantId: principalOf(req).tenantId, ticketId, page: pageNumber });
    return { success: true, data: { ticketId, notes: res.notes.map(noteRecord), ...page(res) } };
  });

  r.post('/updateNote', { schema: { params: ApiParams, body: UpdateNoteBody, tags: ['tickets'], security } }, async (req) => {
    const note = await clients.tickets.UpdateNote({ tenantId: principalOf(req).tenantId, noteId: req.body.noteId, notes: req.body.notes });
    return { success: true, data: noteRecord(note) };
  });

  r.get('/ticket/pause/logs/:ticketId', { schema: { params: PauseLogParams, querystring: PageQuery, tags: ['tickets'], security } }, async (req) => {
    const { ticketId } = req.params;
    const res = await clients.tickets.ListPauses({ tenantId: principalOf(req).tenantId, ticketId, page: req.query.pageNumber });
    return { success: true, data: { ticketId, pauses: res.pauses.map(pauseRecord), ...page(res) } };
  });
}
