import * as grpc from '@grpc/grpc-js';
import type { ServiceClient } from '@convo/kit';
import { errCode, rpcError, startServiceForTest, type TestService } from '@convo/test-support';
import { ticketsService } from '../src/spec';

// OpenForContact against the real tickets service on the embedded database.

let lastTenant = 5_000;
const newTenantId = () => ++lastTenant;
let lastNumber = 0;
const newNumber = () => `55219${String(30_000_000 + ++lastNumber)}`;

let svc: TestService<'tickets'>;
let client: ServiceClient<'tickets'>;

beforeAll(async () => {
  svc = await startServiceForTest(ticketsService, { name: 'tickets-open-for-contact-test' });
  client = svc.client;
});

afterAll(() => svc?.stop());

const ticketsOf = (tenantId: number) => svc.db.collection('tickets').find({ tenantId }).sort({ _id: 1 }).toArray();
const open = (tenantId: number, number: string, over: Record<string, unknown> = {}) =>
  client.OpenForContact({ tenantId, channelId: 3, number, ...over });
const close = (tenantId: number, ticketId: number) => client.UpdateTicket({ tenantId, ticketId, status: 'closed' });

describe('OpenForContact', () => {
  it('creates the contact and a pending ticket, then answers that ticket', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const first = await open(tenantId, `+${number}`, { name: 'Ana' });
    const again = await open(tenantId, number, { name: 'Someone else' });

    expect(first).toMatchObject({ created: true, ticket: { tenantId, channelId: 3, status: 'pending', contact: { number, name: 'Ana' } } });
    expect(again).toMatchObject({ created: false, ticket: { id: first.ticket!.id, contact: { name: 'Ana' } } });
    expect(await ticketsOf(tenantId)).toHaveLength(1);
    expect(await svc.db.collection('contacts').find({ tenantId }).toArray()).toEqual([
      expect.objectContaining({ number, name: 'Ana', channelId: 3 }),
    ]);
  });

  it("keeps an incoming message's time (inbound_at) as the contact's last_inbound_at, on the contact and its tickets, the latest winning", async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const never = await open(tenantId, number);
    expect(never.ticket!.contact!.lastInboundAt).toBe('');
    const at = '2026-11-20T10:00:00.000Z';
    const wrote = await open(tenantId, number, { inboundAt: at });
    expect(wrote.ticket!.contact!.lastInboundAt).toBe(at);
    // An older message delivered late does not move it back.
    const late = await open(tenantId, number, { inboundAt: '2026-11-19T10:00:00.000Z' });
    expect(late.ticket!.contact!.lastInboundAt).toBe(at);
    expect((await client.GetTicket({ tenantId, ticketId: wrote.ticket!.id })).contact!.lastInboundAt).toBe(at);
    // The contact's next ticket (a send by number, a createTicket) starts with the contact's window.
    await close(tenantId, wrote.ticket!.id);
    const next = await open(tenantId, number);
    expect(next.created).toBe(true);
    expect(next.ticket!.contact!.lastInboundAt).toBe(at);
    await close(tenantId, next.ticket!.id);
    const created = await client.CreateTicket({ tenantId, channelId: 3, number });
    expect(created.ticket!.contact!.lastInboundAt).toBe(at);
    expect(errCode(await rpcError(open(tenantId, number, { inboundAt: 'yesterday' })))).toBe('ERR_VALIDATION');
  });

  it('rewrites the last inbound time only once a message is a minute or more past it: the window ends at most that much early', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const at = '2026-11-20T10:00:00.000Z';
    const { ticket } = await open(tenantId, number, { inboundAt: at });
    const kept = async () => ({
      contact: (await svc.db.collection('contacts').findOne({ tenantId, number }))!.lastInboundAt,
      ticket: (await client.GetTicket({ tenantId, ticketId: ticket!.id })).contact!.lastInboundAt,
    });
    // 59.999 s later: neither the contact nor its ticket is written.
    const soon = await open(tenantId, number, { inboundAt: '2026-11-20T10:00:59.999Z' });
    expect(soon.ticket!.contact!.lastInboundAt).toBe(at);
    expect(await kept()).toEqual({ contact: new Date(at), ticket: at });
    // A minute later: both move.
    const minute = '2026-11-20T10:01:00.000Z';
    expect((await open(tenantId, number, { inboundAt: minute })).ticket!.contact!.lastInboundAt).toBe(minute);
    expect(await kept()).toEqual({ contact: new Date(minute), ticket: minute });
  });

  it("window_only moves the contact's window (and its current ticket's) and opens no ticket", async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const at = '2026-11-20T10:00:00.000Z';
    const none = await open(tenantId, number, { inboundAt: at, windowOnly: true });
    expect(none.ticket ?? null).toBeNull();
    expect(await ticketsOf(tenantId)).toEqual([]);
    // The contact's next ticket starts with that window; a later message moves the current ticket's.
    const next = await open(tenantId, number);
    expect(next).toMatchObject({ created: true, ticket: { contact: { lastInboundAt: at } } });
    const later = '2026-11-20T11:00:00.000Z';
    expect(await open(tenantId, number, { inboundAt: later, windowOnly: true })).toMatchObject({
      created: false,
      ticket: { id: next.ticket!.id, contact: { lastInboundAt: later } },
    });
    expect(await ticketsOf(tenantId)).toHaveLength(1);
  });

  it('records an incoming message on a pinned ticket (a survey answer), closed or not, without reopening it', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const { ticket } = await open(tenantId, number);
    await close(tenantId, ticket!.id);
    const at = '2026-11-21T08:00:00.000Z';
    const answered = await open(tenantId, number, { pinTicketId: ticket!.id, inboundAt: at });
    expect(answered).toMatchObject({ created: false, ticket: { id: ticket!.id, status: 'closed', contact: { lastInboundAt: at } } });
    expect(await svc.db.collection('contacts').findOne({ tenantId, number })).toMatchObject({ lastInboundAt: new Date(at) });
    // Without an incoming message, a closed pinned ticket is still refused.
    expect(errCode(await rpcError(open(tenantId, number, { pinTicketId: ticket!.id })))).toBe('ERR_TICKET_CLOSED');
  });

  it("answers the contact's open ticket created by CreateTicket on that channel", async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const { ticket } = await client.CreateTicket({ tenantId, channelId: 3, number });
    const found = await open(tenantId, number);
    expect(found).toMatchObject({ created: false, ticket: { id: ticket!.id, status: 'open' } });
  });

  it('opens a new pending ticket when the last one is closed', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const first = await open(tenantId, number);
    await close(tenantId, first.ticket!.id);

    const next = await open(tenantId, number);
    expect(next.created).toBe(true);
    expect(next.ticket!.id).not.toBe(first.ticket!.id);
    expect(next.ticket!.status).toBe('pending');
    expect(next.ticket!.contact!.id).toBe(first.ticket!.contact!.id);
    expect((await ticketsOf(tenantId)).map((t) => t.status)).toEqual(['closed', 'pending']);
  });

  it('keeps channels and tenants apart', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const here = await open(tenantId, number);
    const otherChannel = await open(tenantId, number, { channelId: 4 });
    const otherTenant = await open(newTenantId(), number);

    expect(otherChannel.created).toBe(true);
    expect(otherChannel.ticket!.channelId).toBe(4);
    expect(new Set([here.ticket!.id, otherChannel.ticket!.id, otherTenant.ticket!.id]).size).toBe(3);
  });

  it('opens one ticket for concurrent calls of a new contact', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const answers = await Promise.all(Array.from({ length: 12 }, () => open(tenantId, number)));

    const stored = await ticketsOf(tenantId);
    expect(stored).toHaveLength(1);
    expect(answers.map((a) => a.ticket!.id)).toEqual(Array(12).fill(stored[0]._id));
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(await svc.db.collection('contacts').countDocuments({ tenantId })).toBe(1);
  });

  it('opens one new ticket for concurrent calls after the last one closed', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const first = await open(tenantId, number);
    await close(tenantId, first.ticket!.id);

    const answers = await Promise.all(Array.from({ length: 10 }, () => open(tenantId, number)));
    const ids = new Set(answers.map((a) => a.ticket!.id));
    expect(ids.size).toBe(1);
    expect(ids.has(first.ticket!.id)).toBe(false);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(await ticketsOf(tenantId)).toHaveLength(2);
  });

  it('takes over a claim left by a caller that crashed before inserting its ticket', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const first = await open(tenantId, number);
    await close(tenantId, first.ticket!.id);
    const claimId = `${tenantId}:${first.ticket!.contact!.id}:${first.ticket!.id}`;
    const claims = svc.db.collection<{ _id: string; ticketId: number; createdAt: Date }>('open_claims');
    await claims.insertOne({ _id: claimId, ticketId: 999_999_999, createdAt: new Date(Date.now() - 120_000) });

    const next = await open(tenantId, number);
    expect(next.created).toBe(true);
    expect(next.ticket!.id).not.toBe(999_999_999);
    expect(await claims.findOne({ _id: claimId })).toMatchObject({ ticketId: next.ticket!.id });
  });

  it('takes an e-mail address as the contact', async () => {
    const tenantId = newTenantId();
    const first = await open(tenantId, '', { email: 'Ana@Example.com' });
    const again = await open(tenantId, '', { email: 'ana@example.com' });
    expect(first.ticket!.contact).toMatchObject({ number: '', email: 'ana@example.com' });
    expect(again).toMatchObject({ created: false, ticket: { id: first.ticket!.id } });
  });

  it('keeps a social platform user id as given', async () => {
    const tenantId = newTenantId();
    const psid = '24736195837461029';
    const res = await open(tenantId, psid);
    expect(res.ticket!.contact!.number).toBe(psid);
  });

  it.each([
    [{ number: '', email: '' }, 'number'],
    [{ number: 'not a number!' }, 'number'],
    [{ channelId: 0 }, 'channelId'],
  ])('refuses %p and creates nothing', async (over, field) => {
    const tenantId = newTenantId();
    const err = await rpcError(open(tenantId, newNumber(), over));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.metadata.get('err-details-bin')[0].toString()).toContain(`"field":"${field}"`);
    expect(await ticketsOf(tenantId)).toEqual([]);
  });

  describe('pinTicketId', () => {
    it("answers the contact's open or pending ticket on the channel", async () => {
      const tenantId = newTenantId();
      const number = newNumber();
      const { ticket } = await open(tenantId, number);
      await expect(open(tenantId, number, { pinTicketId: ticket!.id })).resolves.toMatchObject({
        created: false,
        ticket: { id: ticket!.id },
      });
    });

    it("is NOT_FOUND for another contact's, another channel's or another tenant's ticket, creating nothing", async () => {
      const tenantId = newTenantId();
      const number = newNumber();
      const mine = (await open(tenantId, number)).ticket!;
      const someoneElse = (await open(tenantId, newNumber())).ticket!;
      const otherChannel = (await open(tenantId, number, { channelId: 9 })).ticket!;
      const otherTenant = (await open(newTenantId(), number)).ticket!;

      for (const pinTicketId of [someoneElse.id, otherChannel.id, otherTenant.id, 987_654_321]) {
        const err = await rpcError(open(tenantId, number, { pinTicketId }));
        expect(err.code).toBe(grpc.status.NOT_FOUND);
        expect(errCode(err)).toBe('ERR_TICKET_NOT_FOUND');
      }
      expect((await ticketsOf(tenantId)).map((t) => t._id)).toEqual([mine.id, someoneElse.id, otherChannel.id]);
    });

    it('refuses a closed ticket with ERR_TICKET_CLOSED and opens no other', async () => {
      const tenantId = newTenantId();
      const number = newNumber();
      const { ticket } = await open(tenantId, number);
      await close(tenantId, ticket!.id);

      const err = await rpcError(open(tenantId, number, { pinTicketId: ticket!.id }));
      expect(err.code).toBe(grpc.status.ABORTED);
      expect(errCode(err)).toBe('ERR_TICKET_CLOSED');
      expect(await ticketsOf(tenantId)).toHaveLength(1);
    });
  });
});
