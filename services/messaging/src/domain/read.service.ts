import { Issues, validation, type ServiceClient, type proto } from '@convo/kit';
import type { MessageReadRepository } from '../db/message-read.repository';
import { toMessage } from './message-view';

/** showAllMessages answers at most this many messages: the newest ones, in conversation order. */
export const SHOW_ALL_LIMIT = 1_000;
export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;
/** listMessages: pages of this many, newest first; pages past MAX_LIST_PAGE are refused by the gateway. */
export const LIST_PAGE_SIZE = 20;
const MAX_LIST_PAGE = 10_000;
const MAX_SEARCH = 200;
/** A ticket list page is 20 tickets; the bound keeps one call from asking for a whole tenant. */
const MAX_LAST_MESSAGE_TICKETS = 200;

/**
 * The read side of messages. Messages are stored with their tenant, but a ticket id alone says
 * nothing about who may read it: every ticket-scoped read asks tickets first, so another tenant's
 * ticket is NOT_FOUND rather than an empty list.
 */
export class ReadService {
  constructor(
    private readonly repo: MessageReadRepository,
    private readonly tickets: ServiceClient<'tickets'>,
  ) {}

  async listTicketMessages(req: proto.messaging.ListTicketMessagesRequest__Output): Promise<proto.messaging.MessagePage> {
    if (req.page > 0) return this.pageTicketMessages(req);
    const limit = clamp(req.limit || SHOW_ALL_LIMIT, 1, SHOW_ALL_LIMIT);
    // The ticket check and the read run together: the read is tenant-filtered, so it leaks nothing.
    const [, newest] = await Promise.all([
      this.requireTicket(req.tenantId, req.ticketId),
      this.repo.listLatestOfTicket(req.tenantId, req.ticketId, limit + 1),
    ]);
    const messages = newest.slice(0, limit).reverse().map(toMessage);
    return { messages, count: messages.length, hasMore: newest.length > limit, page: 1, limit };
  }

  /** listMessages: one page of the ticket's messages, newest first (the records showAllMessages answers). */
  private async pageTicketMessages(req: proto.messaging.ListTicketMessagesRequest__Output): Promise<proto.messaging.MessagePage> {
    const limit = clamp(req.limit || LIST_PAGE_SIZE, 1, LIST_PAGE_SIZE);
    const page = clamp(req.page, 1, MAX_LIST_PAGE);
    const [, rows] = await Promise.all([
      this.requireTicket(req.tenantId, req.ticketId),
      this.repo.listLatestOfTicket(req.tenantId, req.ticketId, limit + 1, (page - 1) * limit),
    ]);
    const messages = rows.slice(0, limit).map(toMessage);
    return { messages, count: messages.length, hasMore: rows.length > limit, page, limit };
  }

  async searchMessages(req: proto.messaging.SearchMessagesRequest__Output): Promise<proto.messaging.MessagePage> {
    const search = req.search.trim();
    new Issues()
      .check(!!search && search.length <= MAX_SEARCH, 'searchParam', `is required, at most ${MAX_SEARCH} characters`)
      .check(!req.limit || (req.limit >= 1 && req.limit <= SEARCH_MAX_LIMIT), 'limit', `must be 1 to ${SEARCH_MAX_LIMIT}`)
      .check(req.page >= 0, 'page', 'must be 1 or more')
      .throwIfAny('Invalid message search');
    const page = Math.max(1, req.page || 1);
    const limit = req.limit || SEARCH_DEFAULT_LIMIT;
    const [, { messages, count }] = await Promise.all([
      this.requireTicket(req.tenantId, req.ticketId),
      this.repo.searchInTicket(req.tenantId, req.ticketId, search, (page - 1) * limit, limit),
    ]);
    return { messages: messages.map(toMessage), count, hasMore: page * limit < count, page, limit };
  }

  async lastMessages(req: proto.messaging.LastMessagesRequest__Output): Promise<proto.messaging.LastMessagesResponse> {
    const ids = [...new Set(req.ticketIds)];
    if (ids.length > MAX_LAST_MESSAGE_TICKETS) {
      throw validation('Too many tickets', [{ field: 'ticketIds', message: `at most ${MAX_LAST_MESSAGE_TICKETS}` }]);
    }
    if (!ids.length) return { messages: [] };
    const rows = await this.repo.lastOfTickets(req.tenantId, ids);
    return {
      messages: rows.map((r) => ({
        ticketId: r.ticketId,
        messageId: r._id,
        body: r.body,
        direction: r.direction,
        createdAt: new Date(r.createdAt).toISOString(),
      })),
    };
  }

  private async requireTicket(tenantId: number, ticketId: number): Promise<void> {
    await this.tickets.GetTicket({ tenantId, ticketId });
  }
}

const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, n));
