import { startTestMesh, type TestMesh } from '@convo/test-support';
import { ticketsService } from '../src/spec';

// listTickets reads its listing rows (copies of the tickets, by hour); tickets written without them (an older version, or
// data loaded from outside) get them when the service starts.

let mesh: TestMesh;
beforeAll(async () => {
  mesh = await startTestMesh('ticket-rows-test');
});
afterAll(() => mesh?.stop());

it('lists tickets written without listing rows once the service starts, and follows later changes', async () => {
  const first = await mesh.start(ticketsService);
  const tenantId = 7001;
  const at = new Date('2026-01-02T03:04:05Z');
  await first.db.collection('tickets').insertOne({
    _id: 990_001 as never, tenantId, channelId: 3, contactId: 990_001, contact: { number: '5511900000001', name: 'Loaded', email: '' },
    status: 'open', userId: null, queueId: null, chatFlowId: null, kanbanId: null, reasonId: null, value: null, externalKey: '',
    botBuilderStatus: false, llmAssistantStatus: false, workflowStatus: false, tagIds: [], paused: false, pauseReason: null, pausedAt: null,
    evaluation: null, createdAt: at, updatedAt: at, closedAt: null,
  });
  expect((await first.client.ListTickets({ tenantId, page: 1 })).count).toBe(0);

  const restarted = await mesh.start(ticketsService);
  const page = await restarted.client.ListTickets({ tenantId, page: 1 });
  expect(page).toMatchObject({ count: 1, tickets: [{ id: 990_001, status: 'open', contact: { number: '5511900000001' } }] });

  await restarted.client.UpdateTicket({ tenantId, ticketId: 990_001, status: 'closed' });
  expect((await restarted.client.ListTickets({ tenantId, page: 1, status: 'open' })).count).toBe(0);
  expect((await restarted.client.ListTickets({ tenantId, page: 1, status: 'closed' })).tickets.map((t) => t.id)).toEqual([990_001]);
});
