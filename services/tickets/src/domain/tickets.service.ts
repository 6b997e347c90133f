import { checkPageSize, Issues, notFound, validation, type proto } from '@convo/kit';
import type { UpdateQuery } from 'mongoose';
import type { ListPosition, TicketGrouping, TicketQuery } from '../db/listing-pages';
import type { TicketsDatabase } from '../db/repositories';
import { TICKET_STATUSES, type TicketDoc, type TicketStatus } from '../db/models';
import type { CatalogService } from './catalog.service';
import { identitiesOf, type Identities } from './contact-identities';
import { TicketCopies } from './ticket-copies';
import { toTicket } from './ticket-view';
import type { TenantUsers } from './users';

/** listTickets answers pages of this many tickets (the seed fixes only pageNumber). */
export const TICKETS_PAGE_SIZE = 20;
/** The dashboard's pages (GraphQL `first`) hold at most this many tickets. */
export const DASHBOARD_MAX_PAGE = 100;
const MAX_SEARCH = 200;
/** showallticket answers at most this many tickets of a contact, newest first. */
export const CONTACT_TICKETS_LIMIT = 200;

const isStatus = (s: string): s is TicketStatus => (TICKET_STATUSES as readonly string[]).includes(s);

/** A ticket's reads, changes, queue and tags; opening one is ticket-opening.ts's. */
export class TicketsService {
  constructor(
    private readonly repo: TicketsDatabase,
    private readonly catalog: CatalogService,
    private readonly users: TenantUsers,
    private readonly copies = new TicketCopies(),
  ) {}

  async getTicket(tenantId: number, id: number) {
    const ticket = await this.repo.tickets.findTicket(tenantId, id);
    if (!ticket) throw notFound('ticket');
    return toTicket(ticket);
  }

  async updateTicket(req: proto.tickets.UpdateTicketRequest__Output) {
    if (req.status && !isStatus(req.status)) {
      throw validation('Invalid ticket update', [{ field: 'status', message: 'must be open, pending or closed' }]);
    }
    // The ids it names are the tenant's, or nothing changes (404 ERR_QUEUE_NOT_FOUND, ERR_USER_NOT_FOUND,
    // ERR_KANBAN_NOT_FOUND, ERR_REASON_NOT_FOUND; an unknown ticket is told first, as when nothing else is named).
    await Promise.all([
      !req.clearQueue && req.queueId !== undefined && this.catalog.requireQueue(req.tenantId, req.queueId),
      req.userId !== undefined && this.users.requireUser(req.tenantId, req.userId),
      !req.clearKanban && req.kanbanId !== undefined && this.catalog.requireOne('kanban', req.tenantId, req.kanbanId),
      !req.clearReason && req.reasonId !== undefined && this.catalog.requireOne('reason', req.tenantId, req.reasonId),
    ]).catch(async (err: unknown) => {
      await this.requireTicket(req.tenantId, req.ticketId);
      throw err;
    });
    const set: Partial<TicketDoc> = { updatedAt: new Date() };
    if (req.status) {
      set.status = req.status as TicketStatus;
      set.closedAt = req.status === 'closed' ? new Date() : null;
      // A closed conversation has nobody working on it: closing ends its pause.
      if (req.status === 'closed') Object.assign(set, { paused: false, pauseReason: null, pausedAt: null });
    }
    if (req.userId !== undefined) set.userId = req.userId;
    if (req.clearQueue) set.queueId = null;
    else if (req.queueId !== undefined) set.queueId = req.queueId;
    if (req.clearKanban) set.kanbanId = null;
    else if (req.kanbanId !== undefined) set.kanbanId = req.kanbanId;
    if (req.clearReason) set.reasonId = null;
    else if (req.reasonId !== undefined) set.reasonId = req.reasonId;
    if (req.clearChatFlow) set.chatFlowId = null;
    else if (req.chatFlowId !== undefined) set.chatFlowId = req.chatFlowId;
    if (req.botBuilderStatus !== undefined) set.botBuilderStatus = req.botBuilderStatus;
    if (req.llmAssistantStatus !== undefined) set.llmAssistantStatus = req.llmAssistantStatus;
    if (req.workflowStatus !== undefined) set.workflowStatus = req.workflowStatus;
    const updated = await this.repo.tickets.updateTicket(req.tenantId, req.ticketId, { $set: set } as UpdateQuery<TicketDoc>);
    if (!updated) throw notFound('ticket');
    // Closing ended the ticket's pause: its log entry ends too; messaging's copies of the open ticket run out meanwhile.
    if (req.status === 'closed')
      await Promise.all([this.repo.notes.endPauses(req.tenantId, req.ticketId, 'close', set.updatedAt!), this.copies.runOut()]);
    return toTicket(updated);
  }

  async listTickets(req: proto.tickets.ListTicketsRequest__Output): Promise<proto.tickets.TicketPage> {
    if (req.status && !isStatus(req.status)) {
      throw validation('Invalid ticket filter', [{ field: 'status', message: 'must be open, pending or closed' }]);
    }
    const page = Math.max(1, req.page || 1);
    const query = {
      tenantId: req.tenantId,
      status: (req.status || undefined) as TicketStatus | undefined,
      search: req.search,
      queueIds: req.queueIds,
      channelIds: req.channelIds,
    };
    const { tickets, count } = await this.repo.pages.pageTickets(query, (page - 1) * TICKETS_PAGE_SIZE, TICKETS_PAGE_SIZE);
    return { tickets: tickets.map(toTicket), count, hasMore: page * TICKETS_PAGE_SIZE < count, page, pageSize: TICKETS_PAGE_SIZE };
  }

  /**
   * The dashboard's page of a tenant's tickets (GraphQL), after a position of the listing (keyset):
   * `first` at most DASHBOARD_MAX_PAGE, the search at most 200 characters, the tenant's tickets only.
   */
  async pageTicketsAfter(query: TicketQuery, after: ListPosition | null, first: number) {
    checkPageSize(first, DASHBOARD_MAX_PAGE);
    if (query.search && query.search.length > MAX_SEARCH)
      throw validation('Invalid search', [{ field: 'search', message: `at most ${MAX_SEARCH} characters` }]);
    const { updatedSince: since, updatedUntil: until } = query;
    new Issues()
      .check(!(query.status && query.statuses), 'statuses', 'not with status')
      .check((query.statuses?.length ?? 0) <= TICKET_STATUSES.length, 'statuses', `at most ${TICKET_STATUSES.length}`)
      .check(!(query.noQueue && query.queueIds?.length), 'noQueue', 'not with queueId')
      .check(!(query.unassigned && query.userId !== undefined), 'unassigned', 'not with userId')
      .check(!since || !until || since.getTime() < until.getTime(), 'updatedUntil', 'must be after updatedSince')
      .throwIfAny('Invalid ticket filter');
    return this.repo.pages.pageTicketsAfter(query, after, first);
  }

  /** A tenant's tickets counted by status, queue or channel. */
  countTicketsBy(tenantId: number, field: TicketGrouping) {
    return this.repo.pages.countTicketsBy(tenantId, field);
  }

  /** The tenant's ticket as stored, or null when the tenant has no such ticket. */
  findTicket(tenantId: number, id: number): Promise<TicketDoc | null> {
    return this.repo.tickets.findTicket(tenantId, id);
  }

  /**
   * A ticket another subgraph names by id (a federated reference): the referring entity, already
   * read within its tenant, is what scopes it.
   */
  findReferencedTicket(id: number): Promise<TicketDoc | null> {
    return this.repo.tickets.findTicketById(id);
  }

  /**
   * showticket (`all` false) and showallticket (`all` true), by any identity: a number is found on
   * the tickets' copies of their contacts; a BSUID or LID finds the tenant's contacts holding it,
   * then their tickets.
   */
  async findContactTickets(req: proto.tickets.FindContactTicketsRequest__Output): Promise<proto.tickets.ContactTickets> {
    const { tenantId } = req;
    const ids = identitiesOf(req.number);
    let tickets: TicketDoc[];
    if (ids.number) {
      tickets = req.all
        ? await this.repo.tickets.listTicketsOfNumber(tenantId, ids.number, CONTACT_TICKETS_LIMIT)
        : [await this.repo.tickets.findCurrentTicketOfNumber(tenantId, ids.number)].filter((t): t is TicketDoc => !!t);
    } else {
      const [field, value] = Object.entries(ids)[0] as [Exclude<keyof Identities, 'number'>, string];
      const contactIds = (await this.repo.contacts.findTenantContactsByIdentity(tenantId, field, value)).map((c) => c._id);
      if (!contactIds.length) tickets = [];
      else if (req.all) tickets = await this.repo.tickets.listTicketsOfContacts(tenantId, contactIds, CONTACT_TICKETS_LIMIT);
      else tickets = [await this.repo.tickets.findCurrentTicketOfContacts(tenantId, contactIds)].filter((t): t is TicketDoc => !!t);
    }
    if (!req.all && !tickets.length) throw notFound('ticket', 'No open or pending ticket for this contact');
    return { tickets: tickets.map(toTicket) };
  }

  async setQueue(tenantId: number, ticketId: number, queueId: number) {
    await this.catalog.requireQueue(tenantId, queueId);
    const updated = await this.repo.tickets.updateTicket(tenantId, ticketId, { $set: { queueId, updatedAt: new Date() } });
    if (!updated) throw notFound('ticket');
    return toTicket(updated);
  }

  /** Adding a tag the ticket has already is a no-op: a ticket never lists a tag twice. */
  async addTags(tenantId: number, ticketId: number, tagIds: number[]) {
    const ids = [...new Set(tagIds)];
    if (!ids.length) throw validation('No tag to add', [{ field: 'tagIds', message: 'give tagId or a non-empty tagIds' }]);
    await this.catalog.requireTags(tenantId, ids);
    const updated = await this.repo.tickets.updateTicket(tenantId, ticketId, {
      $addToSet: { tagIds: { $each: ids } },
      $set: { updatedAt: new Date() },
    });
    if (!updated) throw notFound('ticket');
    // The contact carries its tickets' tags (listContacts' tagId).
    await this.repo.contacts.addContactTags(tenantId, updated.contactId, ids);
    return toTicket(updated);
  }

  /**
   * Replaces the ticket's tags (updatetag): every id must be the tenant's tag; an empty list clears
   * them. The contact keeps the tags its tickets have (listContacts' tagId).
   */
  async setTags(tenantId: number, ticketId: number, tagIds: number[]) {
    const ids = [...new Set(tagIds)];
    if (ids.length) await this.catalog.requireTags(tenantId, ids);
    const before = await this.repo.tickets.findTicket(tenantId, ticketId);
    if (!before) throw notFound('ticket');
    const updated = await this.repo.tickets.updateTicket(tenantId, ticketId, { $set: { tagIds: ids, updatedAt: new Date() } });
    if (!updated) throw notFound('ticket');
    if (ids.length) await this.repo.contacts.addContactTags(tenantId, updated.contactId, ids);
    for (const removed of before.tagIds.filter((id) => !ids.includes(id)))
      await this.repo.contacts.dropContactTagIfUnused(tenantId, updated.contactId, removed);
    return toTicket(updated);
  }

  /** Removing a tag the ticket does not have is a no-op; an unknown tag is 404. */
  async removeTag(tenantId: number, ticketId: number, tagId: number) {
    await this.catalog.requireTags(tenantId, [tagId]);
    const updated = await this.repo.tickets.updateTicket(tenantId, ticketId, { $pull: { tagIds: tagId }, $set: { updatedAt: new Date() } });
    if (!updated) throw notFound('ticket');
    await this.repo.contacts.dropContactTagIfUnused(tenantId, updated.contactId, tagId);
    return toTicket(updated);
  }

  private async requireTicket(tenantId: number, ticketId: number): Promise<TicketDoc> {
    const ticket = await this.repo.tickets.findTicket(tenantId, ticketId);
    if (!ticket) throw notFound('ticket');
    return ticket;
  }
}
