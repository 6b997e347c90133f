import type { Mesh } from '@convo/dev-mesh';
import { gql as gqlAt, newDashboardTenant, type DashboardTenant } from '../support/dashboard';
import { call, settled, UNPACED } from '../support/http';
import { startNetworkEngine, type NetworkEngine } from '../support/network-engine';

const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');

/**
 * The dashboard's tickets over GraphQL through the gateway, for two tenants: each administrator's
 * session lists, counts and acts on its own tickets only; the super-admin token on both.
 */
describe('dashboard tickets, end to end', () => {
  let mesh: Mesh;
  let engine: NetworkEngine;
  const crashes: string[] = [];
  let a: DashboardTenant;
  let b: DashboardTenant;
  let lastNumber = 0;
  const ids: Record<string, number> = {};

  const gql = (token: string, query: string, variables?: Record<string, unknown>) => gqlAt(mesh, token, query, variables);
  async function data(token: string, query: string, variables?: Record<string, unknown>) {
    const res = await gql(token, query, variables);
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  }
  async function open(t: DashboardTenant, body: string) {
    const number = `55119${String(50_000_000 + ++lastNumber)}`;
    const res = await call(`${t.root}/createTicket`, { token: t.integrationToken, body: { number, body } });
    expect(res.status).toBe(200);
    await settled(t.root, t.integrationToken, res.body.data.messageId);
    return { ticketId: res.body.data.ticketId as number, number };
  }

  const LIST = `query($t: Int!, $status: TicketStatus, $queueId: Int, $tagId: Int, $channelId: Int, $search: String, $userId: Int, $first: Int, $after: String) {
    tickets(tenantId: $t, status: $status, queueId: $queueId, tagId: $tagId, channelId: $channelId, search: $search, userId: $userId, first: $first, after: $after) {
      totalCount pageInfo { hasNextPage endCursor } nodes { id status tenantId }
    } }`;

  beforeAll(async () => {
    engine = await startNetworkEngine();
    mesh = await startMesh({
      freePorts: true,
      env: UNPACED,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
    });
    a = await newDashboardTenant(mesh, 'Alpha', engine.url);
    b = await newDashboardTenant(mesh, 'Beta', engine.url);
    const admin = mesh.superAdminToken;
    for (const [t, key] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      ids[`${key}Tag`] = (await data(admin, `mutation { createTag(tenantId: ${t.id}, name: "vip") { id } }`)).createTag.id;
      ids[`${key}Queue`] = (await data(admin, `mutation { createQueue(tenantId: ${t.id}, name: "Sales") { id } }`)).createQueue.id;
    }
    ids.a1 = (await open(a, 'first of alpha')).ticketId;
    ids.a2 = (await open(a, 'second of alpha')).ticketId;
    const third = await open(a, 'third of alpha');
    ids.a3 = third.ticketId;
    ids.a3Number = Number(third.number);
    ids.b1 = (await open(b, 'first of beta')).ticketId;
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  it("pages a tenant's tickets with cursors, newest activity first, only its own", async () => {
    const one = (await data(a.session, LIST, { t: a.id, first: 2 })).tickets;
    expect(one.totalCount).toBe(3);
    expect(one.nodes.map((n: { id: number }) => n.id)).toEqual([ids.a3, ids.a2]);
    expect(one.pageInfo.hasNextPage).toBe(true);
    const two = (await data(a.session, LIST, { t: a.id, first: 2, after: one.pageInfo.endCursor })).tickets;
    expect(two.nodes.map((n: { id: number }) => n.id)).toEqual([ids.a1]);
    expect(two.pageInfo.hasNextPage).toBe(false);
    const theirs = (await data(b.session, LIST, { t: b.id })).tickets;
    expect(theirs.nodes.map((n: { id: number }) => n.id)).toEqual([ids.b1]);
  });

  it('acts on its own tickets through the domain rules: close, reopen, move, tag, untag; filters follow', async () => {
    const t = a.id;
    expect((await data(a.session, `{ ticket(tenantId: ${t}, id: ${ids.a1}) { closedAt } }`)).ticket.closedAt).toBeNull();
    const before = Date.now();
    const closed = await data(a.session, `mutation { closeTicket(tenantId: ${t}, ticketId: ${ids.a1}) { id status closedAt } }`);
    expect(closed.closeTicket).toMatchObject({ id: ids.a1, status: 'closed' });
    expect(Date.parse(closed.closeTicket.closedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect((await data(a.session, LIST, { t, status: 'closed' })).tickets.nodes.map((n: { id: number }) => n.id)).toEqual([ids.a1]);
    // A reopen clears closedAt (the field's description says so).
    expect(
      (await data(a.session, `mutation { reopenTicket(tenantId: ${t}, ticketId: ${ids.a1}) { status closedAt } }`)).reopenTicket,
    ).toEqual({ status: 'open', closedAt: null });

    // A user of the tenant (its administrator); another tenant's or nobody's is refused (dashboard-isolation.test.ts).
    const assigned = await data(
      a.session,
      `mutation { assignTicket(tenantId: ${t}, ticketId: ${ids.a2}, userId: ${a.adminUserId}) { userId } }`,
    );
    expect(assigned.assignTicket.userId).toBe(a.adminUserId);
    expect((await data(a.session, LIST, { t, userId: a.adminUserId })).tickets.nodes.map((n: { id: number }) => n.id)).toEqual([ids.a2]);

    const moved = await data(a.session, `mutation { moveTicket(tenantId: ${t}, ticketId: ${ids.a2}, queueId: ${ids.aQueue}) { queueId } }`);
    expect(moved.moveTicket.queueId).toBe(ids.aQueue);
    expect((await data(a.session, LIST, { t, queueId: ids.aQueue })).tickets.nodes.map((n: { id: number }) => n.id)).toEqual([ids.a2]);

    const tagged = await data(
      a.session,
      `mutation { addTicketTags(tenantId: ${t}, ticketId: ${ids.a3}, tagIds: [${ids.aTag}]) { tagIds } }`,
    );
    expect(tagged.addTicketTags.tagIds).toEqual([ids.aTag]);
    expect((await data(a.session, LIST, { t, tagId: ids.aTag })).tickets.nodes.map((n: { id: number }) => n.id)).toEqual([ids.a3]);
    await data(a.session, `mutation { removeTicketTag(tenantId: ${t}, ticketId: ${ids.a3}, tagId: ${ids.aTag}) { tagIds } }`);
    expect((await data(a.session, LIST, { t, tagId: ids.aTag })).tickets.totalCount).toBe(0);

    expect(
      (await data(a.session, LIST, { t, search: String(ids.a3Number).slice(-8) })).tickets.nodes.map((n: { id: number }) => n.id),
    ).toEqual([ids.a3]);
    expect((await data(a.session, LIST, { t, channelId: a.channelId })).tickets.totalCount).toBe(3);
  });

  it('counts by status, queue and channel', async () => {
    const { ticketCounts } = await data(
      a.session,
      `{ ticketCounts(tenantId: ${a.id}) { byStatus { key count } byQueue { key count } byChannel { key count } } }`,
    );
    expect(ticketCounts.byChannel).toEqual([{ key: String(a.channelId), count: 3 }]);
    expect(ticketCounts.byStatus.reduce((s: number, c: { count: number }) => s + c.count, 0)).toBe(3);
    expect(ticketCounts.byQueue).toContainEqual({ key: String(ids.aQueue), count: 1 });
  });

  it('joins a ticket with its contact, messages and channel across subgraphs', async () => {
    const { ticket } = await data(
      a.session,
      `{ ticket(tenantId: ${a.id}, id: ${ids.a3}) { id contact { number } messages { body direction status } channel { id name type status } } }`,
    );
    expect(ticket.contact.number).toBe(String(ids.a3Number));
    expect(ticket.messages).toContainEqual({
      body: 'third of alpha',
      direction: 'out',
      status: expect.stringMatching(/^(sent|delivered|read)$/),
    });
    expect(ticket.channel).toEqual({
      id: a.channelId,
      name: 'Alpha line',
      type: 'engine_a',
      status: expect.stringMatching(/^(DISCONNECTED|CONNECTED)$/),
    });
  });

  it("reads a ticket's conversation as a connection, and its notes", async () => {
    const note = await call(`${a.root}/createNotes`, { token: a.integrationToken, body: { ticketId: ids.a2, notes: 'Called back' } });
    expect(note.status).toBe(200);
    const q = `query($t: Int!, $id: Int!, $after: String) { ticket(tenantId: $t, id: $id) {
      notes { notes } messagePage(first: 1, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { body } } } }`;
    const one = (await data(a.session, q, { t: a.id, id: ids.a2 })).ticket;
    expect(one.notes).toEqual([{ notes: 'Called back' }]);
    expect(one.messagePage).toMatchObject({ totalCount: 1, pageInfo: { hasNextPage: false }, nodes: [{ body: 'second of alpha' }] });
    const past = (await data(a.session, q, { t: a.id, id: ids.a2, after: one.messagePage.pageInfo.endCursor })).ticket;
    expect(past.messagePage.nodes).toEqual([]);
  });

  it("cannot list, count or change the other tenant's tickets, by tenant id or by ticket id", async () => {
    for (const q of [
      `{ tickets(tenantId: ${b.id}) { totalCount } }`,
      `{ ticketCounts(tenantId: ${b.id}) { byStatus { count } } }`,
      `mutation { closeTicket(tenantId: ${b.id}, ticketId: ${ids.b1}) { id } }`,
      `mutation { assignTicket(tenantId: ${b.id}, ticketId: ${ids.b1}, userId: 1) { id } }`,
      `mutation { addTicketTags(tenantId: ${b.id}, ticketId: ${ids.b1}, tagIds: [${ids.bTag}]) { id } }`,
    ]) {
      const res = await gql(a.session, q);
      expect(res.body.errors[0].extensions.code).toBe('ERR_FORBIDDEN');
    }
    for (const [q, code] of [
      [`mutation { closeTicket(tenantId: ${a.id}, ticketId: ${ids.b1}) { id } }`, 'ERR_TICKET_NOT_FOUND'],
      [`mutation { assignTicket(tenantId: ${a.id}, ticketId: ${ids.b1}, userId: 1) { id } }`, 'ERR_TICKET_NOT_FOUND'],
      [`mutation { moveTicket(tenantId: ${a.id}, ticketId: ${ids.a1}, queueId: ${ids.bQueue}) { id } }`, 'ERR_QUEUE_NOT_FOUND'],
      [`mutation { addTicketTags(tenantId: ${a.id}, ticketId: ${ids.a1}, tagIds: [${ids.bTag}]) { id } }`, 'ERR_TAG_NOT_FOUND'],
    ] as const) {
      const res = await gql(a.session, q);
      expect(res.body.errors[0].extensions.code).toBe(code);
    }
    expect((await data(a.session, `{ ticket(tenantId: ${a.id}, id: ${ids.b1}) { id } }`)).ticket).toBeNull();
    // The platform sees and acts on both; Beta's ticket was left as it was.
    const theirs = await data(mesh.superAdminToken, `{ ticket(tenantId: ${b.id}, id: ${ids.b1}) { status tagIds queueId } }`);
    expect(theirs.ticket).toEqual({ status: 'open', tagIds: [], queueId: null });
  });

  it('refuses a page larger than 100, a forged cursor and a status outside TicketStatus with ERR_VALIDATION', async () => {
    for (const v of [{ first: 101 }, { after: 'bm9wZQ' }, { status: 'archived' }]) {
      const res = await gql(a.session, LIST, { t: a.id, ...v });
      expect(res.body.errors[0].extensions.code).toBe('ERR_VALIDATION');
    }
  });
});
