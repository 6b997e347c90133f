import { conflict, Issues, notFound, type proto } from '@convo/kit';
import type { TicketsDatabase } from '../db/repositories';
import { IDENTITY_FIELDS, type ContactDoc } from '../db/contact.model';
import type { TicketDoc, TicketStatus } from '../db/models';
import type { CatalogService } from './catalog.service';
import { ContactIdentities, identitiesOf, requestIdentities, type Identities, type Profile } from './contact-identities';
import { inboundTime, newTicketDoc } from './new-ticket';
import { toTicket } from './ticket-view';
import type { TenantUsers } from './users';

/** createTicket's externalKey deduplicates for this long (the seed leaves it open; see docs/decisions.md). */
export const CREATE_KEY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long a repeat of an externalKey waits for the concurrent call that holds it to insert its ticket. */
const KEY_WAIT_MS = 2_000;
/** Status of a ticket created without one: the API opened the conversation by writing first. */
export const DEFAULT_STATUS: TicketStatus = 'open';
/** An OpenForContact claim this old whose ticket never appeared was left by a crash: taken over. */
const STALE_OPEN_CLAIM_MS = 60_000;
const MAX_CONTACT_NAME = 200;

/**
 * How a ticket comes to be: createTicket (the API's, deduplicated by externalKey), OpenForContact
 * (a contact's current ticket, found or opened, one per contact however many callers race) and
 * DiscardTicket (a createTicket undone). Each claims before it inserts: no transactions here.
 */
export class TicketOpening {
  private readonly identities: ContactIdentities;

  constructor(
    private readonly repo: TicketsDatabase,
    private readonly catalog: CatalogService,
    private readonly users: TenantUsers,
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
      if (
        stillFresh ||
        !(await this.repo.claims.ticketKeys.takeOver(
          keyId,
          { createdAt: { $lt: new Date(Date.now() - CREATE_KEY_WINDOW_MS) } },
          { ticketId: id, createdAt: new Date() },
        ))
      ) {
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
    const withInbound = async (ticket: TicketDoc): Promise<TicketDoc> =>
      inboundAt ? this.repo.tickets.recordTicketInbound(ticket, inboundAt) : ticket;
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
        (await this.repo.claims.opens.takeOver(
          claimId,
          { createdAt: { $lt: new Date(Date.now() - STALE_OPEN_CLAIM_MS) } },
          { ticketId: id, createdAt: new Date() },
        ));
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
}
