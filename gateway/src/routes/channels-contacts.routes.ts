import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clients } from '../clients';
import { channelSummary, contactRecord, messageRecord } from '../presenters';
import { ApiParams } from '../schemas/common';
import { ContactExtraInfo, ContactPage, ContactResult } from '../schemas/contact.schemas';
import {
  ChannelIdBody,
  ChannelList,
  ChannelSummaryResult,
  ContactIdQuery,
  ContactKanbanBody,
  ContactSearchBody,
  ContactWalletBody,
  ListMessagesQuery,
} from '../schemas/crm.schemas';
import { MessagePage } from '../schemas/message.schemas';
import { principalOf, security } from './principal';

const page = (p: { count: number; hasMore: boolean; page: number; pageSize: number }) => ({
  count: p.count,
  hasMore: p.hasMore,
  pageNumber: p.page,
  pageSize: p.pageSize,
});

/**
 * The tenant's channels, its contacts by id (custom fields, search, kanban column, wallet) and a
 * page of a ticket's messages (docs/api/beyond-the-seed.md). Another tenant's id is 404 as if
 * absent: each owning service reads by tenant and id.
 */
export async function channelContactRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // ---- channels: never a secret (channelSummary) ---------------------------------------------

  r.get(
    '/listChannels',
    {
      schema: {
        params: ApiParams,
        response: { 200: ChannelList },
        tags: ['channels'],
        security,
        summary: "The tenant's channels: type, status, number, hybrid link",
      },
    },
    async (req) => {
      const { channels } = await clients.tenants.ListChannels({ tenantId: principalOf(req).tenantId });
      return { success: true as const, data: { channels: channels.map(channelSummary), count: channels.length } };
    },
  );

  r.post(
    '/showChannelById',
    {
      schema: {
        params: ApiParams,
        body: ChannelIdBody,
        response: { 200: ChannelSummaryResult },
        tags: ['channels'],
        security,
        summary: 'One channel of the tenant by id',
      },
    },
    async (req) => {
      const channel = await clients.tenants.GetChannel({ tenantId: principalOf(req).tenantId, channelId: req.body.id });
      return { success: true as const, data: channelSummary(channel) };
    },
  );

  // ---- contacts by id --------------------------------------------------------------------------

  r.get(
    '/getContactExtraInfo',
    {
      schema: {
        params: ApiParams,
        querystring: ContactIdQuery,
        response: { 200: ContactExtraInfo },
        tags: ['contacts'],
        security,
        summary: "A contact's custom fields",
      },
    },
    async (req) => {
      const contact = await clients.tickets.GetContactById({ tenantId: principalOf(req).tenantId, contactId: req.query.contactId });
      return {
        success: true as const,
        data: { contactId: contact.id, extraInfo: contact.extraInfo.map((e) => ({ name: e.name, value: e.value })) },
      };
    },
  );

  r.post(
    '/contacts/search',
    {
      schema: {
        params: ApiParams,
        body: ContactSearchBody,
        response: { 200: ContactPage },
        tags: ['contacts'],
        security,
        summary: "A page of the tenant's contacts matching a text",
      },
    },
    async (req) => {
      const b = req.body;
      const res = await clients.tickets.ListContacts({
        tenantId: principalOf(req).tenantId,
        page: b.pageNumber ?? b.page ?? 1,
        search: b.searchParam ?? '',
        tagId: b.tagId ?? undefined,
      });
      return { success: true as const, data: { contacts: res.contacts.map(contactRecord), ...page(res) } };
    },
  );

  r.post(
    '/updateContactKanban',
    {
      schema: {
        params: ApiParams,
        body: ContactKanbanBody,
        response: { 200: ContactResult },
        tags: ['contacts'],
        security,
        summary: 'Put a contact in a kanban column of the tenant',
      },
    },
    async (req) => {
      const contact = await clients.tickets.SetContactKanban({
        tenantId: principalOf(req).tenantId,
        contactId: req.body.contactId,
        kanbanId: req.body.kanban ?? undefined,
      });
      return { success: true as const, data: contactRecord(contact) };
    },
  );

  r.post(
    '/updateContactWallet',
    {
      schema: {
        params: ApiParams,
        body: ContactWalletBody,
        response: { 200: ContactResult },
        tags: ['contacts'],
        security,
        summary: "Replace a contact's wallet (the users who own it)",
      },
    },
    async (req) => {
      const { tenantId } = principalOf(req);
      const b = req.body;
      const userIds = [...new Set(b.walletIds ?? (b.walletId ? [b.walletId] : []))];
      // Each id must be one of the tenant's users (404 ERR_USER_NOT_FOUND): the tickets service asks tenants.
      const contact = await clients.tickets.SetContactWallet({ tenantId, contactId: b.contactId, userIds });
      return { success: true as const, data: contactRecord(contact) };
    },
  );

  // ---- a page of messages ----------------------------------------------------------------------

  r.get(
    '/listMessages',
    {
      schema: {
        params: ApiParams,
        querystring: ListMessagesQuery,
        response: { 200: MessagePage },
        tags: ['messages'],
        security,
        summary: "A page of a ticket's messages, newest first",
      },
    },
    async (req) => {
      const { ticketId, pageNumber } = req.query;
      const res = await clients.messaging.ListTicketMessages({ tenantId: principalOf(req).tenantId, ticketId, page: pageNumber });
      return {
        success: true as const,
        data: { ticketId, messages: res.messages.map(messageRecord), hasMore: res.hasMore, pageNumber: res.page, pageSize: res.limit },
      };
    },
  );
}
