import * as grpc from '@grpc/grpc-js';
import { closeAllClients, createClient, type proto, type ServiceClient } from '@convo/kit';
import { errCode, rpcError, startServiceForTest, type TestService } from '@convo/test-support';
import { ticketsService } from '../src/spec';

/**
 * GetTicketStream, as messaging calls it (a client that streams GetTicket: the kit's CallStream)
 * against the real service: each lookup answers as the unary GetTicket does, found, refused or
 * failing, with tenant isolation.
 */
let svc: TestService<'tickets'>;
let lookups: (request: proto.tickets.GetTicketRequest) => Promise<proto.tickets.Ticket__Output>;

beforeAll(async () => {
  svc = await startServiceForTest(ticketsService, { name: 'tickets-lookup-stream-test' });
  const streamed: ServiceClient<'tickets'> = createClient('tickets', svc.address, { caller: 'messaging', streamed: { GetTicket: true } });
  lookups = streamed.GetTicket;
});

afterAll(async () => {
  closeAllClients();
  await svc?.stop();
});

const open = async (tenantId: number, number: string) => (await svc.client.CreateTicket({ tenantId, channelId: 7, number })).ticket!;

it('answers each lookup with its own ticket, as the unary GetTicket does', async () => {
  const tickets = await Promise.all([open(901, '5511900000001'), open(901, '5511900000002'), open(902, '5511900000003')]);
  const found = await Promise.all(tickets.map((t) => lookups({ tenantId: t.tenantId, ticketId: t.id })));
  expect(found.map((t) => [t.id, t.contact?.number])).toEqual(tickets.map((t) => [t.id, t.contact?.number]));
  expect(found[0]).toEqual(await svc.client.GetTicket({ tenantId: 901, ticketId: tickets[0].id }));
});

it("answers another tenant's ticket NOT_FOUND, as if absent, with the unary call's error code", async () => {
  const ticket = await open(903, '5511900000004');
  const streamed = await rpcError(lookups({ tenantId: 904, ticketId: ticket.id }));
  const unary = await rpcError(svc.client.GetTicket({ tenantId: 904, ticketId: ticket.id }));
  expect(streamed.code).toBe(grpc.status.NOT_FOUND);
  expect([streamed.details, errCode(streamed)]).toEqual([unary.details, errCode(unary)]);
});

it('refuses an item without a request as INVALID_ARGUMENT, and goes on answering the others', async () => {
  const raw = svc.client.GetTicketStream();
  const outcomes: proto.tickets.GetTicketOutcome__Output[] = [];
  raw.on('data', (o: proto.tickets.GetTicketOutcome__Output) => outcomes.push(o));
  const ended = new Promise((resolve) => raw.on('end', resolve));
  const ticket = await open(905, '5511900000005');
  raw.write({ id: 7, traceparent: '', timeoutMs: 1_000 });
  raw.write({ id: 8, request: { tenantId: 905, ticketId: ticket.id } });
  raw.end();
  await ended;
  const byId = new Map(outcomes.map((o) => [o.id, o]));
  expect(byId.get(7)?.error).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, errorCode: 'ERR_VALIDATION' });
  expect(byId.get(8)?.response).toMatchObject({ id: ticket.id, tenantId: 905 });
});
