import { groupCommit, perItemErrors } from '@convo/kit/group-commit';
import { ClaimStore, insertOnce } from '@convo/kit/claims';
import type { Connection } from 'mongoose';
import { outboxEvent, statusEventId } from '../outbox/events';
import { OutboxRepository } from '../outbox/outbox.repository';
import { statusPayload } from '../outbox/payloads';
import { groupByChannelAndStatus } from './delivery-groups';
import { ChangesRepository } from './changes.repository';
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
  /**
   * Accepted messages are group-committed: concurrent sends share one insert command (a caller still
   * returns only once its own message is stored). The dispatcher's status records are not: FerretDB
   * applies an update command's statements one by one, so a shared command saved no measurable database work
   * and made each delivery wait for the others' records (in `npm run bench`, deliveries fell behind
   * acceptances by a third).
   */
  private readonly inserts = groupCommit<MessageDoc, void>((docs) => this.insertAll(docs));

  /** sendMessageByTicket's externalKeys (SendKeyDoc). */
  private readonly sendKeys: ClaimStore<SendKeyDoc>;

  constructor(
    conn: Connection,
    readonly outbox = new OutboxRepository(conn),
    /** Reactions, edits and deletions waiting for the dispatcher, among the messages of their ticket. */
    readonly changes = new ChangesRepository(conn),
  ) {
    this.models = registerModels(conn);
    this.sendKeys = new ClaimStore(this.models.SendKey);
  }

  async init(): Promise<void> {
    await Promise.all([...Object.values(this.models).map((m) => m.createIndexes()), this.outbox.init(), this.changes.init()]);
  }

  /** Stores a complete message (with the inserts of concurrent callers, in one command). */
  insert(doc: MessageDoc): Promise<void> {
    return this.inserts.write(doc);
  }

  /** The documents are complete already: a lean insert skips mongoose's document machinery. Each fails alone. */
  private async insertAll(docs: readonly MessageDoc[]): Promise<Array<Error | undefined>> {
    try {
      await this.models.Message.insertMany(docs, { lean: true, ordered: false });
      return docs.map(() => undefined);
    } catch (err) {
      return perItemErrors(docs.length, err);
    }
  }

  /** Inserts a message whose `_id` identifies it for good; false when it is stored already. */
  insertOnce(doc: MessageDoc): Promise<boolean> {
    return insertOnce(() => this.insert(doc));
  }

  /** Our sent message a provider status names (index: channelId, providerMessageId). */
  findOutgoingByProviderId(channelId: number, providerMessageId: string) {
    return this.models.Message.findOne({ channelId, providerMessageId, direction: 'out' }).lean<MessageDoc>().exec();
  }

  /** Our message that left through this linked channel (coexistence), which reports its statuses. */
  findSentThroughLinked(viaChannelId: number, providerMessageId: string) {
    return this.models.Message.findOne({ viaChannelId, providerMessageId }).lean<MessageDoc>().exec();
  }

  /** Sent messages of the tickets up to `before`, newest first, that a watermark can still move. */
  listOutgoingBefore(tenantId: number, ticketIds: number[], before: Date, limit: number) {
    return this.models.Message.find({
      tenantId,
      ticketId: { $in: ticketIds },
      createdAt: { $lte: before },
      direction: 'out',
      status: { $in: ['sent', 'delivered'] },
    })
      .sort({ createdAt: -1 })
      .limit(limit)
      .lean<MessageDoc[]>()
      .exec();
  }

  /**
   * Whether a send of ours to this contact on this channel may be in flight: queued and due (not
   * waiting for a later retry). A send stays queued until the write that stores its provider id
   * (the dispatcher's `sent`), which is what lets an echo wait for it (domain/conversation-changes.ts).
   * The (tenantId, channelId, to, status) index.
   */
  async sendInFlight(tenantId: number, channelId: number, to: string[]): Promise<boolean> {
    const due = { $or: [{ nextAttemptAt: null }, { nextAttemptAt: { $lte: new Date() } }] };
    const doc = await this.models.Message.findOne({ tenantId, status: 'queued', channelId, to: { $in: to }, ...due }, { _id: 1 })
      .lean()
      .exec();
    return !!doc;
  }

  /** Writes what a reaction, an edit or a deletion changed, on the condition of what it read (`expected`). */
  async change(doc: MessageDoc, expected: Partial<MessageDoc>, set: Partial<MessageDoc>): Promise<boolean> {
    const own = { _id: doc._id, tenantId: doc.tenantId, ticketId: doc.ticketId };
    const res = await this.models.Message.updateOne({ ...own, ...expected }, { $set: { ...set, updatedAt: new Date() } }).exec();
    return res.matchedCount > 0;
  }

  findById(tenantId: number, id: string) {
    return this.models.Message.findOne({ _id: id, tenantId }).lean<MessageDoc>().exec();
  }

  findAnyById(id: string) {
    return this.models.Message.findById(id).lean<MessageDoc>().exec();
  }

  /** The dashboard's page of a ticket's conversation, oldest first (the (tenantId, ticketId, createdAt, _id) index). */
  pageByTicket(tenantId: number, ticketId: number, skip: number, limit: number) {
    return this.models.Message.find({ tenantId, ticketId })
      .sort({ createdAt: 1, _id: 1 })
      .skip(skip)
      .limit(limit)
      .lean<MessageDoc[]>()
      .exec();
  }

  /** The ticket's newest `limit` messages, newest first: the same index read backwards. */
  latestByTicket(tenantId: number, ticketId: number, limit: number) {
    return this.models.Message.find({ tenantId, ticketId }).sort({ createdAt: -1, _id: -1 }).limit(limit).lean<MessageDoc[]>().exec();
  }

  countByTicket(tenantId: number, ticketId: number) {
    return this.models.Message.countDocuments({ tenantId, ticketId }).exec();
  }

  listByTicket(tenantId: number, ticketId: number, limit: number) {
    return this.models.Message.find({ tenantId, ticketId }).sort({ createdAt: 1 }).limit(limit).lean<MessageDoc[]>().exec();
  }

  /** The provider's id of the contact's latest message on a ticket ('' when none): what a typing indicator answers. */
  async lastInboundProviderId(tenantId: number, ticketId: number): Promise<string> {
    const last = await this.models.Message.findOne(
      { tenantId, ticketId, direction: 'in', providerMessageId: { $gt: '' } },
      { providerMessageId: 1 },
    )
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
        outboxEvent(
          {
            id: statusEventId(doc._id, status),
            tenantId: doc.tenantId,
            channelId: doc.channelId,
            method: 'message.status',
            target: 'integrations',
            urlField: 'urlMessageStatus',
            body: statusPayload(next, now),
          },
          now,
        ),
      );
    }
    // With its tenant and ticket (the shard key deploy/mongodb/shard-keys.json declares): one shard answers.
    const own = { _id: doc._id, tenantId: doc.tenantId, ticketId: doc.ticketId };
    const filter = opts.exclusive ? own : { ...own, status: { $in: from } };
    const res = await this.models.Message.updateOne(filter, { $set: { ...fields, status, updatedAt: now } }).exec();
    return res.matchedCount ? 'applied' : 'regression';
  }

  /** The delivery queue's size (metrics, at scrape time): served by the status indexes. */
  queuedCount(): Promise<number> {
    return this.models.Message.countDocuments({ status: 'queued' }).exec();
  }

  /** When the oldest queued message was accepted (metrics): an index seek on (status, createdAt). */
  async oldestQueuedAt(): Promise<Date | null> {
    const oldest = await this.models.Message.findOne({ status: 'queued' }, { createdAt: 1 })
      .sort({ createdAt: 1 })
      .lean<Pick<MessageDoc, 'createdAt'>>()
      .exec();
    return oldest?.createdAt ?? null;
  }

  /**
   * The dispatcher's discovery of work: queued messages of tickets other than those it already knows
   * about (`skip`: busy, waiting for a retry, or of another dispatcher's partitions), whole, so that
   * a round's one read serves every run it starts. In no particular order, so that the database can
   * stop after `limit` matches (FerretDB never pushes a sort down: a sorted read would read the whole
   * queue each round); the caller orders each ticket's messages. Served by the index (status,
   * tenantId, ticketId, createdAt, _id) on MongoDB and by the GIN index on `status` on FerretDB.
   */
  queuedMessages(skip: number[], limit: number) {
    const filter = skip.length ? { status: 'queued' as const, ticketId: { $nin: skip } } : { status: 'queued' as const };
    return this.models.Message.find(filter).limit(limit).lean<MessageDoc[]>().exec();
  }

  /** One ticket's queued messages in acceptance order (status, tenant and ticket equality, then the sort). */
  queuedOfTicket(tenantId: number, ticketId: number, limit: number) {
    return this.models.Message.find({ status: 'queued', tenantId, ticketId })
      .sort({ createdAt: 1, _id: 1 })
      .limit(limit)
      .lean<MessageDoc[]>()
      .exec();
  }

  /** A transient failure: the next attempt of the queued message, by `_id` (the dispatcher holds it). */
  async reschedule(
    doc: Pick<MessageDoc, '_id' | 'tenantId' | 'ticketId'>,
    attempts: number,
    nextAttemptAt: Date,
    error: string,
  ): Promise<void> {
    await this.models.Message.updateOne(
      { _id: doc._id, tenantId: doc.tenantId, ticketId: doc.ticketId },
      { $set: { attempts, nextAttemptAt, error, updatedAt: new Date() } },
    ).exec();
  }

  /** Claims a key atomically (unique `_id`): true when this caller holds it now. */
  claimKey(doc: SendKeyDoc): Promise<boolean> {
    return this.sendKeys.claim(doc);
  }

  findKey(id: string) {
    return this.sendKeys.find(id);
  }

  /**
   * Takes over a key from the claim `held` (its window passed, or its send died before storing):
   * conditional on that claim's message, so of concurrent callers one matches on MongoDB (FerretDB
   * checks the condition before its write, not atomically with it).
   */
  takeOverKey(doc: SendKeyDoc, held: SendKeyDoc): Promise<boolean> {
    const { _id, ...holder } = doc;
    return this.sendKeys.takeOver(_id, { messageId: held.messageId }, holder);
  }

  /** Frees a key when nothing was sent, so that a corrected retry is not skipped. */
  async releaseKey(id: string, messageId: string): Promise<void> {
    await this.sendKeys.release(id, { messageId });
  }

  /** A tenant's queued and failed messages per channel, with the oldest of each. */
  deliveryGroups(tenantId: number) {
    return groupByChannelAndStatus(this.models.Message, tenantId, ['queued', 'failed']);
  }
}
