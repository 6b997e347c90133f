import * as grpc from '@grpc/grpc-js';
import type { ServiceClient } from '@convo/kit';
import { errCode, errFields, rpcError, startTestMesh, SUPER_ADMIN_TOKEN, type TestMesh, type TestService } from '@convo/test-support';
import { tenantsService } from '@convo/tenants';
import { randomUUID } from 'node:crypto';
import { ticketsService, type TicketsConfig } from '../src/spec';

// ---- helpers -------------------------------------------------------------------------------

// Every test works in a tenant of its own, so counts and contacts never mix between tests.
let lastTenant = 100;
const newTenantId = () => ++lastTenant;
let lastNumber = 0;
const newNumber = () => `55119${String(10_000_000 + ++lastNumber)}`;

// ---- setup ---------------------------------------------------------------------------------

let mesh: TestMesh;
let svc: TestService<'tickets', TicketsConfig>;
let client: ServiceClient<'tickets'>;
let tenants: TestService<'tenants'>;

beforeAll(async () => {
  mesh = await startTestMesh('tickets-test');
  // Users are the tenants service's: the real one, which tickets asks about every user id.
  tenants = await mesh.start(tenantsService);
  svc = await mesh.start(ticketsService, { env: { TENANTS_GRPC_ADDR: tenants.address } });
  client = svc.client;
});

afterAll(() => mesh?.stop());

/** A tenant stored in the tenants service with its administrator (a user of that tenant only). */
async function tenantWithUser(): Promise<{ tenantId: number; userId: number }> {
  const { tenant, adminUser } = await tenants.client.StoreTenant({
    identity: `${Date.now()}${Math.floor(Math.random() * 1e6)}`.slice(-14).padStart(14, '0'),
    status: 'active',
    name: 'Acme',
    maxUsers: 5,
    maxConnections: 10,
    acceptTerms: true,
    email: `admin-${randomUUID()}@example.com`,
    password: 'secret-pass1',
    userName: 'Alice',
    profile: 'admin',
  });
  return { tenantId: tenant!.id, userId: adminUser!.id };
}

/** The tickets subgraph, as the gateway forwards an admin's GraphQL call to it. */
interface GqlAnswer {
  data: any;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}
async function gql(query: string, variables: Record<string, unknown> = {}): Promise<GqlAnswer> {
  const res = await fetch(`http://127.0.0.1:${svc.graphqlPort}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SUPER_ADMIN_TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as GqlAnswer;
}
const createQueue = async (tenantId: number, name = `queue-${Math.random()}`): Promise<number> =>
  (await gql('mutation($t: Int!, $n: String!) { createQueue(tenantId: $t, name: $n) { id } }', { t: tenantId, n: name })).data.createQueue
    .id;
const createTag = async (tenantId: number, name = `tag-${Math.random()}`): Promise<number> =>
  (await gql('mutation($t: Int!, $n: String!) { createTag(tenantId: $t, name: $n) { id } }', { t: tenantId, n: name })).data.createTag.id;

const create = (tenantId: number, over: Record<string, unknown> = {}) =>
  client.CreateTicket({ tenantId, channelId: 7, number: newNumber(), ...over });
const newTicket = async (tenantId = newTenantId(), over: Record<string, unknown> = {}) => (await create(tenantId, over)).ticket!;
const ticketsOf = (tenantId: number) => svc.db.collection('tickets').find({ tenantId }).toArray();

// ---- CreateTicket --------------------------------------------------------------------------

describe('CreateTicket', () => {
  it('stores the contact number as digits only', async () => {
    const tenantId = newTenantId();
    const { ticket, created } = await create(tenantId, { number: '+55 (11) 98765-4321' });

    expect(created).toBe(true);
    expect(ticket).toMatchObject({ tenantId, channelId: 7, contact: { number: '5511987654321' } });
    const [stored] = await ticketsOf(tenantId);
    expect(stored.contact.number).toBe('5511987654321');
    expect(await svc.db.collection('contacts').findOne({ tenantId })).toMatchObject({ number: '5511987654321' });
  });

  it('takes a social platform user id (a 17-digit PSID) as the number, up to 20 digits', async () => {
    const tenantId = newTenantId();
    const { ticket } = await create(tenantId, { number: '24965723418012345' });
    expect(ticket!.contact!.number).toBe('24965723418012345');
    const err = await rpcError(create(tenantId, { number: '249657234180123456789' }));
    expect(errFields(err)).toEqual(['number']);
  });

  it.each(['abc', '+55 11', '0551198765432'])('rejects the number %p', async (number) => {
    const tenantId = newTenantId();
    const err = await rpcError(create(tenantId, { number }));

    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['number']);
    expect(await ticketsOf(tenantId)).toEqual([]);
  });

  it('requires a number or an e-mail', async () => {
    const err = await rpcError(create(newTenantId(), { number: '' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['number']);
  });

  it("opens the ticket by default, honours 'pending' and refuses to create it 'closed'", async () => {
    const tenantId = newTenantId();
    expect((await newTicket(tenantId)).status).toBe('open');
    expect((await newTicket(tenantId, { status: 'pending' })).status).toBe('pending');

    const err = await rpcError(create(tenantId, { status: 'closed' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['status']);
    expect(await ticketsOf(tenantId)).toHaveLength(2);
  });

  it('applies the optional ids and value, and leaves the others unset', async () => {
    const { tenantId, userId } = await tenantWithUser();
    const queueId = await createQueue(tenantId);
    const kanbanId = (await client.SaveCatalogItem({ tenantId, kind: 'kanban', id: 0, name: 'Leads' })).id;
    const reasonId = (await client.SaveCatalogItem({ tenantId, kind: 'reason', id: 0, name: 'Solved' })).id;
    const full = await newTicket(tenantId, { userId, queueId, chatFlowId: 5, kanbanId, reasonId, value: 12.5 });
    expect(full).toMatchObject({ userId, queueId, chatFlowId: 5, kanbanId, reasonId, value: 12.5, closedAt: '' });

    const bare = await newTicket();
    for (const field of ['userId', 'queueId', 'chatFlowId', 'kanbanId', 'reasonId', 'value'] as const) {
      expect(bare[field]).toBeUndefined();
    }
  });

  it("refuses a kanban column or reason that is not the tenant's, on create and update, and writes nothing", async () => {
    const [tenantId, other] = [newTenantId(), newTenantId()];
    const theirKanban = (await client.SaveCatalogItem({ tenantId: other, kind: 'kanban', id: 0, name: 'Theirs' })).id;
    const theirReason = (await client.SaveCatalogItem({ tenantId: other, kind: 'reason', id: 0, name: 'Theirs' })).id;
    expect(errCode(await rpcError(create(tenantId, { kanbanId: theirKanban })))).toBe('ERR_KANBAN_NOT_FOUND');
    expect(errCode(await rpcError(create(tenantId, { reasonId: theirReason })))).toBe('ERR_REASON_NOT_FOUND');
    expect(await ticketsOf(tenantId)).toEqual([]);
    const ticket = await newTicket(tenantId);
    const update = {
      tenantId,
      ticketId: ticket.id,
      status: '',
      clearQueue: false,
      clearChatFlow: false,
      clearKanban: false,
      clearReason: false,
    };
    expect(errCode(await rpcError(client.UpdateTicket({ ...update, kanbanId: 999_999 })))).toBe('ERR_KANBAN_NOT_FOUND');
    expect(errCode(await rpcError(client.UpdateTicket({ ...update, reasonId: theirReason })))).toBe('ERR_REASON_NOT_FOUND');
    expect((await client.GetTicket({ tenantId, ticketId: ticket.id })).kanbanId).toBeUndefined();
  });

  it('reuses the contact of a number for the next ticket, in the same tenant and channel', async () => {
    const tenantId = newTenantId();
    const first = await newTicket(tenantId, { number: '5511911112222' });
    const second = await newTicket(tenantId, { number: '+55 11 91111-2222' });
    const otherNumber = await newTicket(tenantId, { number: '5511933334444' });
    const otherTenant = await newTicket(newTenantId(), { number: '5511911112222' });

    expect(second.id).not.toBe(first.id);
    expect(second.contact!.id).toBe(first.contact!.id);
    expect(otherNumber.contact!.id).not.toBe(first.contact!.id);
    expect(otherTenant.contact!.id).not.toBe(first.contact!.id);
    expect(await svc.db.collection('contacts').countDocuments({ tenantId })).toBe(2);
  });

  it('answers a repeated externalKey with the ticket it already created', async () => {
    const tenantId = newTenantId();
    const first = await create(tenantId, { externalKey: 'order-1' });
    const again = await create(tenantId, { externalKey: 'order-1' });

    expect(first.created).toBe(true);
    expect(again.created).toBe(false);
    expect(again.ticket!.id).toBe(first.ticket!.id);
    expect(await ticketsOf(tenantId)).toHaveLength(1);
  });

  it('scopes externalKey to the tenant', async () => {
    const a = await create(newTenantId(), { externalKey: 'shared-key' });
    const b = await create(newTenantId(), { externalKey: 'shared-key' });
    expect(b.created).toBe(true);
    expect(b.ticket!.id).not.toBe(a.ticket!.id);
  });

  it('creates exactly one ticket for 20 concurrent calls with one externalKey', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(tenantId, { number, externalKey: 'burst' })));

    const stored = await ticketsOf(tenantId);
    expect(stored).toHaveLength(1);
    expect(answers.map((a) => a.ticket!.id)).toEqual(Array(20).fill(stored[0]._id));
    expect(answers.filter((a) => a.created)).toHaveLength(1);
  });

  it('gives concurrent tickets without a key distinct ids', async () => {
    const tenantId = newTenantId();
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(tenantId)));
    expect(new Set(answers.map((a) => a.ticket!.id)).size).toBe(10);
    expect(await ticketsOf(tenantId)).toHaveLength(10);
  });
});

// ---- GetTicket -----------------------------------------------------------------------------

describe('GetTicket', () => {
  it("returns a tenant's ticket and NOT_FOUND for another tenant", async () => {
    const ticket = await newTicket();
    await expect(client.GetTicket({ tenantId: ticket.tenantId, ticketId: ticket.id })).resolves.toMatchObject({
      id: ticket.id,
      contact: ticket.contact,
    });

    const err = await rpcError(client.GetTicket({ tenantId: newTenantId(), ticketId: ticket.id }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(errCode(err)).toBe('ERR_TICKET_NOT_FOUND');
  });
});

// ---- UpdateTicket --------------------------------------------------------------------------

describe('UpdateTicket', () => {
  const update = (ticket: { id: number; tenantId: number }, change: Record<string, unknown>) =>
    client.UpdateTicket({ tenantId: ticket.tenantId, ticketId: ticket.id, ...change });

  it('sets closedAt when closing and clears it when reopening', async () => {
    const ticket = await newTicket();
    const before = Date.now();

    const closed = await update(ticket, { status: 'closed' });
    expect(closed.status).toBe('closed');
    expect(Date.parse(closed.closedAt)).toBeGreaterThanOrEqual(before - 1000);

    const reopened = await update(ticket, { status: 'open' });
    expect(reopened).toMatchObject({ status: 'open', closedAt: '' });
    await expect(client.GetTicket({ tenantId: ticket.tenantId, ticketId: ticket.id })).resolves.toMatchObject({
      status: 'open',
      closedAt: '',
    });
  });

  it('sets a queue, and clearQueue unassigns it', async () => {
    const tenantId = newTenantId();
    const [first, second] = [await createQueue(tenantId), await createQueue(tenantId)];
    const ticket = await newTicket(tenantId, { queueId: first });
    expect((await update(ticket, { queueId: second })).queueId).toBe(second);

    const cleared = await update(ticket, { clearQueue: true });
    expect(cleared.queueId).toBeUndefined();
    expect((await client.GetTicket({ tenantId: ticket.tenantId, ticketId: ticket.id })).queueId).toBeUndefined();
  });

  it('leaves what the update does not mention unchanged', async () => {
    const { tenantId, userId } = await tenantWithUser();
    const queueId = await createQueue(tenantId);
    const ticket = await newTicket(tenantId, { queueId, userId, status: 'pending' });
    const updated = await update(ticket, { chatFlowId: 11 });
    expect(updated).toMatchObject({ queueId, userId, status: 'pending', chatFlowId: 11 });
  });

  it('switches the bot, LLM assistant and workflow on and off independently', async () => {
    const ticket = await newTicket();
    expect(ticket).toMatchObject({ botBuilderStatus: false, llmAssistantStatus: false, workflowStatus: false });

    expect(await update(ticket, { botBuilderStatus: true, workflowStatus: true })).toMatchObject({
      botBuilderStatus: true,
      llmAssistantStatus: false,
      workflowStatus: true,
    });
    expect(await update(ticket, { llmAssistantStatus: true, botBuilderStatus: false })).toMatchObject({
      botBuilderStatus: false,
      llmAssistantStatus: true,
      workflowStatus: true,
    });
  });

  it('rejects an unknown status and changes nothing', async () => {
    const ticket = await newTicket();
    const err = await rpcError(update(ticket, { status: 'archived' }));

    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['status']);
    expect((await client.GetTicket({ tenantId: ticket.tenantId, ticketId: ticket.id })).status).toBe('open');
  });

  it("answers NOT_FOUND for another tenant's ticket and leaves it as it was", async () => {
    const ticket = await newTicket();
    const err = await rpcError(client.UpdateTicket({ tenantId: newTenantId(), ticketId: ticket.id, status: 'closed' }));

    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(errCode(err)).toBe('ERR_TICKET_NOT_FOUND');
    expect((await client.GetTicket({ tenantId: ticket.tenantId, ticketId: ticket.id })).status).toBe('open');
  });
});

describe('queues on create and update', () => {
  it("refuses an unknown queue, or another tenant's, on create and creates nothing", async () => {
    const tenantId = newTenantId();
    const foreignQueue = await createQueue(newTenantId());
    for (const queueId of [999_999, foreignQueue]) {
      const err = await rpcError(create(tenantId, { queueId }));
      expect(err.code).toBe(grpc.status.NOT_FOUND);
      expect(errCode(err)).toBe('ERR_QUEUE_NOT_FOUND');
    }
    expect(await ticketsOf(tenantId)).toEqual([]);
  });

  it('refuses an unknown queue on update and leaves the ticket as it was', async () => {
    const tenantId = newTenantId();
    const queueId = await createQueue(tenantId);
    const ticket = await newTicket(tenantId, { queueId });
    const err = await rpcError(client.UpdateTicket({ tenantId, ticketId: ticket.id, queueId: 999_999, status: 'pending' }));
    expect(errCode(err)).toBe('ERR_QUEUE_NOT_FOUND');
    expect(await client.GetTicket({ tenantId, ticketId: ticket.id })).toMatchObject({ queueId, status: 'open' });
  });

  it('moves a ticket to a queue with SetQueue, and only to a queue of its tenant', async () => {
    const tenantId = newTenantId();
    const queueId = await createQueue(tenantId);
    const ticket = await newTicket(tenantId);
    expect((await client.SetQueue({ tenantId, ticketId: ticket.id, queueId })).queueId).toBe(queueId);

    const foreign = await rpcError(client.SetQueue({ tenantId, ticketId: ticket.id, queueId: await createQueue(newTenantId()) }));
    expect(errCode(foreign)).toBe('ERR_QUEUE_NOT_FOUND');
    const otherTicket = await rpcError(client.SetQueue({ tenantId: newTenantId(), ticketId: ticket.id, queueId }));
    expect(otherTicket.code).toBe(grpc.status.NOT_FOUND);
  });
});

describe('GraphQL tags and queues', () => {
  it('answers the existing tag for a repeated name, per tenant, and lists them', async () => {
    const tenantId = newTenantId();
    const vip = await createTag(tenantId, 'VIP');
    expect(await createTag(tenantId, ' VIP ')).toBe(vip);
    expect(await createTag(newTenantId(), 'VIP')).not.toBe(vip);
    const listed = await gql(`{ tags(tenantId: ${tenantId}) { id name } }`);
    expect(listed.data.tags).toEqual([{ id: vip, name: 'VIP' }]);
  });

  it('refuses an empty name', async () => {
    const res = await gql('mutation { createQueue(tenantId: 1, name: "  ") { id } }');
    expect(res.errors?.[0].message).toMatch(/Invalid queue/);
  });
});

// ---- ListTickets ---------------------------------------------------------------------------

describe('ListTickets', () => {
  it('pages 20 at a time, newest activity first, with a stable order and the total', async () => {
    const tenantId = newTenantId();
    const created: number[] = [];
    for (let i = 0; i < 45; i++) created.push((await newTicket(tenantId)).id);
    // Touching the first ticket makes it the most recently active.
    await client.UpdateTicket({ tenantId, ticketId: created[0], workflowStatus: true });

    const pages = await Promise.all([1, 2, 3, 4].map((page) => client.ListTickets({ tenantId, page })));
    expect(pages.map((p) => [p.tickets.length, p.hasMore, p.count, p.pageSize])).toEqual([
      [20, true, 45, 20],
      [20, true, 45, 20],
      [5, false, 45, 20],
      [0, false, 45, 20],
    ]);
    const ids = pages.flatMap((p) => p.tickets.map((t) => t.id));
    expect(ids).toEqual([created[0], ...created.slice(1).reverse()]);
  });

  it('filters by status, queues and channels', async () => {
    const tenantId = newTenantId();
    const [q1, q2] = [await createQueue(tenantId), await createQueue(tenantId)];
    const a = await newTicket(tenantId, { queueId: q1 });
    const b = await newTicket(tenantId, { queueId: q2, status: 'pending' });
    const c = await newTicket(tenantId, { channelId: 8 });
    const ids = async (filter: Record<string, unknown>) =>
      (await client.ListTickets({ tenantId, page: 1, ...filter })).tickets.map((t) => t.id).sort();

    expect(await ids({ status: 'pending' })).toEqual([b.id]);
    expect(await ids({ queueIds: [q1, q2] })).toEqual([a.id, b.id].sort());
    expect(await ids({ queueIds: [q1], status: 'pending' })).toEqual([]);
    expect(await ids({ channelIds: [8] })).toEqual([c.id]);
    const err = await rpcError(client.ListTickets({ tenantId, page: 1, status: 'archived' }));
    expect(errFields(err)).toEqual(['status']);
  });

  it('searches the contact number with separators, and treats the search as text, not a pattern', async () => {
    const tenantId = newTenantId();
    const ana = await newTicket(tenantId, { number: '5511987650001' });
    await newTicket(tenantId, { number: '5521912340002' });
    const search = async (text: string) => (await client.ListTickets({ tenantId, page: 1, search: text })).tickets.map((t) => t.id);

    expect(await search('+55 (11) 98765')).toEqual([ana.id]);
    expect(await search('.*')).toEqual([]);
    expect(await search('(')).toEqual([]);
  });

  it('searches the e-mail of e-mail contacts, case-insensitively', async () => {
    const tenantId = newTenantId();
    const mail = await newTicket(tenantId, { number: '', email: 'Maria.Silva@Example.com' });
    expect((await client.ListTickets({ tenantId, page: 1, search: 'maria.silva' })).tickets.map((t) => t.id)).toEqual([mail.id]);
    expect((await client.ListTickets({ tenantId, page: 1, search: 'mariaXsilva' })).tickets).toEqual([]);
  });

  it("never lists another tenant's tickets", async () => {
    const tenantId = newTenantId();
    await newTicket(newTenantId());
    expect(await client.ListTickets({ tenantId, page: 1 })).toMatchObject({ tickets: [], count: 0, hasMore: false });
  });
});

// ---- FindContactTickets --------------------------------------------------------------------

describe('FindContactTickets', () => {
  it('answers the most recently active open or pending ticket of the number, across channels', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const older = await newTicket(tenantId, { number, channelId: 7 });
    const newer = await newTicket(tenantId, { number: `+${number}`, channelId: 8 });
    await client.UpdateTicket({ tenantId, ticketId: newer.id, status: 'closed' });
    await newTicket(tenantId); // another contact

    const current = await client.FindContactTickets({ tenantId, number, all: false });
    expect(current.tickets.map((t) => t.id)).toEqual([older.id]);

    await client.UpdateTicket({ tenantId, ticketId: older.id, status: 'closed' });
    const none = await rpcError(client.FindContactTickets({ tenantId, number, all: false }));
    expect(errCode(none)).toBe('ERR_TICKET_NOT_FOUND');
  });

  it('answers every ticket of the number, newest first, closed ones included, in its tenant only', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const first = await newTicket(tenantId, { number });
    await client.UpdateTicket({ tenantId, ticketId: first.id, status: 'closed' });
    const second = await newTicket(tenantId, { number });
    await newTicket(newTenantId(), { number });

    const all = await client.FindContactTickets({ tenantId, number, all: true });
    expect(all.tickets.map((t) => [t.id, t.status])).toEqual([
      [second.id, 'open'],
      [first.id, 'closed'],
    ]);
    expect((await client.FindContactTickets({ tenantId: newTenantId(), number, all: true })).tickets).toEqual([]);
  });

  it('refuses a malformed number', async () => {
    const err = await rpcError(client.FindContactTickets({ tenantId: newTenantId(), number: 'abc', all: true }));
    expect(errFields(err)).toEqual(['number']);
  });
});

// ---- tags ----------------------------------------------------------------------------------

describe('AddTags and RemoveTag', () => {
  it('adds tags once each, however often they are sent', async () => {
    const tenantId = newTenantId();
    const [vip, late] = [await createTag(tenantId), await createTag(tenantId)];
    const ticket = await newTicket(tenantId);

    expect((await client.AddTags({ tenantId, ticketId: ticket.id, tagIds: [vip] })).tagIds).toEqual([vip]);
    expect((await client.AddTags({ tenantId, ticketId: ticket.id, tagIds: [vip, late, late] })).tagIds).toEqual([vip, late]);
    expect((await client.GetTicket({ tenantId, ticketId: ticket.id })).tagIds).toEqual([vip, late]);
  });

  it('keeps every tag of concurrent adds on one ticket', async () => {
    const tenantId = newTenantId();
    const ids = await Promise.all(Array.from({ length: 8 }, () => createTag(tenantId)));
    const ticket = await newTicket(tenantId);
    await Promise.all(ids.map((id) => client.AddTags({ tenantId, ticketId: ticket.id, tagIds: [id] })));
    expect((await client.GetTicket({ tenantId, ticketId: ticket.id })).tagIds.sort()).toEqual([...ids].sort());
  });

  it("refuses an unknown tag or another tenant's, and adds none of the batch", async () => {
    const tenantId = newTenantId();
    const mine = await createTag(tenantId);
    const foreign = await createTag(newTenantId());
    const ticket = await newTicket(tenantId);
    for (const tagIds of [[999_999], [mine, foreign]]) {
      const err = await rpcError(client.AddTags({ tenantId, ticketId: ticket.id, tagIds }));
      expect(err.code).toBe(grpc.status.NOT_FOUND);
      expect(errCode(err)).toBe('ERR_TAG_NOT_FOUND');
    }
    expect((await client.GetTicket({ tenantId, ticketId: ticket.id })).tagIds).toEqual([]);
  });

  it("removes a tag, ignores one the ticket does not have, and refuses another tenant's ticket", async () => {
    const tenantId = newTenantId();
    const [a, b] = [await createTag(tenantId), await createTag(tenantId)];
    const ticket = await newTicket(tenantId);
    await client.AddTags({ tenantId, ticketId: ticket.id, tagIds: [a, b] });

    expect((await client.RemoveTag({ tenantId, ticketId: ticket.id, tagId: a })).tagIds).toEqual([b]);
    expect((await client.RemoveTag({ tenantId, ticketId: ticket.id, tagId: a })).tagIds).toEqual([b]);
    expect(errCode(await rpcError(client.RemoveTag({ tenantId, ticketId: ticket.id, tagId: 999_999 })))).toBe('ERR_TAG_NOT_FOUND');
    const foreign = await rpcError(client.RemoveTag({ tenantId: newTenantId(), ticketId: ticket.id, tagId: b }));
    expect(foreign.code).toBe(grpc.status.NOT_FOUND);
  });
});

// ---- notes ---------------------------------------------------------------------------------

describe('CreateNote', () => {
  const notesOf = (ticketId: number) => svc.db.collection('notes').find({ ticketId }).toArray();

  it('stores a note and answers it with its id', async () => {
    const { tenantId, userId } = await tenantWithUser();
    const ticket = await newTicket(tenantId);
    const note = await client.CreateNote({ tenantId: ticket.tenantId, ticketId: ticket.id, userId, notes: ' Called back ', idFront: '' });
    expect(note).toMatchObject({ id: expect.any(Number), ticketId: ticket.id, userId, notes: 'Called back', idFront: '' });
    expect(await notesOf(ticket.id)).toHaveLength(1);
  });

  it('answers the same note for a repeated idFront, even 20 at once', async () => {
    const ticket = await newTicket();
    const req = { tenantId: ticket.tenantId, ticketId: ticket.id, notes: 'once', idFront: 'front-1' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.CreateNote(req)));
    const again = await client.CreateNote({ ...req, notes: 'a different text' });

    expect(new Set([...answers, again].map((n) => JSON.stringify(n))).size).toBe(1);
    expect(await notesOf(ticket.id)).toHaveLength(1);
  });

  it("refuses another tenant's ticket and an empty note, storing nothing", async () => {
    const ticket = await newTicket();
    const foreign = await rpcError(client.CreateNote({ tenantId: newTenantId(), ticketId: ticket.id, notes: 'x', idFront: '' }));
    expect(errCode(foreign)).toBe('ERR_TICKET_NOT_FOUND');
    const empty = await rpcError(client.CreateNote({ tenantId: ticket.tenantId, ticketId: ticket.id, notes: '  ', idFront: '' }));
    expect(errFields(empty)).toEqual(['notes']);
    expect(await notesOf(ticket.id)).toEqual([]);
  });
});

// ---- pause ---------------------------------------------------------------------------------

describe('StartPause and EndPause', () => {
  it('records the pause and its reason without changing the status, and ends it', async () => {
    const ticket = await newTicket(newTenantId(), { status: 'pending' });
    const ids = { tenantId: ticket.tenantId, ticketId: ticket.id };

    const paused = await client.StartPause({ ...ids, pauseReason: 'lunch' });
    expect(paused).toMatchObject({ paused: true, pauseReason: 'lunch', status: 'pending' });
    expect(Date.parse(paused.pausedAt)).not.toBeNaN();

    const second = await rpcError(client.StartPause({ ...ids, pauseReason: 'again' }));
    expect(second.code).toBe(grpc.status.ABORTED);
    expect(errCode(second)).toBe('ERR_TICKET_ALREADY_PAUSED');
    expect((await client.GetTicket(ids)).pauseReason).toBe('lunch');

    expect(await client.EndPause(ids)).toMatchObject({ paused: false, pauseReason: '', pausedAt: '', status: 'pending' });
    expect(errCode(await rpcError(client.EndPause(ids)))).toBe('ERR_TICKET_NOT_PAUSED');
  });

  it('lets exactly one of 10 concurrent starts pause the ticket', async () => {
    const ticket = await newTicket();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => client.StartPause({ tenantId: ticket.tenantId, ticketId: ticket.id, pauseReason: `r${i}` })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('refuses a closed ticket, and closing ends a pause', async () => {
    const ticket = await newTicket();
    const ids = { tenantId: ticket.tenantId, ticketId: ticket.id };
    await client.StartPause({ ...ids, pauseReason: 'waiting' });
    expect(await client.UpdateTicket({ ...ids, status: 'closed' })).toMatchObject({ paused: false, pauseReason: '' });
    expect(errCode(await rpcError(client.StartPause({ ...ids, pauseReason: 'x' })))).toBe('ERR_TICKET_CLOSED');
  });

  it("requires a reason and answers NOT_FOUND for another tenant's ticket", async () => {
    const ticket = await newTicket();
    expect(errFields(await rpcError(client.StartPause({ tenantId: ticket.tenantId, ticketId: ticket.id, pauseReason: ' ' })))).toEqual([
      'pauseReason',
    ]);
    const foreign = await rpcError(client.StartPause({ tenantId: newTenantId(), ticketId: ticket.id, pauseReason: 'x' }));
    expect(errCode(foreign)).toBe('ERR_TICKET_NOT_FOUND');
  });
});

// ---- evaluation ----------------------------------------------------------------------------

describe('evaluation', () => {
  const send = async (ticket: { id: number; tenantId: number }, over: Record<string, unknown> = {}) => {
    const begun = await client.BeginEvaluation({ tenantId: ticket.tenantId, ticketId: ticket.id, ...over });
    if (!begun.proceed) return { begun, ticket: undefined };
    const done = await client.CompleteEvaluation({
      tenantId: ticket.tenantId,
      ticketId: ticket.id,
      claimId: begun.claimId,
      messageId: `m-${begun.claimId}`,
    });
    return { begun, ticket: done };
  };

  it('hands out the survey once per ticket, records it, and refuses a second unless forced', async () => {
    const ticket = await newTicket();
    const first = await send(ticket);
    expect(first.begun).toMatchObject({ proceed: true, body: expect.stringMatching(/1.*5/) });
    expect(first.ticket!.evaluation).toMatchObject({ messageId: `m-${first.begun.claimId}`, answer: '', answeredAt: '' });

    const again = await rpcError(client.BeginEvaluation({ tenantId: ticket.tenantId, ticketId: ticket.id }));
    expect(again.code).toBe(grpc.status.ABORTED);
    expect(errCode(again)).toBe('ERR_EVALUATION_ALREADY_SENT');

    const forced = await send(ticket, { force: true });
    expect(forced.ticket!.evaluation!.messageId).toBe(`m-${forced.begun.claimId}`);
  });

  it('lets exactly one of 10 concurrent unforced calls proceed', async () => {
    const ticket = await newTicket();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => client.BeginEvaluation({ tenantId: ticket.tenantId, ticketId: ticket.id })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('frees the ticket after an abort (the survey was not delivered)', async () => {
    const ticket = await newTicket();
    const begun = await client.BeginEvaluation({ tenantId: ticket.tenantId, ticketId: ticket.id, externalKey: 'survey-1' });
    await client.AbortEvaluation({ tenantId: ticket.tenantId, ticketId: ticket.id, claimId: begun.claimId });
    expect((await client.BeginEvaluation({ tenantId: ticket.tenantId, ticketId: ticket.id, externalKey: 'survey-1' })).proceed).toBe(true);
  });

  it('skips a repeated externalKey, even with force, per tenant', async () => {
    const ticket = await newTicket();
    await send(ticket, { externalKey: 'nps-1' });
    const repeat = await client.BeginEvaluation({ tenantId: ticket.tenantId, ticketId: ticket.id, externalKey: 'nps-1', force: true });
    expect(repeat).toMatchObject({ proceed: false, claimId: '' });

    const elsewhere = await newTicket();
    expect((await client.BeginEvaluation({ tenantId: elsewhere.tenantId, ticketId: elsewhere.id, externalKey: 'nps-1' })).proceed).toBe(
      true,
    );
  });

  it("refuses a closed ticket and another tenant's ticket", async () => {
    const ticket = await newTicket();
    expect(errCode(await rpcError(client.BeginEvaluation({ tenantId: newTenantId(), ticketId: ticket.id })))).toBe('ERR_TICKET_NOT_FOUND');
    await client.UpdateTicket({ tenantId: ticket.tenantId, ticketId: ticket.id, status: 'closed' });
    expect(errCode(await rpcError(client.BeginEvaluation({ tenantId: ticket.tenantId, ticketId: ticket.id })))).toBe('ERR_TICKET_CLOSED');
  });

  describe('RecordEvaluationAnswer', () => {
    it('records the first answer to a sent survey and refuses a second', async () => {
      const ticket = await newTicket();
      const ids = { tenantId: ticket.tenantId, ticketId: ticket.id };
      expect(errCode(await rpcError(client.RecordEvaluationAnswer({ ...ids, answer: '5' })))).toBe('ERR_EVALUATION_NOT_SENT');

      await send(ticket);
      const answered = await client.RecordEvaluationAnswer({ ...ids, answer: ' 5 ' });
      expect(answered.evaluation).toMatchObject({ answer: '5', answeredAt: expect.stringMatching(/^\d{4}-/) });
      expect(errCode(await rpcError(client.RecordEvaluationAnswer({ ...ids, answer: '1' })))).toBe('ERR_EVALUATION_ALREADY_ANSWERED');
      expect((await client.GetTicket(ids)).evaluation!.answer).toBe('5');
    });

    it('starts over with a forced survey', async () => {
      const ticket = await newTicket();
      const ids = { tenantId: ticket.tenantId, ticketId: ticket.id };
      await send(ticket);
      await client.RecordEvaluationAnswer({ ...ids, answer: '2' });
      const forced = await send(ticket, { force: true });
      expect(forced.ticket!.evaluation).toMatchObject({ answer: '', answeredAt: '' });
      expect((await client.RecordEvaluationAnswer({ ...ids, answer: '4' })).evaluation!.answer).toBe('4');
    });

    it("answers NOT_FOUND for another tenant's ticket and refuses an empty answer", async () => {
      const ticket = await newTicket();
      await send(ticket);
      expect(errCode(await rpcError(client.RecordEvaluationAnswer({ tenantId: newTenantId(), ticketId: ticket.id, answer: '5' })))).toBe(
        'ERR_TICKET_NOT_FOUND',
      );
      expect(
        errFields(await rpcError(client.RecordEvaluationAnswer({ tenantId: ticket.tenantId, ticketId: ticket.id, answer: '' }))),
      ).toEqual(['answer']);
    });
  });
});

// ---- users named on tickets ----------------------------------------------------------------

// The rule lives here, in the service that writes the ticket, so that every entry point (the REST
// routes over gRPC, the dashboard's GraphQL mutations on this subgraph) gets it.
describe('a user id named on a ticket or note', () => {
  const ASSIGN = 'mutation($t: Int!, $id: Int!, $u: Int!) { assignTicket(tenantId: $t, ticketId: $id, userId: $u) { id userId } }';

  it("is refused when it is another tenant's user or nobody's, and nothing changes", async () => {
    const a = await tenantWithUser();
    const b = await tenantWithUser();
    const ticket = await newTicket(a.tenantId, { userId: a.userId });

    for (const userId of [b.userId, 2_000_000_000]) {
      const created = await rpcError(create(a.tenantId, { userId }));
      expect(errCode(created)).toBe('ERR_USER_NOT_FOUND');
      const updated = await rpcError(client.UpdateTicket({ tenantId: a.tenantId, ticketId: ticket.id, userId, status: 'pending' }));
      expect(errCode(updated)).toBe('ERR_USER_NOT_FOUND');
      const note = await rpcError(client.CreateNote({ tenantId: a.tenantId, ticketId: ticket.id, userId, notes: 'n', idFront: '' }));
      expect(errCode(note)).toBe('ERR_USER_NOT_FOUND');
      const assigned = await gql(ASSIGN, { t: a.tenantId, id: ticket.id, u: userId });
      expect(assigned.errors?.[0]).toMatchObject({ extensions: { code: 'ERR_USER_NOT_FOUND' } });
    }
    expect(await ticketsOf(a.tenantId)).toHaveLength(1);
    expect(await client.GetTicket({ tenantId: a.tenantId, ticketId: ticket.id })).toMatchObject({ userId: a.userId, status: 'open' });
    expect(await svc.db.collection('notes').countDocuments({ ticketId: ticket.id })).toBe(0);
  });

  it("is taken when it is a user of the ticket's tenant, on every entry point", async () => {
    const a = await tenantWithUser();
    const ticket = await newTicket(a.tenantId);
    const assigned = await gql(ASSIGN, { t: a.tenantId, id: ticket.id, u: a.userId });
    expect(assigned.data.assignTicket).toEqual({ id: ticket.id, userId: a.userId });
    expect(await client.UpdateTicket({ tenantId: a.tenantId, ticketId: ticket.id, userId: a.userId })).toMatchObject({ userId: a.userId });
  });
});
