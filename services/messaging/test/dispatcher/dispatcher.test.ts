import type { Logger } from '@convo/kit';
import type { MessagesRepository } from '../../src/db/messages.repository';
import type { MessageDoc } from '../../src/db/models';
import { Dispatcher, type DispatchPeers } from '../../src/dispatcher/dispatcher';
import type { PartitionLeases } from '../../src/leases/partitions';
import { queuedText } from '../fixtures';

// The dispatcher's rounds against in-memory stand-ins of its database, leases and peers, so that
// the order of events (a round's read answering after a run has finished) is the test's to set.

/** A promise and its resolver. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

const queued = (id: string, ticketId: number, at: number): MessageDoc =>
  queuedText({ _id: id, ticketId, body: id, createdAt: new Date(at), updatedAt: new Date(at) });

function setUp() {
  const reads: Array<ReturnType<typeof deferred<MessageDoc[]>>> = [];
  const delivered: string[] = [];
  const providerAnswers: Array<() => void> = [];
  const recorded: string[] = [];
  const ownReads: number[] = [];
  const repo = {
    queuedMessages: () => {
      const read = deferred<MessageDoc[]>();
      reads.push(read);
      return read.promise;
    },
    queuedOfTicket: async (ticketId: number) => {
      ownReads.push(ticketId);
      return [];
    },
    applyStatus: async (doc: MessageDoc, status: string) => {
      recorded.push(`${doc._id}:${status}`);
      return 'applied';
    },
    reschedule: async () => undefined,
  } as unknown as MessagesRepository;
  const leases = {
    partitionOf: () => 0,
    holds: () => true,
    mayStart: () => true,
    heldPartitions: [0],
    maintain: async () => undefined,
    releaseAll: async () => undefined,
  } as unknown as PartitionLeases;
  const peers = {
    engines: {
      Deliver: (req: { reference: string }) =>
        new Promise((resolve) => {
          delivered.push(req.reference);
          providerAnswers.push(() => resolve({ providerMessageId: `P-${req.reference}` }));
        }),
    },
    targets: {
      channel: async () => ({ id: 1, tenantId: 1, type: 'engine_a', sendIntervalMs: 0 }),
      channelIntegrations: async () => [],
    },
    mediaLink: () => '',
  } as unknown as DispatchPeers;
  const settings = {
    pollMs: 100,
    roundMs: 60_000,
    batchSize: 500,
    concurrency: 64,
    retryWindowMs: 60_000,
    backoffBaseMs: 10,
    backoffMaxMs: 10,
    intervalMs: {},
    attemptMs: 1_000,
    providerDeadlineMs: 1_000,
  };
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
  const dispatcher = new Dispatcher(repo, leases, peers, settings, quiet);
  (dispatcher as unknown as { running: boolean }).running = true;
  return { dispatcher, reads, delivered, providerAnswers, recorded, ownReads };
}

describe('the dispatcher', () => {
  it("hands a round's messages of a ticket to its run, in acceptance order, with no read of its own", async () => {
    const t = setUp();
    const round = t.dispatcher.tick();
    await settle();
    // Read in no particular order, as the database answers.
    t.reads[0].resolve([queued('b', 7, 2), queued('c', 7, 2), queued('a', 7, 1)]);
    await round;
    for (let i = 0; i < 3; i++) {
      await settle();
      t.providerAnswers.shift()?.();
    }
    await settle();
    expect(t.delivered).toEqual(['a', 'b', 'c']);
    expect(t.recorded).toEqual(['a:sent', 'b:sent', 'c:sent']);
    expect(t.ownReads).toEqual([]);
  });

  it('never starts a run from messages a round read while the ticket was still being delivered', async () => {
    const t = setUp();
    const first = t.dispatcher.tick();
    await settle();
    const m1 = queued('m1', 7, 1);
    t.reads[0].resolve([m1]);
    await first;
    await settle();
    expect(t.delivered).toEqual(['m1']);

    // A second round reads the queue while m1's delivery is under way...
    const second = t.dispatcher.tick();
    await settle();
    // ...which then finishes and is recorded before the read answers with m1 still queued.
    t.providerAnswers.shift()!();
    await settle();
    expect(t.recorded).toEqual(['m1:sent']);
    t.reads[1].resolve([m1]);
    await second;
    await settle();
    expect(t.delivered).toEqual(['m1']);
  });
});
