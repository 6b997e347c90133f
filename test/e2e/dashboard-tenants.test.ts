import type { Mesh } from '@convo/dev-mesh';
import { gql as gqlAt, newDashboardTenant, type DashboardTenant } from '../support/dashboard';
import { call, UNPACED } from '../support/http';

const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');

/** Tenants on the dashboard API, for two tenants: paging, usage, users, integrations and their admin actions. */
describe('dashboard tenants, end to end', () => {
  let mesh: Mesh;
  const crashes: string[] = [];
  let a: DashboardTenant;
  let b: DashboardTenant;
  let admin: string;

  const gql = (token: string, query: string, variables?: Record<string, unknown>) => gqlAt(mesh, token, query, variables);
  async function data(token: string, query: string, variables?: Record<string, unknown>) {
    const res = await gql(token, query, variables);
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  }

  beforeAll(async () => {
    mesh = await startMesh({
      freePorts: true,
      env: UNPACED,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
    });
    admin = mesh.superAdminToken;
    a = await newDashboardTenant(mesh, 'Alpha');
    b = await newDashboardTenant(mesh, 'Beta');
  });

  afterAll(async () => {
    await mesh?.stop();
  });

  afterEach(() => expect(crashes).toEqual([]));

  const DETAIL = `query($id: Int!) { tenant(id: $id) { id name usage { users maxUsers connections maxConnections }
    users { name email profile } integrations { apiId name channelId } channels { id name type status } } }`;

  it('the platform pages every tenant with cursors', async () => {
    const one = (await data(admin, '{ tenantConnection(first: 1) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } }'))
      .tenantConnection;
    expect(one.totalCount).toBeGreaterThanOrEqual(2);
    expect(one.pageInfo.hasNextPage).toBe(true);
    // The rest, page after page: the shared mesh holds the other test files' tenants too.
    const rest: { id: number }[] = [];
    for (let after = one.pageInfo.endCursor, more = true; more;) {
      const page = (
        await data(admin, `{ tenantConnection(first: 100, after: "${after}") { pageInfo { hasNextPage endCursor } nodes { id } } }`)
      ).tenantConnection;
      rest.push(...page.nodes);
      [after, more] = [page.pageInfo.endCursor, page.pageInfo.hasNextPage && rest.length < one.totalCount];
    }
    expect([...one.nodes, ...rest].map((n) => n.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(rest.map((n) => n.id)).not.toContain(one.nodes[0].id);
  });

  it('a tenant session sees its own usage, users, channels and integrations, without any token', async () => {
    const res = await gql(a.session, DETAIL, { id: a.id });
    expect(res.body.errors).toBeUndefined();
    const t = res.body.data.tenant;
    expect(t.usage).toEqual({ users: 1, maxUsers: 5, connections: 1, maxConnections: 5 });
    expect(t.users).toEqual([{ name: 'Ana', email: a.email, profile: 'admin' }]);
    expect(t.channels).toEqual([{ id: a.channelId, name: 'Alpha line', type: 'engine_a', status: expect.any(String) }]);
    expect(t.integrations).toHaveLength(1);
    expect(JSON.stringify(res.body)).not.toContain(a.integrationToken);
    expect((await gql(a.session, DETAIL, { id: b.id })).body.errors[0].extensions.code).toBe('ERR_FORBIDDEN');
  });

  it('creates an integration whose token works on the external API, then revokes it', async () => {
    const created = (
      await data(
        a.session,
        `mutation { createIntegration(tenantId: ${a.id}, channelId: ${a.channelId}, name: "crm") { authToken integration { apiId name channelId } } }`,
      )
    ).createIntegration;
    expect(created.integration).toMatchObject({ name: 'crm', channelId: a.channelId });
    const root = `${mesh.gatewayUrl}/v2/api/external/${created.integration.apiId}`;
    expect((await call(`${root}/listTags`, { token: created.authToken })).status).toBe(200);
    expect(
      (await data(a.session, `mutation { revokeIntegration(tenantId: ${a.id}, apiId: "${created.integration.apiId}") }`)).revokeIntegration,
    ).toBe(true);
    expect((await call(`${root}/listTags`, { token: created.authToken })).status).toBe(401);
  });

  it("cannot create on, or revoke, the other tenant's channel or integration", async () => {
    const onTheirChannel = await gql(
      a.session,
      `mutation { createIntegration(tenantId: ${a.id}, channelId: ${b.channelId}, name: "x") { authToken } }`,
    );
    expect(onTheirChannel.body.errors[0].extensions.code).toBe('ERR_CHANNEL_NOT_FOUND');
    const theirApi = (await data(admin, `{ tenant(id: ${b.id}) { integrations { apiId } } }`)).tenant.integrations[0].apiId;
    const revoke = await gql(a.session, `mutation { revokeIntegration(tenantId: ${a.id}, apiId: "${theirApi}") }`);
    expect(revoke.body.errors[0].extensions.code).toBe('ERR_API_NOT_FOUND');
    expect(
      (await gql(a.session, `mutation { revokeIntegration(tenantId: ${b.id}, apiId: "${theirApi}") }`)).body.errors[0].extensions.code,
    ).toBe('ERR_FORBIDDEN');
    expect((await call(`${b.root}/listTags`, { token: b.integrationToken })).status).toBe(200);
  });

  it('only the platform updates a tenant, through the same rules as tenantApiUpdateTenant', async () => {
    const mine = await gql(a.session, `mutation { updateTenant(id: ${a.id}, maxUsers: 99) { maxUsers } }`);
    expect(mine.body.errors[0].extensions.code).toBe('ERR_FORBIDDEN');
    const updated = await data(admin, `mutation { updateTenant(id: ${b.id}, maxConnections: 7) { id maxConnections } }`);
    expect(updated.updateTenant).toEqual({ id: b.id, maxConnections: 7 });
    const bad = await gql(admin, `mutation { updateTenant(id: ${b.id}, status: "sleeping") { id } }`);
    expect(bad.body.errors[0].extensions.code).toBe('ERR_VALIDATION');
    expect((await data(admin, `{ tenant(id: ${a.id}) { maxUsers maxConnections } }`)).tenant).toEqual({ maxUsers: 5, maxConnections: 5 });
  });

  it('creates a channel with its integration and edits it, through the rules of tenantApiCreateSession and PUT /whatsapp', async () => {
    const created = await data(
      a.session,
      `mutation($t: Int!, $c: NewChannel!) { createChannel(tenantId: $t, channel: $c) { authToken channel { id tenantId name type status webhookEnabled } integration { apiId channelId } } }`,
      // No engine URL or token: those are the operator's (ENGINE_URL serves the channel meanwhile).
      { t: a.id, c: { name: 'Alpha second line', type: 'engine_a' } },
    );
    const { channel, integration, authToken } = created.createChannel;
    expect(channel).toMatchObject({ tenantId: a.id, name: 'Alpha second line', type: 'engine_a' });
    expect(integration.channelId).toBe(channel.id);
    // The integration's token works on the external API, on the new channel.
    const tickets = await call(`${mesh.gatewayUrl}/v2/api/external/${integration.apiId}/listTickets`, { token: authToken });
    expect(tickets.status).toBe(200);

    const edited = await data(
      a.session,
      `mutation($t: Int!, $id: Int!, $c: ChannelChanges!) { updateChannel(tenantId: $t, channelId: $id, changes: $c) { id name webhookEnabled webhookIncoming webhookUrl } }`,
      {
        t: a.id,
        id: channel.id,
        c: { name: 'Alpha renamed', webhookEnabled: true, webhookUrl: 'https://hooks.example.com/alpha', webhookIncoming: true },
      },
    );
    expect(edited.updateChannel).toEqual({
      id: channel.id,
      name: 'Alpha renamed',
      webhookEnabled: true,
      webhookIncoming: true,
      webhookUrl: 'https://hooks.example.com/alpha',
    });

    // The same rules: an unknown kind, an empty name, a private webhook target.
    const invalid = await gql(a.session, `mutation($t: Int!, $c: NewChannel!) { createChannel(tenantId: $t, channel: $c) { authToken } }`, {
      t: a.id,
      c: { name: 'x', type: 'telegraph' },
    });
    expect(invalid.body.errors[0].extensions.code).toBe('ERR_VALIDATION');
    const empty = await gql(
      a.session,
      `mutation($t: Int!, $id: Int!) { updateChannel(tenantId: $t, channelId: $id, changes: { name: " " }) { id } }`,
      { t: a.id, id: channel.id },
    );
    expect(empty.body.errors[0].extensions.code).toBe('ERR_VALIDATION');
    const privateTarget = await gql(
      a.session,
      `mutation($t: Int!, $id: Int!) { updateChannel(tenantId: $t, channelId: $id, changes: { webhookUrl: "http://10.0.0.1/hook" }) { id } }`,
      { t: a.id, id: channel.id },
    );
    expect(privateTarget.body.errors[0].extensions.code).toBe('ERR_VALIDATION');

    // Not on the other tenant: its channel is not found, and its tenant id is refused.
    const theirs = await gql(
      a.session,
      `mutation($t: Int!, $id: Int!) { updateChannel(tenantId: $t, channelId: $id, changes: { name: "mine" }) { id } }`,
      { t: a.id, id: b.channelId },
    );
    expect(theirs.body.errors[0].extensions.code).toBe('ERR_CHANNEL_NOT_FOUND');
    for (const q of [
      [
        `mutation($t: Int!, $c: NewChannel!) { createChannel(tenantId: $t, channel: $c) { authToken } }`,
        { t: b.id, c: { name: 'intruder', type: 'engine_a' } },
      ],
      [
        `mutation($t: Int!, $id: Int!) { updateChannel(tenantId: $t, channelId: $id, changes: { name: "mine" }) { id } }`,
        { t: b.id, id: b.channelId },
      ],
    ] as const) {
      expect((await gql(a.session, q[0], q[1])).body.errors[0].extensions.code).toBe('ERR_FORBIDDEN');
    }
    const beta = await data(admin, `query($id: Int!) { tenant(id: $id) { channels { name } } }`, { id: b.id });
    expect(beta.tenant.channels.map((c: { name: string }) => c.name)).toEqual(['Beta line']);
  });

  it("rotates its own channel's webhook secret, and no other tenant's", async () => {
    const rotate = (token: string, tenantId: number, channelId: number) =>
      gql(token, `mutation { rotateWebhookSecret(tenantId: ${tenantId}, channelId: ${channelId}) }`);
    const first = (await rotate(a.session, a.id, a.channelId)).body.data.rotateWebhookSecret;
    const second = (await rotate(a.session, a.id, a.channelId)).body.data.rotateWebhookSecret;
    expect(first).toMatch(/^whsec_/);
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect((await rotate(a.session, a.id, b.channelId)).body.errors[0].extensions.code).toBe('ERR_CHANNEL_NOT_FOUND');
    expect((await rotate(a.session, b.id, b.channelId)).body.errors[0].extensions.code).toBe('ERR_FORBIDDEN');
    expect((await rotate(admin, b.id, b.channelId)).body.data.rotateWebhookSecret).toMatch(/^whsec_/);
  });
});
