import { checkPageSize, conflict, Issues, notFound, validation, type proto } from '@convo/kit';
import type { UpdateQuery } from 'mongoose';
import type { TicketGrouping, TicketQuery } from '../db/listing.repository';
import type { TicketsDatabase } from '../db/repositories';
import { IDENTITY_FIELDS, TICKET_STATUSES, type ContactDoc, type TicketDoc, type TicketStatus } from '../db/models';
import type { CatalogService } from './catalog.service';
import { ContactIdentities, identitiesOf, requestIdentities, type Identities, type Profile } from './contact-identities';
import { TicketCopies } from './ticket-copies';
import { inboundTime, newTicketDoc } from './new-ticket';
import { toTicket } from './ticket-view';
import type { TenantUsers } from './users';

/** createTicket's externalKey deduplicates for this long (the seed leaves it open; see docs/decisions.md). */
export const CREATE_KEY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long a repeat of an externalKey waits for the concurrent call that holds it to insert its ticket. */
const KEY_WAIT_MS = 2_000;
/** Status of a ticket created without one: the API opened the conversation by writing first. */
export const DEFAULT_STATUS: TicketStatus = 'open';
/** listTickets answers pages of this many tickets (the seed fixes only pageNumber). */
export const TICKETS_PAGE_SIZE = 20;
/** The dashboard's pages (GraphQL `first`) hold at most this many tickets. */
export const DASHBOARD_MAX_PAGE = 100;
const MAX_SEARCH = 200;
/** showallticket answers at most this many tickets of a contact, newest first. */
export const CONTACT_TICKETS_LIMIT = 200;
/** An OpenForContact claim this old whose ticket never appeared was left by a crash: taken over. */
const STALE_OPEN_CLAIM_MS = 60_000;
const MAX_CONTACT_NAME = 200;

const isStatus = (s: string): s is TicketStatus => (TICKET_STATUSES as readonly string[]).includes(s);

export class TicketsService {
  private readonly identities: ContactIdentities;

  constructor(
    private readonly repo: TicketsDatabase,
    private readonly catalog: CatalogService,
    private readonly users: TenantUsers,
    private readonly copies = new TicketCopies(),
  ) {
    this.identities = new ContactIdentities(repo);
  }

  async createTicket(req: proto.tickets.CreateTicketRequest__Output) {
    new Issues()
      .check(!req.status || req.status === 'open' || req.status === 'pending', 'status', 'must be open or pending')
      .check(!!(req.number || req.email), 'number', 'is required (or email and channelId)')
      .throwIfAny('Invalid ticket');
    const ids = req.number ? identitiesOf(req.number) : {};
    const email = req.email.trim().toLowerCase();
    // Before anything is claimed or written: an unknown queue, user, kanban column or reason
    // creates nothing (404 ERR_QUEUE_NOT_FOUND, ERR_USER_NOT_FOUND, ERR_KANBAN_NOT_FOUND, ERR_REASON_NOT_FOUND).
    await Promise.all([
      req.queueId !== undefined && this.catalog.requireQueue(req.tenantId, req.queueId),
      req.userId !== undefined && this.users.requireUser(req.tenantId, req.userId),
      req.kanbanId !== undefined && this.catalog.requireOne('kanban', req.tenantId, req.kanbanId),
      req.reasonId !== undefined && this.catalog.requireOne('reason', req.tenantId, req.reasonId),
    ]);

    const id = await this.repo.nextId('ticket');
    const keyId = req.externalKey ? `${req.tenantId}:${req.externalKey}` : '';
    if (keyId && !(await this.repo.claims.ticketKeys.claim({ _id: keyId, ticketId: id, createdAt: new Date() }))) {
      const key = await this.repo.claims.ticketKeys.find(keyId);
      const stillFresh = key && key.createdAt.getTime() > Date.now() - CREATE_KEY_WINDOW_MS;
      if (stillFresh || !(await this.repo.claims.ticketKeys.takeOver(keyId, { createdAt: { $lt: new Date(Date.now() - CREATE_KEY_WINDOW_MS) } }, { ticketId: id, createdAt: new Date() }))) {
        // A concurrent call may hold the key and not have inserted its ticket yet: wait for it.
        const existing = key && (await this.awaitTicket(req.tenantId, key.ticketId));
        if (!existing) throw conflict('ERR_TICKET_CREATION_IN_PROGRESS', 'A ticket with this externalKey is being created');
        return { ticket: toTicket(existing), created: false };
      }
    }

    try {
      const contact = await this.contactFor(req.tenantId, req.channelId, ids, email);
      const ticket: TicketDoc = {
        ...newTicketDoc(id, req.tenantId, contact, (req.status || DEFAULT_STATUS) as TicketStatus),
        userId: req.userId ?? null,
        queueId: req.queueId ?? null,
        chatFlowId: req.chatFlowId ?? null,
        kanbanId: req.kanbanId ?? null,
        reasonId: req.reasonId ?? null,
        value: req.value ?? null,
        externalKey: req.externalKey,
      };
      await this.repo.tickets.insertTicket(ticket);
      return { ticket: toTicket(ticket), created: true };
    } catch (err) {
      if (keyId) await this.repo.claims.ticketKeys.release(keyId, { ticketId: id });
      throw err;
    }
  }

  /**
   * Undoes a createTicket whose first message could not be queued: the new ticket goes and its
   * externalKey is free again, so that a retry creates it anew. The contact stays (it is found,
   * not duplicated, by the retry).
   */
  async discardTicket(req: proto.tickets.DiscardTicketRequest__Output): Promise<proto.tickets.DiscardTicketResponse> {
    const ticket = await this.repo.tickets.findTicket(req.tenantId, req.ticketId);
    // Also without its ticket: a discard retried after a process died between the ticket and its listing row drops the row.
    await this.repo.tickets.deleteTicket(req.tenantId, req.ticketId);
    if (!ticket) return { discarded: false };
    if (ticket.externalKey) await this.repo.claims.ticketKeys.release(`${req.tenantId}:${ticket.externalKey}`, { ticketId: ticket._id });
    // A ticket OpenForContact opened (a send by number that was then refused) holds the claim on
    // the contact's next ticket: freed, or the contact's next open would wait for this one.
    await this.repo.claims.opens.releaseAll({ ticketId: ticket._id });
    return { discarded: true };
  }

  /**
   * The contact's current ticket on a channel, found or opened (inbound messages, waba sends):
   * its most recently active open or pending ticket there, else a new `pending` ticket (also when
   * its last ticket is closed). Concurrent calls for one contact open one ticket: the callers that
   * found none race for one claim document and the losers wait for the winner's ticket.
   * `pinTicketId` names the ticket instead: it must be that contact's ticket on that channel
   * (NOT_FOUND otherwise) and not closed (ERR_TICKET_CLOSED).
   */
  async openForContact(req: proto.tickets.OpenForContactRequest__Output): Promise<proto.tickets.CreateTicketResponse> {
    new Issues()
      .check(req.channelId > 0, 'channelId', 'is required')
      .check(!!(req.number || req.email || req.bsuid || req.parentBsuid || req.lid), 'number', 'is required (or email)')
      .throwIfAny('Invalid contact');
    const ids = requestIdentities(req);
    const named = IDENTITY_FIELDS.some((f) => ids[f]);
    const email = named ? '' : req.email.trim().toLowerCase();
    const { tenantId, channelId } = req;
    const inboundAt = inboundTime(req.inboundAt);
    const profile: Profile = { name: req.name.trim().slice(0, MAX_CONTACT_NAME), username: req.username.trim().slice(0, MAX_CONTACT_NAME) };

    if (req.pinTicketId !== undefined) {
      const ticket = await this.repo.tickets.findTicket(tenantId, req.pinTicketId);
      const sameContact = named ? IDENTITY_FIELDS.some((f) => ids[f] && ticket?.contact[f] === ids[f]) : ticket?.contact.email === email;
      if (!ticket || ticket.channelId !== channelId || !sameContact) {
        throw notFound('ticket', `Ticket ${req.pinTicketId} is not a ticket of this contact on channel ${channelId}`);
      }
      if (inboundAt) {
        // An incoming message on a ticket the caller chose (a survey answer, even on a closed
        // ticket): the contact's window moves, the ticket stays as it is.
        const contact = await this.contactFor(tenantId, channelId, ids, email);
        await this.repo.contacts.recordContactInbound(contact, inboundAt);
        return { ticket: toTicket(await this.repo.tickets.recordTicketInbound(ticket, inboundAt)), created: false };
      }
      if (ticket.status === 'closed') throw conflict('ERR_TICKET_CLOSED', `Ticket ${ticket._id} is closed`);
      return { ticket: toTicket(ticket), created: false };
    }

    let contact = await this.contactFor(tenantId, channelId, ids, email, profile);
    if (req.linkOnly) return { created: false };
    // An incoming message: the contact's window is on the contact (for its next tickets) and on the
    // ticket the message goes to (read by a send with the ticket, in the same lookup).
    if (inboundAt) contact = await this.repo.contacts.recordContactInbound(contact, inboundAt);
    const withInbound = async (ticket: TicketDoc): Promise<TicketDoc> => (inboundAt ? this.repo.tickets.recordTicketInbound(ticket, inboundAt) : ticket);
    // A second round covers a ticket that closed while this call waited for it.
    if (req.windowOnly) {
      const current = await this.repo.tickets.findCurrentTicketOfContact(tenantId, contact._id);
      return { ...(current && { ticket: toTicket(await withInbound(current)) }), created: false };
    }
    // A contact writing again has its ticket open: one read finds it (the common case of every
    // incoming message). Only without one are the two reads below needed.
    const existing = await this.repo.tickets.findCurrentTicketOfContact(tenantId, contact._id);
    if (existing) return { ticket: toTicket(await withInbound(existing)), created: false };
    for (let round = 0; round < 2; round++) {
      // The last ticket is read before the current one: a ticket another caller opens between the
      // two reads is then either seen as current, or claimed under the same last id (and awaited).
      const last = await this.repo.tickets.lastTicketIdOfContact(tenantId, contact._id);
      const current = await this.repo.tickets.findCurrentTicketOfContact(tenantId, contact._id);
      if (current) return { ticket: toTicket(await withInbound(current)), created: false };

      const claimId = `${tenantId}:${contact._id}:${last ?? 0}`;
      const id = await this.repo.nextId('ticket');
      const mine =
        (await this.repo.claims.opens.claim({ _id: claimId, ticketId: id, createdAt: new Date() })) ||
        (await this.repo.claims.opens.takeOver(claimId, { createdAt: { $lt: new Date(Date.now() - STALE_OPEN_CLAIM_MS) } }, { ticketId: id, createdAt: new Date() }));
      if (mine) {
        const ticket = newTicketDoc(id, tenantId, contact, 'pending');
        try {
          await this.repo.tickets.insertTicket(ticket);
        } catch (err) {
          await this.repo.claims.opens.release(claimId, { ticketId: id });
          throw err;
        }
        return { ticket: toTicket(await this.followMerge(ticket)), created: true };
      }
      const claim = await this.repo.claims.opens.find(claimId);
      const opened = claim && (await this.awaitTicket(tenantId, claim.ticketId));
      if (opened && opened.status !== 'closed') return { ticket: toTicket(await withInbound(opened)), created: false };
    }
    throw conflict('ERR_TICKET_CREATION_IN_PROGRESS', "The contact's ticket is being opened; retry");
  }

  /** The channel's contact of these identities (linked and merged as needed), or of an e-mail address. */
  private contactFor(tenantId: number, channelId: number, ids: Identities, email: string, profile?: Profile): Promise<ContactDoc> {
    if (IDENTITY_FIELDS.some((f) => ids[f])) return this.identities.resolve(tenantId, channelId, ids, profile);
    return this.repo.contacts.findOrCreateByEmail(tenantId, channelId, email);
  }

  /**
   * A new ticket whose contact was merged while it was being opened (the merge moved the tickets
   * there were, not this one): moved to the contact it went into now, as the merge's own steps do.
   */
  private async followMerge(ticket: TicketDoc): Promise<TicketDoc> {
    const contact = await this.repo.contacts.findContactById(ticket.tenantId, ticket.contactId);
    if (!contact?.mergedInto) return ticket;
    await this.identities.live(contact);
    return (await this.repo.tickets.findTicket(ticket.tenantId, ticket._id)) ?? ticket;
  }

  /** The ticket once it exists, or null after `waitMs` (its creator failed or is stuck). */
  private async awaitTicket(tenantId: number, id: number, waitMs = KEY_WAIT_MS) {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const ticket = await this.repo.tickets.findTicket(tenantId, id);
      if (ticket || Date.now() >= deadline) return ticket;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

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
    if (req.status === 'closed') await Promise.all([this.repo.notes.endPauses(req.tenantId, req.ticketId, 'close', set.updatedAt!), this.copies.runOut()]);
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
    const { tickets, count } = await this.repo.listing.pageTickets(query, (page - 1) * TICKETS_PAGE_SIZE, TICKETS_PAGE_SIZE);
    return { tickets: tickets.map(toTicket), count, hasMore: page * TICKETS_PAGE_SIZE < count, page, pageSize: TICKETS_PAGE_SIZE };
  }

  /**
   * The dashboard's page of a tenant's tickets (GraphQL): `first` at most DASHBOARD_MAX_PAGE, the
   * search at most 200 characters, the tenant's tickets only.
   */
  async pageTickets(query: TicketQuery, offset: number, first: number): Promise<{ tickets: TicketDoc[]; count: number }> {
    checkPageSize(first, DASHBOARD_MAX_PAGE);
    if (query.search && query.search.length > MAX_SEARCH) throw validation('Invalid search', [{ field: 'search', message: `at most ${MAX_SEARCH} characters` }]);
    return this.repo.listing.pageTickets(query, offset, first);
  }

  /** A tenant's tickets counted by status, queue or channel. */
  countTicketsBy(tenantId: number, field: TicketGrouping) {
    return this.repo.listing.countTicketsBy(tenantId, field);
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
    for (const removed of before.tagIds.filter((id) => !ids.includes(id))) await this.repo.contacts.dropContactTagIfUnused(tenantId, updated.contactId, removed);
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
