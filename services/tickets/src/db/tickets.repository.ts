import { isDuplicateKey, nextSequence } from '@convo/kit';
import type { Connection, UpdateQuery } from 'mongoose';
import { registerModels, type ContactDoc, type Models, type TicketDoc, type TicketKeyDoc } from './models';

export class TicketsRepository {
  readonly models: Models;

  constructor(private readonly conn: Connection) {
    this.models = registerModels(conn);
  }

  async init(): Promise<void> {
    await Promise.all(Object.values(this.models).map((m) => m.createIndexes()));
  }

  nextId(kind: 'ticket' | 'contact'): Promise<number> {
    return nextSequence(this.conn, kind);
  }

  /** Finds the contact of a channel, creating it once even under concurrent callers. */
  async findOrCreateContact(tenantId: number, channelId: number, number: string, email: string): Promise<ContactDoc> {
    const filter = { tenantId, channelId, number, email };
    const existing = await this.models.Contact.findOne(filter).lean<ContactDoc>().exec();
    if (existing) return existing;
    const doc: ContactDoc = { _id: await this.nextId('contact'), ...filter, name: '', createdAt: new Date() };
    try {
      await this.models.Contact.create(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await this.models.Contact.findOne(filter).lean<ContactDoc>().exec())!;
    }
  }

  findTicket(tenantId: number, id: number) {
    return this.models.Ticket.findOne({ _id: id, tenantId }).lean<TicketDoc>().exec();
  }

  findTicketById(id: number) {
    return this.models.Ticket.findById(id).lean<TicketDoc>().exec();
  }

  async insertTicket(ticket: TicketDoc): Promise<void> {
    await this.models.Ticket.create(ticket);
  }

  updateTicket(tenantId: number, id: number, update: UpdateQuery<TicketDoc>) {
    return this.models.Ticket.findOneAndUpdate({ _id: id, tenantId }, update, { returnDocument: 'after' }).lean<TicketDoc>().exec();
  }

  /** True when the key was claimed now; false when it is already held. */
  async claimKey(id: string, ticketId: number): Promise<boolean> {
    try {
      await this.models.TicketKey.create({ _id: id, ticketId, createdAt: new Date() });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  findKey(id: string) {
    return this.models.TicketKey.findById(id).lean<TicketKeyDoc>().exec();
  }

  /** Takes over a key whose window has passed; only one concurrent caller wins. */
  async takeOverExpiredKey(id: string, olderThan: Date, ticketId: number): Promise<boolean> {
    const res = await this.models.TicketKey.findOneAndUpdate(
      { _id: id, createdAt: { $lt: olderThan } },
      { $set: { ticketId, createdAt: new Date() } },
    ).exec();
    return res !== null;
  }

  async releaseKey(id: string, ticketId: number): Promise<void> {
    await this.models.TicketKey.deleteOne({ _id: id, ticketId }).exec();
  }
}
