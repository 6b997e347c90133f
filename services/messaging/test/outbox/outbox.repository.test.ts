import { connectDatabase } from '@convo/kit/mongo';
import { startDatabase, type Database } from '@convo/dev-db';
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { eventId, outboxEvent } from '../../src/outbox/events';
import { OutboxRepository } from '../../src/outbox/outbox.repository';
import { commandsDuring } from '@convo/test-support';

// Claims on the real database (FerretDB in CI): the exclusivity rests on unique `_id` inserts.

let database: Database;
let conn: Connection;
let outbox: OutboxRepository;

beforeAll(async () => {
  database = await startDatabase({ name: 'messaging-outbox-test' });
  conn = await connectDatabase(database.uri, 'convo_messaging');
  outbox = new OutboxRepository(conn);
  await outbox.init();
});

afterAll(async () => {
  await conn?.close();
  await database?.stop();
});

async function newEvent() {
  const doc = outboxEvent({
    id: eventId(`outbox-test:${randomUUID()}`),
    tenantId: 1,
    channelId: 1,
    method: 'message',
    target: 'channel',
    body: { n: 1 },
  });
  await outbox.add(doc);
  return doc;
}

describe('the outbox', () => {
  it('stores an event id once', async () => {
    const doc = await newEvent();
    expect(await outbox.add({ ...doc, body: '{"other":true}' })).toBe(false);
    expect((await outbox.findEvent(doc._id))!.body).toBe('{"n":1}');
  });

  it('stores concurrent events in fewer commands than events; of one id written twice at once, exactly one write is told it stored', async () => {
    const docs = Array.from({ length: 20 }, (_, i) =>
      outboxEvent({
        id: eventId(`outbox-group:${randomUUID()}`),
        tenantId: 1,
        channelId: 1,
        method: 'message',
        target: 'channel',
        body: { i },
      }),
    );
    const twice = docs[7];
    let answers: boolean[] = [];
    const commands = await commandsDuring(conn, async () => {
      answers = await Promise.all([...docs, { ...twice, body: '{"again":true}' }].map((d) => outbox.add(d)));
    });
    expect(commands.filter((c) => c.startsWith('insert ')).length).toBeLessThan(docs.length);
    // Every event once; the id written twice answered true for one of its writes only.
    expect(answers.filter((a) => !a)).toHaveLength(1);
    expect([answers[7], answers[20]].sort()).toEqual([false, true]);
    for (const d of docs) expect(await outbox.findEvent(d._id)).toMatchObject({ _id: d._id });
  });

  it('gives an event to exactly one of many relays claiming it at once', async () => {
    for (let round = 0; round < 5; round++) {
      const event = await newEvent();
      const leases = await Promise.all(Array.from({ length: 12 }, (_, i) => outbox.claim(event, `relay-${i}`, 30_000)));
      const won = leases.filter((l) => l !== null);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ eventId: event._id, gen: 1 });
      expect(await outbox.attemptsOf(event._id)).toHaveLength(1);
    }
  });

  it('lets the next generation through once the attempt finished or its lease ran out, not before', async () => {
    const event = await newEvent();
    const first = await outbox.claim(event, 'a', 300);
    expect(first).not.toBeNull();
    expect(await outbox.claim(event, 'b', 300)).toBeNull();
    await new Promise((r) => setTimeout(r, 350));
    // The holder vanished (a crash): its lease ran out, so the event is free again.
    const second = await outbox.claim(event, 'b', 30_000);
    expect(second).toMatchObject({ gen: 2 });
    expect(await outbox.claim((await outbox.findEvent(event._id))!, 'c', 30_000)).toBeNull();
    await outbox.release(second!);
    expect(await outbox.claim(event, 'c', 30_000)).toMatchObject({ gen: 3 });
    expect((await outbox.attemptsOf(event._id)).map((a) => [a.gen, a.relayId, a.outcome])).toEqual([
      [1, 'a', null],
      [2, 'b', 'released'],
      [3, 'c', null],
    ]);
  });

  it('takes an event no relay has held in two writes, and reads it again only at a later generation', async () => {
    const event = await newEvent();
    let first: Awaited<ReturnType<typeof outbox.claim>> = null;
    // Only a holder changes a pending event: one that none has held is still as the relay read it.
    expect(await commandsDuring(conn, async () => (first = await outbox.claim(event, 'a', 300)))).toEqual([
      'insert outbox_attempts',
      'update outbox',
    ]);
    expect(first).toMatchObject({ gen: 1, event: { _id: event._id, status: 'pending', gen: 1 } });
    await new Promise((r) => setTimeout(r, 350));
    // Generation 2: the holder of generation 1 may have finished the event meanwhile, so it is read.
    const later = await commandsDuring(conn, () => outbox.claim(event, 'b', 30_000));
    expect(later).toContain('find outbox');
    expect(later.at(-1)).toBe('update outbox');
  });

  it('prunes finished events and their attempts once they are old enough, never pending ones', async () => {
    const [done, recent, pending] = [await newEvent(), await newEvent(), await newEvent()];
    const lease = await outbox.claim(done, 'a', 30_000);
    await outbox.finishAttempt(lease!, { outcome: 'delivered', httpStatus: 200 });
    await outbox.updateEvent(done._id, { status: 'delivered', finishedAt: new Date(Date.now() - 60_000) });
    await outbox.updateEvent(recent._id, { status: 'dead', finishedAt: new Date() });
    expect(await outbox.prune(new Date(Date.now() - 30_000))).toBeGreaterThanOrEqual(1);
    expect(await outbox.findEvent(done._id)).toBeNull();
    expect(await outbox.attemptsOf(done._id)).toEqual([]);
    expect(await outbox.findEvent(recent._id)).not.toBeNull();
    expect(await outbox.findEvent(pending._id)).not.toBeNull();
  });

  it('hands out due events up to the limit, none waiting for a retry, and knows when the most overdue one fell due', async () => {
    const [first, second, later] = [await newEvent(), await newEvent(), await newEvent()];
    await outbox.updateEvent(later._id, { attempts: 1, nextAttemptAt: new Date(Date.now() + 60_000) });
    const now = new Date();
    const ids = (await outbox.due(now, 10_000)).map((e) => e._id);
    expect(ids).toEqual(expect.arrayContaining([first._id, second._id]));
    expect(ids).not.toContain(later._id);
    expect(await outbox.due(now, 2)).toHaveLength(2);
    expect((await outbox.oldestDue(now))!.getTime()).toBeLessThanOrEqual(first.nextAttemptAt.getTime());
  });

  it("asks for the relay's due events without a sort (FerretDB would read every pending event to sort them), the gauge's oldest with one", async () => {
    const finds: Array<Record<string, unknown>> = [];
    const record = (e: { commandName: string; command: Record<string, unknown> }) =>
      void (e.commandName === 'find' && finds.push(e.command));
    conn.getClient().on('commandStarted', record);
    try {
      await outbox.due(new Date(), 50);
      await outbox.oldestDue(new Date());
    } finally {
      conn.getClient().off('commandStarted', record);
    }
    expect(finds.map((f) => [f.find, f.sort ? Object.fromEntries(f.sort as Map<string, number>) : null, f.limit])).toEqual([
      ['outbox', null, 50],
      ['outbox', { nextAttemptAt: 1 }, 1],
    ]);
  });

  it('gives nothing for an event that is no longer due, and leaves no attempt behind', async () => {
    const event = await newEvent();
    const lease = await outbox.claim(event, 'a', 30_000);
    await outbox.updateEvent(event._id, { status: 'delivered', attempts: 1, finishedAt: new Date() });
    await outbox.finishAttempt(lease!, { outcome: 'delivered', httpStatus: 200 });
    // A relay that read the event while it was still pending:
    expect(await outbox.claim(event, 'b', 30_000)).toBeNull();
    expect(await outbox.attemptsOf(event._id)).toHaveLength(1);
  });
});
