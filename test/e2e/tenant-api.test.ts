import type { Mesh } from '@convo/dev-mesh';
import { randomBytes, randomUUID } from 'node:crypto';
import { serviceAddresses, startGatewayReplica, type GatewayReplica } from '../support/gateway-replica';
import { call, type Reply } from '../support/http';

const { startMesh, freePort } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const SECRETS = {
  gateway_a: 'whsec-a-1234567890',
  gateway_b: 'whsec-b-1234567890',
  gateway_c: 'whsec-c-1234567890',
  gateway_d: 'whsec-d-1234567890',
};

/**
 * The tenant administration API through the REST facade of the real mesh: every process on its
 * own, the token cache on (60 s), and a second gateway process as another replica.
 */
describe('tenant API, end to end', () => {
  let mesh: Mesh;
  let replica: GatewayReplica;
  let admin: string;
  let B: string;
  const crashes: string[] = [];
  const addresses = serviceAddresses();

  beforeAll(async () => {
    const env = {
      TOKEN_CACHE_MS: '60000',
      SEED_DEV_PLANS: 'true',
      LOG_LEVEL: 'info',
      ...Object.fromEntries(Object.entries(SECRETS).map(([gw, s]) => [`PAYMENT_WEBHOOK_SECRET_${gw.toUpperCase()}`, s])),
    };
    mesh = await startMesh({ freePorts: true, env, onLine: addresses.onLine, onCrash: (part, code) => crashes.push(`${part}:${code}`) });
    admin = mesh.superAdminToken;
    B = mesh.gatewayUrl;
    replica = await startGatewayReplica(await freePort(), {
      ...addresses.env,
      SUPER_ADMIN_TOKEN: admin,
      SUBGRAPH_TOKEN: mesh.env.SUBGRAPH_TOKEN,
      TOKEN_CACHE_MS: '60000',
    });
  });

  afterAll(async () => {
    await Promise.all([replica?.stop(), mesh?.stop()]);
  });

  afterEach(() => expect(crashes).toEqual([]));

  const as = (path: string, body?: unknown, method?: string) => call(`${B}${path}`, { token: admin, body, method });
  const ok = (res: Reply) => {
    expect(res.body).toMatchObject({ success: true });
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const failed = (res: Reply, status: number, error: string) => {
    expect({ status: res.status, body: res.body }).toEqual({
      status,
      body: { success: false, error, message: expect.any(String), ...(res.body?.details ? { details: expect.any(Array) } : {}) },
    });
  };

  const tenantPayload = (over: Record<string, unknown> = {}) => ({
    status: 'active',
    name: 'Acme Ltda',
    maxUsers: 10,
    maxConnections: 5,
    acceptTerms: true,
    email: `admin-${randomUUID()}@acme.example`,
    password: 'S3cure!pass',
    userName: 'Ana Admin',
    profile: 'admin',
    identity: String(Date.now()) + String(Math.floor(Math.random() * 1e4)).padStart(4, '0'),
    ...over,
  });
  const newTenant = async (over: Record<string, unknown> = {}) => ok(await as('/tenantApiStoreTenant', tenantPayload(over)));
  const newSession = async (tenant: number, over: Record<string, unknown> = {}) =>
    ok(await as('/tenantApiCreateSession', { tenant, name: 'Line', type: 'engine_a', ...over }));
  const wabaFields = { type: 'waba', tokenAPI: '5511999990000', wabaId: 'waba-1', bmToken: 'bm-secret-token' };
  const external = (base: string, apiId: string, token: string) =>
    call(`${base}/v2/api/external/${apiId}/showTicketById`, { token, body: { ticketId: 999_999 } });

  // ---- authentication ----------------------------------------------------------------------

  it('answers 401 without a token and 403 to an integration token on every tenant endpoint and PUT /whatsapp', async () => {
    const { tenant } = await newTenant();
    const { api } = await newSession(tenant.id);
    const endpoints: Array<[string, string]> = [
      ['GET', '/tenantApiListTenants'],
      ['POST', '/tenantApiShowTenant'],
      ['POST', '/tenantApiStoreTenant'],
      ['POST', '/tenantApiUpdateTenant'],
      ['POST', '/tenantApiCreateSession'],
      ['POST', '/tenantCreateApi'],
      ['POST', '/tenantDeleteApi'],
      ['PUT', '/whatsapp/1'],
    ];
    for (const [method, path] of endpoints) {
      const body = method === 'GET' ? undefined : {};
      failed(await call(`${B}${path}`, { method, body }), 401, 'ERR_UNAUTHORIZED');
      failed(await call(`${B}${path}`, { method, body, token: api.authToken }), 403, 'ERR_FORBIDDEN');
    }
  });

  // ---- tenants -----------------------------------------------------------------------------

  it('lists tenants by page, status and name', async () => {
    const tag = `Listed ${randomUUID().slice(0, 6)}`;
    for (const status of ['active', 'inactive', 'active']) await newTenant({ name: `${tag} Co`, status });

    const page = ok(await as(`/tenantApiListTenants?name=${encodeURIComponent(tag.toLowerCase())}&limit=2`));
    expect(page).toMatchObject({ page: 1, limit: 2, total: 3, hasMore: true });
    expect(page.tenants).toHaveLength(2);
    expect(page.tenants[0]).toMatchObject({ name: `${tag} Co`, gateway_a: 'disabled', allowedChannels: [] });
    const inactive = ok(await as(`/tenantApiListTenants?name=${encodeURIComponent(tag)}&status=inactive`));
    expect(inactive).toMatchObject({ total: 1, hasMore: false, page: 1, limit: 20 });

    const bad = await as('/tenantApiListTenants?limit=101&status=gone');
    failed(bad, 400, 'ERR_VALIDATION');
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['limit', 'status']);
  });

  it('updates every optional field of a tenant by identity, masking secrets', async () => {
    const { tenant } = await newTenant({
      paymentGateway: 'gateway_a',
      gateway_aCustomerId: 'cus-a',
      gateway_aToken: 'tok-a-0000000000',
      gateway_a: 'enabled',
    });
    expect(tenant).toMatchObject({ paymentGateway: 'gateway_a', gateway_a: 'enabled', gateway_aToken: '****0000' });
    const gatewayToken = `gw-b-${randomBytes(8).toString('hex')}`;
    const proxySecret = `proxy-${randomBytes(8).toString('hex')}`;

    const updated = ok(
      await as('/tenantApiUpdateTenant', {
        identity: tenant.identity,
        status: 'active',
        maxUsers: 20,
        maxConnections: 8,
        paymentGateway: 'gateway_b',
        gateway_bCustomerId: `cus-${randomUUID()}`,
        gateway_bToken: gatewayToken,
        supportChatEnabled: 'enabled',
        menuVisibility: ['Kanban', 'Api'],
        allowedChannels: ['waba', 'engine_a'],
        channelConnectionLimits: { waba_oauth: 4, waba: 1, engine_a: 0 },
        oauthEnabled: true,
        oauthProxyUrl: 'https://oauth.example/proxy',
        social_aWebhookProxyUrl: 'https://proxy.example/a',
        social_aWebhookProxySecret: proxySecret,
      }),
    );
    expect(updated).toMatchObject({
      maxUsers: 20,
      maxConnections: 8,
      paymentGateway: 'gateway_b',
      gateway_a: 'disabled',
      paymentStatus: 'pending',
      gateway_bToken: `****${gatewayToken.slice(-4)}`,
      supportChatEnabled: 'enabled',
      menuVisibility: ['Kanban', 'Api'],
      allowedChannels: ['waba', 'engine_a'],
      channelConnectionLimits: { waba: 1, engine_a: 0 },
      oauthEnabled: true,
      oauthProxyUrl: 'https://oauth.example/proxy',
      social_aWebhookProxyUrl: 'https://proxy.example/a',
      social_aWebhookProxySecret: `****${proxySecret.slice(-4)}`,
      social_bWebhookProxySecret: null,
    });
    const shown = ok(await as('/tenantApiShowTenant', { id: tenant.id }));
    expect(shown).toEqual(updated);
    expect(JSON.stringify(shown)).not.toMatch(new RegExp(`${gatewayToken}|${proxySecret}`));

    const cleared = ok(await as('/tenantApiUpdateTenant', { identity: tenant.identity, paymentGateway: 'none' }));
    expect(cleared).toMatchObject({ paymentGateway: null, gateway_a: 'disabled', paymentStatus: null });
  });

  it('answers update errors in the envelope: unknown identity 404, bad enum values 400 naming them', async () => {
    failed(await as('/tenantApiUpdateTenant', { identity: '00000000000000', status: 'inactive' }), 404, 'ERR_TENANT_NOT_FOUND');
    const { tenant } = await newTenant();
    const bad = await as('/tenantApiUpdateTenant', {
      identity: tenant.identity,
      menuVisibility: ['Kanban', 'Arcade'],
      channelConnectionLimits: { fax: 1 },
    });
    failed(bad, 400, 'ERR_VALIDATION');
    expect(bad.body.details).toEqual([
      { field: 'menuVisibility[1]', message: expect.stringContaining('"Arcade"') },
      { field: 'channelConnectionLimits.fax', message: expect.stringContaining('"fax"') },
    ]);
    failed(await as('/tenantApiStoreTenant', tenantPayload({ identity: tenant.identity })), 409, 'ERR_IDENTITY_IN_USE');
  });

  it('seeds the development plan (SEED_DEV_PLANS) and applies its limits', async () => {
    const plans = await call(mesh.graphqlUrl, { token: admin, body: { query: '{ plans { id name maxConnections allowedChannels } }' } });
    const dev = plans.body.data.plans.find((p: { name: string }) => p.name === 'Development');
    expect(dev).toMatchObject({ maxConnections: 10, allowedChannels: [] });
    const { tenant } = await newTenant({ planId: dev.id, maxConnections: 1 });
    expect(tenant).toMatchObject({ planId: dev.id, maxConnections: 10 });
  });

  // ---- channels ----------------------------------------------------------------------------

  it('enforces tenant status, allowedChannels, maxConnections and channelConnectionLimits', async () => {
    const inactive = (await newTenant({ status: 'inactive' })).tenant;
    failed(await as('/tenantApiCreateSession', { tenant: inactive.id, name: 'x', type: 'engine_a' }), 409, 'ERR_TENANT_INACTIVE');

    const { tenant } = await newTenant({ maxConnections: 3 });
    await as('/tenantApiUpdateTenant', {
      identity: tenant.identity,
      allowedChannels: ['engine_a', 'engine_b', 'waba'],
      channelConnectionLimits: { engine_a: 1 },
    });
    const notAllowed = await as('/tenantApiCreateSession', { tenant: tenant.id, name: 'x', type: 'engine_c' });
    failed(notAllowed, 400, 'ERR_CHANNEL_TYPE_NOT_ALLOWED');
    expect(notAllowed.body.details).toEqual([{ field: 'type', message: expect.stringContaining('engine_c') }]);

    await newSession(tenant.id, { type: 'whatsapp' });
    failed(await as('/tenantApiCreateSession', { tenant: tenant.id, name: 'x', type: 'engine_a' }), 409, 'ERR_CONNECTION_LIMIT');
    await newSession(tenant.id, { type: 'engine_b' });
    await newSession(tenant.id, { type: 'engine_b' });
    failed(await as('/tenantApiCreateSession', { tenant: tenant.id, name: 'x', type: 'engine_b' }), 409, 'ERR_CONNECTION_LIMIT');
  });

  it('links channels one to one, reports link errors in data.hybrid, and still creates the channel', async () => {
    const { tenant } = await newTenant({ maxConnections: 0 });
    const engine = await newSession(tenant.id);
    expect(engine).not.toHaveProperty('hybrid');

    const linked = await newSession(tenant.id, { ...wabaFields, hybridMode: 'coexistence', linkedChannelId: engine.whatsapp.id });
    expect(linked.hybrid).toEqual({
      applied: true,
      whatsappId: linked.whatsapp.id,
      hybridMode: 'coexistence',
      linkedChannelId: engine.whatsapp.id,
    });
    expect(linked.whatsapp).toMatchObject({ hybridMode: 'coexistence', linkedChannelId: engine.whatsapp.id });
    expect(linked.whatsapp).not.toHaveProperty('bmToken');

    const invalid = await newSession(tenant.id, { ...wabaFields, linkedChannelId: 'abc' });
    expect(invalid.hybrid).toEqual({ applied: false, error: 'ERR_HYBRID_INVALID_ID_LINKED_CHANNEL' });
    expect(invalid.api.authToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const inUse = await newSession(tenant.id, { ...wabaFields, linkedChannelId: engine.whatsapp.id });
    expect(inUse.hybrid).toEqual({ applied: false, error: 'ERR_HYBRID_LINKED_IN_USE' });
  });

  it('lets exactly one of 10 concurrent creates take the same transport', async () => {
    const { tenant } = await newTenant({ maxConnections: 0 });
    const engine = await newSession(tenant.id);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        as('/tenantApiCreateSession', { tenant: tenant.id, name: 'w', ...wabaFields, linkedChannelId: engine.whatsapp.id }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const hybrids = results.map((r) => r.body.data.hybrid);
    expect(hybrids.filter((h) => h.applied)).toHaveLength(1);
    expect(hybrids.filter((h) => h.error === 'ERR_HYBRID_LINKED_IN_USE')).toHaveLength(9);
  });

  it('edits a channel with PUT /whatsapp/{id}, fixing and clearing its link', async () => {
    failed(await as('/whatsapp/987654', { name: 'x' }, 'PUT'), 404, 'ERR_NO_WAPP_FOUND');
    const { tenant } = await newTenant({ maxConnections: 0 });
    const engine = await newSession(tenant.id);
    const waba = await newSession(tenant.id, { ...wabaFields, linkedChannelId: 999_999 });
    expect(waba.hybrid).toEqual({ applied: false, error: 'ERR_HYBRID_LINKED_NOT_FOUND' });

    const edited = ok(
      await as(
        `/whatsapp/${waba.whatsapp.id}`,
        {
          name: 'Official',
          status: 'CONNECTED',
          hybridMode: 'two_numbers',
          linkedChannelId: engine.whatsapp.id,
          webhookEnabled: true,
          webhookUrl: 'https://hooks.example/w',
        },
        'PUT',
      ),
    );
    expect(edited).toEqual({
      whatsapp: expect.objectContaining({
        id: waba.whatsapp.id,
        name: 'Official',
        status: 'CONNECTED',
        hybridMode: 'two_numbers',
        linkedChannelId: engine.whatsapp.id,
        webhookEnabled: true,
      }),
      hybrid: { applied: true, whatsappId: waba.whatsapp.id, hybridMode: 'two_numbers', linkedChannelId: engine.whatsapp.id },
    });

    const engineEdit = ok(
      await as(`/whatsapp/${engine.whatsapp.id}`, { engineUrl: 'http://engine.internal:3000', engineToken: 'engine-secret' }, 'PUT'),
    );
    expect(engineEdit).toEqual({ whatsapp: expect.objectContaining({ engineUrl: 'http://engine.internal:3000' }) });
    expect(JSON.stringify(engineEdit)).not.toContain('engine-secret');

    const cleared = ok(await as(`/whatsapp/${waba.whatsapp.id}`, { linkedChannelId: null }, 'PUT'));
    expect(cleared.hybrid).toEqual({ applied: true, whatsappId: waba.whatsapp.id, hybridMode: 'two_numbers', linkedChannelId: null });
    const relinked = await newSession(tenant.id, { ...wabaFields, linkedChannelId: engine.whatsapp.id });
    expect(relinked.hybrid).toMatchObject({ applied: true });
  });

  // ---- integrations ------------------------------------------------------------------------

  it("creates an integration with the caller's token and validates its tenant, channel and user", async () => {
    const { tenant, adminUser } = await newTenant();
    const { whatsapp, api: sessionApi } = await newSession(tenant.id);
    const authToken = randomBytes(24).toString('hex');
    const body = {
      name: 'CRM',
      sessionId: whatsapp.id,
      userId: adminUser.id,
      tenant: tenant.id,
      authToken,
      urlServiceStatus: null,
      urlMessageStatus: 'https://crm.example/status',
    };

    const { api } = ok(await as('/tenantCreateApi', body));
    expect(api).toEqual({
      apiId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'CRM',
      sessionId: whatsapp.id,
      userId: adminUser.id,
      tenant: tenant.id,
      urlServiceStatus: null,
      urlMessageStatus: 'https://crm.example/status',
      createdAt: expect.any(String),
    });
    failed(await external(B, api.apiId, authToken), 404, 'ERR_TICKET_NOT_FOUND');

    failed(await as('/tenantCreateApi', { ...body, name: 'Again' }), 409, 'ERR_TOKEN_IN_USE');
    failed(await as('/tenantCreateApi', { ...body, authToken: 'short' }), 400, 'ERR_VALIDATION');
    const other = await newTenant();
    failed(
      await as('/tenantCreateApi', { ...body, authToken: randomBytes(24).toString('hex'), userId: other.adminUser.id }),
      404,
      'ERR_USER_NOT_FOUND',
    );
    failed(
      await as('/tenantDeleteApi', { apiId: sessionApi.apiId, tenant: tenant.id, sessionId: whatsapp.id, userId: other.adminUser.id }),
      404,
      'ERR_API_NOT_FOUND',
    );
  });

  it("makes a deleted integration's token fail on the very next call, on every gateway, with the cache on", async () => {
    const { tenant } = await newTenant();
    const { whatsapp, api } = await newSession(tenant.id);
    for (const base of [B, replica.url]) {
      failed(await external(base, api.apiId, api.authToken), 404, 'ERR_TICKET_NOT_FOUND');
      failed(await external(base, api.apiId, api.authToken), 404, 'ERR_TICKET_NOT_FOUND');
    }

    ok(await as('/tenantDeleteApi', { apiId: api.apiId, tenant: tenant.id, sessionId: whatsapp.id, userId: api.userId }));
    failed(await external(B, api.apiId, api.authToken), 401, 'ERR_UNAUTHORIZED');
    failed(await external(replica.url, api.apiId, api.authToken), 401, 'ERR_UNAUTHORIZED');
  });

  // Payment webhooks: payments.test.ts.

  it('documents the new endpoints in OpenAPI', async () => {
    const doc = await call(`${B}/docs/json`);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/tenantApiListTenants',
        '/tenantApiUpdateTenant',
        '/tenantCreateApi',
        '/tenantDeleteApi',
        '/whatsapp/{whatsappId}',
        '/webhooks/payments/{gateway}',
      ]),
    );
  });
});
