import { connectDatabase, isDuplicateKey } from '@convo/kit/mongo';
import { startDatabase, type Database } from '@convo/dev-db';
import type { Connection } from 'mongoose';
import { MessagesRepository } from '../../src/db/messages.repository';
import { InspectionService } from '../../src/domain/inspection.service';
import type { MessageDoc } from '../../src/db/models';
import { commandsDuring } from '@convo/test-support';
import { queuedText } from '../fixtures';

// Group-committed writes on the real database (FerretDB in CI): concurrent callers share one
// command, and each still gets its own outcome.

let database: Database;
let conn: Connection;
let repo: MessagesRepository;

beforeAll(async () => {
  database = await startDatabase({ name: 'messaging-repository-test' });
  conn = await connectDatabase(database.uri, 'convo_messaging');
  repo = new MessagesRepository(conn);
  await repo.init();
});

afterAll(async () => {
  await conn?.close();
  await database?.stop();
});

const queued = (ticketId: number, body: string): MessageDoc => queuedText({ ticketId, body });

/** Insert commands the database received while `fn` ran. */
const insertCommands = async (fn: () => Promise<unknown>): Promise<number> =>
  (await commandsDuring(conn, fn)).filter((c) => c.startsWith('insert ')).length;

describe('the messages repository', () => {
  it('stores concurrent accepted messages in fewer commands than messages, each of them once', async () => {
    const docs = Array.from({ length: 20 }, (_, i) => queued(7001, `m${i}`));
    const commands = await insertCommands(() => Promise.all(docs.map((d) => repo.insert(d))));
    expect(commands).toBeLessThan(docs.length);
    const stored = await repo.queuedOfTicket(1, 7001, 100);
    expect(stored.map((m) => m._id).sort()).toEqual(docs.map((d) => d._id).sort());
  });

  it('fails only the duplicate of a batch, with the duplicate-key error its caller expects', async () => {
    const first = queued(7002, 'first');
    await repo.insert(first);
    const others = [queued(7002, 'a'), queued(7002, 'b')];
    const outcomes = await Promise.all(
      [repo.insert(others[0]), repo.insert({ ...first, body: 'again' }), repo.insert(others[1])].map((p) =>
        p.then(
          () => 'stored',
          (e: unknown) => (isDuplicateKey(e) ? 'duplicate' : String(e)),
        ),
      ),
    );
    expect(outcomes).toEqual(['stored', 'duplicate', 'stored']);
    expect(await repo.insertOnce({ ...first, body: 'once more' })).toBe(false);
    expect((await repo.findAnyById(first._id))!.body).toBe('first');
  });

  it("records the dispatcher's statuses of concurrent deliveries, each on its own message", async () => {
    const docs = Array.from({ length: 10 }, (_, i) => queued(7003, `d${i}`));
    await Promise.all(docs.map((d) => repo.insert(d)));
    const changes = await Promise.all(
      docs.map((d, i) =>
        repo.applyStatus(d, 'sent', { providerMessageId: `P-${i}`, nextAttemptAt: null }, { exclusive: true, event: false }),
      ),
    );
    expect(changes.every((c) => c === 'applied')).toBe(true);
    for (const [i, d] of docs.entries()) {
      expect(await repo.findAnyById(d._id)).toMatchObject({ status: 'sent', providerMessageId: `P-${i}`, body: `d${i}` });
    }
    expect(await repo.queuedOfTicket(1, 7003, 100)).toEqual([]);
  });
});

describe("a long ticket's newest messages (the console's conversation)", () => {
  it('answers the last messages, oldest first, with the count of all, and refuses a size out of bounds', async () => {
    const base = Date.now() - 1_000_000;
    const docs = Array.from({ length: 130 }, (_, i) => ({ ...queued(7101, `m${i}`), createdAt: new Date(base + i * 1000) }));
    await Promise.all(docs.map((d) => repo.insert(d)));
    const inspection = new InspectionService(repo);
    const { docs: latest, totalCount } = await inspection.ticketLatestMessages(1, 7101, 100);
    expect(totalCount).toBe(130);
    expect(latest.map((m) => m.body)).toEqual(docs.slice(30).map((d) => d.body));
    expect((await inspection.ticketLatestMessages(1, 7101, 3)).docs.map((m) => m.body)).toEqual(['m127', 'm128', 'm129']);
    await expect(inspection.ticketLatestMessages(1, 7101, 101)).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
  });
});
