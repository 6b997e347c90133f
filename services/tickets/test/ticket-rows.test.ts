import { startTestMesh, type TestMesh } from '@convo/test-support';
import { ticketsService } from '../src/spec';

// listTickets reads its listing rows (copies of the tickets, by hour); tickets written without them (an older version, or
// data loaded from outside) get them when the service starts, unless there are only a few (see HEALING_GAP).

let mesh: TestMesh;
beforeAll(async () => {
  mesh = await startTestMesh('ticket-rows-test');
});
afterAll(() => mesh?.stop());

it('lists tickets written without listing rows once the service starts, and follows later changes', async () => {
  const first = await mesh.start(ticketsService);
  const tenantId = 7001;
  const at = new Date('2026-01-02T03:04:05Z');
  // More tickets than a start leaves to the writes to heal (a few a killed process left between a
  // ticket and its row): one listed below, and older ones beside it.
  const ticket = (id: number, updatedAt: Date) => ({
    _id: id as never,
    tenantId,
    channelId: 3,
    contactId: id,
    contact: { number: `55119${String(id).padStart(8, '0')}`, name: 'Loaded', email: '' },
    status: 'open',
    userId: null,
    queueId: null,
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
    createdAt: updatedAt,
    updatedAt,
    closedAt: null,
  });
  await first.db
    .collection('tickets')
    .insertMany([
      ticket(990_001, at),
      ...Array.from({ length: 59 }, (_, i) => ({ ...ticket(990_100 + i, new Date(at.getTime() - (i + 1) * 60_000)), status: 'closed' })),
    ]);
  expect((await first.client.ListTickets({ tenantId, page: 1 })).count).toBe(0);

  const restarted = await mesh.start(ticketsService);
  const page = await restarted.client.ListTickets({ tenantId, page: 1 });
  expect(page.count).toBe(60);
  expect(page.tickets[0]).toMatchObject({ id: 990_001, status: 'open', contact: { number: '5511900990001' } });
  expect((await restarted.client.ListTickets({ tenantId, page: 1, status: 'open' })).tickets.map((t) => t.id)).toEqual([990_001]);

  await restarted.client.UpdateTicket({ tenantId, ticketId: 990_001, status: 'closed' });
  expect((await restarted.client.ListTickets({ tenantId, page: 1, status: 'open' })).count).toBe(0);
  expect((await restarted.client.ListTickets({ tenantId, page: 1, status: 'closed' })).tickets[0].id).toBe(990_001);
});
