import * as grpc from '@grpc/grpc-js';
import { createClient, type ServiceClient } from '@convo/kit';
import { errCode, errFields, rpcError, SUPER_ADMIN_TOKEN } from '@convo/test-support';
import { createHash } from 'node:crypto';
import { tenantsService } from '../src/spec';
import { startHarness, stringsOf, tenantRequest as validTenantRequest, uniqueEmail, type Harness } from './support/harness';

// ---- helpers -------------------------------------------------------------------------------

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A valid StoreTenant request with two connections; override what a test is about. */
const tenantRequest = (over: Record<string, unknown> = {}) => validTenantRequest({ maxConnections: 2, ...over });

// ---- setup ---------------------------------------------------------------------------------

let h: Harness;
let svc: Harness['svc'];
let client: ServiceClient<'tenants'>;

const count = (collection: string) => h.count(collection);

/** The tenants service on another database of the test's FerretDB. */
const start = (databaseName: string) => h.mesh.start({ ...tenantsService, database: databaseName });

beforeAll(async () => {
  h = await startHarness('tenants-test');
  ({ svc, client } = h);
});

afterAll(() => h?.stop());

const newTenant = async () => (await client.StoreTenant(tenantRequest())).tenant!;

const newSession = (tenant: number, over: Record<string, unknown> = {}) =>
  client.CreateSession({ tenant, name: 'Main line', type: 'engine_a', engineUrl: 'http://engine.local', engineToken: 'eng-tok', ...over });

// ---- StoreTenant ---------------------------------------------------------------------------

describe('StoreTenant', () => {
  it('creates a tenant and its admin user', async () => {
    const email = uniqueEmail();
    const res = await client.StoreTenant(tenantRequest({ email: email.toUpperCase(), name: '  Acme Inc  ' }));

    expect(res.tenant).toMatchObject({ name: 'Acme Inc', status: 'active', maxUsers: 5, maxConnections: 2 });
    expect(res.tenant!.id).toBeGreaterThan(0);
    expect(res.adminUser).toMatchObject({ tenantId: res.tenant!.id, name: 'Alice', email, profile: 'admin' });
    const stored = await svc.db.collection('users').findOne({ email });
    expect(stored).toMatchObject({ tenantId: res.tenant!.id });
    expect(stored!.passwordHash).not.toContain('secret-pass1');
    await expect(client.ShowTenant({ id: res.tenant!.id })).resolves.toMatchObject({ name: 'Acme Inc' });
  });

  it.each([
    ['short1!', 'too short'],
    ['longpassword!', 'without a digit'],
    ['longpassword1', 'without a special character'],
  ])('rejects the password %p (%s)', async (password) => {
    const before = await count('tenants');
    const err = await rpcError(client.StoreTenant(tenantRequest({ password })));

    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['password']);
    expect(await count('tenants')).toBe(before);
  });

  it('rejects an unknown plan without creating anything', async () => {
    const [tenants, users] = [await count('tenants'), await count('users')];
    const err = await rpcError(client.StoreTenant(tenantRequest({ planId: 999 })));

    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errCode(err)).toBe('ERR_PLAN_NOT_FOUND');
    expect(errFields(err)).toEqual(['planId']);
    expect(await count('tenants')).toBe(tenants);
    expect(await count('users')).toBe(users);
  });

  it('takes maxUsers and maxConnections from the plan when one is given', async () => {
    await svc.db.collection('plans').insertOne({ _id: 1 as never, name: 'p', maxUsers: 50, maxConnections: 9, features: [] });
    const { tenant } = await client.StoreTenant(tenantRequest({ planId: 1, maxUsers: 3, maxConnections: 1 }));

    expect(tenant).toMatchObject({ planId: 1, maxUsers: 50, maxConnections: 9 });
    expect(await svc.db.collection('tenants').findOne({ _id: tenant!.id as never })).toMatchObject({ maxUsers: 50, maxConnections: 9 });
  });

  it('requires the customer id and token of the chosen payment gateway', async () => {
    const err = await rpcError(client.StoreTenant(tenantRequest({ paymentGateway: 'gateway_b' })));

    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['gateway_bCustomerId', 'gateway_bToken']);
  });

  it('accepts a payment gateway with its credentials and marks the payment pending', async () => {
    const { tenant } = await client.StoreTenant(
      tenantRequest({ paymentGateway: 'gateway_b', gatewayCredentials: { customerId: 'cus_1', token: 'tok_1' } }),
    );
    expect(tenant).toMatchObject({ paymentGateway: 'gateway_b', paymentStatus: 'pending', gatewayAEnabled: false });
  });

  it('requires the enabled flag with gateway_a', async () => {
    const creds = { customerId: 'cus_1', token: 'tok_1' };
    const err = await rpcError(client.StoreTenant(tenantRequest({ paymentGateway: 'gateway_a', gatewayCredentials: creds })));

    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['gateway_a']);
    const ok = await client.StoreTenant(tenantRequest({ paymentGateway: 'gateway_a', gatewayCredentials: creds, gatewayAEnabled: true }));
    expect(ok.tenant!.gatewayAEnabled).toBe(true);
  });

  it('refuses an admin e-mail already in use and leaves no second tenant behind', async () => {
    const email = uniqueEmail();
    await client.StoreTenant(tenantRequest({ email }));
    const [tenants, users] = [await count('tenants'), await count('users')];

    const err = await rpcError(client.StoreTenant(tenantRequest({ email: email.toUpperCase(), name: 'Copycat' })));

    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errCode(err)).toBe('ERR_EMAIL_IN_USE');
    expect(await count('tenants')).toBe(tenants);
    expect(await count('users')).toBe(users);
  });

  it('lets only one of two concurrent sign-ups with one e-mail through, leaving one tenant', async () => {
    const email = uniqueEmail();
    const before = await count('tenants');
    const results = await Promise.allSettled([
      client.StoreTenant(tenantRequest({ email, name: 'First' })),
      client.StoreTenant(tenantRequest({ email, name: 'Second' })),
    ]);

    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(failures).toHaveLength(1);
    expect(errCode(failures[0].reason)).toBe('ERR_EMAIL_IN_USE');
    expect(await count('tenants')).toBe(before + 1);
    expect(await svc.db.collection('users').countDocuments({ email })).toBe(1);
  });
});

describe('concurrent sign-ups', () => {
  // Ids come from counters (created on first use); concurrent sign-ups on a fresh database
  // must all succeed, each with its own tenant and user id.
  it('all succeed with distinct ids, from the very first one', async () => {
    const fresh = await start(`tenants_fresh_${Date.now()}`);
    try {
      const freshClient = createClient('tenants', `127.0.0.1:${fresh.grpcPort}`);
      const results = await Promise.all(Array.from({ length: 8 }, () => freshClient.StoreTenant(tenantRequest())));
      expect(new Set(results.map((r) => r.tenant!.id)).size).toBe(8);
      expect(new Set(results.map((r) => r.adminUser!.id)).size).toBe(8);
      expect(await fresh.db.collection('tenants').countDocuments()).toBe(8);
    } finally {
      await fresh.stop();
      // As messaging, the caller that receives a channel's every secret (grpc/channel-secrets.ts).
      client = createClient('tenants', `127.0.0.1:${svc.grpcPort}`, { caller: 'messaging' });
    }
  });
});

// ---- CreateSession -------------------------------------------------------------------------

describe('CreateSession', () => {
  it('creates an engine_a channel and an API integration whose token is shown once', async () => {
    const tenant = await newTenant();
    const res = await newSession(tenant.id);

    expect(res.whatsapp).toMatchObject({
      tenantId: tenant.id,
      name: 'Main line',
      type: 'engine_a',
      status: 'DISCONNECTED',
      engineUrl: 'http://engine.local',
    });
    expect(res.api).toMatchObject({ tenant: tenant.id, sessionId: res.whatsapp!.id, name: 'Main line' });
    expect(res.api!.authToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.api!.userId).toBeGreaterThan(0);
  });

  it('stores only the sha256 of the API token, never the token itself', async () => {
    const tenant = await newTenant();
    const { api } = await newSession(tenant.id);
    const token = api!.authToken;

    const doc = await svc.db.collection('api_integrations').findOne({ _id: api!.apiId as never });
    expect(doc).not.toBeNull();
    expect(doc!.tokenHash).toBe(sha256(token));
    expect(stringsOf(doc).filter((v) => v.includes(token))).toEqual([]);
  });

  it('gives every integration its own token', async () => {
    const tenant = await newTenant();
    const [a, b] = [await newSession(tenant.id), await newSession(tenant.id)];
    expect(a.api!.authToken).not.toBe(b.api!.authToken);
    expect(a.api!.apiId).not.toBe(b.api!.apiId);
  });

  it('requires a digits-only tokenAPI for waba', async () => {
    const tenant = await newTenant();
    const err = await rpcError(newSession(tenant.id, { type: 'waba', tokenApi: 'abc123', wabaId: 'w1', bmToken: 'bm' }));

    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['tokenAPI']);
    await expect(newSession(tenant.id, { type: 'waba', tokenApi: '123456', wabaId: 'w1', bmToken: 'bm' })).resolves.toMatchObject({
      whatsapp: { type: 'waba', tokenApi: '123456' },
    });
  });

  it('answers NOT_FOUND for an unknown tenant and creates no channel', async () => {
    const before = await count('channels');
    const err = await rpcError(newSession(987654));

    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(errCode(err)).toBe('ERR_TENANT_NOT_FOUND');
    expect(await count('channels')).toBe(before);
  });
});

// ---- ResolveApiToken and GetChannel --------------------------------------------------------

describe('ResolveApiToken', () => {
  it('resolves the hash of a token to its integration', async () => {
    const tenant = await newTenant();
    const { api, whatsapp } = await newSession(tenant.id);

    await expect(client.ResolveApiToken({ apiId: api!.apiId, tokenSha256: sha256(api!.authToken) })).resolves.toMatchObject({
      apiId: api!.apiId,
      tenantId: tenant.id,
      sessionId: whatsapp!.id,
      userId: api!.userId,
    });
  });

  it('answers UNAUTHENTICATED for a token nobody owns', async () => {
    const tenant = await newTenant();
    const { api } = await newSession(tenant.id);
    const err = await rpcError(client.ResolveApiToken({ apiId: api!.apiId, tokenSha256: sha256('not-a-real-token') }));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('answers UNAUTHENTICATED for the clear token sent instead of its hash', async () => {
    const tenant = await newTenant();
    const { api } = await newSession(tenant.id);
    const err = await rpcError(client.ResolveApiToken({ apiId: api!.apiId, tokenSha256: api!.authToken }));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it("answers PERMISSION_DENIED for a real token used with another integration's id", async () => {
    const tenant = await newTenant();
    const mine = await newSession(tenant.id);
    const other = await newSession(tenant.id);
    const err = await rpcError(client.ResolveApiToken({ apiId: other.api!.apiId, tokenSha256: sha256(mine.api!.authToken) }));
    expect(err.code).toBe(grpc.status.PERMISSION_DENIED);
  });
});

describe('GetChannel', () => {
  it("returns a tenant's own channel and NOT_FOUND for another tenant's", async () => {
    const [owner, stranger] = [await newTenant(), await newTenant()];
    const { whatsapp } = await newSession(owner.id);

    await expect(client.GetChannel({ tenantId: owner.id, channelId: whatsapp!.id })).resolves.toMatchObject({
      id: whatsapp!.id,
      engineToken: 'eng-tok',
    });
    const err = await rpcError(client.GetChannel({ tenantId: stranger.id, channelId: whatsapp!.id }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(errCode(err)).toBe('ERR_CHANNEL_NOT_FOUND');
  });
});

// ---- GraphQL subgraph ----------------------------------------------------------------------

describe('ListUsers', () => {
  it("answers one tenant's users by name in pages of 20, searchable by name or e-mail", async () => {
    const tenant = await newTenant();
    const users = svc.db.collection('users');
    await users.insertMany(
      Array.from({ length: 21 }, (_, i) => ({
        _id: 900_000 + tenant.id * 100 + i,
        tenantId: tenant.id,
        name: `Agent ${String(i).padStart(2, '0')}`,
        email: `agent-${i}-${tenant.id}@acme.example`,
        passwordHash: 'x',
        profile: 'user',
        createdAt: new Date(),
      })) as any[],
    );
    await newTenant(); // another tenant's admin never shows

    const first = await client.ListUsers({ tenantId: tenant.id, page: 1 });
    expect(first).toMatchObject({ count: 22, hasMore: true, page: 1, pageSize: 20 });
    expect(first.users[0]).toEqual({
      id: 900_000 + tenant.id * 100,
      tenantId: tenant.id,
      name: 'Agent 00',
      email: `agent-0-${tenant.id}@acme.example`,
      profile: 'user',
      credentialsVersion: '',
    });
    expect((await client.ListUsers({ tenantId: tenant.id, page: 2 })).users.map((u) => u.name)).toEqual(['Agent 20', 'Alice']);
    expect((await client.ListUsers({ tenantId: tenant.id, page: 1, search: 'ALICE' })).users.map((u) => u.profile)).toEqual(['admin']);
    expect((await client.ListUsers({ tenantId: tenant.id, page: 1, search: 'agent-1' })).count).toBe(11);
    expect((await client.ListUsers({ tenantId: tenant.id + 10_000, page: 1 })).users).toEqual([]);
  });
});

describe('GraphQL subgraph', () => {
  const querySdl = (headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${svc.graphqlPort}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: '{ _service { sdl } }' }),
    });

  it('serves its SDL to the super-admin token', async () => {
    const res = await querySdl({ authorization: `Bearer ${SUPER_ADMIN_TOKEN}` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data?: { _service: { sdl: string } }; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data!._service.sdl).toMatch(/type Tenant\b/);
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: `Bearer ${'y'.repeat(24)}` }],
  ])('answers 401 with %s', async (_label, headers) => {
    const res = await querySdl(headers);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'ERR_UNAUTHORIZED' });
  });
});
