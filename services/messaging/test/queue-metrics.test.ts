import { createLogger, metricsText } from '@convo/kit';
import { connectDatabase } from '@convo/kit/mongo';
import { startDatabase, type Database } from '@convo/dev-db';
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { MessagesRepository } from '../src/db/messages.repository';
import { eventId, outboxEvent } from '../src/outbox/events';
import { OutboxRepository } from '../src/outbox/outbox.repository';
import { observeDeliveryQueue, observeWebhookOutbox } from '../src/queue-metrics';

// The queue gauges the workers serve (and KEDA scales them on), read from a real database.

let database: Database;
let conn: Connection;
let messages: MessagesRepository;
let outbox: OutboxRepository;

const sample = (text: string, name: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`${name} not in the exposition`);
  return Number(line.split(' ')[1]);
};

beforeAll(async () => {
  database = await startDatabase({ name: 'messaging-queue-metrics-test' });
  conn = await connectDatabase(database.uri, 'convo_messaging');
  messages = new MessagesRepository(conn);
  outbox = new OutboxRepository(conn);
  await messages.init();
  const log = createLogger('queue-metrics-test', 'silent');
  observeDeliveryQueue(messages, log);
  observeWebhookOutbox(outbox, log);
});

afterAll(async () => {
  await conn?.close();
  await database?.stop();
});

const queued = (createdAt: Date, status: 'queued' | 'sent' = 'queued') =>
  messages.insert({
    _id: randomUUID(),
    tenantId: 1,
    ticketId: 1,
    channelId: 1,
    direction: 'out',
    body: 'x',
    status,
    providerMessageId: '',
    error: '',
    mediaUrl: '',
    mediaId: '',
    mimeType: '',
    fileName: '',
    externalKey: '',
    createdAt,
    updatedAt: createdAt,
  });

describe('queue metrics', () => {
  it('reads empty queues as depth 0 and age 0', async () => {
    const text = await metricsText();
    expect(sample(text, 'convo_delivery_queue_depth')).toBe(0);
    expect(sample(text, 'convo_delivery_queue_oldest_age_seconds')).toBe(0);
    expect(sample(text, 'convo_webhook_outbox_depth')).toBe(0);
    expect(sample(text, 'convo_webhook_outbox_oldest_age_seconds')).toBe(0);
  });

  it('counts queued messages and ages the delivery queue by its oldest one', async () => {
    await queued(new Date(Date.now() - 90_000));
    await queued(new Date(Date.now() - 30_000));
    await queued(new Date(Date.now() - 600_000), 'sent');
    const text = await metricsText();
    expect(sample(text, 'convo_delivery_queue_depth')).toBe(2);
    const age = sample(text, 'convo_delivery_queue_oldest_age_seconds');
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(600);
  });

  it('ages the outbox by how overdue its most overdue event is; a future retry is not overdue', async () => {
    const overdue = outboxEvent(
      { id: eventId(`m:${randomUUID()}`), tenantId: 1, channelId: 1, method: 'message', target: 'channel', body: {} },
      new Date(Date.now() - 45_000),
    );
    const later = outboxEvent({
      id: eventId(`m:${randomUUID()}`),
      tenantId: 1,
      channelId: 1,
      method: 'message',
      target: 'channel',
      body: {},
    });
    await outbox.add(overdue);
    await outbox.add({ ...later, nextAttemptAt: new Date(Date.now() + 3_600_000) });
    const text = await metricsText();
    expect(sample(text, 'convo_webhook_outbox_depth')).toBe(2);
    const age = sample(text, 'convo_webhook_outbox_oldest_age_seconds');
    expect(age).toBeGreaterThanOrEqual(45);
    expect(age).toBeLessThan(3_600);
  });
});
