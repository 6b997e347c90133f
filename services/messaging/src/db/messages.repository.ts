import { isDuplicateKey } from '@convo/kit';
import type { Connection, Model } from 'mongoose';
import { registerModels, type MessageDoc, type MessageStatus, type SendKeyDoc } from './models';

export class MessagesRepository {
  private readonly models;

  constructor(conn: Connection) {
    this.models = registerModels(conn);
  }

  async init(): Promise<void> {
    await Promise.all(Object.values(this.models).map((m) => m.createIndexes()));
  }

  /** The document is complete already: a lean insert skips mongoose's document machinery. */
  async insert(doc: MessageDoc): Promise<void> {
    await this.models.Message.insertMany([doc], { lean: true });
  }

  findById(tenantId: number, id: string) {
    return this.models.Message.findOne({ _id: id, tenantId }).lean<MessageDoc>().exec();
  }

  findAnyById(id: string) {
    return this.models.Message.findById(id).lean<MessageDoc>().exec();
  }

  listByTicket(ticketId: number, limit: number) {
    return this.models.Message.find({ ticketId }).sort({ createdAt: 1 }).limit(limit).lean<MessageDoc[]>().exec();
  }

  async setStatus(id: string, status: MessageStatus, fields: Partial<MessageDoc> = {}): Promise<void> {
    await this.models.Message.updateOne({ _id: id }, { $set: { ...fields, status, updatedAt: new Date() } }).exec();
  }

  /** Claims a key atomically (unique `_id`): true when this caller holds it now. */
  async claimKey(doc: SendKeyDoc): Promise<boolean> {
    try {
      await this.models.SendKey.create(doc);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** Takes over a key whose window has passed; of concurrent callers only one matches. */
  async takeOverExpiredKey(doc: SendKeyDoc, olderThan: Date): Promise<boolean> {
    const res = await this.models.SendKey.findOneAndUpdate(
      { _id: doc._id, createdAt: { $lt: olderThan } },
      { $set: { ticketId: doc.ticketId, messageId: doc.messageId, createdAt: doc.createdAt } },
    ).exec();
    return res !== null;
  }

  /** Frees a key when nothing was sent, so that a corrected retry is not skipped. */
  async releaseKey(id: string, messageId: string): Promise<void> {
    await this.models.SendKey.deleteOne({ _id: id, messageId }).exec();
  }
}

// ---- read side (listing, search, last messages) ------------------------------------------------

/** User text becomes a literal pattern: `a.b*` matches "a.b*", never "axbbb". */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Conversation order; the id breaks ties between messages of the same millisecond, so pages are stable. */
const CHRONOLOGICAL = { createdAt: 1, _id: 1 } as const;
const NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;

export interface LastMessageRow {
  _id: string;
  ticketId: number;
  body: string;
  direction: 'in' | 'out';
  createdAt: Date;
}

/** The read queries of messaging, on the same collection as the send path. */
export class MessageReadRepository {
  private readonly messages;

  /** Shares the send path's model when it is registered already (the normal wiring). */
  constructor(conn: Connection) {
    this.messages = (conn.models.Message as Model<MessageDoc> | undefined) ?? registerModels(conn).Message;
  }

  /**
   * Every read filters by tenant and ticket equality first, then orders by (createdAt, _id): this
   * index serves them all without an in-memory sort, on top of the send path's own indexes.
   */
  async init(): Promise<void> {
    await this.messages.collection.createIndex({ tenantId: 1, ticketId: 1, createdAt: 1, _id: 1 });
  }

  listLatestOfTicket(tenantId: number, ticketId: number, limit: number) {
    return this.messages.find({ tenantId, ticketId }).sort(NEWEST_FIRST).limit(limit).lean<MessageDoc[]>().exec();
  }

  searchInTicket(tenantId: number, ticketId: number, text: string, skip: number, limit: number) {
    return this.messages.find(searchFilter(tenantId, ticketId, text)).sort(CHRONOLOGICAL).skip(skip).limit(limit).lean<MessageDoc[]>().exec();
  }

  countSearchInTicket(tenantId: number, ticketId: number, text: string) {
    return this.messages.countDocuments(searchFilter(tenantId, ticketId, text)).exec();
  }

  /**
   * The newest message of each ticket: one index seek per ticket (tenant and ticket equality,
   * newest first, one document), run together. Each costs the same whatever the ticket's length,
   * where a single $in query would read every message of every ticket on the page. FerretDB pushes
   * these equality filters down too (on PostgreSQL), but not an $in.
   */
  async lastOfTickets(tenantId: number, ticketIds: number[]): Promise<LastMessageRow[]> {
    const rows = await Promise.all(
      ticketIds.map((ticketId) =>
        this.messages
          .findOne({ tenantId, ticketId }, { ticketId: 1, body: 1, direction: 1, createdAt: 1 })
          .sort(NEWEST_FIRST)
          .lean<LastMessageRow>()
          .exec(),
      ),
    );
    return rows.filter((row): row is LastMessageRow => row !== null);
  }
}

// The tenant and ticket equalities come first: FerretDB evaluates a regex only on what they let through.
const searchFilter = (tenantId: number, ticketId: number, text: string) => ({
  tenantId,
  ticketId,
  body: { $regex: escapeRegex(text), $options: 'i' },
});
