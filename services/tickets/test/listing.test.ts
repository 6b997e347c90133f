import type { ServiceClient } from '@convo/kit';
import { connectDatabase } from '@convo/kit/mongo';
import { SUPER_ADMIN_TOKEN, startTestMesh, type TestMesh, type TestService } from '@convo/test-support';
import { slotOf, SLOT_MS, SLOTS_PER_ERA } from '../src/db/listing';
import { TicketsDatabase } from '../src/db/repositories';
import { ticketsService } from '../src/spec';

// listTickets pages by slots (the hour of a ticket's last activity) and by counters per slot and
// per week (src/db/listing.ts). These tests compare every page of every filter with the order and
// count computed here from the tickets themselves: after the rebuild at start, after status and
// queue moves, after concurrent moves, and for tickets written by an older layout.

let mesh: TestMesh;
let svc: TestService<'tickets'>;
let client: ServiceClient<'tickets'>;

beforeAll(async () => {
  mesh = await startTestMesh('listing-test');
  svc = await mesh.start(ticketsService);
  client = svc.client;
});
afterAll(() => mesh?.stop());

const restart = async () => {
  await svc.stop();
  svc = await mesh.start(ticketsService);
  client = svc.client;
};

async function gql(query: string, variables: Record<string, unknown>) {
  const res = await fetch(`http://127.0.0.1:${svc.graphqlPort}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SUPER_ADMIN_TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  return ((await res.json()) as { data: any }).data;
}

const createQueue = async (tenantId: number): Promise<number> =>
  (await gql('mutation($t: Int!, $n: String!) { createQueue(tenantId: $t, name: $n) { id } }', { t: tenantId, n: `q-${Math.random()}` }))
    .createQueue.id;

interface Seeded {
  _id: number;
  status: string;
  queueId: number | null;
  channelId: number;
  updatedAt: Date;
}

const STATUSES = ['open', 'pending', 'closed'];

/** Tickets straight into the database: runs of equal times (ties), slot and week boundaries, gaps of months. */
async function seed(tenantId: number, firstId: number, count: number, queues: Array<number | null>, db = svc.db): Promise<void> {
  const base = Date.UTC(2026, 0, 5) - (Date.UTC(2026, 0, 5) % (SLOT_MS * SLOTS_PER_ERA));
  const docs = Array.from({ length: count }, (_, i) => {
    // Three tickets share each instant; instants straddle hours, a few fall weeks and months back.
    const step = Math.floor(i / 3);
    const offset = step * 17 * 60_000 + (i % 29 === 0 ? -90 * 24 * SLOT_MS : 0) + (i % 11 === 0 ? -2 * SLOTS_PER_ERA * SLOT_MS : 0);
    const at = new Date(base + offset);
    return {
      _id: firstId + i,
      tenantId,
      channelId: i % 4 === 0 ? 4 : 3,
      contactId: firstId + i,
      contact: { number: `55118${String(10_000_000 + firstId + i)}`, name: `Contact ${i}`, email: '' },
      status: STATUSES[i % 3],
      userId: null,
      queueId: queues[i % queues.length],
      chatFlowId: null,
      kanbanId: null,
      reasonId: null,
      value: null,
      externalKey: '',
      botBuilderStatus: false,
      llmAssistantStatus: false,
      workflowStatus: false,
      tagIds: [],
      paused: false,
      pauseReason: null,
      pausedAt: null,
      evaluation: null,
      createdAt: at,
      updatedAt: at,
      closedAt: null,
    };
  });
  await db.collection('tickets').insertMany(docs as never[]);
}

/** Every page of a filter, in order, as listTickets answers them. */
async function allPages(filter: Record<string, unknown>): Promise<{ ids: number[]; counts: number[] }> {
  const ids: number[] = [];
  const counts: number[] = [];
  for (let page = 1; ; page++) {
    const answer = await client.ListTickets({ ...filter, page } as never);
    ids.push(...answer.tickets.map((t) => t.id));
    counts.push(answer.count);
    expect(answer.hasMore).toBe(page * 20 < answer.count);
    if (!answer.hasMore) return { ids, counts };
  }
}

/**
 * Every keyset page of the dashboard's connection (GraphQL `tickets`, `first` 7: pages cut inside
 * runs of equal times), and the totals each answered.
 */
async function allKeysetPages(tenantId: number, args: Record<string, unknown>): Promise<{ ids: number[]; counts: number[] }> {
  const ids: number[] = [];
  const counts: number[] = [];
  for (let after: string | null = null; ;) {
    const { tickets: page } = await gql(
      `query($t: Int!, $after: String, $status: TicketStatus, $queueId: Int, $channelId: Int, $userId: Int, $search: String,
        $statuses: [TicketStatus!], $noQueue: Boolean, $unassigned: Boolean, $updatedSince: DateTime, $updatedUntil: DateTime) {
        tickets(tenantId: $t, first: 7, after: $after, status: $status, queueId: $queueId, channelId: $channelId, userId: $userId, search: $search,
          statuses: $statuses, noQueue: $noQueue, unassigned: $unassigned, updatedSince: $updatedSince, updatedUntil: $updatedUntil) {
          totalCount pageInfo { hasNextPage endCursor } nodes { id } } }`,
      { t: tenantId, after, ...args },
    );
    ids.push(...page.nodes.map((n: { id: number }) => n.id));
    counts.push(page.totalCount);
    if (!page.pageInfo.hasNextPage) return { ids, counts };
    after = page.pageInfo.endCursor;
  }
}

/** The listing computed from the tickets: newest activity first, the higher id first on a tie. */
async function expected(tenantId: number, keep: (t: Seeded) => boolean): Promise<number[]> {
  const tickets = (await svc.db.collection('tickets').find({ tenantId }).toArray()) as unknown as Seeded[];
  return tickets
    .filter(keep)
    .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || b._id - a._id)
    .map((t) => t._id);
}

async function expectListing(tenantId: number, queues: number[]): Promise<void> {
  const filters: Array<[Record<string, unknown>, (t: Seeded) => boolean]> = [
    [{}, () => true],
    [{ status: 'open' }, (t) => t.status === 'open'],
    [{ status: 'closed' }, (t) => t.status === 'closed'],
    [{ queueIds: [queues[0]] }, (t) => t.queueId === queues[0]],
    [{ queueIds: queues }, (t) => t.queueId !== null && queues.includes(t.queueId)],
    [{ channelIds: [4] }, (t) => t.channelId === 4],
    [
      { status: 'pending', queueIds: [queues[1]], channelIds: [3] },
      (t) => t.status === 'pending' && t.queueId === queues[1] && t.channelId === 3,
    ],
  ];
  for (const [filter, keep] of filters) {
    const want = await expected(tenantId, keep);
    const got = await allPages({ tenantId, ...filter });
    expect(got.ids).toEqual(want);
    expect(new Set(got.counts)).toEqual(new Set([want.length]));
    // The dashboard's keyset pages, where the filter is one it takes (one queue, one channel).
    const { queueIds, channelIds, status } = filter as { queueIds?: number[]; channelIds?: number[]; status?: string };
    if ((queueIds?.length ?? 0) > 1 || queueIds?.includes(undefined as never)) continue;
    const keyset = await allKeysetPages(tenantId, { status, queueId: queueIds?.[0], channelId: channelIds?.[0] });
    expect(keyset.ids).toEqual(want);
    expect(new Set(keyset.counts)).toEqual(new Set([want.length]));
  }
}

async function expectCountsBy(tenantId: number): Promise<void> {
  const tickets = (await svc.db.collection('tickets').find({ tenantId }).toArray()) as unknown as Seeded[];
  const tally = (key: (t: Seeded) => string | null) => {
    const m = new Map<string | null, number>();
    for (const t of tickets) m.set(key(t), (m.get(key(t)) ?? 0) + 1);
    return [...m].map(([k, count]) => ({ key: k, count })).sort((a, b) => String(a.key).localeCompare(String(b.key)));
  };
  const answer = (
    await gql('query($t: Int!) { ticketCounts(tenantId: $t) { byStatus { key count } byQueue { key count } byChannel { key count } } }', {
      t: tenantId,
    })
  ).ticketCounts;
  const sorted = (groups: Array<{ key: string | null; count: number }>) =>
    [...groups].sort((a, b) => String(a.key).localeCompare(String(b.key)));
  expect(sorted(answer.byStatus)).toEqual(tally((t) => t.status));
  expect(sorted(answer.byQueue)).toEqual(tally((t) => (t.queueId === null ? null : String(t.queueId))));
  expect(sorted(answer.byChannel)).toEqual(tally((t) => String(t.channelId)));
  // Counts only grow while some slot still holds rows: the sums match the tickets.
  expect(answer.byStatus.map((g: { count: number }) => g.count).reduce((a: number, b: number) => a + b, 0)).toBe(tickets.length);
}

it('pages every filter in listing order, ties broken by id, with exact counts, after the rebuild at start', async () => {
  const tenantId = 8101;
  const queues = [await createQueue(tenantId), await createQueue(tenantId)];
  await seed(tenantId, 810_000, 130, [null, ...queues]);
  await restart();
  await expectListing(tenantId, queues);
  await expectCountsBy(tenantId);
  // The dashboard's connection pages the same rows.
  const dash = await gql('query($t: Int!) { tickets(tenantId: $t, first: 7, after: null) { totalCount nodes { id } } }', { t: tenantId });
  expect(dash.tickets.totalCount).toBe(130);
  expect(dash.tickets.nodes.map((n: { id: number }) => n.id)).toEqual((await expected(tenantId, () => true)).slice(0, 7));
});

it('follows status and queue moves, one by one and concurrent, in order and in every count', async () => {
  const tenantId = 8102;
  const queues = [await createQueue(tenantId), await createQueue(tenantId)];
  await seed(tenantId, 820_000, 90, [null, ...queues]);
  await restart();

  await client.UpdateTicket({ tenantId, ticketId: 820_005, status: 'closed' });
  await client.UpdateTicket({ tenantId, ticketId: 820_000, queueId: queues[1] });
  await client.UpdateTicket({ tenantId, ticketId: 820_001, clearQueue: true });
  await expectListing(tenantId, queues);
  await expectCountsBy(tenantId);
  // A page answers each ticket as it is now, not as it was listed before.
  const first = await client.ListTickets({ tenantId, page: 1 });
  // (GetTicket's copies also say how long they may be used: a page's do not.)
  const now = await Promise.all(
    first.tickets.slice(0, 3).map(async (t) => ({ ...(await client.GetTicket({ tenantId, ticketId: t.id })), snapshotMs: 0 })),
  );
  expect(first.tickets.slice(0, 3)).toEqual(now);
  expect(first.tickets.find((t) => t.id === 820_005)).toMatchObject({ status: 'closed' });

  // Many tickets of one tenant moving at once: no counter update is lost.
  await Promise.all(
    Array.from({ length: 45 }, (_, i) =>
      client.UpdateTicket({
        tenantId,
        ticketId: 820_000 + i * 2,
        status: STATUSES[(i + 1) % 3],
        ...(i % 2 ? { queueId: queues[i % 4 === 1 ? 0 : 1] } : {}),
      }),
    ),
  );
  await expectListing(tenantId, queues);
  await expectCountsBy(tenantId);
});

it('lists new tickets first and forgets deleted ones', async () => {
  const tenantId = 8103;
  const queues = [await createQueue(tenantId), await createQueue(tenantId)];
  // More than a start leaves to the writes to heal: rebuilt.
  await seed(tenantId, 830_000, 60, [null, ...queues]);
  await restart();
  const created = await client.CreateTicket({ tenantId, channelId: 3, number: '5511830000999' });
  const page = await client.ListTickets({ tenantId, page: 1 });
  expect(page.tickets[0].id).toBe(created.ticket!.id);
  expect(page.count).toBe(61);
  await client.DiscardTicket({ tenantId, ticketId: created.ticket!.id });
  await expectListing(tenantId, queues);
  await expectCountsBy(tenantId);
});

it('rebuilds rows and counts written by an older layout (rows without slots, no layout record) at start', async () => {
  const tenantId = 8104;
  const queues = [await createQueue(tenantId), await createQueue(tenantId)];
  await seed(tenantId, 840_000, 30, [null, ...queues]);
  await restart();
  const tickets = await svc.db.collection('tickets').find({ tenantId }).toArray();
  await svc.db.collection('ticket_rows').deleteMany({ tenantId });
  await svc.db.collection('ticket_rows').insertMany(
    tickets.map((t) => ({
      _id: t._id,
      tenantId,
      status: t.status,
      queueId: t.queueId,
      channelId: t.channelId,
      contactId: t.contactId,
      updatedAt: t.updatedAt,
      contact: t.contact,
    })),
  );
  await svc.db.collection('ticket_counts').deleteMany({ _id: { $in: [0, tenantId] } } as never);
  await restart();
  await expectListing(tenantId, queues);
  await expectCountsBy(tenantId);
});

it('leaves a small gap between tickets and rows to the writes at start, while another replica writes and after one was killed between the two', async () => {
  const tenantId = 8105;
  const queues = [await createQueue(tenantId)];
  await seed(tenantId, 850_000, 60, [null, ...queues]);
  await restart();
  await expectListing(tenantId, queues);
  // Three tickets whose rows are not written yet: the gap a replica's writes in flight leave.
  const missing = [850_100, 850_101, 850_102];
  await seed(tenantId, 850_100, missing.length, [null]);
  const rowsOf = async (ids: number[]) => svc.db.collection('ticket_rows').countDocuments({ _id: { $in: ids } } as never);

  // A live replica meanwhile: a ticket and its row every 100 ms while this one starts (another
  // tenant's: the listing checked here is this one's, and this writer moves no counts).
  const other = await connectDatabase(mesh.database.uri, svc.db.name);
  await svc.stop();
  let next = 851_000;
  let writing = true;
  const writer = (async () => {
    while (writing) {
      await seed(tenantId + 1, next, 1, [null], other.db!);
      const ticket = await other.db!.collection('tickets').findOne({ _id: next } as never);
      await other.db!.collection('ticket_rows').insertOne({ ...ticket, slot: slotOf(ticket!.updatedAt) } as never);
      next++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    svc = await mesh.start(ticketsService);
    client = svc.client;
  } finally {
    writing = false;
    await writer;
    await other.close();
  }
  // No rebuild under it: the gap is still there (and the writer wrote while the start ran).
  expect(await rowsOf(missing)).toBe(0);
  expect(next - 851_000).toBeGreaterThan(0);

  // Nobody writing, the gap stays (a replica killed between a ticket and its row): still no
  // rebuild, and each of those tickets is listed from its next write on.
  await restart();
  expect(await rowsOf(missing)).toBe(0);
  // What the start logs: the gap it left.
  const probe = await connectDatabase(mesh.database.uri, svc.db.name);
  try {
    expect(await new TicketsDatabase(probe).init()).toEqual({ listingGap: missing.length });
  } finally {
    await probe.close();
  }
  for (const ticketId of missing) await client.UpdateTicket({ tenantId, ticketId, status: 'open' });
  expect(await rowsOf(missing)).toBe(missing.length);
  await expectListing(tenantId, queues);
  await expectCountsBy(tenantId);

  // The other way round: a discard whose process died after the ticket and before its row. Its
  // retry finds no ticket, and takes the row that was left listed.
  const created = await client.CreateTicket({ tenantId, channelId: 3, number: '5511850000999' });
  await svc.db.collection('tickets').deleteOne({ _id: created.ticket!.id } as never);
  expect(await rowsOf([created.ticket!.id])).toBe(1);
  await expect(client.DiscardTicket({ tenantId, ticketId: created.ticket!.id })).resolves.toMatchObject({ discarded: false });
  expect(await rowsOf([created.ticket!.id])).toBe(0);
  await expectListing(tenantId, queues);
  await expectCountsBy(tenantId);
});

it('goes on after the last ticket seen when tickets are written between keyset pages, on every path of the listing', async () => {
  const tenantId = 8106;
  // More than a start leaves to the writes to heal: listed by the rebuild.
  await seed(tenantId, 860_000, 60, [null]);
  await restart();
  const before = await expected(tenantId, () => true);
  const LIST = `query($t: Int!, $after: String, $userId: Int, $search: String) {
    tickets(tenantId: $t, first: 7, after: $after, userId: $userId, search: $search) { pageInfo { endCursor } nodes { id } } }`;
  for (const args of [{}, { search: 'Contact' }]) {
    const first = (await gql(LIST, { t: tenantId, ...args })).tickets;
    expect(first.nodes.map((n: { id: number }) => n.id)).toEqual(before.slice(0, 7));
    // A ticket of the next page and one already seen are written (a status change): both move to the front.
    for (const ticketId of [before[9], before[2]]) {
      const { status } = await client.GetTicket({ tenantId, ticketId });
      await client.UpdateTicket({ tenantId, ticketId, status: status === 'open' ? 'pending' : 'open' });
    }
    const next = (await gql(LIST, { t: tenantId, after: first.pageInfo.endCursor, ...args })).tickets;
    // Neither repeats a ticket nor skips one: what an offset of 7 would have done.
    expect(next.nodes.map((n: { id: number }) => n.id)).toEqual(before.filter((id) => id !== before[9] && id !== before[2]).slice(6, 13));
    before.splice(0, before.length, ...(await expected(tenantId, () => true)));
  }
  // The dashboard's other filters, each paged by keyset against the tickets themselves.
  const all = (await svc.db.collection('tickets').find({ tenantId }).toArray()) as unknown as Seeded[];
  const times = all.map((t) => t.updatedAt.getTime()).sort((a, b) => a - b);
  const [since, until] = [new Date(times[10]), new Date(times[30])];
  const cases: Array<[Record<string, unknown>, (t: Seeded) => boolean]> = [
    [{ statuses: ['open', 'closed'] }, (t) => t.status !== 'pending'],
    [{ noQueue: true }, (t) => t.queueId === null],
    [{ unassigned: true, statuses: ['pending'] }, (t) => t.status === 'pending'],
    [{ updatedSince: since.toISOString(), updatedUntil: until.toISOString() }, (t) => t.updatedAt >= since && t.updatedAt < until],
  ];
  for (const [args, keep] of cases) {
    const want = all
      .filter(keep)
      .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || b._id - a._id)
      .map((t) => t._id);
    const got = await allKeysetPages(tenantId, args);
    expect(got.ids).toEqual(want);
    expect(new Set(got.counts)).toEqual(new Set([want.length]));
  }
  // The tickets path (a user filter): every ticket is unassigned here, none listed for a user.
  const none = await gql(LIST, { t: tenantId, userId: 77 });
  expect(none.tickets.nodes).toEqual([]);
  // A cursor not made here is refused.
  const bad = await fetch(`http://127.0.0.1:${svc.graphqlPort}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SUPER_ADMIN_TOKEN}` },
    body: JSON.stringify({ query: LIST, variables: { t: tenantId, after: Buffer.from('o:7').toString('base64url') } }),
  });
  expect(JSON.stringify(await bad.json())).toContain('Invalid cursor');
  // Filters that contradict each other are refused, never half applied.
  for (const args of ['status: open, statuses: [open]', 'unassigned: true, userId: 1', 'noQueue: true, queueId: 1']) {
    const refused = await gql(`query($t: Int!) { tickets(tenantId: $t, ${args}) { totalCount } }`, { t: tenantId }).catch(() => null);
    expect(refused?.tickets ?? null).toBeNull();
  }
});
