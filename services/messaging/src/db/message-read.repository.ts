// The read side of messages (a ticket's latest, search, the last message of each ticket), on the
// same collection as the send path.
import type { Connection, Model } from 'mongoose';
import { escapeRegex } from '@convo/kit/mongo';
import { registerModels, type MessageDoc } from './models';

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

  listLatestOfTicket(tenantId: number, ticketId: number, limit: number, skip = 0) {
    return this.messages.find({ tenantId, ticketId }).sort(NEWEST_FIRST).skip(skip).limit(limit).lean<MessageDoc[]>().exec();
  }

  /**
   * A page of the ticket's messages that contain the text, and how many do: one read of every
   * match, ordered and sliced here. A count by the database would read the same documents again:
   * FerretDB pushes down the tenant and ticket equalities but not the regex, a sort, a skip or a
   * count, so it reads the ticket's matches for the page and again for the count; MongoDB too
   * must read each matching document (the regex is on the body). The matches are one ticket's.
   */
  async searchInTicket(
    tenantId: number,
    ticketId: number,
    text: string,
    skip: number,
    limit: number,
  ): Promise<{ messages: MessageDoc[]; count: number }> {
    const matches = await this.messages
      .find(searchFilter(tenantId, ticketId, text))
      .lean<MessageDoc[]>()
      .exec();
    // Conversation order; the id breaks ties between messages of the same millisecond, so pages are stable.
    matches.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
    return { messages: matches.slice(skip, skip + limit), count: matches.length };
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
