import * as grpc from '@grpc/grpc-js';
import type { ServiceClient } from '@convo/kit';
import { errCode, errFields, rpcError, startTestMesh, type TestMesh, type TestService } from '@convo/test-support';
import { ticketsService } from '@convo/tickets';
import { randomUUID } from 'node:crypto';
import { messagingService } from '../src/spec';

// The read side against the real tickets service (which owns who may read a ticket) and the
// messages collection filled directly, in the send path's document shape.

let mesh: TestMesh;
let tickets: ServiceClient<'tickets'>;
let messaging: ServiceClient<'messaging'>;
let messagingSvc: TestService<'messaging'>;

beforeAll(async () => {
  mesh = await startTestMesh('messaging-read-test');
  const ticketsSvc = await mesh.start(ticketsService);
  messagingSvc = await mesh.start(messagingService, { env: { TICKETS_GRPC_ADDR: ticketsSvc.address } });
  tickets = ticketsSvc.client;
  messaging = messagingSvc.client;
});

afterAll(() => mesh?.stop());

let lastTenant = 500;
let lastNumber = 0;
async function newTicket(tenantId = ++lastTenant) {
  const { ticket } = await tickets.CreateTicket({ tenantId, channelId: 3, number: `55219${String(30_000_000 + ++lastNumber)}` });
  return ticket!;
}

/** Stores messages as the send path does; `at` orders them (one second apart by default). */
async function store(
  ticket: { id: number; tenantId: number },
  bodies: string[],
  start = Date.UTC(2026, 0, 1),
  direction: 'in' | 'out' = 'out',
) {
  const docs = bodies.map((body, i) => ({
    _id: randomUUID(),
    tenantId: ticket.tenantId,
    ticketId: ticket.id,
    channelId: 3,
    direction,
    body,
    status: 'sent',
    createdAt: new Date(start + i * 1000),
    updatedAt: new Date(start + i * 1000),
  }));
  await messagingSvc.db.collection('messages').insertMany(docs as never[]);
  return docs.map((d) => d._id);
}

describe('ListTicketMessages', () => {
  it('answers the messages of the ticket in conversation order', async () => {
    const ticket = await newTicket();
    const ids = await store(ticket, ['one', 'two', 'three']);
    await store(await newTicket(ticket.tenantId), ['elsewhere']);

    const page = await messaging.ListTicketMessages({ tenantId: ticket.tenantId, ticketId: ticket.id });
    expect(page.messages.map((m) => [m.messageId, m.body])).toEqual([
      [ids[0], 'one'],
      [ids[1], 'two'],
      [ids[2], 'three'],
    ]);
    expect(page.hasMore).toBe(false);
  });

  it('keeps the newest messages when there are more than the limit', async () => {
    const ticket = await newTicket();
    await store(ticket, ['a', 'b', 'c', 'd']);
    const page = await messaging.ListTicketMessages({ tenantId: ticket.tenantId, ticketId: ticket.id, limit: 2 });
    expect(page.messages.map((m) => m.body)).toEqual(['c', 'd']);
    expect(page.hasMore).toBe(true);
  });

  it("answers NOT_FOUND for another tenant's ticket", async () => {
    const ticket = await newTicket();
    await store(ticket, ['secret']);
    const err = await rpcError(messaging.ListTicketMessages({ tenantId: ticket.tenantId + 1000, ticketId: ticket.id }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(errCode(err)).toBe('ERR_TICKET_NOT_FOUND');
  });
});

describe('SearchMessages', () => {
  const search = (ticket: { id: number; tenantId: number }, over: Record<string, unknown>) =>
    messaging.SearchMessages({ tenantId: ticket.tenantId, ticketId: ticket.id, ...over });

  it('matches case-insensitively, in order, with page, limit, count and hasMore', async () => {
    const ticket = await newTicket();
    await store(ticket, ['Order 1 shipped', 'hello', 'ORDER 2 shipped', 'order 3 SHIPPED', 'bye']);

    const first = await search(ticket, { search: 'shipped', limit: 2 });
    expect(first).toMatchObject({ count: 3, hasMore: true, page: 1, limit: 2 });
    expect(first.messages.map((m) => m.body)).toEqual(['Order 1 shipped', 'ORDER 2 shipped']);
    const second = await search(ticket, { search: 'SHIPPED', limit: 2, page: 2 });
    expect(second).toMatchObject({ count: 3, hasMore: false, page: 2 });
    expect(second.messages.map((m) => m.body)).toEqual(['order 3 SHIPPED']);
    expect(await search(ticket, { search: 'order' })).toMatchObject({ limit: 20, page: 1, count: 3 });
  });

  it('treats the search as text: pattern characters match only themselves', async () => {
    const ticket = await newTicket();
    await store(ticket, ['price (USD) is 5.00', 'price USD is 5x00', 'a+b']);
    expect((await search(ticket, { search: '5.00' })).messages.map((m) => m.body)).toEqual(['price (USD) is 5.00']);
    expect((await search(ticket, { search: '(usd)' })).messages.map((m) => m.body)).toEqual(['price (USD) is 5.00']);
    expect((await search(ticket, { search: '.*' })).count).toBe(0);
    expect((await search(ticket, { search: 'a+b' })).count).toBe(1);
  });

  it('refuses an empty search and a limit above 100', async () => {
    const ticket = await newTicket();
    expect(errFields(await rpcError(search(ticket, { search: '  ', limit: 101 })))).toEqual(['searchParam', 'limit']);
  });

  it("answers NOT_FOUND for another tenant's ticket, even when the text is there", async () => {
    const ticket = await newTicket();
    await store(ticket, ['findable']);
    const err = await rpcError(messaging.SearchMessages({ tenantId: ticket.tenantId + 1000, ticketId: ticket.id, search: 'findable' }));
    expect(errCode(err)).toBe('ERR_TICKET_NOT_FOUND');
  });
});

describe('LastMessages', () => {
  it('answers the newest message of each ticket that has one, in one call', async () => {
    const tenantId = ++lastTenant;
    const [a, b, empty] = [await newTicket(tenantId), await newTicket(tenantId), await newTicket(tenantId)];
    await store(a, ['a1', 'a2', 'a3'], Date.UTC(2026, 0, 1));
    const [bLast] = await store(b, ['b1'], Date.UTC(2026, 0, 2), 'in');

    const { messages } = await messaging.LastMessages({ tenantId, ticketIds: [a.id, b.id, empty.id] });
    const byTicket = Object.fromEntries(messages.map((m) => [m.ticketId, m]));
    expect(Object.keys(byTicket).map(Number).sort()).toEqual([a.id, b.id].sort());
    expect(byTicket[a.id]).toMatchObject({ body: 'a3', direction: 'out' });
    expect(byTicket[b.id]).toEqual({
      ticketId: b.id,
      messageId: bLast,
      body: 'b1',
      direction: 'in',
      createdAt: new Date(Date.UTC(2026, 0, 2)).toISOString(),
    });
  });

  it("answers nothing for another tenant's tickets", async () => {
    const ticket = await newTicket();
    await store(ticket, ['mine']);
    expect((await messaging.LastMessages({ tenantId: ticket.tenantId + 1000, ticketIds: [ticket.id] })).messages).toEqual([]);
  });
});
