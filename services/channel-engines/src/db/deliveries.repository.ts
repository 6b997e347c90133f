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

/** A record of every provider call: what was attempted, how it ended, how long it took. */
export class DeliveriesRepository {
  private readonly Delivery;

  constructor(conn: Connection) {
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

  async record(doc: DeliveryDoc): Promise<void> {
    await this.Delivery.insertMany([doc], { lean: true });
  }

  findById(id: string) {
    return this.Delivery.findById(id).lean<DeliveryDoc>().exec();
  }

  listByChannel(channelId: number, limit: number) {
    return this.Delivery.find({ channelId }).sort({ createdAt: -1 }).limit(limit).lean<DeliveryDoc[]>().exec();
  }
}
