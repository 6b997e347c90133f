import type { MessageChange } from '@convo/kit';
import { Schema, type Connection, type Model } from 'mongoose';
import type { MessageDoc } from './models';

/** What a queued change does to the message it names (`targetId`, this platform's id of it). */
export interface QueuedChange {
  kind: MessageChange;
  targetId: string;
  /** react: the emoji ("" removes ours). */
  emoji?: string;
  /** edit: the new text. */
  body?: string;
}

/**
 * A change to a stored message (sendReaction, editMessage, deleteMessage) waiting for the
 * dispatcher: shaped as a queued outgoing message of the target's ticket, so that the dispatcher
 * delivers it in that ticket's acceptance order with the same pacing, retries and leases, but kept
 * in a collection of its own: it is no message, and no read of the conversation sees it. Once the
 * provider took it, the target message shows the change; the change itself keeps its outcome
 * (`sent` with the provider's id of it where one was given, or `failed` with the reason).
 */
export type ChangeDoc = MessageDoc & { change: QueuedChange };

export class ChangesRepository {
  private readonly model: Model<ChangeDoc>;

  constructor(conn: Connection) {
    const schema = new Schema<ChangeDoc>(
      {
        _id: String,
        tenantId: { type: Number, required: true },
        ticketId: Number,
        channelId: Number,
        direction: String,
        body: String,
        status: String,
        to: String,
        providerMessageId: { type: String, default: undefined },
        error: { type: String, default: undefined },
        attempts: { type: Number, default: undefined },
        nextAttemptAt: { type: Date, default: undefined },
        traceparent: { type: String, default: undefined },
        change: new Schema<QueuedChange>({ kind: String, targetId: String, emoji: String, body: String }, { _id: false }),
        createdAt: Date,
        updatedAt: Date,
      },
      { versionKey: false },
    );
    // The dispatcher's queue, as the messages' (status, tenant, ticket, then acceptance order).
    schema.index({ status: 1, tenantId: 1, ticketId: 1, createdAt: 1, _id: 1 });
    this.model = conn.model<ChangeDoc>('MessageChange', schema, 'message_changes');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  async insert(doc: ChangeDoc): Promise<void> {
    await this.model.insertMany([doc], { lean: true });
  }

  /** As MessagesRepository.queuedMessages: queued changes of tickets not in `skip`, in no order. */
  queued(skip: number[], limit: number) {
    const filter = skip.length ? { status: 'queued' as const, ticketId: { $nin: skip } } : { status: 'queued' as const };
    return this.model.find(filter).limit(limit).lean<ChangeDoc[]>().exec();
  }

  /** One ticket's queued changes in acceptance order. */
  queuedOfTicket(tenantId: number, ticketId: number, limit: number) {
    return this.model.find({ status: 'queued', tenantId, ticketId }).sort({ createdAt: 1, _id: 1 }).limit(limit).lean<ChangeDoc[]>().exec();
  }

  /** A transient failure (or a target not sent yet): the next attempt. */
  async reschedule(doc: ChangeDoc, attempts: number, nextAttemptAt: Date, error: string): Promise<void> {
    await this.model
      .updateOne(
        { _id: doc._id, tenantId: doc.tenantId, ticketId: doc.ticketId },
        { $set: { attempts, nextAttemptAt, error, updatedAt: new Date() } },
      )
      .exec();
  }

  /** The outcome: sent (with the provider's id of the change, where it gave one) or failed. */
  async finish(doc: ChangeDoc, status: 'sent' | 'failed', fields: { providerMessageId?: string; error?: string }): Promise<void> {
    await this.model
      .updateOne(
        { _id: doc._id, tenantId: doc.tenantId, ticketId: doc.ticketId },
        { $set: { status, ...fields, attempts: (doc.attempts ?? 0) + 1, nextAttemptAt: null, updatedAt: new Date() } },
      )
      .exec();
  }
}
