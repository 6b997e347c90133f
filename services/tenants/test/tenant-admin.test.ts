import * as grpc from '@grpc/grpc-js';
import { errCode, errDetails, errFields, rpcError, SUPER_ADMIN_TOKEN } from '@convo/test-support';
import { randomUUID } from 'node:crypto';
import { tenantsService } from '../src/spec';
import { startHarness, stringsOf, tenantRequest, uniqueIdentity, type Harness } from './support/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('tenants-admin-test');
});

afterAll(async () => {
  await h?.stop();
});

const newTenant = (over: Record<string, unknown> = {}) => h.newTenant(over);

const update = (identity: string, over: Record<string, unknown> = {}) => h.client.UpdateTenant({ identity, ...over });

// ---- ListTenants ---------------------------------------------------------------------------

describe('ListTenants', () => {
  const tag = `list-${randomUUID().slice(0, 8)}`;
  let ids: number[] = [];

  beforeAll(async () => {
    ids = [];
    for (let i = 0; i < 5; i++) {
      const { tenant } = await h.client.StoreTenant(tenantRequest({ name: `${tag} Shop ${i}`, status: i % 2 ? 'inactive' : 'active' }));
      ids.push(tenant!.id);
    }
  });

  it('pages in id order with total and hasMore', async () => {
    const first = await h.client.ListTenants({ name: tag, limit: 2 });
    expect(first).toMatchObject({ page: 1, limit: 2, total: 5, hasMore: true });
    expect(first.tenants.map((t) => t.id)).toEqual(ids.slice(0, 2));
    const last = await h.client.ListTenants({ name: tag, limit: 2, page: 3 });
    expect(last).toMatchObject({ page: 3, total: 5, hasMore: false });
    expect(last.tenants.map((t) => t.id)).toEqual(ids.slice(4));
  });

  it('defaults to page 1 and 20 per page', async () => {
    const res = await h.client.ListTenants({});
    expect(res).toMatchObject({ page: 1, limit: 20 });
    const ordered = res.tenants.map((t) => t.id);
    expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
  });

  it('filters by status', async () => {
    const res = await h.client.ListTenants({ name: tag, status: 'inactive' });
    expect(res.total).toBe(2);
    expect(res.tenants.every((t) => t.status === 'inactive')).toBe(true);
  });

  it('matches the name case-insensitively and literally', async () => {
    const odd = `${tag} Zeta.Corp (BR)`;
    await h.client.StoreTenant(tenantRequest({ name: odd }));
    await h.client.StoreTenant(tenantRequest({ name: `${tag} ZetaXCorp (BR)` }));

    const res = await h.client.ListTenants({ name: `${tag.toUpperCase()} zeta.corp (` });
    expect(res.tenants.map((t) => t.name)).toEqual([odd]);
    expect((await h.client.ListTenants({ name: `${tag} .*` })).total).toBe(0);
  });

  it('refuses a limit above 100, a negative page and an unknown status, all at once', async () => {
    const err = await rpcError(h.client.ListTenants({ limit: 101, page: -1, status: 'archived' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err).sort()).toEqual(['limit', 'page', 'status']);
  });
});

// ---- identity ------------------------------------------------------------------------------

describe('identity', () => {
  it('is stored on create and names one tenant only', async () => {
    const identity = uniqueIdentity();
    const { tenant } = await h.client.StoreTenant(tenantRequest({ identity }));
    expect(tenant!.identity).toBe(identity);

    const [tenants, users] = [await h.count('tenants'), await h.count('users')];
    const err = await rpcError(h.client.StoreTenant(tenantRequest({ identity })));
    expect(err.code).toBe(grpc.status.ABORTED);
    expect(errCode(err)).toBe('ERR_IDENTITY_IN_USE');
    expect(await h.count('tenants')).toBe(tenants);
    expect(await h.count('users')).toBe(users);
  });

  it('matches with or without punctuation', async () => {
    const { tenant } = await h.client.StoreTenant(tenantRequest({ identity: '98.765.432/0001-10' }));
    const updated = await update('98765432000110', { status: 'inactive' });
    expect(updated).toMatchObject({ id: tenant!.id, status: 'inactive', identity: '98.765.432/0001-10' });
  });

  it('frees the identity of a sign-up that failed', async () => {
    const identity = uniqueIdentity();
    const email = (await h.client.StoreTenant(tenantRequest())).adminUser!.email;
    expect(errCode(await rpcError(h.client.StoreTenant(tenantRequest({ identity, email }))))).toBe('ERR_EMAIL_IN_USE');
    await expect(h.client.StoreTenant(tenantRequest({ identity }))).resolves.toMatchObject({ tenant: { identity } });
  });
});

// ---- UpdateTenant --------------------------------------------------------------------------

describe('UpdateTenant', () => {
  it('answers NOT_FOUND for an identity no tenant has, and requires one', async () => {
    const err = await rpcError(update('00000000000000', { status: 'inactive' }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(errCode(err)).toBe('ERR_TENANT_NOT_FOUND');
    expect(errFields(await rpcError(update('', {})))).toEqual(['identity']);
  });

  it('sets status and limits', async () => {
    const t = await newTenant();
    const res = await update(t.identity, { status: 'inactive', maxUsers: 7, maxConnections: 0 });
    expect(res).toMatchObject({ status: 'inactive', maxUsers: 7, maxConnections: 0 });
    await expect(h.client.ShowTenant({ id: t.id })).resolves.toMatchObject({ status: 'inactive', maxUsers: 7 });
    expect(errFields(await rpcError(update(t.identity, { status: 'paused', maxUsers: -1 }))).sort()).toEqual(['maxUsers', 'status']);
  });

  it('switches supportChatEnabled and oauth settings', async () => {
    const t = await newTenant();
    const res = await update(t.identity, {
      supportChatEnabled: 'enabled',
      oauthEnabled: true,
      oauthProxyUrl: 'https://proxy.example/oauth',
    });
    expect(res).toMatchObject({ supportChatEnabled: true, oauthEnabled: true, oauthProxyUrl: 'https://proxy.example/oauth' });
    expect((await update(t.identity, { supportChatEnabled: 'disabled' })).supportChatEnabled).toBe(false);
    const err = await rpcError(update(t.identity, { supportChatEnabled: 'yes', oauthProxyUrl: 'ftp://x' }));
    expect(errFields(err).sort()).toEqual(['oauthProxyUrl', 'supportChatEnabled']);
  });

  it('validates menuVisibility and allowedChannels against the seed, naming each bad value', async () => {
    const t = await newTenant();
    const err = await rpcError(
      update(t.identity, { menuVisibility: { values: ['Kanban', 'Games'] }, allowedChannels: { values: ['waba', 'telegram'] } }),
    );
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errDetails(err)).toEqual([
      { field: 'menuVisibility[1]', message: expect.stringContaining('"Games"') },
      { field: 'allowedChannels[1]', message: expect.stringContaining('"telegram"') },
    ]);

    const ok = await update(t.identity, {
      menuVisibility: { values: ['Kanban', 'Api'] },
      allowedChannels: { values: ['waba', 'engine_b'] },
    });
    expect(ok).toMatchObject({ menuVisibility: ['Kanban', 'Api'], allowedChannels: ['waba', 'engine_b'] });
    // Absent leaves the list, empty clears it.
    expect((await update(t.identity, { status: 'active' })).allowedChannels).toEqual(['waba', 'engine_b']);
    expect((await update(t.identity, { allowedChannels: { values: [] } })).allowedChannels).toEqual([]);
  });

  it('stores channelConnectionLimits with waba_oauth counted as waba, waba winning', async () => {
    const t = await newTenant();
    const both = await update(t.identity, { channelConnectionLimits: { limits: { waba_oauth: 5, waba: 2, engine_a: 0, hub: 4 } } });
    expect(both.channelConnectionLimits).toEqual({ waba: 2, engine_a: 0, hub: 4 });
    const alias = await update(t.identity, { channelConnectionLimits: { limits: { waba_oauth: 3 } } });
    expect(alias.channelConnectionLimits).toEqual({ waba: 3 });

    const err = await rpcError(update(t.identity, { channelConnectionLimits: { limits: { telegram: 1, engine_b: -2 } } }));
    expect(errDetails(err)).toEqual([
      { field: 'channelConnectionLimits.telegram', message: expect.stringContaining('"telegram"') },
      { field: 'channelConnectionLimits.engine_b', message: expect.stringContaining('≥ 0') },
    ]);
  });

  it('stores webhook proxy secrets but never returns them in clear', async () => {
    const t = await newTenant();
    const secret = 'proxy-secret-abcdef-9876';
    const res = await update(t.identity, {
      socialAWebhookProxyUrl: 'https://proxy.example/a',
      socialAWebhookProxySecret: secret,
      socialBWebhookProxySecret: 'short',
    });
    expect(res.webhookProxies).toEqual(
      expect.arrayContaining([
        { channel: 'social_a', url: 'https://proxy.example/a', secretHint: '****9876' },
        { channel: 'social_b', url: '', secretHint: '****' },
      ]),
    );
    const shown = await h.client.ShowTenant({ id: t.id });
    expect(stringsOf(shown).filter((s) => s.includes(secret) || s === 'short')).toEqual([]);
    const stored = await h.svc.db.collection('tenants').findOne({ _id: t.id as never });
    expect(stored!.webhookProxies.social_a.secret).toBe(secret);
  });
});

// ---- payment gateway on update -------------------------------------------------------------

describe('UpdateTenant payment gateway', () => {
  const pair = (gateway: string, customerId = `cus-${randomUUID()}`, token = `tok-${randomUUID()}`) => ({ gateway, customerId, token });

  const onGatewayA = () => {
    const p = pair('gateway_a');
    return newTenant({
      paymentGateway: 'gateway_a',
      gatewayCredentials: { customerId: p.customerId, token: p.token },
      gatewayAEnabled: true,
    });
  };

  it('turns the legacy gateway_a mode off when switching to another gateway, and masks the token', async () => {
    const t = await onGatewayA();
    expect(t.gatewayAEnabled).toBe(true);
    const b = pair('gateway_b');
    const res = await update(t.identity, { paymentGateway: 'gateway_b', gatewayPairs: [b] });

    expect(res).toMatchObject({ paymentGateway: 'gateway_b', gatewayAEnabled: false, paymentStatus: 'pending' });
    expect(res.gatewayAccounts).toContainEqual({ gateway: 'gateway_b', customerId: b.customerId, tokenHint: `****${b.token.slice(-4)}` });
    expect(stringsOf(res).filter((s) => s.includes(b.token))).toEqual([]);
  });

  it('clears the gateway with none, and switches back without resending a stored pair', async () => {
    const t = await onGatewayA();
    const cleared = await update(t.identity, { paymentGateway: 'none' });
    expect(cleared).toMatchObject({ paymentGateway: '', gatewayAEnabled: false, paymentStatus: '' });
    const back = await update(t.identity, { paymentGateway: 'gateway_a', gatewayA: 'enabled' });
    expect(back).toMatchObject({ paymentGateway: 'gateway_a', gatewayAEnabled: true, paymentStatus: 'pending' });
  });

  it('requires the pair of a gateway the tenant has no credentials for, and the gateway_a flag', async () => {
    const t = await newTenant();
    const err = await rpcError(update(t.identity, { paymentGateway: 'gateway_c' }));
    expect(errFields(err)).toEqual(['gateway_cCustomerId', 'gateway_cToken']);
    const a = pair('gateway_a');
    expect(errFields(await rpcError(update(t.identity, { paymentGateway: 'gateway_a', gatewayPairs: [a] })))).toEqual(['gateway_a']);
    expect(errFields(await rpcError(update(t.identity, { paymentGateway: 'gatewy_x' })))).toEqual(['paymentGateway']);
  });

  it('refuses half a pair and the pair of a gateway that is not chosen', async () => {
    const t = await newTenant();
    const half = await rpcError(
      update(t.identity, { paymentGateway: 'gateway_d', gatewayPairs: [{ gateway: 'gateway_d', customerId: 'c1' }] }),
    );
    expect(errFields(half)).toEqual(['gateway_dToken']);
    const stray = await rpcError(update(t.identity, { paymentGateway: 'gateway_d', gatewayPairs: [pair('gateway_d'), pair('gateway_b')] }));
    expect(errFields(stray)).toEqual(['gateway_bCustomerId']);
  });

  it('keeps a gateway customer to one tenant, and frees the old one when the pair changes', async () => {
    const first = await newTenant();
    const second = await newTenant();
    const shared = pair('gateway_b');
    await update(first.identity, { paymentGateway: 'gateway_b', gatewayPairs: [shared] });

    const err = await rpcError(
      update(second.identity, { paymentGateway: 'gateway_b', gatewayPairs: [pair('gateway_b', shared.customerId)] }),
    );
    expect(err.code).toBe(grpc.status.ABORTED);
    expect(errCode(err)).toBe('ERR_GATEWAY_CUSTOMER_IN_USE');
    expect((await h.client.ShowTenant({ id: second.id })).paymentGateway).toBe('');

    await update(first.identity, { gatewayPairs: [pair('gateway_b')] });
    await expect(
      update(second.identity, { paymentGateway: 'gateway_b', gatewayPairs: [pair('gateway_b', shared.customerId)] }),
    ).resolves.toMatchObject({
      paymentGateway: 'gateway_b',
    });
  });
});

// ---- plans ---------------------------------------------------------------------------------

describe('plans', () => {
  const graphql = async (query: string) => {
    const res = await fetch(`http://127.0.0.1:${h.svc.graphqlPort}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SUPER_ADMIN_TOKEN}` },
      body: JSON.stringify({ query }),
    });
    return (await res.json()) as { data?: any; errors?: Array<{ message: string }> };
  };

  it('creates a plan with allowedChannels (the enum AllowedChannel) through GraphQL, and refuses unknown channel types', async () => {
    const ok = await graphql(
      'mutation { createPlan(name: "Pro", maxUsers: 3, maxConnections: 2, allowedChannels: [waba]) { id allowedChannels } }',
    );
    expect(ok.errors).toBeUndefined();
    expect(ok.data.createPlan).toMatchObject({ id: expect.any(Number), allowedChannels: ['waba'] });
    const bad = await graphql('mutation { createPlan(name: "Bad", maxUsers: 1, maxConnections: 1, allowedChannels: [fax]) { id } }');
    expect(bad.errors?.[0].message).toMatch(/AllowedChannel/);
  });

  describe('SEED_DEV_PLANS', () => {
    const startOn = (database: string, env: Record<string, string>) => h.mesh.start({ ...tenantsService, database }, { env });

    it('seeds one development plan into an empty installation, once across replicas', async () => {
      const database = `tenants_seed_${Date.now()}`;
      const replicas = await Promise.all([1, 2, 3].map(() => startOn(database, { SEED_DEV_PLANS: 'true' })));
      try {
        const plans = await replicas[0].db.collection('plans').find().toArray();
        expect(plans).toEqual([expect.objectContaining({ name: 'Development', allowedChannels: [] })]);
      } finally {
        await Promise.all(replicas.map((r) => r.stop()));
      }
    });

    it('seeds nothing without it', async () => {
      const svc = await startOn(`tenants_noseed_${Date.now()}`, {});
      try {
        expect(await svc.db.collection('plans').countDocuments()).toBe(0);
      } finally {
        await svc.stop();
      }
    });
  });
});
