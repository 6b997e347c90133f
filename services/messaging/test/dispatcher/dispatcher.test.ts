import { grpc, type Logger } from '@convo/kit';
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
    queuedOfTicket: async (_tenantId: number, ticketId: number) => {
      ownReads.push(ticketId);
      return [];
    },
    applyStatus: async (doc: MessageDoc, status: string) => {
      recorded.push(`${doc._id}:${status}`);
      return 'applied';
    },
    reschedule: async () => undefined,
    changes: { queued: async () => [], queuedOfTicket: async () => [] },
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
    channels: { find: async () => ({ id: 1, tenantId: 1, type: 'engine_a', sendIntervalMs: 0 }) },
    integrations: { of: async () => [] },
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
  const warnings: Array<{ fields: unknown; message: string }> = [];
  const log = {
    info: () => undefined,
    warn: (fields: unknown, message: string) => warnings.push({ fields, message }),
    error: () => undefined,
  } as unknown as Logger;
  const dispatcher = new Dispatcher(repo, leases, peers, settings, log);
  (dispatcher as unknown as { running: boolean }).running = true;
  return { dispatcher, reads, delivered, providerAnswers, recorded, ownReads, leases, warnings };
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

describe('stopping the dispatcher', () => {
  const startOne = async (t: ReturnType<typeof setUp>) => {
    const round = t.dispatcher.tick();
    await settle();
    t.reads[0].resolve([queued('m1', 7, 1)]);
    await round;
    await settle();
    expect(t.delivered).toEqual(['m1']);
  };

  it('lets the delivery under way finish within the grace, then gives the partitions back', async () => {
    const t = setUp();
    const releaseAll = jest.spyOn(t.leases, 'releaseAll');
    await startOne(t);
    const stopped = t.dispatcher.stop(60_000);
    await settle();
    t.providerAnswers.shift()!();
    await stopped;
    expect(t.recorded).toEqual(['m1:sent']);
    expect(releaseAll).toHaveBeenCalledTimes(1);
    expect(t.warnings).toEqual([]);
  });

  it('keeps the partitions of a delivery still under way at the end of the grace, and says so in a warning', async () => {
    const t = setUp();
    const releaseAll = jest.spyOn(t.leases, 'releaseAll');
    await startOne(t);
    await t.dispatcher.stop(20);
    expect(t.recorded).toEqual([]);
    expect(releaseAll).not.toHaveBeenCalled();
    expect(t.warnings).toEqual([
      { fields: { runs: 1, graceMs: 20, partitions: 1 }, message: expect.stringContaining('deliveries under way') },
    ]);
  });
});

/**
 * The dispatcher against an in-memory queue that keeps what it is told (statuses, retry times), and
 * a provider whose first answer to one message is a transient failure: the retry path end to end,
 * with the rounds driven by the test. `provider` is the provider's own work on each message it takes
 * (a slow one answers later).
 */
function withQueue(
  failFirst: string,
  backoffMs: number,
  failure = grpc.status.UNAVAILABLE,
  provider: (reference: string) => Promise<void> = async () => undefined,
) {
  const store = new Map<string, MessageDoc>();
  const events: string[] = [];
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const queuedNow = () => [...store.values()].filter((m) => m.status === 'queued');
  const repo = {
    // In no particular order, as the database answers (here the newest first).
    queuedMessages: async (skip: number[]) =>
      queuedNow()
        .filter((m) => !skip.includes(m.ticketId))
        .reverse(),
    queuedOfTicket: async (tenantId: number, ticketId: number) =>
      queuedNow()
        .filter((m) => m.tenantId === tenantId && m.ticketId === ticketId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()),
    applyStatus: async (doc: MessageDoc, status: MessageDoc['status'], fields: Partial<MessageDoc>) => {
      store.set(doc._id, { ...store.get(doc._id)!, ...fields, status });
      events.push(`${doc._id}:${status}`);
      return 'applied';
    },
    reschedule: async ({ _id: id }: MessageDoc, attempts: number, nextAttemptAt: Date, error: string) => {
      store.set(id, { ...store.get(id)!, attempts, nextAttemptAt, error });
      events.push(`${id}:retry`);
    },
    changes: { queued: async () => [], queuedOfTicket: async () => [] },
  } as unknown as MessagesRepository;
  const leases = {
    partitionOf: () => 0,
    holds: () => true,
    mayStart: () => true,
    heldPartitions: [0],
    maintain: async () => undefined,
    releaseAll: async () => undefined,
  } as unknown as PartitionLeases;
  let failed = false;
  const peers = {
    engines: {
      Deliver: async (req: { reference: string }) => {
        events.push(`deliver ${req.reference}`);
        if (req.reference === failFirst && !failed) {
          failed = true;
          // By default what channel-engines answers when the provider answered 503: a transient provider failure.
          throw Object.assign(new Error(`${failure} failed`), { code: failure, details: 'failed', metadata: new grpc.Metadata() });
        }
        await provider(req.reference);
        return { providerMessageId: `P-${req.reference}` };
      },
    },
    channels: { find: async () => ({ id: 1, tenantId: 1, type: 'engine_a', sendIntervalMs: 0 }) },
    integrations: { of: async () => [] },
    mediaLink: () => '',
  } as unknown as DispatchPeers;
  const settings = {
    pollMs: 100,
    roundMs: 60_000,
    batchSize: 500,
    concurrency: 64,
    retryWindowMs: 600_000,
    backoffBaseMs: backoffMs,
    backoffMaxMs: backoffMs,
    intervalMs: {},
    attemptMs: 1_000,
    providerDeadlineMs: 1_000,
  };
  const quiet = {
    info: () => undefined,
    warn: (fields: Record<string, unknown>, message: string) => void warnings.push({ fields, message }),
    error: () => undefined,
  } as unknown as Logger;
  /** A dispatcher on this queue (a second one is what a restarted dispatcher process would be). */
  const dispatcher = () => {
    const d = new Dispatcher(repo, leases, peers, settings, quiet);
    (d as unknown as { running: boolean }).running = true;
    return d;
  };
  const add = (m: MessageDoc) => store.set(m._id, m);
  return { store, events, warnings, dispatcher, add };
}

describe('a message waiting for a retry', () => {
  afterEach(() => jest.restoreAllMocks());

  it('holds back the later messages of its ticket until it is sent, then they go one after another', async () => {
    // A wait long enough for rounds to run meanwhile (the backoff's jitter held near its ceiling).
    jest.spyOn(Math, 'random').mockReturnValue(0.99);
    const q = withQueue('a', 1_000);
    // Accepted just now (a message older than the retry window fails instead of waiting).
    const now = Date.now();
    q.add(queued('a', 7, now));
    q.add(queued('b', 7, now + 1));
    q.add(queued('c', 7, now + 2));
    const first = q.dispatcher();
    await first.tick();
    await settle();
    expect(q.events).toEqual(['deliver a', 'a:retry']);
    const due = q.store.get('a')!.nextAttemptAt!.getTime();
    expect(due).toBeGreaterThan(Date.now());

    // Rounds while it waits, here and on a dispatcher that starts meanwhile (after a kill: it knows
    // nothing of the wait but what the queue says), send nothing of the ticket.
    await first.tick();
    const restarted = q.dispatcher();
    await restarted.tick();
    await settle();
    expect(q.events).toEqual(['deliver a', 'a:retry']);
    expect(q.store.get('b')!.status).toBe('queued');

    // Once due, the retry goes first and each later message only after the one before it was sent.
    while (Date.now() <= due) await new Promise((resolve) => setTimeout(resolve, due - Date.now() + 5));
    await restarted.tick();
    for (let i = 0; i < 20 && q.store.get('c')!.status === 'queued'; i++) await settle();
    expect(q.events).toEqual(['deliver a', 'a:retry', 'deliver a', 'a:sent', 'deliver b', 'b:sent', 'deliver c', 'c:sent']);
  });

  it('says in a warning naming the message when a Deliver went unanswered within its deadline (the provider may have it), and sends it again', async () => {
    const unanswered = withQueue('a', 1, grpc.status.DEADLINE_EXCEEDED);
    unanswered.add(queued('a', 7, Date.now()));
    await unanswered.dispatcher().tick();
    await settle();
    expect(unanswered.events).toEqual(['deliver a', 'a:retry']);
    expect(unanswered.warnings).toEqual([
      { fields: { messageId: 'a', ticketId: 7 }, message: expect.stringContaining('unanswered within its deadline') },
    ]);

    // A failure the provider answered (or that kept the message from it) is retried without one.
    const refused = withQueue('a', 1);
    refused.add(queued('a', 7, Date.now()));
    await refused.dispatcher().tick();
    await settle();
    expect(refused.events).toEqual(['deliver a', 'a:retry']);
    expect(refused.warnings).toEqual([]);
  });
});

describe('the address a message leaves for', () => {
  /** A dispatcher whose provider records `to` and whose tickets answers `contact` (or fails). */
  function withContact(contact: Record<string, string> | Error, type = 'waba') {
    const sentTo: string[] = [];
    const asked: number[] = [];
    const repo = { applyStatus: async () => 'applied' } as unknown as MessagesRepository;
    const peers = {
      engines: {
        Deliver: async (req: { to: string; reference: string }) => {
          sentTo.push(req.to);
          return { providerMessageId: `P-${req.reference}` };
        },
      },
      channels: { find: async () => ({ id: 1, tenantId: 1, type, sendIntervalMs: 0 }) },
      integrations: { of: async () => [] },
      mediaLink: () => '',
      contactOf: async (_tenantId: number, ticketId: number) => {
        asked.push(ticketId);
        if (contact instanceof Error) throw contact;
        return contact;
      },
    } as unknown as DispatchPeers;
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
    const dispatcher = new Dispatcher(repo, {} as PartitionLeases, peers, { intervalMs: {}, providerDeadlineMs: 1_000 } as never, log);
    return { dispatcher, sentTo, asked };
  }
  const message = (to: string) => queuedText({ _id: `m-${to}`, ticketId: 9, body: 'hi', to });

  it('sends to the phone linked since acceptance when the message was accepted for a BSUID or a LID', async () => {
    const waba = withContact({ number: '5511987654321', bsuid: 'BR.1234567890' });
    expect(await waba.dispatcher.attempt(message('BR.1234567890'))).toBe('sent');
    const engine = withContact({ number: '5511987654321', lid: '276375994109100@lid' }, 'engine_b');
    expect(await engine.dispatcher.attempt(message('276375994109100@lid'))).toBe('sent');
    expect([...waba.sentTo, ...engine.sentTo]).toEqual(['5511987654321', '5511987654321']);
  });

  it('keeps the address accepted when the contact still has no phone, or tickets does not answer', async () => {
    const still = withContact({ number: 'BR.1234567890', bsuid: 'BR.1234567890' });
    await still.dispatcher.attempt(message('BR.1234567890'));
    const down = withContact(Object.assign(new Error('unavailable'), { code: grpc.status.UNAVAILABLE }), 'engine_a');
    await down.dispatcher.attempt(message('276375994109100@lid'));
    expect([...still.sentTo, ...down.sentTo]).toEqual(['BR.1234567890', '276375994109100@lid']);
  });

  it('keeps a BSUID on the official API when coexistence would divert the message to the linked engine', async () => {
    const through: number[] = [];
    const channels: Record<number, object> = {
      1: { id: 1, tenantId: 1, type: 'waba', sendIntervalMs: 0, hybridMode: 'coexistence', linkedChannelId: 2 },
      2: { id: 2, tenantId: 1, type: 'engine_a', status: 'CONNECTED', sendIntervalMs: 0 },
    };
    const peers = {
      engines: {
        Deliver: async (req: { channel: { id: number }; reference: string }) => {
          through.push(req.channel.id);
          return { providerMessageId: `P-${req.reference}` };
        },
      },
      channels: { find: async (_t: number, id: number) => channels[id] },
      integrations: { of: async () => [] },
      mediaLink: () => '',
      contactOf: async () => ({ number: 'BR.1234567890', bsuid: 'BR.1234567890' }),
    } as unknown as DispatchPeers;
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
    const dispatcher = new Dispatcher(
      { applyStatus: async () => 'applied' } as unknown as MessagesRepository,
      {} as PartitionLeases,
      peers,
      { intervalMs: {}, providerDeadlineMs: 1_000 } as never,
      log,
    );
    const auto = (to: string) => queuedText({ ticketId: 9, body: 'hi', to, routeVia: 'auto', windowUntil: new Date(Date.now() + 60_000) });
    await dispatcher.attempt(auto('5511987654321'));
    await dispatcher.attempt(auto('BR.1234567890'));
    expect(through).toEqual([2, 1]);
  });

  it('asks tickets nothing for a message accepted for a phone', async () => {
    const phone = withContact({ number: '5511000000000' });
    await phone.dispatcher.attempt(message('5511987654321'));
    expect(phone.sentTo).toEqual(['5511987654321']);
    expect(phone.asked).toEqual([]);
  });
});

describe("a ticket's messages at a slow provider", () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('go one at a time and in acceptance order, tickets side by side, while rounds run and more are accepted', async () => {
    const TICKETS = 4;
    const EACH = 8;
    /** What the provider has of each ticket at this moment, and the most it ever had. */
    const inFlight = new Map<number, number>();
    let mostOfOneTicket = 0;
    let mostAtOnce = 0;
    const ticketOf = (reference: string) => Number(/^t(\d+)-/.exec(reference)![1]);
    const q = withQueue('', 1, undefined, async (reference) => {
      const ticket = ticketOf(reference);
      inFlight.set(ticket, (inFlight.get(ticket) ?? 0) + 1);
      mostOfOneTicket = Math.max(mostOfOneTicket, inFlight.get(ticket)!);
      mostAtOnce = Math.max(
        mostAtOnce,
        [...inFlight.values()].reduce((a, b) => a + b, 0),
      );
      await sleep(2 + Math.random() * 10);
      inFlight.set(ticket, inFlight.get(ticket)! - 1);
    });
    // Each ticket's messages are accepted one after another: half before the first round, the rest
    // while its first ones are at the provider.
    const accept = (ticket: number, n: number) => q.add(queued(`t${ticket}-${String(n).padStart(2, '0')}`, ticket, Date.now() + n));
    for (let n = 0; n < EACH / 2; n++) for (let t = 1; t <= TICKETS; t++) accept(t, n);
    const later = (async () => {
      for (let n = EACH / 2; n < EACH; n++) {
        await sleep(8);
        for (let t = 1; t <= TICKETS; t++) accept(t, n);
      }
    })();

    const dispatcher = q.dispatcher();
    const everyOneSent = () => q.store.size === TICKETS * EACH && [...q.store.values()].every((m) => m.status === 'sent');
    for (let i = 0; i < 2_000 && !everyOneSent(); i++) {
      await dispatcher.tick();
      await sleep(2);
    }
    await later;
    expect(everyOneSent()).toBe(true);

    expect(mostOfOneTicket).toBe(1);
    // The provider was slow enough for deliveries to overlap: tickets went side by side.
    expect(mostAtOnce).toBeGreaterThan(1);
    const delivered = q.events.filter((e) => e.startsWith('deliver ')).map((e) => e.slice('deliver '.length));
    for (let t = 1; t <= TICKETS; t++) {
      const accepted = Array.from({ length: EACH }, (_, n) => `t${t}-${String(n).padStart(2, '0')}`);
      expect(delivered.filter((id) => ticketOf(id) === t)).toEqual(accepted);
    }
  });
});
