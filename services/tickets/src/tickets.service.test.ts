import * as grpc from '@grpc/grpc-js';
import { closeAllClients, createClient, startService, type RunningService, type ServiceClient } from '@convo/kit';
import { startDatabase, type Database } from '@convo/dev-db';
import { ticketsService } from './server';

// ---- helpers -------------------------------------------------------------------------------

/** The rejection of a call that must fail. */
async function rpcError(call: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await call;
  } catch (err) {
    return err as grpc.ServiceError;
  }
  throw new Error('expected the call to fail, it succeeded');
}
const errCode = (err: grpc.ServiceError) => err.metadata.get('err-code')[0];
const errFields = (err: grpc.ServiceError): string[] => {
  const raw = err.metadata.get('err-details-bin')[0];
  return (JSON.parse(Buffer.from(raw as Buffer).toString('utf8')) as Array<{ field: string }>).map((d) => d.field);
};

// Every test works in a tenant of its own, so counts and contacts never mix between tests.
let lastTenant = 100;
const newTenantId = () => ++lastTenant;
let lastNumber = 0;
const newNumber = () => `55119${String(10_000_000 + ++lastNumber)}`;

// ---- setup ---------------------------------------------------------------------------------

let database: Database;
let svc: RunningService<unknown>;
let client: ServiceClient<'tickets'>;

beforeAll(async () => {
  database = await startDatabase({ name: 'tickets-test' });
  svc = await startService(ticketsService, {
    MONGODB_URI: database.uri,
    GRPC_PORT: '0',
    GRAPHQL_PORT: '0',
    SUPER_ADMIN_TOKEN: 'x'.repeat(24),
    LOG_LEVEL: 'silent',
  });
  client = createClient('tickets', `127.0.0.1:${svc.grpcPort}`);
});

afterAll(async () => {
  closeAllClients();
  await svc?.stop();
  await database?.stop();
});

const create = (tenantId: number, over: Record<string, unknown> = {}) =>
  client.CreateTicket({ tenantId, channelId: 7, number: newNumber(), ...over });
const newTicket = async (tenantId = newTenantId(), over: Record<string, unknown> = {}) =>
  (await create(tenantId, over)).ticket!;
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
    const full = await newTicket(newTenantId(), { userId: 3, queueId: 4, chatFlowId: 5, kanbanId: 6, reasonId: 8, value: 12.5 });
    expect(full).toMatchObject({ userId: 3, queueId: 4, chatFlowId: 5, kanbanId: 6, reasonId: 8, value: 12.5, closedAt: '' });

    const bare = await newTicket();
    for (const field of ['userId', 'queueId', 'chatFlowId', 'kanbanId', 'reasonId', 'value'] as const) {
      expect(bare[field]).toBeUndefined();
    }
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
    const ticket = await newTicket(newTenantId(), { queueId: 4 });
    expect((await update(ticket, { queueId: 9 })).queueId).toBe(9);

    const cleared = await update(ticket, { clearQueue: true });
    expect(cleared.queueId).toBeUndefined();
    expect((await client.GetTicket({ tenantId: ticket.tenantId, ticketId: ticket.id })).queueId).toBeUndefined();
  });

  it('leaves what the update does not mention unchanged', async () => {
    const ticket = await newTicket(newTenantId(), { queueId: 4, userId: 2, status: 'pending' });
    const updated = await update(ticket, { chatFlowId: 11 });
    expect(updated).toMatchObject({ queueId: 4, userId: 2, status: 'pending', chatFlowId: 11 });
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
