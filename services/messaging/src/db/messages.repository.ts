import { isDuplicateKey } from '@convo/kit/dist/mongo';
import type { Connection, Model } from 'mongoose';
import { outboxEvent, statusEventId } from '../outbox/events';
import { OutboxRepository } from '../outbox/outbox.repository';
import { statusPayload } from '../outbox/payloads';
import { groupByChannelAndStatus } from './delivery-groups';
import { registerModels, type MessageDoc, type MessageStatus, type SendKeyDoc } from './models';

/** Delivery only moves forward; `failed` may follow any state and nothing follows it. */
const STATUS_RANK: Record<MessageStatus, number> = { queued: 0, sent: 1, delivered: 2, read: 3, failed: 4 };
const predecessorsOf = (status: MessageStatus): MessageStatus[] =>
  status === 'failed'
    ? ['queued', 'sent', 'delivered', 'read']
    : (Object.keys(STATUS_RANK) as MessageStatus[]).filter((s) => s !== 'failed' && STATUS_RANK[s] < STATUS_RANK[status]);

/** applied: the message moved · unchanged: it had that status already · regression: ignored · missing: no such message. */
export type StatusChange = 'applied' | 'unchanged' | 'regression';

export class MessagesRepository {
  private readonly models;

  constructor(
    conn: Connection,
    readonly outbox = new OutboxRepository(conn),
  ) {
    this.models = registerModels(conn);
  }

  async init(): Promise<void> {
    await Promise.all([...Object.values(this.models).map((m) => m.createIndexes()), this.outbox.init()]);
  }

  /** The document is complete already: a lean insert skips mongoose's document machinery. */
  async insert(doc: MessageDoc): Promise<void> {
    await this.models.Message.insertMany([doc], { lean: true });
  }

  /** Inserts a message whose `_id` identifies it for good; false when it is stored already. */
  async insertOnce(doc: MessageDoc): Promise<boolean> {
    try {
      await this.insert(doc);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** Our sent message a provider status names (index: channelId, providerMessageId). */
  findOutgoingByProviderId(channelId: number, providerMessageId: string) {
    return this.models.Message.findOne({ channelId, providerMessageId, direction: 'out' }).lean<MessageDoc>().exec();
  }

  /** Sent messages of the tickets up to `before`, newest first, that a watermark can still move. */
  listOutgoingBefore(tenantId: number, ticketIds: number[], before: Date, limit: number) {
    return this.models.Message.find({ tenantId, ticketId: { $in: ticketIds }, createdAt: { $lte: before }, direction: 'out', status: { $in: ['sent', 'delivered'] } })
      .sort({ createdAt: -1 })
      .limit(limit)
      .lean<MessageDoc[]>()
      .exec();
  }

  findById(tenantId: number, id: string) {
    return this.models.Message.findOne({ _id: id, tenantId }).lean<MessageDoc>().exec();
  }

  findAnyById(id: string) {
    return this.models.Message.findById(id).lean<MessageDoc>().exec();
  }

  /** The dashboard's page of a ticket's conversation, oldest first (the (tenantId, ticketId, createdAt, _id) index). */
  pageByTicket(tenantId: number, ticketId: number, skip: number, limit: number) {
    return this.models.Message.find({ tenantId, ticketId }).sort({ createdAt: 1, _id: 1 }).skip(skip).limit(limit).lean<MessageDoc[]>().exec();
  }

  countByTicket(tenantId: number, ticketId: number) {
    return this.models.Message.countDocuments({ tenantId, ticketId }).exec();
  }

  listByTicket(tenantId: number, ticketId: number, limit: number) {
    return this.models.Message.find({ tenantId, ticketId }).sort({ createdAt: 1 }).limit(limit).lean<MessageDoc[]>().exec();
  }

  /** The provider's id of the contact's latest message on a ticket ('' when none): what a typing indicator answers. */
  async lastInboundProviderId(tenantId: number, ticketId: number): Promise<string> {
    const last = await this.models.Message.findOne({ tenantId, ticketId, direction: 'in', providerMessageId: { $gt: '' } }, { providerMessageId: 1 })
      .sort({ createdAt: -1 })
      .lean<Pick<MessageDoc, 'providerMessageId'>>()
      .exec();
    return last?.providerMessageId ?? '';
  }

  /** The subject of the contact's latest e-mail on a ticket ('' when none), to answer in its thread. */
  async lastInboundSubject(tenantId: number, ticketId: number): Promise<string> {
    const last = await this.models.Message.findOne({ tenantId, ticketId, direction: 'in', subject: { $gt: '' } }, { subject: 1 })
      .sort({ createdAt: -1 })
      .lean<Pick<MessageDoc, 'subject'>>()
      .exec();
    return last?.subject ?? '';
  }

  /**
   * Every status change of a message goes through here (the dispatcher's sent/failed, providers'
   * delivered/read/failed), so that every one of them can become a `message.status` event. Callers
   * pass the message as they hold it (the dispatcher its queued document: no read).
   *
   * Forward only. The event, when someone listens (`event: false` otherwise), is written FIRST,
   * with an id derived from (message, status): a crash between the two writes leaves an event for a
   * change the provider did report (a provider's retry then applies the change; the event is not
   * written twice), never a change without event. Concurrent reporters update on the condition of
   * the previous status, so they cannot move it back on MongoDB (FerretDB checks that condition
   * before its write, not atomically with it). The dispatcher, the only writer of a queued
   * message while it holds its partition, updates by `_id` alone (`exclusive`): the cheapest write
   * on every database, and a provider's `delivered` cannot precede it (it names the provider id
   * that this very write stores).
   */
  async applyStatus(
    doc: MessageDoc,
    status: MessageStatus,
    fields: Partial<MessageDoc> = {},
    opts: { event?: boolean; exclusive?: boolean } = {},
  ): Promise<StatusChange> {
    if (doc.status === status) return 'unchanged';
    const from = predecessorsOf(status);
    if (!from.includes(doc.status)) return 'regression';
    const now = new Date();
    const next: MessageDoc = { ...doc, ...fields, status, updatedAt: now };
    if (opts.event !== false) {
      await this.outbox.add(
        outboxEvent({
          id: statusEventId(doc._id, status),
          tenantId: doc.tenantId,
          channelId: doc.channelId,
          method: 'message.status',
          target: 'integrations',
          urlField: 'urlMessageStatus',
          body: statusPayload(next, now),
        }, now),
      );
    }
    const filter = opts.exclusive ? { _id: doc._id } : { _id: doc._id, status: { $in: from } };
    const res = await this.models.Message.updateOne(filter, { $set: { ...fields, status, updatedAt: now } }).exec();
    return res.matchedCount ? 'applied' : 'regression';
  }

  /** The delivery queue's size (metrics, at scrape time): served by the status indexes. */
  queuedCount(): Promise<number> {
    return this.models.Message.countDocuments({ status: 'queued' }).exec();
  }

  /** When the oldest queued message was accepted (metrics): an index seek on (status, createdAt). */
  async oldestQueuedAt(): Promise<Date | null> {
    const oldest = await this.models.Message.findOne({ status: 'queued' }, { createdAt: 1 }).sort({ createdAt: 1 }).lean<Pick<MessageDoc, 'createdAt'>>().exec();
    return oldest?.createdAt ?? null;
  }

  /**
   * The dispatcher's discovery of work: tickets with queued messages, other than those it already
   * knows about (`skip`: busy, waiting for a retry, or of another dispatcher's partitions). In no
   * particular order, so that the database can stop after `limit` matches (FerretDB never pushes a
   * sort down: a sorted read would read the whole queue each round). Served by the index
   * (status, ticketId, createdAt, _id) on MongoDB and by the GIN index on `status` on FerretDB.
   */
  queuedTickets(skip: number[], limit: number) {
    const filter = skip.length ? { status: 'queued' as const, ticketId: { $nin: skip } } : { status: 'queued' as const };
    return this.models.Message.find(filter, { ticketId: 1, channelId: 1 }).limit(limit).lean<Array<Pick<MessageDoc, '_id' | 'ticketId' | 'channelId'>>>().exec();
  }

  /** One ticket's queued messages in acceptance order (status and ticket equality, then the sort). */
  queuedOfTicket(ticketId: number, limit: number) {
    return this.models.Message.find({ status: 'queued', ticketId }).sort({ createdAt: 1, _id: 1 }).limit(limit).lean<MessageDoc[]>().exec();
  }

  /** A transient failure: the next attempt of the queued message, by `_id` (the dispatcher holds it). */
  async reschedule(id: string, attempts: number, nextAttemptAt: Date, error: string): Promise<void> {
    await this.models.Message.updateOne({ _id: id }, { $set: { attempts, nextAttemptAt, error, updatedAt: new Date() } }).exec();
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

  findKey(id: string) {
    return this.models.SendKey.findById(id).lean<SendKeyDoc>().exec();
  }

  /**
   * Takes over a key from the claim `held` (its window passed, or its send died before storing):
   * conditional on that claim's message, so of concurrent callers one matches on MongoDB (FerretDB
   * checks the condition before its write, not atomically with it).
   */
  async takeOverKey(doc: SendKeyDoc, held: SendKeyDoc): Promise<boolean> {
    const res = await this.models.SendKey.updateOne(
      { _id: doc._id, messageId: held.messageId },
      { $set: { ticketId: doc.ticketId, messageId: doc.messageId, createdAt: doc.createdAt, acceptBy: doc.acceptBy } },
    ).exec();
    return res.modifiedCount > 0;
  }

  /** Frees a key when nothing was sent, so that a corrected retry is not skipped. */
  async releaseKey(id: string, messageId: string): Promise<void> {
    await this.models.SendKey.deleteOne({ _id: id, messageId }).exec();
  }

  /** A tenant's queued and failed messages per channel, with the oldest of each. */
  deliveryGroups(tenantId: number) {
    return groupByChannelAndStatus(this.models.Message, tenantId, ['queued', 'failed']);
  }
}

// ---- read side (listing, search, last messages) ------------------------------------------------

/** User text becomes a literal pattern: `a.b*` matches "a.b*", never "axbbb". */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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

  /**
   * A page of the ticket's messages that contain the text, and how many do: one read of every
   * match, ordered and sliced here. A count by the database would read the same documents again:
   * FerretDB pushes down the tenant and ticket equalities but not the regex, a sort, a skip or a
   * count, so it reads the ticket's matches for the page and again for the count; MongoDB too
   * must read each matching document (the regex is on the body). The matches are one ticket's.
   */
  async searchInTicket(tenantId: number, ticketId: number, text: string, skip: number, limit: number): Promise<{ messages: MessageDoc[]; count: number }> {
    const matches = await this.messages.find(searchFilter(tenantId, ticketId, text)).lean<MessageDoc[]>().exec();
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
