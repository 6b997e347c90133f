import type { Mesh } from '@convo/dev-mesh';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contactWrites, gql as gqlAt, newDashboardTenant, startDeliveryMesh, type DashboardTenant } from '../support/dashboard';
import { call, eventually, settled } from '../support/http';
import { CASES, idTakingRootFields, operation, outcome, type Ids } from '../support/isolation-cases';
import { startNetworkEngine, type NetworkEngine } from '../support/network-engine';

const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');

describe('tenant isolation of every id-taking root field, end to end', () => {
  let mesh: Mesh;
  let engine: NetworkEngine;
  const crashes: string[] = [];
  let a: DashboardTenant;
  let b: DashboardTenant;
  const ids: Record<'a' | 'b', Ids> = {} as never;

  const gql = (token: string, query: string, variables?: Record<string, unknown>) => gqlAt(mesh, token, query, variables);
  async function data(token: string, query: string, variables?: Record<string, unknown>) {
    const res = await gql(token, query, variables);
    if (res.body.errors) throw new Error(`${query}: ${JSON.stringify(res.body.errors)}`);
    return res.body.data;
  }

  /** Everything of a tenant the platform reads: it must be the same before and after B's ids were tried. */
  const snapshot = (tenantId: number) =>
    data(
      mesh.superAdminToken,
      `query($t: Int!) {
        tenant(id: $t) { maxUsers channels { id name status webhookUrl webhookEnabled updatedAt } integrations { apiId channelId userId } }
        tags(tenantId: $t) { id name } queues(tenantId: $t) { id name } kanbans(tenantId: $t) { id name } reasons(tenantId: $t) { id name }
        tickets(tenantId: $t) { totalCount nodes { id status userId queueId tagIds updatedAt } }
        webhookDeliveries(tenantId: $t) { id status attempts }
      }`,
      { t: tenantId },
    );

  beforeAll(async () => {
    engine = await startNetworkEngine();
    // Customer webhooks die at once (to a closed loopback port), so each tenant has a delivery to name.
    mesh = await startDeliveryMesh(startMesh, crashes);
    const hook = { webhookEnabled: true, webhookUrl: 'http://127.0.0.1:9/hook', webhookIncoming: true };
    a = await newDashboardTenant(mesh, 'Alpha', engine.url, hook);
    b = await newDashboardTenant(mesh, 'Beta', engine.url, hook);
    const admin = mesh.superAdminToken;
    for (const [t, key] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      const tag = (await data(admin, `mutation { createTag(tenantId: ${t.id}, name: "vip") { id } }`)).createTag.id;
      const queue = (await data(admin, `mutation { createQueue(tenantId: ${t.id}, name: "Sales") { id } }`)).createQueue.id;
      const kanban = (await data(admin, `mutation { saveKanban(tenantId: ${t.id}, name: "Leads") { id } }`)).saveKanban.id;
      const reason = (await data(admin, `mutation { saveReason(tenantId: ${t.id}, name: "Solved") { id } }`)).saveReason.id;
      const opened = await call(`${t.root}/createTicket`, {
        token: t.integrationToken,
        body: { number: `5511966${String(t.id).padStart(6, '0')}`, body: 'hello' },
      });
      expect(opened.status).toBe(200);
      await settled(t.root, t.integrationToken, opened.body.data.messageId);
      expect((await contactWrites(mesh, t, `5511955${String(t.id).padStart(6, '0')}`, `IN-${t.id}`, 'Oi')).status).toBe(200);
      const delivery = await eventually(`a dead webhook of ${t.id}`, async () => {
        const res = await gql(admin, 'query($t: Int!) { webhookDeliveries(tenantId: $t, status: dead) { id } }', { t: t.id });
        return res.body.data?.webhookDeliveries?.[0]?.id as string | undefined;
      });
      ids[key] = {
        tenant: t.id,
        user: t.adminUserId,
        ticket: opened.body.data.ticketId,
        queue,
        tag,
        channel: t.channelId,
        apiId: t.root.split('/').pop()!,
        message: opened.body.data.messageId,
        delivery,
        kanban,
        reason,
      };
    }
  }, 120_000);

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  it('has a two-tenant case for every id argument of every root field and mutation of the composed schema', () => {
    const fields = idTakingRootFields();
    expect(fields.size).toBeGreaterThan(20);
    const needed = [...fields].flatMap(([field, args]) => args.map((arg) => `${field}.${arg}`)).sort();
    const covered = Object.entries(CASES)
      .flatMap(([field, byArg]) => Object.keys(byArg).map((arg) => `${field}.${arg}`))
      .sort();
    expect({ missing: needed.filter((n) => !covered.includes(n)), stale: covered.filter((c) => !needed.includes(c)) }).toEqual({
      missing: [],
      stale: [],
    });
  });

  it("refuses tenant A's session every id of tenant B, or finds nothing, and changes nothing of either tenant", async () => {
    const before = { a: await snapshot(a.id), b: await snapshot(b.id) };
    const wrong: string[] = [];
    for (const [field, byArg] of Object.entries(CASES)) {
      for (const [arg, make] of Object.entries(byArg)) {
        const c = make(ids.a, ids.b);
        const res = await gql(a.session, operation(field, c));
        const got = outcome(field, res);
        const ok = c.expect === 'empty' ? got === 'empty' : c.expect.refused.some((code) => got === `refused ${code}`);
        if (!ok)
          wrong.push(
            `${field}(${arg}: B's): expected ${c.expect === 'empty' ? 'empty' : `refused ${c.expect.refused.join('|')}`}, got ${got}`,
          );
        if (got.startsWith('refused')) expect(res.body.data?.[field] ?? null).toBeNull();
      }
    }
    expect(wrong).toEqual([]);
    expect({ a: await snapshot(a.id), b: await snapshot(b.id) }).toEqual(before);
  });

  it("refuses assignTicket to another tenant's user or a user that exists nowhere, as REST updateticketinfo does", async () => {
    const assign = (userId: number) =>
      gql(a.session, 'mutation($t: Int!, $id: Int!, $u: Int!) { assignTicket(tenantId: $t, ticketId: $id, userId: $u) { id userId } }', {
        t: a.id,
        id: ids.a.ticket,
        u: userId,
      });
    for (const userId of [b.adminUserId, 2_000_000_000]) {
      const res = await assign(userId);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('ERR_USER_NOT_FOUND');
      const rest = await call(`${a.root}/updateticketinfo`, { token: a.integrationToken, body: { ticketId: ids.a.ticket, userId } });
      expect(rest.status).toBe(404);
      expect(rest.body.error).toBe('ERR_USER_NOT_FOUND');
    }
    const ticket = await data(a.session, `{ ticket(tenantId: ${a.id}, id: ${ids.a.ticket}) { userId } }`);
    expect(ticket.ticket.userId).toBeNull();
    // Its own administrator is taken.
    expect((await assign(a.adminUserId)).body.data.assignTicket).toEqual({ id: ids.a.ticket, userId: a.adminUserId });
  });

  describe('channel fields a tenant administrator may set', () => {
    let trap: Server;
    let trapUrl: string;
    let trapped = 0;
    const UPDATE =
      'mutation($t: Int!, $id: Int!, $c: ChannelChanges!) { updateChannel(tenantId: $t, channelId: $id, changes: $c) { id webhookUrl } }';

    beforeAll(async () => {
      // What a tenant would like the platform to call: a loopback server that records any request.
      trap = createServer((req, res) => {
        trapped++;
        req.resume();
        res.end('{}');
      });
      await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
      trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => trap.close(resolve)));

    it("refuses a tenant session the engine's URL and token (operator fields), so a send never reaches an address the tenant named", async () => {
      for (const changes of [
        { engineUrl: 'http://169.254.169.254/latest/meta-data' },
        { engineUrl: trapUrl },
        { engineToken: 'mine' },
        { engineUrl: trapUrl, name: 'x' },
      ]) {
        const res = await gql(a.session, UPDATE, { t: a.id, id: a.channelId, c: changes });
        expect(res.body.errors?.[0]?.extensions).toMatchObject({
          code: 'ERR_FORBIDDEN',
          details: expect.arrayContaining([expect.objectContaining({ field: Object.keys(changes)[0] })]),
        });
      }
      const created = await gql(
        a.session,
        'mutation($t: Int!, $c: NewChannel!) { createChannel(tenantId: $t, channel: $c) { authToken } }',
        {
          t: a.id,
          c: { name: 'Trap line', type: 'engine_a', engineUrl: trapUrl },
        },
      );
      expect(created.body.errors?.[0]?.extensions?.code).toBe('ERR_FORBIDDEN');
      expect((await data(mesh.superAdminToken, `{ tenant(id: ${a.id}) { channels { name } } }`)).tenant.channels).toEqual([
        { name: 'Alpha line' },
      ]);

      // A send on the channel goes to the operator's engine, and nothing reaches the tenant's address.
      const seen = engine.requests.length;
      const sent = await call(`${a.root}/createTicket`, {
        token: a.integrationToken,
        body: { number: '5511977000001', body: 'after the edits' },
      });
      expect(sent.status).toBe(200);
      expect(await settled(a.root, a.integrationToken, sent.body.data.messageId)).toMatchObject({ status: 'sent' });
      expect(engine.requests.length).toBeGreaterThan(seen);
      expect(trapped).toBe(0);
    });

    it('checks a webhook URL a tenant sets by the URL policy, with the codes REST answers', async () => {
      const target = 'http://169.254.169.254/hook';
      const res = await gql(a.session, UPDATE, { t: a.id, id: a.channelId, c: { webhookUrl: target } });
      expect(res.body.errors?.[0]?.extensions).toMatchObject({
        code: 'ERR_VALIDATION',
        details: [expect.objectContaining({ field: 'webhookUrl' })],
      });
      const rest = await call(`${mesh.gatewayUrl}/whatsapp/${a.channelId}`, {
        method: 'PUT',
        token: mesh.superAdminToken,
        body: { webhookUrl: target },
      });
      expect(rest.status).toBe(400);
      expect(rest.body).toMatchObject({ error: 'ERR_VALIDATION', details: [expect.objectContaining({ field: 'webhookUrl' })] });
      // A public target is the tenant's to set.
      const ok = await gql(a.session, UPDATE, { t: a.id, id: a.channelId, c: { webhookUrl: 'https://hooks.example.com/alpha' } });
      expect(ok.body.data.updateChannel).toEqual({ id: a.channelId, webhookUrl: 'https://hooks.example.com/alpha' });
    });

    it('lets the operator set the engine fields, on GraphQL as on PUT /whatsapp/{id}', async () => {
      const graph = await gql(mesh.superAdminToken, UPDATE, {
        t: b.id,
        id: b.channelId,
        c: { engineUrl: engine.url, engineToken: 'engine-secret' },
      });
      expect(graph.body.errors).toBeUndefined();
      const rest = await call(`${mesh.gatewayUrl}/whatsapp/${b.channelId}`, {
        method: 'PUT',
        token: mesh.superAdminToken,
        body: { engineUrl: engine.url },
      });
      expect(rest.status).toBe(200);
      // A tenant's session cannot reach PUT /whatsapp at all.
      const asTenant = await call(`${mesh.gatewayUrl}/whatsapp/${a.channelId}`, {
        method: 'PUT',
        token: a.session,
        body: { engineUrl: trapUrl },
      });
      expect(asTenant.status).toBeGreaterThanOrEqual(401);
      expect(asTenant.status).toBeLessThanOrEqual(403);
    });
  });
});
