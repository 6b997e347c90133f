import { createClient } from '@convo/kit';
import * as grpc from '@grpc/grpc-js';
import { errCode, errDetails, errFields, rpcError } from '@convo/test-support';
import { engineSession, startHarness, wabaSession, type Harness } from './support/harness';

let h: Harness;
let planSeq = 9_000;

beforeAll(async () => {
  h = await startHarness('tenants-channels-test');
});

afterAll(async () => {
  await h?.stop();
});

const newTenant = (over: Record<string, unknown> = {}) => h.newTenant(over);

const newPlan = async (over: Record<string, unknown>) => {
  const id = ++planSeq;
  await h.svc.db
    .collection('plans')
    .insertOne({ _id: id as never, name: `plan ${id}`, maxUsers: 5, maxConnections: 10, features: [], allowedChannels: [], ...over });
  return id;
};

const create = (tenant: number, over: Record<string, unknown> = {}) => h.client.CreateSession(engineSession(tenant, over));
const channelsOf = (tenantId: number) => h.count('channels', { tenantId });

// ---- policies on create --------------------------------------------------------------------

describe('CreateSession policies', () => {
  it('refuses a channel for an inactive tenant with 409 ERR_TENANT_INACTIVE, creating nothing', async () => {
    const t = await newTenant({ status: 'inactive' });
    const err = await rpcError(create(t.id));
    expect(err.code).toBe(grpc.status.ABORTED);
    expect(errCode(err)).toBe('ERR_TENANT_INACTIVE');
    expect(await channelsOf(t.id)).toBe(0);
    expect(await h.count('api_integrations', { tenantId: t.id })).toBe(0);
  });

  it("admits only the tenant's allowedChannels, mapping session types onto them", async () => {
    const t = await newTenant();
    await h.client.UpdateTenant({ identity: t.identity, allowedChannels: { values: ['waba_oauth', 'engine_a', 'social_a_oauth'] } });

    const err = await rpcError(create(t.id, { type: 'engine_b' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errCode(err)).toBe('ERR_CHANNEL_TYPE_NOT_ALLOWED');
    expect(errDetails(err)).toEqual([{ field: 'type', message: expect.stringContaining('engine_b') }]);
    await expect(create(t.id, { type: 'whatsapp' })).resolves.toMatchObject({ whatsapp: { type: 'whatsapp' } });
    await expect(h.client.CreateSession(wabaSession(t.id))).resolves.toMatchObject({ whatsapp: { type: 'waba' } });
    await expect(create(t.id, { type: 'social_a', pageId: 'p1', pageToken: 'pt' })).resolves.toMatchObject({
      whatsapp: { type: 'social_a' },
    });
    expect(errCode(await rpcError(create(t.id, { type: 'social_b', pageId: 'p1', pageToken: 'pt' })))).toBe('ERR_CHANNEL_TYPE_NOT_ALLOWED');
  });

  it("also applies the plan's allowedChannels", async () => {
    const planId = await newPlan({ allowedChannels: ['engine_b'] });
    const t = await newTenant({ planId });
    expect(errCode(await rpcError(create(t.id, { type: 'engine_a' })))).toBe('ERR_CHANNEL_TYPE_NOT_ALLOWED');
    await expect(create(t.id, { type: 'engine_b' })).resolves.toMatchObject({ whatsapp: { type: 'engine_b' } });
  });

  it('refuses the channel past maxConnections with 409 ERR_CONNECTION_LIMIT, creating nothing', async () => {
    const t = await newTenant({ maxConnections: 2 });
    await create(t.id);
    await create(t.id, { type: 'engine_b' });
    const apis = await h.count('api_integrations', { tenantId: t.id });

    const err = await rpcError(create(t.id, { type: 'engine_c' }));
    expect(err.code).toBe(grpc.status.ABORTED);
    expect(errCode(err)).toBe('ERR_CONNECTION_LIMIT');
    expect(await channelsOf(t.id)).toBe(2);
    expect(await h.count('api_integrations', { tenantId: t.id })).toBe(apis);
  });

  it("enforces the plan's maxConnections over the tenant's", async () => {
    const planId = await newPlan({ maxConnections: 1 });
    const t = await newTenant({ planId });
    await h.client.UpdateTenant({ identity: t.identity, maxConnections: 5 });
    await create(t.id);
    expect(errCode(await rpcError(create(t.id)))).toBe('ERR_CONNECTION_LIMIT');
  });

  it('treats maxConnections 0 as unlimited', async () => {
    const t = await newTenant({ maxConnections: 0 });
    for (let i = 0; i < 3; i++) await create(t.id);
    expect(await channelsOf(t.id)).toBe(3);
  });

  it('lets exactly maxConnections of many concurrent creates through', async () => {
    const t = await newTenant({ maxConnections: 3 });
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => create(t.id)));
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(refused.map((r) => errCode(r.reason))).toEqual(Array(5).fill('ERR_CONNECTION_LIMIT'));
    expect(await channelsOf(t.id)).toBe(3);
  });
});

describe('channelConnectionLimits', () => {
  const limited = async (limits: Record<string, number>, over: Record<string, unknown> = {}) => {
    const t = await newTenant(over);
    await h.client.UpdateTenant({ identity: t.identity, channelConnectionLimits: { limits } });
    return t;
  };

  it('limits each channel type, whatsapp counting as engine_a, 0 meaning unlimited', async () => {
    const t = await limited({ engine_a: 1, engine_b: 0 });
    await create(t.id, { type: 'engine_a' });
    const err = await rpcError(create(t.id, { type: 'whatsapp' }));
    expect(errCode(err)).toBe('ERR_CONNECTION_LIMIT');
    expect(err.details).toContain('engine_a');
    for (let i = 0; i < 3; i++) await create(t.id, { type: 'engine_b' });
  });

  it('counts waba under the waba_oauth limit', async () => {
    const t = await limited({ waba_oauth: 1 });
    await h.client.CreateSession(wabaSession(t.id));
    expect(errCode(await rpcError(h.client.CreateSession(wabaSession(t.id))))).toBe('ERR_CONNECTION_LIMIT');
  });

  it('gives back the total slot of a create refused by its type limit', async () => {
    const t = await limited({ engine_a: 1 }, { maxConnections: 2 });
    await create(t.id, { type: 'engine_a' });
    expect(errCode(await rpcError(create(t.id, { type: 'engine_a' })))).toBe('ERR_CONNECTION_LIMIT');
    await expect(create(t.id, { type: 'engine_b' })).resolves.toMatchObject({ whatsapp: { type: 'engine_b' } });
  });
});

// ---- UpdateChannel (PUT /whatsapp/{id}) -----------------------------------------------------

describe('UpdateChannel', () => {
  it('answers NOT_FOUND ERR_NO_WAPP_FOUND for an unknown channel', async () => {
    const err = await rpcError(h.client.UpdateChannel({ id: 999_999, name: 'x' }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(errCode(err)).toBe('ERR_NO_WAPP_FOUND');
  });

  it('edits the name, status, engine and webhook settings', async () => {
    const t = await newTenant();
    const { whatsapp } = await create(t.id);
    const res = await h.client.UpdateChannel({
      id: whatsapp!.id,
      name: '  Sales  ',
      status: 'CONNECTED',
      engineUrl: 'http://engine-2.local:3000',
      engineToken: 'new-token',
      webhookEnabled: true,
      webhookUrl: 'https://hooks.example/in',
      webhookIncoming: true,
    });
    expect(res.hybrid).toMatchObject({ present: false });
    expect(res.whatsapp).toMatchObject({
      name: 'Sales',
      status: 'CONNECTED',
      engineUrl: 'http://engine-2.local:3000',
      webhookUrl: 'https://hooks.example/in',
    });
    await expect(h.client.GetChannel({ tenantId: t.id, channelId: whatsapp!.id })).resolves.toMatchObject({
      engineToken: 'new-token',
      webhookEnabled: true,
      webhookIncoming: true,
    });
    // Fields not sent stay as they were.
    const again = await h.client.UpdateChannel({ id: whatsapp!.id, webhookEnabled: false });
    expect(again.whatsapp).toMatchObject({ name: 'Sales', webhookEnabled: false, webhookIncoming: true });
  });

  it("edits a social channel's page and refuses invalid values, all at once", async () => {
    const t = await newTenant();
    const { whatsapp } = await create(t.id, { type: 'social_b', pageId: 'page-1', pageToken: 'pt-1' });
    await expect(h.client.UpdateChannel({ id: whatsapp!.id, pageId: 'page-2', pageToken: 'pt-2' })).resolves.toMatchObject({
      whatsapp: { pageId: 'page-2', pageToken: 'pt-2' },
    });
    const err = await rpcError(
      h.client.UpdateChannel({ id: whatsapp!.id, status: 'ONLINE', webhookUrl: 'not a url', pageId: '', name: ' ' }),
    );
    expect(errFields(err).sort()).toEqual(['name', 'pageId', 'status', 'webhookUrl']);
  });
});

// ---- webmail, webhook secrets and the lookups of the inbound path ------------------------

describe('webmail channels', () => {
  it('require an e-mail From address and take an smtp(s):// engineUrl only', async () => {
    const t = await newTenant();
    const err = await rpcError(create(t.id, { type: 'webmail', engineUrl: 'https://mail.example.com' }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err).sort()).toEqual(['emailAddress', 'engineUrl']);
    expect(await channelsOf(t.id)).toBe(0);

    const { whatsapp } = await create(t.id, {
      type: 'webmail',
      emailAddress: ' Support@Shop.example ',
      engineUrl: 'smtp://u:p@127.0.0.1:2525',
    });
    expect(whatsapp).toMatchObject({ type: 'webmail', emailAddress: 'support@shop.example', engineUrl: 'smtp://u:p@127.0.0.1:2525' });

    const bad = await rpcError(h.client.UpdateChannel({ id: whatsapp!.id, emailAddress: 'not-an-address' }));
    expect(errFields(bad)).toEqual(['emailAddress']);
    const { whatsapp: edited } = await h.client.UpdateChannel({ id: whatsapp!.id, emailAddress: 'help@shop.example' });
    expect(edited!.emailAddress).toBe('help@shop.example');
  });

  it('refuses emailAddress on other channel kinds', async () => {
    const t = await newTenant();
    const { whatsapp } = await create(t.id);
    const err = await rpcError(h.client.UpdateChannel({ id: whatsapp!.id, emailAddress: 'a@b.example' }));
    expect(errFields(err)).toEqual(['emailAddress']);
  });
});

describe('the Marketing Messages API setting', () => {
  it('is off on a new waba channel, set and cleared by UpdateChannel, and refused on other kinds', async () => {
    const t = await newTenant();
    const { whatsapp: waba } = await h.client.CreateSession(wabaSession(t.id));
    expect(waba!.marketingMessagesApi).toBe(false);
    const { whatsapp: on } = await h.client.UpdateChannel({ id: waba!.id, marketingMessagesApi: true });
    expect(on!.marketingMessagesApi).toBe(true);
    expect((await h.client.UpdateChannel({ id: waba!.id, name: 'Renamed' })).whatsapp!.marketingMessagesApi).toBe(true);
    const { whatsapp: off } = await h.client.UpdateChannel({ id: waba!.id, marketingMessagesApi: false });
    expect(off!.marketingMessagesApi).toBe(false);

    const { whatsapp: engine } = await create(t.id);
    const err = await rpcError(h.client.UpdateChannel({ id: engine!.id, marketingMessagesApi: true }));
    expect(errFields(err)).toEqual(['marketingMessagesApi']);
  });
});

describe('webhook signing secrets', () => {
  it('are generated per channel and rotated with a 24 h overlap of the previous one', async () => {
    const t = await newTenant();
    const { whatsapp: a } = await create(t.id);
    const { whatsapp: b } = await create(t.id);
    expect(a!.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(b!.webhookSecret).not.toBe(a!.webhookSecret);
    expect(a!.webhookSecretPrevious).toBe('');

    const before = Date.now();
    const { whatsapp: rotated } = await h.client.UpdateChannel({ id: a!.id, rotateWebhookSecret: true });
    const after = Date.now();
    expect(rotated!.webhookSecret).toMatch(/^whsec_/);
    expect(rotated!.webhookSecret).not.toBe(a!.webhookSecret);
    expect(rotated!.webhookSecretPrevious).toBe(a!.webhookSecret);
    // 24 h from the rotation, which happened between the two readings however long the call took.
    const rotatedAt = Date.parse(rotated!.webhookSecretPreviousUntil) - 24 * 3600 * 1000;
    expect(rotatedAt).toBeGreaterThanOrEqual(before);
    expect(rotatedAt).toBeLessThanOrEqual(after);

    // Once the overlap is over the previous secret is no longer handed out.
    await h.svc.db
      .collection('channels')
      .updateOne({ _id: a!.id as never }, { $set: { webhookSecretPreviousUntil: new Date(Date.now() - 1) } });
    const read = await h.client.GetChannel({ tenantId: t.id, channelId: a!.id });
    expect(read.webhookSecretPrevious).toBe('');
    expect(read.webhookSecret).toBe(rotated!.webhookSecret);
  });
});

describe('lookups of the inbound path', () => {
  it('GetChannel with tenant 0 finds a channel of any tenant, for the gateway and messaging only; a real tenant id still isolates', async () => {
    const t = await newTenant();
    const other = await newTenant();
    const { whatsapp } = await create(t.id);
    for (const caller of ['gateway', 'messaging']) {
      const client = createClient('tenants', h.svc.address, { caller });
      expect((await client.GetChannel({ tenantId: 0, channelId: whatsapp!.id })).tenantId).toBe(t.id);
    }
    for (const caller of ['tickets', 'channel-engines', 'social-config']) {
      const refused = await rpcError(
        createClient('tenants', h.svc.address, { caller }).GetChannel({ tenantId: 0, channelId: whatsapp!.id }),
      );
      expect(refused.code).toBe(grpc.status.PERMISSION_DENIED);
    }
    const err = await rpcError(h.client.GetChannel({ tenantId: other.id, channelId: whatsapp!.id }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
  });

  it("hands a channel's provider credentials and signing secrets only to the callers that use them", async () => {
    const t = await newTenant();
    const { whatsapp } = await create(t.id, { engineToken: 'engine-secret' });
    // Fields no single kind has all of, written as stored.
    const full = 'https://engine:url-pass@engine.example.com/';
    await h.svc.db
      .collection('channels')
      .updateOne({ _id: whatsapp!.id as never }, { $set: { bmToken: 'bm-secret', pageToken: 'page-secret', engineUrl: full } });
    const read = (caller: string) =>
      createClient('tenants', h.svc.address, { caller }).GetChannel({ tenantId: t.id, channelId: whatsapp!.id });
    const secrets = (c: Awaited<ReturnType<typeof read>>) => ({
      bm: c.bmToken,
      engine: c.engineToken,
      page: c.pageToken,
      hook: c.webhookSecret !== '',
      url: c.engineUrl,
    });
    const masked = 'https://engine:***@engine.example.com/';
    expect(secrets(await read('messaging'))).toEqual({
      bm: 'bm-secret',
      engine: 'engine-secret',
      page: 'page-secret',
      hook: true,
      url: full,
    });
    expect(secrets(await read('gateway'))).toEqual({ bm: '', engine: 'engine-secret', page: '', hook: true, url: masked });
    expect(secrets(await read('social-config'))).toEqual({ bm: '', engine: '', page: 'page-secret', hook: false, url: masked });
    for (const caller of ['tickets', 'channel-engines', 'tenants']) {
      expect(secrets(await read(caller))).toEqual({ bm: '', engine: '', page: '', hook: false, url: masked });
    }
    // The other answers that carry a channel follow the same rule.
    const created = await createClient('tenants', h.svc.address, { caller: 'gateway' }).CreateSession(
      engineSession(t.id, { engineToken: 'e2' }),
    );
    expect(created.whatsapp).toMatchObject({ engineToken: 'e2', bmToken: '' });
    const status = await createClient('tenants', h.svc.address, { caller: 'channel-engines' }).SetChannelStatus({
      tenantId: t.id,
      channelId: whatsapp!.id,
      status: 'CONNECTED',
    });
    expect(status).toMatchObject({ status: 'CONNECTED', engineToken: '', webhookSecret: '' });
  });

  it('FindChannelByAccount finds waba by phone-number id and social channels by page id', async () => {
    const t = await newTenant();
    const phoneId = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const pageId = `page-${phoneId}`;
    const { whatsapp: waba } = await h.client.CreateSession(wabaSession(t.id, { tokenApi: phoneId }));
    const { whatsapp: social } = await create(t.id, { type: 'social_b', pageId, pageToken: 'pt' });

    expect((await h.client.FindChannelByAccount({ type: 'waba', accountId: phoneId })).id).toBe(waba!.id);
    expect((await h.client.FindChannelByAccount({ type: 'social_b', accountId: pageId })).id).toBe(social!.id);
    // The kind is part of the key: the page of a Messenger channel is not an Instagram account.
    expect((await rpcError(h.client.FindChannelByAccount({ type: 'social_a', accountId: pageId }))).code).toBe(grpc.status.NOT_FOUND);
    expect((await rpcError(h.client.FindChannelByAccount({ type: 'waba', accountId: '' }))).code).toBe(grpc.status.NOT_FOUND);
    expect((await rpcError(h.client.FindChannelByAccount({ type: 'engine_a', accountId: phoneId }))).code).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
  });

  it("ListChannelIntegrations answers the channel's integrations, within its tenant only", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const { whatsapp, api } = await create(t.id);
    const { integrations } = await h.client.ListChannelIntegrations({ tenantId: t.id, channelId: whatsapp!.id });
    expect(integrations.map((i) => i.apiId)).toEqual([api!.apiId]);
    expect(integrations[0].authToken).toBe('');
    const err = await rpcError(h.client.ListChannelIntegrations({ tenantId: other.id, channelId: whatsapp!.id }));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
  });

  it('SetChannelStatus moves a channel between CONNECTED and DISCONNECTED, tenant-scoped', async () => {
    const t = await newTenant();
    const other = await newTenant();
    const { whatsapp } = await create(t.id);
    expect(whatsapp!.status).toBe('DISCONNECTED');
    expect((await h.client.SetChannelStatus({ tenantId: t.id, channelId: whatsapp!.id, status: 'CONNECTED' })).status).toBe('CONNECTED');
    expect((await h.client.GetChannel({ tenantId: t.id, channelId: whatsapp!.id })).status).toBe('CONNECTED');
    expect(errFields(await rpcError(h.client.SetChannelStatus({ tenantId: t.id, channelId: whatsapp!.id, status: 'ONLINE' })))).toEqual([
      'status',
    ]);
    expect((await rpcError(h.client.SetChannelStatus({ tenantId: other.id, channelId: whatsapp!.id, status: 'DISCONNECTED' }))).code).toBe(
      grpc.status.NOT_FOUND,
    );
  });
});
