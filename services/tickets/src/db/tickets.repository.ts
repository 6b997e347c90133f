import type { QueryFilter, UpdateQuery } from 'mongoose';
import { movesInbound } from './contacts.repository';
import { KeyedQueue } from './keyed-queue';
import type { ListingRepository } from './listing.repository';
import type { Models, TicketContact, TicketDoc } from './models';

/**
 * Tickets: each write of a ticket is followed by its listing row (ListingRepository), one write
 * of a ticket at a time in this process (perTicket), so a row never falls behind its ticket.
 */
export class TicketsRepository {
  private readonly perTicket = new KeyedQueue();

  constructor(
    private readonly models: Models,
    private readonly listing: ListingRepository,
  ) {}

  findTicket(tenantId: number, id: number) {
    return this.models.Ticket.findOne({ _id: id, tenantId }).lean<TicketDoc>().exec();
  }

  findTicketById(id: number) {
    return this.models.Ticket.findById(id).lean<TicketDoc>().exec();
  }

  async insertTicket(ticket: TicketDoc): Promise<void> {
    // The row copies the ticket as stored, its schema's defaults included.
    const stored = (await this.models.Ticket.create(ticket)).toObject<TicketDoc>();
    await this.perTicket.run(ticket._id, () => this.listing.writeRow(stored));
  }

  deleteTicket(tenantId: number, id: number): Promise<boolean> {
    return this.perTicket.run(id, async () => {
      const deleted = (await this.models.Ticket.deleteOne({ _id: id, tenantId }).exec()).deletedCount > 0;
      // Also when the ticket is gone already: a delete retried after a process died between the
      // ticket and its row takes the row that was left listed.
      await this.listing.deleteRow(tenantId, id);
      return deleted;
    });
  }

  updateTicket(tenantId: number, id: number, update: UpdateQuery<TicketDoc>) {
    return this.updateTicketWhere(tenantId, id, {}, update);
  }

  /**
   * The contact wrote at `at`: its copy on the ticket (read by a send with the ticket) moves on when
   * the time does (movesInbound); the ticket as it is now, or as it was when nothing moved.
   */
  async recordTicketInbound(ticket: TicketDoc, at: Date): Promise<TicketDoc> {
    if (!movesInbound(ticket.contact.lastInboundAt, at)) return ticket;
    return (await this.updateTicket(ticket.tenantId, ticket._id, { $max: { 'contact.lastInboundAt': at } })) ?? ticket;
  }

  /** Applies the update only while `condition` holds; null when the ticket is absent or the condition fails. */
  updateTicketWhere(tenantId: number, id: number, condition: QueryFilter<TicketDoc>, update: UpdateQuery<TicketDoc>) {
    return this.perTicket.run(id, async () => {
      const ticket = await this.models.Ticket.findOneAndUpdate({ ...condition, _id: id, tenantId }, update, { returnDocument: 'after' })
        .lean<TicketDoc>()
        .exec();
      if (ticket) await this.listing.writeRow(ticket);
      return ticket;
    });
  }

  /**
   * The contact as its tickets show it (listTickets searches it there; a send reads its identities
   * with the ticket): the given fields of every copy, `moveFrom` tickets (a merged contact's) moved
   * to `contactId` as well. Each ticket's own lastInboundAt stays.
   */
  async copyContactToTickets(tenantId: number, contactId: number, fields: Partial<TicketContact>, moveFrom?: number): Promise<void> {
    const set: Record<string, unknown> = Object.fromEntries(Object.entries(fields).map(([k, v]) => [`contact.${k}`, v ?? '']));
    if (moveFrom !== undefined) set.contactId = contactId;
    const filter = { tenantId, contactId: moveFrom ?? contactId };
    await this.models.Ticket.updateMany(filter, { $set: set }).exec();
    await this.models.TicketRow.updateMany(filter, { $set: set }).exec();
  }

  /** The most recently active open or pending ticket of a contact number, on any channel of the tenant. */
  findCurrentTicketOfNumber(tenantId: number, number: string) {
    return this.models.Ticket.findOne({ tenantId, 'contact.number': number, status: { $in: ['open', 'pending'] } })
      .sort({ updatedAt: -1, _id: -1 })
      .lean<TicketDoc>()
      .exec();
  }

  /** The most recently active open or pending ticket of one contact (so of one channel). */
  findCurrentTicketOfContact(tenantId: number, contactId: number) {
    return this.models.Ticket.findOne({ tenantId, contactId, status: { $in: ['open', 'pending'] } })
      .sort({ updatedAt: -1, _id: -1 })
      .lean<TicketDoc>()
      .exec();
  }

  /** The id of the contact's newest ticket, whatever its status; null when it has none. */
  async lastTicketIdOfContact(tenantId: number, contactId: number): Promise<number | null> {
    const last = await this.models.Ticket.findOne({ tenantId, contactId }, { _id: 1 })
      .sort({ _id: -1 })
      .lean<Pick<TicketDoc, '_id'>>()
      .exec();
    return last?._id ?? null;
  }

  /** The most recently active open or pending ticket of any of these contacts (one person on several channels). */
  findCurrentTicketOfContacts(tenantId: number, contactIds: number[]) {
    return this.models.Ticket.findOne({ tenantId, contactId: { $in: contactIds }, status: { $in: ['open', 'pending'] } })
      .sort({ updatedAt: -1, _id: -1 })
      .lean<TicketDoc>()
      .exec();
  }

  /** Every ticket of these contacts, newest first (ids grow with time: served by the contact's id index). */
  listTicketsOfContacts(tenantId: number, contactIds: number[], limit: number) {
    return this.models.Ticket.find({ tenantId, contactId: { $in: contactIds } })
      .sort({ _id: -1 })
      .limit(limit)
      .lean<TicketDoc[]>()
      .exec();
  }

  /** Every ticket of a contact number in the tenant, newest first. */
  listTicketsOfNumber(tenantId: number, number: string, limit: number) {
    return this.models.Ticket.find({ tenantId, 'contact.number': number })
      .sort({ createdAt: -1, _id: -1 })
      .limit(limit)
      .lean<TicketDoc[]>()
      .exec();
  }
}
