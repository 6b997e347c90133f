import { DomainError } from '@convo/kit';
import { insertOnce } from '@convo/kit/claims';
import { Schema, type Connection } from 'mongoose';

/** One message queued for a web chat visitor's widget. */
export interface WebchatEntryDoc {
  /** `<channelId>:<visitorId>:<seq>`: unique, so inserting it is the claim of position `seq`. */
  _id: string;
  tenantId: number;
  channelId: number;
  visitorId: string;
  /** 1, 2, 3… per (channel, visitor), without gaps: the widget's cursor. */
  seq: number;
  reference: string;
  text: string;
  mediaUrl: string;
  mimeType: string;
  fileName: string;
  interactiveType: string;
  interactiveJson: string;
  createdAt: Date;
}

export type WebchatEntryInput = Omit<WebchatEntryDoc, '_id' | 'seq' | 'createdAt'>;

/** How many times an insert may lose the race for the next position before giving up. */
const MAX_CLAIM_ATTEMPTS = 20;

export const webchatEntryId = (channelId: number, visitorId: string, seq: number) => `${channelId}:${visitorId}:${seq}`;

/** The position an entry id names in the visitor's queue; undefined for an id of another queue or no id. */
export function webchatEntrySeq(id: string, channelId: number, visitorId: string): number | undefined {
  const prefix = `${channelId}:${visitorId}:`;
  const seq = id.startsWith(prefix) ? id.slice(prefix.length) : '';
  return /^[1-9]\d{0,14}$/.test(seq) ? Number(seq) : undefined;
}

/**
 * The web chat queues: one ordered list of messages per (channel, visitor), read by the widget
 * with a cursor. Positions are claimed by inserting a document whose `_id` names the position, so
 * two replicas queueing for one visitor at once never take the same one and never leave a gap
 * a reader could skip over (FerretDB applies `$inc` as read-then-write, so a counter would not do).
 */
export class WebchatRepository {
  private readonly Entry;
  private indexes?: Promise<unknown>;

  constructor(conn: Connection) {
    const schema = new Schema<WebchatEntryDoc>(
      {
        _id: String,
        tenantId: Number,
        channelId: Number,
        visitorId: String,
        seq: Number,
        reference: String,
        text: String,
        mediaUrl: String,
        mimeType: String,
        fileName: String,
        interactiveType: String,
        interactiveJson: String,
        createdAt: Date,
      },
      { versionKey: false },
    );
    // Serves both the newest-position read (descending) and the cursor read (ascending).
    schema.index({ channelId: 1, visitorId: 1, seq: 1 });
    this.Entry = conn.model<WebchatEntryDoc>('WebchatEntry', schema, 'webchat_messages');
  }

  /** Drivers are created synchronously: the index is built on first use, once. */
  private ready(): Promise<unknown> {
    this.indexes ??= this.Entry.createIndexes().catch((err: unknown) => {
      this.indexes = undefined;
      throw err;
    });
    return this.indexes;
  }

  /** Appends a message to the visitor's queue at the next free position. */
  async enqueue(input: WebchatEntryInput): Promise<WebchatEntryDoc> {
    await this.ready();
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const seq = (await this.lastSeq(input.channelId, input.visitorId)) + 1;
      const doc: WebchatEntryDoc = { ...input, _id: webchatEntryId(input.channelId, input.visitorId, seq), seq, createdAt: new Date() };
      if (await insertOnce(() => this.Entry.insertMany([doc], { lean: true }))) return doc;
      // Another writer took this position first: it is now visible, so the next read moves past it.
    }
    throw new DomainError(
      'unavailable',
      'ERR_WEBCHAT_BUSY',
      `The web chat queue of visitor ${input.visitorId} on channel ${input.channelId} is too busy; retry the send`,
    );
  }

  /** The visitor's messages after position `afterSeq`, oldest first. */
  async after(channelId: number, visitorId: string, afterSeq: number, limit: number): Promise<WebchatEntryDoc[]> {
    await this.ready();
    return this.Entry.find({ channelId, visitorId, seq: { $gt: afterSeq } })
      .sort({ seq: 1 })
      .limit(limit)
      .lean<WebchatEntryDoc[]>()
      .exec();
  }

  private async lastSeq(channelId: number, visitorId: string): Promise<number> {
    const last = await this.Entry.findOne({ channelId, visitorId }, { seq: 1 })
      .sort({ seq: -1 })
      .lean<Pick<WebchatEntryDoc, 'seq'>>()
      .exec();
    return last?.seq ?? 0;
  }
}
