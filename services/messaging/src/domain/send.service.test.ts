import * as grpc from '@grpc/grpc-js';
import { channelEnginesService } from '@convo/channel-engines';
import { closeAllClients, createClient, startService, type RunningService, type ServiceClient } from '@convo/kit';
import { startDatabase, type Database } from '@convo/dev-db';
import { tenantsService } from '@convo/tenants';
import { ticketsService } from '@convo/tickets';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messagingService } from '../server';

// SendInteractive through the real tickets, tenants, channel-engines and messaging services on the
// embedded database. One loopback server stands in for every provider (an engine_a server and the
// Graph API); it records each request and answers with the id field of each.

interface ProviderRequest {
  url: string;
  body: any;
}

async function startProvider() {
  const requests: ProviderRequest[] = [];
  let failWith: { status: number; body: unknown } | undefined;
  let n = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      requests.push({ url: req.url!, body: raw ? JSON.parse(raw) : null });
      const id = `P-${++n}`;
      const answer = failWith ?? { status: 200, body: { key: { id }, messages: [{ id }] } };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    fail(status: number, body: unknown) {
      failWith = { status, body };
    },
    reset() {
      requests.length = 0;
      failWith = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function rpcError(call: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await call;
  } catch (err) {
    return err as grpc.ServiceError;
  }
  throw new Error('expected the call to fail, it succeeded');
}
const errCode = (err: grpc.ServiceError) => err.metadata.get('err-code')[0];
const errFields = (err: grpc.ServiceError): string[] =>
  (JSON.parse(Buffer.from(err.metadata.get('err-details-bin')[0] as Buffer).toString('utf8')) as Array<{ field: string }>).map((d) => d.field);

let database: Database;
let provider: Awaited<ReturnType<typeof startProvider>>;
const running: RunningService<unknown>[] = [];
let messagingDb: RunningService<unknown>['db'];
let tickets: ServiceClient<'tickets'>;
let messaging: ServiceClient<'messaging'>;
let tenantId: number;
let engineA: number;
let waba: number;

const addr = (svc: RunningService<unknown>) => `127.0.0.1:${svc.grpcPort}`;

beforeAll(async () => {
  [database, provider] = await Promise.all([startDatabase({ name: 'messaging-interactive-test' }), startProvider()]);
  const env = {
    MONGODB_URI: database.uri,
    GRPC_PORT: '0',
    GRAPHQL_PORT: '0',
    SUPER_ADMIN_TOKEN: 'x'.repeat(24),
    LOG_LEVEL: 'silent',
    PROVIDER_TIMEOUT_MS: '3000',
    META_GRAPH_URL: `${provider.url}/graph`,
  };
  const [ticketsSvc, tenantsSvc, enginesSvc] = await Promise.all([
    startService(ticketsService, env),
    startService(tenantsService, env),
    startService(channelEnginesService, env),
  ]);
  running.push(ticketsSvc, tenantsSvc, enginesSvc);
  const messagingSvc = await startService(messagingService, {
    ...env,
    TICKETS_GRPC_ADDR: addr(ticketsSvc),
    TENANTS_GRPC_ADDR: addr(tenantsSvc),
    CHANNEL_ENGINES_GRPC_ADDR: addr(enginesSvc),
  });
  running.push(messagingSvc);
  messagingDb = messagingSvc.db;

  tickets = createClient('tickets', addr(ticketsSvc));
  messaging = createClient('messaging', addr(messagingSvc), { deadlineMs: 15_000 });
  const tenants = createClient('tenants', addr(tenantsSvc));
  const { tenant } = await tenants.StoreTenant({
    status: 'active', name: 'Acme', maxUsers: 5, maxConnections: 5, acceptTerms: true,
    email: 'owner@interactive.example', password: 'secret-pass1', userName: 'Owner', profile: 'admin',
  });
  tenantId = tenant!.id;
  engineA = (await tenants.CreateSession({ tenant: tenantId, name: 'Engine A', type: 'engine_a', engineUrl: provider.url, engineToken: 'eng-tok' })).whatsapp!.id;
  waba = (await tenants.CreateSession({ tenant: tenantId, name: 'Official', type: 'waba', tokenApi: '1029384756', wabaId: '99', bmToken: 'bm-tok' })).whatsapp!.id;
});

afterAll(async () => {
  closeAllClients();
  for (const svc of running.reverse()) await svc.stop();
  await provider?.close();
  await database?.stop();
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

const QUICK_REPLY = { body: { text: 'Pick one' }, buttons: [{ display_text: 'Yes', id: 'yes' }, { display_text: 'No', id: 'no' }] };
const quickReply = (ticketId: number, route = 'engine_a') =>
  messaging.SendInteractive({ tenantId, route, type: 'quickReply', json: JSON.stringify(QUICK_REPLY), ticketId, body: 'Pick one\n[Yes] [No]' });
const WABA_BUTTONS = { message: 'Confirm?', button1: 'Yes', button2: 'No' };
const wabaButtons = (number: string, over: Record<string, unknown> = {}) =>
  messaging.SendInteractive({ tenantId, route: 'waba', type: 'button', json: JSON.stringify(WABA_BUTTONS), number, channelId: waba, body: 'Confirm?\n[Yes] [No]', ...over });

describe('SendInteractive to a ticket', () => {
  it('delivers through the ticket channel and stores the interactive type and JSON with the message', async () => {
    const ticket = await newTicket();
    const res = await quickReply(ticket.id);

    expect(res).toMatchObject({ ticketId: ticket.id, status: 'sent', idempotent: false, skipped: false });
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]).toMatchObject({ url: '/messages', body: { jid: `${ticket.contact!.number}@s.whatsapp.net`, options: { messageId: res.messageId } } });
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
    const err = await rpcError(messaging.SendInteractive({ tenantId: tenantId + 1000, route: 'engine_a', type: 'quickReply', json: '{}', ticketId: ticket.id, body: 'x' }));
    expect(errCode(err)).toBe('ERR_TICKET_NOT_FOUND');
    expect(provider.requests).toEqual([]);
  });

  it('refuses an incomplete request naming every field, before reading anything', async () => {
    const err = await rpcError(messaging.SendInteractive({ tenantId, route: 'engine_z', type: '', json: '[1]', body: ' ' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['route', 'type', 'json', 'body', 'ticketId']);
  });

  it('stores a refused message as failed and answers ERR_PROVIDER_FAILED', async () => {
    const ticket = await newTicket();
    provider.fail(500, { message: 'session closed' });
    const err = await rpcError(quickReply(ticket.id));

    expect(errCode(err)).toBe('ERR_PROVIDER_FAILED');
    const [message, ...more] = await messagesOf(ticket.id);
    expect(more).toEqual([]);
    expect(message).toMatchObject({ status: 'failed', interactiveType: 'engine_a/quickReply' });
    expect(message.error).toContain('session closed');
  });
});

describe('SendInteractive to a number (waba routes)', () => {
  it("opens a pending ticket on the integration's channel, then reuses it", async () => {
    const number = newNumber();
    const first = await wabaButtons(number);
    const second = await wabaButtons(number);

    expect(second.ticketId).toBe(first.ticketId);
    const ticket = await tickets.GetTicket({ tenantId, ticketId: first.ticketId });
    expect(ticket).toMatchObject({ channelId: waba, status: 'pending', contact: { number } });
    expect(provider.requests.map((r) => r.url)).toEqual(['/graph/1029384756/messages', '/graph/1029384756/messages']);
    expect(provider.requests[0].body).toMatchObject({ messaging_product: 'whatsapp', to: number, type: 'interactive' });
    expect((await messagesOf(first.ticketId)).map((m) => m.interactiveType)).toEqual(['waba/button', 'waba/button']);
  });

  it('sends on the pinned ticket of the contact', async () => {
    const ticket = await newTicket(waba);
    const res = await wabaButtons(ticket.contact!.number, { ticketId: ticket.id });
    expect(res.ticketId).toBe(ticket.id);
    expect(provider.requests).toHaveLength(1);
  });

  it("refuses a pinned ticket of another contact (NOT_FOUND) or a closed one (ERR_TICKET_CLOSED), sending nothing", async () => {
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
