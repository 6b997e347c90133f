import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { metricsText, type ServiceClient } from '@convo/kit';
import { errCode, rpcError, startFakeProvider, type FakeProvider } from '@convo/test-support';
import { TICKET_SNAPSHOT_MS } from '@convo/tickets';
import { startMessagingWithPeers, tenantWithEngine, type MessagingWithPeers } from '../support/peers';

// The real tickets, tenants, channel-engines and messaging services with tickets' default
// TICKET_SNAPSHOT_MS: messaging accepts sends on a copy of the ticket it read, for as long as
// tickets allows, and a close answers only once such copies have run out.

let services: MessagingWithPeers;
let engine: FakeProvider;
let tickets: ServiceClient<'tickets'>;
let messaging: ServiceClient<'messaging'>;
let tenantId: number;
let channelId: number;

beforeAll(async () => {
  [services, engine] = await Promise.all([
    startMessagingWithPeers('ticket-snapshots'),
    startFakeProvider((req) => ({ status: 200, body: { key: { id: `WA-${req.body.options?.messageId}` } } })),
  ]);
  tickets = services.tickets.client;
  messaging = services.messaging.client;
  ({ tenantId, channelId } = await tenantWithEngine(services.tenants.client, engine.url));
});

afterAll(async () => {
  await services?.stop();
  await engine?.close();
});

let lastNumber = 0;
const newTicket = async () => {
  const { ticket } = await tickets.CreateTicket({ tenantId, channelId, number: `55119${String(30_000_000 + ++lastNumber)}` });
  return ticket!;
};
const send = (ticketId: number, over: Record<string, unknown> = {}) =>
  messaging.SendByTicket({ tenantId, ticketId, body: 'Hello!', ...over });

/** convo_cache_lookups_total of the ticket copies (every service here shares this process's registry). */
async function ticketLookups(): Promise<{ hit: number; miss: number }> {
  const text = await metricsText();
  const count = (result: string) =>
    Number(new RegExp(`^convo_cache_lookups_total\\{cache="ticket",result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { hit: count('hit'), miss: count('miss') };
}

describe('sends on a copy of the ticket', () => {
  it('tickets hands out each GetTicket with how long the copy may be used', async () => {
    const ticket = await newTicket();
    expect((await tickets.GetTicket({ tenantId, ticketId: ticket.id })).snapshotMs).toBe(TICKET_SNAPSHOT_MS);
  });

  it('accepts a second send within that time without reading the ticket again', async () => {
    const ticket = await newTicket();
    await send(ticket.id);
    const before = await ticketLookups();

    await expect(send(ticket.id)).resolves.toMatchObject({ status: 'queued', ticketId: ticket.id });

    const after = await ticketLookups();
    expect(after.hit - before.hit).toBe(1);
    expect(after.miss - before.miss).toBe(0);
  });

  it('refuses a send asked after a close answered, though a copy of the open ticket was kept', async () => {
    const ticket = await newTicket();
    await send(ticket.id);

    const asked = performance.now();
    await tickets.UpdateTicket({ tenantId, ticketId: ticket.id, status: 'closed' });
    // The close answered once the copy messaging took before it had run out.
    expect(performance.now() - asked).toBeGreaterThanOrEqual(TICKET_SNAPSHOT_MS);

    const err = await rpcError(send(ticket.id));
    expect(err.code).toBe(grpc.status.ABORTED);
    expect(errCode(err)).toBe('ERR_TICKET_CLOSED');
  });

  it('keeps no copy of a ticket without a number (its e-mail address can be edited): every send reads it', async () => {
    const { ticket } = await tickets.CreateTicket({ tenantId, channelId, email: `someone${++lastNumber}@example.com` });
    await send(ticket!.id).catch(() => undefined);
    const before = await ticketLookups();

    await send(ticket!.id).catch(() => undefined);

    const after = await ticketLookups();
    expect(after.hit - before.hit).toBe(0);
    expect(after.miss - before.miss).toBeGreaterThanOrEqual(1);
  });

  it('reads the ticket again before refusing on a copy: a reopen elsewhere is seen at once', async () => {
    const ticket = await newTicket();
    await tickets.UpdateTicket({ tenantId, ticketId: ticket.id, status: 'closed' });
    expect(errCode(await rpcError(send(ticket.id)))).toBe('ERR_TICKET_CLOSED');
    // The copy kept says closed; tickets reopens the ticket (no wait: a copy behind it only refuses).
    await tickets.UpdateTicket({ tenantId, ticketId: ticket.id, status: 'open' });
    const before = await ticketLookups();

    await expect(send(ticket.id)).resolves.toMatchObject({ status: 'queued', ticketId: ticket.id });
    expect((await ticketLookups()).hit - before.hit).toBe(1);
  });
});
