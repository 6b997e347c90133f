import { Schema, type Connection } from 'mongoose';

export interface DeliveryDoc {
  _id: string;
  tenantId: number;
  channelId: number;
  driver: string;
  to: string;
  providerMessageId: string;
  ok: boolean;
  error: string;
  durationMs: number;
  createdAt: Date;
}

/** How long a record waits for others to be written with it, and how many go in one write. */
const FLUSH_MS = 100;
const FLUSH_AT = 200;
/** Records kept while the database does not take them; beyond, the oldest are dropped (and logged). */
const MAX_PENDING = 10_000;

/**
 * A record of every provider call: what was attempted, how it ended, how long it took.
 *
 * Written behind the call, in batches: the record is history, not part of the delivery, so a slow
 * or failing database never fails or slows a call the provider has taken (which the dispatcher
 * would then retry, delivering twice), and a burst of calls costs one insert per batch. A record
 * reaches the database within FLUSH_MS; a process killed meanwhile loses the records of its last
 * moments (close() writes them on a graceful stop).
 */
export class DeliveriesRepository {
  private readonly Delivery;
  private pending: DeliveryDoc[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    conn: Connection,
    private readonly onError: (err: unknown, dropped: number) => void = () => {},
  ) {
    const schema = new Schema<DeliveryDoc>(
      {
        _id: String,
        tenantId: Number,
        channelId: Number,
        driver: String,
        to: String,
        providerMessageId: String,
        ok: Boolean,
        error: String,
        durationMs: Number,
        createdAt: Date,
      },
      { versionKey: false },
    );
    schema.index({ channelId: 1, createdAt: -1 });
    this.Delivery = conn.model<DeliveryDoc>('Delivery', schema, 'deliveries');
  }

  async init(): Promise<void> {
    await this.Delivery.createIndexes();
  }

  record(doc: DeliveryDoc): void {
    this.pending.push(doc);
    if (this.pending.length >= FLUSH_AT) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes what is pending (one batch after another); a failed batch is kept for the next try. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(async () => {
      const batch = this.pending.splice(0);
      if (!batch.length) return;
      try {
        await this.Delivery.insertMany(batch, { lean: true, ordered: false });
      } catch (err) {
        const kept = [...batch, ...this.pending].slice(-MAX_PENDING);
        this.onError(err, batch.length + this.pending.length - kept.length);
        this.pending = kept;
        this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS * 10).unref();
      }
    });
    return this.flushing;
  }

  findById(id: string) {
    return this.Delivery.findById(id).lean<DeliveryDoc>().exec();
  }

  listByChannel(channelId: number, limit: number) {
    return this.Delivery.find({ channelId }).sort({ createdAt: -1 }).limit(limit).lean<DeliveryDoc[]>().exec();
  }
}
