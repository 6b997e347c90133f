import mongoose from 'mongoose';
import { DeliveriesRepository, type DeliveryDoc } from '../../src/db/deliveries.repository';

const doc = (n: number): DeliveryDoc => ({
  _id: `d-${n}`,
  tenantId: 1,
  channelId: 1,
  driver: 'engine_a',
  to: '5511',
  providerMessageId: `P-${n}`,
  ok: true,
  error: '',
  durationMs: 1,
  createdAt: new Date(),
});

describe('DeliveriesRepository (records written behind the call)', () => {
  it('never throws into the caller when the database refuses, and keeps the records for the next try', async () => {
    // Nothing listens on port 1: every write fails quickly.
    const conn = mongoose.createConnection('mongodb://127.0.0.1:1/engines', { serverSelectionTimeoutMS: 200 });
    conn.on('error', () => undefined);
    const errors: Array<{ dropped: number }> = [];
    const repo = new DeliveriesRepository(conn, (_err, dropped) => errors.push({ dropped }));
    expect(() => repo.record(doc(1))).not.toThrow();
    repo.record(doc(2));
    await repo.flush();
    expect(errors).toEqual([{ dropped: 0 }]);
    await conn.close().catch(() => undefined);
  });
});
