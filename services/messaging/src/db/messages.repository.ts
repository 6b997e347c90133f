import { isDuplicateKey } from '@convo/kit';
import type { Connection } from 'mongoose';
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
