import * as grpc from '@grpc/grpc-js';
import type { ServiceClient } from '@convo/kit';
import { errCode, errFields, rpcError, startFakeProvider, type FakeProvider, type ProviderReply } from '@convo/test-support';
import type { Connection } from 'mongoose';
import { startMessagingWithPeers, type MessagingWithPeers } from '../support/peers';

// SendInteractive through the real tickets, tenants, channel-engines and messaging services on the
// embedded database. One loopback server stands in for every provider (an engine_a server and the
// Graph API); it records each request and answers with the id field of each.

let n = 0;
const acceptWithId = (): ProviderReply => {
  const id = `P-${++n}`;
  return { status: 200, body: { key: { id }, messages: [{ id }] } };
};

let services: MessagingWithPeers;
let provider: FakeProvider;
let messagingDb: Connection;
let tickets: ServiceClient<'tickets'>;
let messaging: ServiceClient<'messaging'>;
let tenantId: number;
let engineA: number;
let waba: number;

beforeAll(async () => {
  provider = await startFakeProvider(acceptWithId);
  services = await startMessagingWithPeers('messaging-interactive-test', {
    PROVIDER_TIMEOUT_MS: '3000',
    META_GRAPH_URL: `${provider.url}/graph`,
  });
  messagingDb = services.messaging.db;
  tickets = services.tickets.client;
  messaging = services.messaging.client;
  const tenants = services.tenants.client;
  const { tenant } = await tenants.StoreTenant({
    status: 'active',
    name: 'Acme',
    maxUsers: 5,
    maxConnections: 5,
    acceptTerms: true,
    email: 'owner@interactive.example',
    password: 'secret-pass1',
    userName: 'Owner',
    profile: 'admin',
  });
  tenantId = tenant!.id;
  engineA = (
    await tenants.CreateSession({ tenant: tenantId, name: 'Engine A', type: 'engine_a', engineUrl: provider.url, engineToken: 'eng-tok' })
  ).whatsapp!.id;
  waba = (
    await tenants.CreateSession({
      tenant: tenantId,
      name: 'Official',
      type: 'waba',
      tokenApi: '1029384756',
      wabaId: '99',
      bmToken: 'bm-tok',
    })
  ).whatsapp!.id;
});

afterAll(async () => {
  await services?.stop();
  await provider?.close();
});

beforeEach(() => provider.reset());

let lastNumber = 0;
const newNumber = () => `55319${String(50_000_000 + ++lastNumber)}`;
const newTicket = async (channelId = engineA, status?: 'closed') => {
  const { ticket } = await tickets.CreateTicket({ tenantId, channelId, number: newNumber() });
  if (status) await tickets.UpdateTicket({ tenantId, ticketId: ticket!.id, status });
  return ticket!;
};
const messagesOf = (ticketId: number) => messagingDb.collection('messages').find({ ticketId }).toArray();

const QUICK_REPLY = {
  body: { text: 'Pick one' },
  buttons: [
    { display_text: 'Yes', id: 'yes' },
    { display_text: 'No', id: 'no' },
  ],
};
const quickReply = (ticketId: number, route = 'engine_a') =>
  messaging.SendInteractive({
    tenantId,
    route,
    type: 'quickReply',
    json: JSON.stringify(QUICK_REPLY),
    ticketId,
    body: 'Pick one\n[Yes] [No]',
  });
const WABA_BUTTONS = { message: 'Confirm?', button1: 'Yes', button2: 'No' };
const wabaButtons = (number: string, over: Record<string, unknown> = {}) =>
  messaging.SendInteractive({
    tenantId,
    route: 'waba',
    type: 'button',
    json: JSON.stringify(WABA_BUTTONS),
    number,
    channelId: waba,
    body: 'Confirm?\n[Yes] [No]',
    ...over,
  });

describe('SendInteractive to a ticket', () => {
  it('delivers through the ticket channel and stores the interactive type and JSON with the message', async () => {
    const ticket = await newTicket();
    const res = await quickReply(ticket.id);

    expect(res).toMatchObject({ ticketId: ticket.id, status: 'queued', idempotent: false, skipped: false });
    await services.settled(tenantId, res.messageId);
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]).toMatchObject({
      url: '/messages',
      body: { jid: `${ticket.contact!.number}@s.whatsapp.net`, options: { messageId: res.messageId } },
    });
    expect(provider.requests[0].body.content.interactiveMessage).toBeDefined();
    await expect(messaging.GetMessage({ tenantId, messageId: res.messageId })).resolves.toMatchObject({
      ticketId: ticket.id,
      channelId: engineA,
      direction: 'out',
      body: 'Pick one\n[Yes] [No]',
      status: 'sent',
      providerMessageId: 'P-1',
      interactiveType: 'engine_a/quickReply',
      interactiveJson: JSON.stringify(QUICK_REPLY),
    });
  });

  it("refuses a route of another engine than the ticket's channel, naming both kinds, and sends nothing", async () => {
    const ticket = await newTicket();
    const err = await rpcError(quickReply(ticket.id, 'engine_b'));

    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errCode(err)).toBe('ERR_CHANNEL_MISMATCH');
    expect(err.details).toMatch(/engine_b.*engine_a/);
    expect(errFields(err)).toEqual(['ticketId']);
    expect(provider.requests).toEqual([]);
    expect(await messagesOf(ticket.id)).toEqual([]);
  });

  it('refuses a closed ticket with ERR_TICKET_CLOSED, sending nothing and leaving it closed', async () => {
    const ticket = await newTicket(engineA, 'closed');
    const err = await rpcError(quickReply(ticket.id));

    expect(err.code).toBe(grpc.status.ABORTED);
    expect(errCode(err)).toBe('ERR_TICKET_CLOSED');
    expect(provider.requests).toEqual([]);
    expect(await messagesOf(ticket.id)).toEqual([]);
    expect((await tickets.GetTicket({ tenantId, ticketId: ticket.id })).status).toBe('closed');
  });

  it("answers NOT_FOUND for another tenant's ticket", async () => {
    const ticket = await newTicket();
    const err = await rpcError(
      messaging.SendInteractive({
        tenantId: tenantId + 1000,
        route: 'engine_a',
        type: 'quickReply',
        json: '{}',
        ticketId: ticket.id,
        body: 'x',
      }),
    );
    expect(errCode(err)).toBe('ERR_TICKET_NOT_FOUND');
    expect(provider.requests).toEqual([]);
  });

  it('refuses an incomplete request naming every field, before reading anything', async () => {
    const err = await rpcError(messaging.SendInteractive({ tenantId, route: 'engine_z', type: '', json: '[1]', body: ' ' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['route', 'type', 'json', 'body', 'ticketId']);
  });

  it("accepts the message, then stores a refusal as failed with the provider's reason", async () => {
    const ticket = await newTicket();
    provider.answer(() => ({ status: 400, body: { message: 'session closed' } }));
    const res = await quickReply(ticket.id);

    expect(res.status).toBe('queued');
    await services.settled(tenantId, res.messageId);
    const [message, ...more] = await messagesOf(ticket.id);
    expect(more).toEqual([]);
    expect(message).toMatchObject({ status: 'failed', interactiveType: 'engine_a/quickReply' });
    expect(message.error).toContain('session closed');
  });
});

/**
 * The contact writes on the waba channel (as ingestion records an incoming message: OpenForContact
 * with its time), which opens its 24-hour window; its ticket is then closed, so a send opens a new one.
 */
async function wrote(number: string, at = new Date()): Promise<void> {
  const { ticket } = await tickets.OpenForContact({ tenantId, channelId: waba, number, inboundAt: at.toISOString() });
  await tickets.UpdateTicket({ tenantId, ticketId: ticket!.id, status: 'closed' });
}

describe('SendInteractive to a number (waba routes)', () => {
  it('refuses a contact outside its 24-hour window (ERR_OUTSIDE_WINDOW), opening no ticket and sending nothing', async () => {
    const never = newNumber();
    expect(errCode(await rpcError(wabaButtons(never)))).toBe('ERR_OUTSIDE_WINDOW');
    const stale = newNumber();
    await wrote(stale, new Date(Date.now() - 24 * 3600_000 - 60_000));
    const err = await rpcError(wabaButtons(stale));
    expect(err.code).toBe(grpc.status.ABORTED);
    expect(errCode(err)).toBe('ERR_OUTSIDE_WINDOW');
    for (const number of [never, stale]) {
      const { tickets: found } = await tickets.FindContactTickets({ tenantId, number, all: true });
      expect(found.filter((t) => t.status !== 'closed')).toEqual([]);
    }
    expect(provider.requests).toEqual([]);
  });

  it("opens a pending ticket on the integration's channel, then reuses it", async () => {
    const number = newNumber();
    await wrote(number);
    const first = await wabaButtons(number);
    const second = await wabaButtons(number);
    await services.settled(tenantId, second.messageId);

    expect(second.ticketId).toBe(first.ticketId);
    const ticket = await tickets.GetTicket({ tenantId, ticketId: first.ticketId });
    expect(ticket).toMatchObject({ channelId: waba, status: 'pending', contact: { number } });
    expect(provider.requests.map((r) => r.url)).toEqual(['/graph/1029384756/messages', '/graph/1029384756/messages']);
    expect(provider.requests[0].body).toMatchObject({ messaging_product: 'whatsapp', to: number, type: 'interactive' });
    expect((await messagesOf(first.ticketId)).map((m) => m.interactiveType)).toEqual(['waba/button', 'waba/button']);
  });

  it('sends on the pinned ticket of the contact', async () => {
    const number = newNumber();
    const { ticket } = await tickets.OpenForContact({ tenantId, channelId: waba, number, inboundAt: new Date().toISOString() });
    const res = await wabaButtons(number, { ticketId: ticket!.id });
    expect(res.ticketId).toBe(ticket!.id);
    await services.settled(tenantId, res.messageId);
    expect(provider.requests).toHaveLength(1);
  });

  it('refuses a pinned ticket of another contact (NOT_FOUND) or a closed one (ERR_TICKET_CLOSED), sending nothing', async () => {
    const someoneElse = await newTicket(waba);
    const notTheirs = await rpcError(wabaButtons(newNumber(), { ticketId: someoneElse.id }));
    expect(errCode(notTheirs)).toBe('ERR_TICKET_NOT_FOUND');

    const closed = await newTicket(waba, 'closed');
    const err = await rpcError(wabaButtons(closed.contact!.number, { ticketId: closed.id }));
    expect(errCode(err)).toBe('ERR_TICKET_CLOSED');
    expect(provider.requests).toEqual([]);
  });

  it('refuses a waba route on an integration whose channel is not waba, opening no ticket', async () => {
    const number = newNumber();
    const err = await rpcError(wabaButtons(number, { channelId: engineA }));

    expect(errCode(err)).toBe('ERR_CHANNEL_MISMATCH');
    expect(err.details).toMatch(/waba.*engine_a/);
    expect(provider.requests).toEqual([]);
    const { tickets: found } = await tickets.FindContactTickets({ tenantId, number, all: true });
    expect(found).toEqual([]);
  });
});

describe('a routeVia "auto" send to a waba ticket', () => {
  it("stores the contact's window as it is now, though a copy of the ticket from before the contact's last message was kept", async () => {
    const number = newNumber();
    const first = new Date(Date.now() - 10 * 60_000);
    const { ticket } = await tickets.OpenForContact({ tenantId, channelId: waba, number, inboundAt: first.toISOString() });
    const send = () => messaging.SendByTicket({ tenantId, ticketId: ticket!.id, body: 'Hello!', routeVia: 'auto' });
    // Messaging reads the ticket and keeps a copy (TICKET_SNAPSHOT_MS); the contact then writes again.
    await send();
    const later = new Date(Date.now() - 60_000);
    await tickets.OpenForContact({ tenantId, channelId: waba, number, inboundAt: later.toISOString() });

    const res = await send();

    const stored = await messagingDb.collection('messages').findOne({ _id: res.messageId } as object);
    expect(stored).toMatchObject({ routeVia: 'auto', windowUntil: new Date(later.getTime() + 24 * 3_600_000) });
  });
});
