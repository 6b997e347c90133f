import { connectDatabase } from '@convo/kit/mongo';
import { startDatabase, type Database } from '@convo/dev-db';
import { commandsDuring } from '@convo/test-support';
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { MessagesRepository } from '../../src/db/messages.repository';
import { InspectionService } from '../../src/domain/inspection.service';
import { toWebhookDelivery, WebhookDeliveryResolver } from '../../src/graphql/webhook-delivery.resolver';
import { eventId, outboxEvent } from '../../src/outbox/events';
import type { OutboxEventDoc } from '../../src/outbox/outbox.models';
import { OutboxRepository } from '../../src/outbox/outbox.repository';

// WebhookDelivery.attemptLog of a list of deliveries, as the subgraph resolves it within one
// request (one context object), on the real database.

let database: Database;
let conn: Connection;
let outbox: OutboxRepository;
let resolver: WebhookDeliveryResolver;

beforeAll(async () => {
  database = await startDatabase({ name: 'messaging-attempt-log-test' });
  conn = await connectDatabase(database.uri, 'convo_messaging');
  outbox = new OutboxRepository(conn);
  await outbox.init();
  // The inspection reads attempts through the outbox only.
  resolver = new WebhookDeliveryResolver(new InspectionService({ outbox } as unknown as MessagesRepository));
});

afterAll(async () => {
  await conn?.close();
  await database?.stop();
});

/** An event of the tenant with `attempts` finished attempts, by relays r0, r1, … */
async function eventWithAttempts(tenantId: number, attempts: number): Promise<OutboxEventDoc> {
  const event = outboxEvent({
    id: eventId(`attempt-log:${randomUUID()}`),
    tenantId,
    channelId: 1,
    method: 'message',
    target: 'channel',
    body: {},
  });
  await outbox.add(event);
  for (let i = 0; i < attempts; i++) {
    const lease = await outbox.claim((await outbox.findEvent(event._id))!, `r${i}`, 30_000);
    await outbox.finishAttempt(lease!, { outcome: 'failed', httpStatus: 500 });
  }
  return event;
}

describe('WebhookDelivery.attemptLog', () => {
  it("reads the attempts of a list of deliveries in one query, each delivery's own in order", async () => {
    const events: OutboxEventDoc[] = [];
    for (let i = 0; i < 12; i++) events.push(await eventWithAttempts(1, i % 3));
    const logOf = async (list: OutboxEventDoc[]) => {
      const context = {};
      let logs: Array<Array<{ number: number; relayId: string }>> = [];
      const commands = await commandsDuring(conn, async () => {
        logs = await Promise.all(list.map((e) => resolver.attemptLog(toWebhookDelivery(e), context)));
      });
      return { logs, reads: commands.filter((c) => c === 'find outbox_attempts').length };
    };
    const small = await logOf(events.slice(0, 3));
    const large = await logOf(events);
    expect(large.logs.map((log) => log.map((a) => [a.number, a.relayId]))).toEqual(
      events.map((_, i) => Array.from({ length: i % 3 }, (__, n) => [n + 1, `r${n}`])),
    );
    expect({ small: small.reads, large: large.reads }).toEqual({ small: 1, large: 1 });
  });

  it("never answers another tenant's attempts for a delivery named with the wrong tenant", async () => {
    const theirs = await eventWithAttempts(2, 1);
    const context = {};
    const [asMine, asTheirs] = await Promise.all([
      resolver.attemptLog({ ...toWebhookDelivery(theirs), tenantId: 1 }, context),
      resolver.attemptLog(toWebhookDelivery(theirs), context),
    ]);
    expect(asMine).toEqual([]);
    expect(asTheirs).toHaveLength(1);
  });
});
