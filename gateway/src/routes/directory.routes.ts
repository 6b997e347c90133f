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
import { ContactCreated, ContactPage, ContactResult } from '../schemas/contact.schemas';
import { QueuePage, TagPage, UserPage } from '../schemas/crm.schemas';
import { NotePage, NoteResult, PausePage } from '../schemas/ticket.schemas';
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

  r.post(
    '/showcontact',
    {
      schema: {
        summary: "A contact of the integration's channel by number",
        params: ApiParams,
        body: ContactNumberBody,
        response: { 200: ContactResult },
        tags: ['contacts'],
        security,
      },
    },
    async (req) => {
      const { tenantId, sessionId } = principalOf(req);
      const contact = await clients.tickets.GetContact({ tenantId, channelId: sessionId, number: req.body.number });
      return { success: true as const, data: contactRecord(contact) };
    },
  );

  r.post(
    '/createContact',
    {
      schema: {
        summary: "Create a contact on the integration's channel",
        params: ApiParams,
        body: ContactBody,
        response: { 200: ContactCreated },
        tags: ['contacts'],
        security,
      },
    },
    async (req) => {
      const { tenantId, sessionId } = principalOf(req);
      const { contact, created } = await clients.tickets.CreateContact({
        tenantId,
        channelId: sessionId,
        ...req.body,
        hasExtraInfo: req.body.extraInfo !== undefined,
      });
      return { success: true as const, data: { contact: contactRecord(contact!), created } };
    },
  );

  r.post(
    '/updateContact',
    {
      schema: {
        summary: "Update a contact of the integration's channel, found by number",
        params: ApiParams,
        body: ContactBody,
        response: { 200: ContactResult },
        tags: ['contacts'],
        security,
      },
    },
    async (req) => {
      const { tenantId, sessionId } = principalOf(req);
      const contact = await clients.tickets.UpdateContact({
        tenantId,
        channelId: sessionId,
        ...req.body,
        hasExtraInfo: req.body.extraInfo !== undefined,
      });
      return { success: true as const, data: contactRecord(contact) };
    },
  );

  r.get(
    '/listContacts',
    {
      schema: {
        summary: "A page of the tenant's contacts",
        params: ApiParams,
        querystring: ListContactsQuery,
        response: { 200: ContactPage },
        tags: ['contacts'],
        security,
      },
    },
    async (req) => {
      const q = req.query;
      const res = await clients.tickets.ListContacts({
        tenantId: principalOf(req).tenantId,
        page: q.pageNumber,
        search: q.searchParam ?? '',
        tagId: q.tagId,
      });
      return { success: true as const, data: { contacts: res.contacts.map(contactRecord), ...page(res) } };
    },
  );

  // ---- catalogs of the tenant ------------------------------------------------------------------

  r.get(
    '/listTags',
    {
      schema: {
        summary: "A page of the tenant's tags",
        params: ApiParams,
        querystring: CatalogQuery,
        response: { 200: TagPage },
        tags: ['catalogs'],
        security,
      },
    },
    async (req) => {
      const res = await clients.tickets.ListTags({
        tenantId: principalOf(req).tenantId,
        page: req.query.pageNumber,
        search: req.query.searchParam ?? '',
      });
      return { success: true as const, data: { tags: res.items.map(catalogRecord), ...page(res) } };
    },
  );

  r.get(
    '/listQueues',
    {
      schema: {
        summary: "A page of the tenant's queues",
        params: ApiParams,
        querystring: CatalogQuery,
        response: { 200: QueuePage },
        tags: ['catalogs'],
        security,
      },
    },
    async (req) => {
      const res = await clients.tickets.ListQueues({
        tenantId: principalOf(req).tenantId,
        page: req.query.pageNumber,
        search: req.query.searchParam ?? '',
      });
      return { success: true as const, data: { queues: res.items.map(catalogRecord), ...page(res) } };
    },
  );

  r.get(
    '/listUsers',
    {
      schema: {
        summary: "A page of the tenant's users",
        params: ApiParams,
        querystring: CatalogQuery,
        response: { 200: UserPage },
        tags: ['catalogs'],
        security,
      },
    },
    async (req) => {
      const res = await clients.tenants.ListUsers({
        tenantId: principalOf(req).tenantId,
        page: req.query.pageNumber,
        search: req.query.searchParam ?? '',
      });
      return { success: true as const, data: { users: res.users.map(userRecord), ...page(res) } };
    },
  );

  // ---- notes and the pause log -----------------------------------------------------------------

  r.get(
    '/listNotes',
    {
      schema: {
        summary: "A page of a ticket's notes",
        params: ApiParams,
        querystring: ListNotesQuery,
        response: { 200: NotePage },
        tags: ['tickets'],
        security,
      },
    },
    async (req) => {
      const { ticketId, pageNumber } = req.query;
      const res = await clients.tickets.ListNotes({ tenantId: principalOf(req).tenantId, ticketId, page: pageNumber });
      return { success: true as const, data: { ticketId, notes: res.notes.map(noteRecord), ...page(res) } };
    },
  );

  r.post(
    '/updateNote',
    {
      schema: {
        summary: "Change a note's text",
        params: ApiParams,
        body: UpdateNoteBody,
        response: { 200: NoteResult },
        tags: ['tickets'],
        security,
      },
    },
    async (req) => {
      const note = await clients.tickets.UpdateNote({
        tenantId: principalOf(req).tenantId,
        noteId: req.body.noteId,
        notes: req.body.notes,
      });
      return { success: true as const, data: noteRecord(note) };
    },
  );

  r.get(
    '/ticket/pause/logs/:ticketId',
    {
      schema: {
        summary: "A page of a ticket's pause log",
        params: PauseLogParams,
        querystring: PageQuery,
        response: { 200: PausePage },
        tags: ['tickets'],
        security,
      },
    },
    async (req) => {
      const { ticketId } = req.params;
      const res = await clients.tickets.ListPauses({ tenantId: principalOf(req).tenantId, ticketId, page: req.query.pageNumber });
      return { success: true as const, data: { ticketId, pauses: res.pauses.map(pauseRecord), ...page(res) } };
    },
  );
}
