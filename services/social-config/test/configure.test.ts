import { META_GRAPH_VERSION } from '@convo/kit/meta-graph';
import { grpcToHttp, type ServiceClient } from '@convo/kit';
import {
  rpcError,
  startFakeProvider,
  startTestMesh,
  SUPER_ADMIN_TOKEN,
  type FakeProvider,
  type ProviderReply,
  type ProviderRequest,
  type TestMesh,
} from '@convo/test-support';
import { tenantsService } from '@convo/tenants';
import type { Connection } from 'mongoose';
import { socialConfigService } from '../src/spec';

// The real tenants and social-config services over gRPC on one FerretDB, and a fake Graph API on
// loopback that records the exact request each action sends to Meta.

// ---- a fake Graph API ----------------------------------------------------------------------

const accept = (req: ProviderRequest): ProviderReply => ({
  status: 200,
  body: req.method === 'DELETE' && req.url !== '/me/messenger_profile' ? { success: true } : { result: 'success' },
});

/** What Meta was sent: method, path, token and JSON body (undefined when there was none). */
const graphRequests = () =>
  graph.requests.map(({ method, url, headers, body }) => ({
    method,
    url,
    authorization: headers.authorization,
    body: body === '' ? undefined : body,
  }));

/** Meta's error envelope, as the Graph API answers a refusal. */
const metaError = (message: string) => ({
  status: 400,
  body: { error: { message, type: 'OAuthException', code: 100, fbtrace_id: 'TRACE1' } },
});

// ---- setup ---------------------------------------------------------------------------------

let mesh: TestMesh;
let graph: FakeProvider;
let social: ServiceClient<'socialConfig'>;
let socialDb: Connection;
let socialGraphql: string;
let tenantId: number;
let otherTenantId: number;
let instagram: number;
let messenger: number;
let whatsapp: number;

beforeAll(async () => {
  [mesh, graph] = await Promise.all([startTestMesh('social-config-configure-test'), startFakeProvider(accept)]);
  const tenantsSvc = await mesh.start(tenantsService);
  const socialSvc = await mesh.start(socialConfigService, {
    env: { TENANTS_GRPC_ADDR: tenantsSvc.address, META_GRAPH_URL: `${graph.url}/${META_GRAPH_VERSION}`, PROVIDER_TIMEOUT_MS: '1000' },
  });
  socialDb = socialSvc.db;
  socialGraphql = `http://127.0.0.1:${socialSvc.graphqlPort}/graphql`;
  social = socialSvc.client;

  const tenants = tenantsSvc.client;
  const newTenant = async (name: string) =>
    (
      await tenants.StoreTenant({
        status: 'active',
        name,
        maxUsers: 5,
        maxConnections: 5,
        acceptTerms: true,
        email: `owner@${name.toLowerCase()}.example`,
        password: 'secret-pass1',
        userName: 'Owner',
        profile: 'admin',
      })
    ).tenant!.id;
  [tenantId, otherTenantId] = [await newTenant('Acme'), await newTenant('Other')];
  const channel = async (type: string, extra: Record<string, string>) =>
    (await tenants.CreateSession({ tenant: tenantId, name: type, type, ...extra })).whatsapp!.id;
  instagram = await channel('social_a', { pageId: 'IG-PAGE-1', pageToken: 'ig-token' });
  messenger = await channel('social_b', { pageId: 'FB-PAGE-1', pageToken: 'fb-token' });
  whatsapp = await channel('engine_a', { engineUrl: 'http://127.0.0.1:9' });
});

afterAll(async () => {
  await mesh?.stop();
  await graph?.close();
});

beforeEach(() => graph.reset());

const configure = (channelId: number, feature: string, action: string, body: Record<string, unknown> = {}, tenant = tenantId) =>
  social.Configure({ tenantId: tenant, channelId, feature, action, json: JSON.stringify(body) }).then((r) => JSON.parse(r.json));

/** The REST answer a failed call becomes (status and envelope), through the kit's one mapping. */
const failure = async (call: Promise<unknown>) => grpcToHttp(await rpcError(call));

const stored = (channelId: number) => socialDb.collection('channel_profiles').findOne({ _id: channelId as never });

// ---- ice breakers (social_a) ---------------------------------------------------------------

describe('iceBreakers', () => {
  const iceBreakers = [
    { question: 'Where is my order?', payload: 'ORDER' },
    { question: 'Opening hours?', payload: 'HOURS' },
  ];

  it('answers an empty configuration before any set, without asking Meta', async () => {
    await expect(configure(instagram, 'iceBreakers', 'get')).resolves.toEqual({ iceBreakers: [] });
    expect(graphRequests()).toEqual([]);
  });

  it('sets them at Meta in the localized form for Instagram, stores and answers them', async () => {
    await expect(configure(instagram, 'iceBreakers', 'set', { iceBreakers })).resolves.toEqual({ iceBreakers });
    expect(graphRequests()).toEqual([
      {
        method: 'POST',
        url: `/${META_GRAPH_VERSION}/me/messenger_profile`,
        authorization: 'Bearer ig-token',
        body: { platform: 'instagram', ice_breakers: [{ locale: 'default', call_to_actions: iceBreakers }] },
      },
    ]);
    graph.reset();
    await expect(configure(instagram, 'iceBreakers', 'get')).resolves.toEqual({ iceBreakers });
    await expect(social.GetProfile({ tenantId, channelId: instagram })).resolves.toMatchObject({ iceBreakers });
    expect(graphRequests()).toEqual([]);
  });

  it('stores nothing when Meta refuses, and answers 502 with Meta’s message', async () => {
    await configure(instagram, 'iceBreakers', 'set', { iceBreakers });
    const before = await stored(instagram);
    graph.answer(() => metaError('(#100) Invalid payload'));
    const res = await failure(configure(instagram, 'iceBreakers', 'set', { iceBreakers: [{ question: 'New?', payload: 'NEW' }] }));
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: 'ERR_PROVIDER_FAILED', message: expect.stringContaining('(#100) Invalid payload') });
    expect(await stored(instagram)).toEqual(before);
  });

  it('deletes them at Meta, then clears the stored copy', async () => {
    await configure(instagram, 'iceBreakers', 'set', { iceBreakers });
    graph.reset();
    await expect(configure(instagram, 'iceBreakers', 'delete')).resolves.toEqual({ deleted: true });
    expect(graphRequests()).toEqual([
      {
        method: 'DELETE',
        url: `/${META_GRAPH_VERSION}/me/messenger_profile`,
        authorization: 'Bearer ig-token',
        body: { platform: 'instagram', fields: ['ice_breakers'] },
      },
    ]);
    await expect(configure(instagram, 'iceBreakers', 'get')).resolves.toEqual({ iceBreakers: [] });
  });

  it('keeps the stored copy when Meta refuses the delete', async () => {
    await configure(instagram, 'iceBreakers', 'set', { iceBreakers });
    graph.answer(() => metaError('Page not allowed'));
    expect((await failure(configure(instagram, 'iceBreakers', 'delete'))).status).toBe(502);
    await expect(configure(instagram, 'iceBreakers', 'get')).resolves.toEqual({ iceBreakers });
  });

  it('answers 502 when Meta does not answer in time, storing nothing', async () => {
    await configure(instagram, 'iceBreakers', 'delete');
    graph.answer(() => 'hang');
    const res = await failure(configure(instagram, 'iceBreakers', 'set', { iceBreakers }));
    expect(res).toMatchObject({
      status: 502,
      body: { error: 'ERR_PROVIDER_FAILED', message: expect.stringContaining('no answer within 1000 ms') },
    });
    graph.reset();
    await expect(configure(instagram, 'iceBreakers', 'get')).resolves.toEqual({ iceBreakers: [] });
  });
});

// ---- persistent menu (social_a) ------------------------------------------------------------

describe('persistentMenu', () => {
  const menuItems = [
    { type: 'postback', title: 'Talk to us', payload: 'AGENT' },
    { type: 'web_url', title: 'Shop', url: 'https://shop.example/' },
  ];

  it('sets the menu without composer_input_disabled (Instagram has none) and answers it', async () => {
    const applied = { composerInputDisabled: false, menuItems };
    await expect(configure(instagram, 'persistentMenu', 'set', { composerInputDisabled: false, menuItems })).resolves.toEqual(applied);
    expect(graphRequests()).toEqual([
      {
        method: 'POST',
        url: `/${META_GRAPH_VERSION}/me/messenger_profile`,
        authorization: 'Bearer ig-token',
        body: { platform: 'instagram', persistent_menu: [{ locale: 'default', call_to_actions: menuItems }] },
      },
    ]);
    await expect(configure(instagram, 'persistentMenu', 'get')).resolves.toEqual(applied);
  });

  it('sends a postback only its payload and a web_url only its url', async () => {
    await configure(instagram, 'persistentMenu', 'set', {
      menuItems: [
        { type: 'postback', title: 'A', payload: 'P', url: 'https://ignored.example/' },
        { type: 'web_url', title: 'B', url: 'https://b.example/', payload: 'ignored' },
      ],
    });
    expect((graph.requests[0].body as any).persistent_menu[0].call_to_actions).toEqual([
      { type: 'postback', title: 'A', payload: 'P' },
      { type: 'web_url', title: 'B', url: 'https://b.example/' },
    ]);
  });

  it('refuses composerInputDisabled: true on Instagram, before asking Meta', async () => {
    const res = await failure(configure(instagram, 'persistentMenu', 'set', { composerInputDisabled: true, menuItems }));
    expect(res).toMatchObject({
      status: 400,
      body: { error: 'ERR_VALIDATION', details: [{ field: 'composerInputDisabled', message: expect.any(String) }] },
    });
    expect(graphRequests()).toEqual([]);
  });

  it('deletes the menu at Meta and answers an empty one afterwards', async () => {
    await configure(instagram, 'persistentMenu', 'set', { menuItems });
    graph.reset();
    await expect(configure(instagram, 'persistentMenu', 'delete')).resolves.toEqual({ deleted: true });
    expect(graphRequests()).toEqual([
      {
        method: 'DELETE',
        url: `/${META_GRAPH_VERSION}/me/messenger_profile`,
        authorization: 'Bearer ig-token',
        body: { platform: 'instagram', fields: ['persistent_menu'] },
      },
    ]);
    await expect(configure(instagram, 'persistentMenu', 'get')).resolves.toEqual({ composerInputDisabled: false, menuItems: [] });
    expect((await stored(instagram))?.persistentMenu).toBeNull();
  });
});

// ---- greeting (social_b) -------------------------------------------------------------------

describe('greeting', () => {
  const greetings = [
    { locale: 'default', text: 'Hi {{user_first_name}}!' },
    { locale: 'pt_BR', text: 'Olá {{user_first_name}}!' },
  ];

  it('sets the greeting on the Messenger page (no platform), then answers it from storage', async () => {
    await expect(configure(messenger, 'greeting', 'set', { greetings })).resolves.toEqual({ greetings });
    expect(graphRequests()).toEqual([
      {
        method: 'POST',
        url: `/${META_GRAPH_VERSION}/me/messenger_profile`,
        authorization: 'Bearer fb-token',
        body: { greeting: greetings },
      },
    ]);
    graph.reset();
    await expect(configure(messenger, 'greeting', 'get')).resolves.toEqual({ greetings });
    await expect(social.GetProfile({ tenantId, channelId: messenger })).resolves.toMatchObject({ greetings });
    expect(graphRequests()).toEqual([]);
  });

  it('deletes the greeting at Meta and clears it', async () => {
    await configure(messenger, 'greeting', 'set', { greetings });
    graph.reset();
    await expect(configure(messenger, 'greeting', 'delete')).resolves.toEqual({ deleted: true });
    expect(graphRequests()).toEqual([
      {
        method: 'DELETE',
        url: `/${META_GRAPH_VERSION}/me/messenger_profile`,
        authorization: 'Bearer fb-token',
        body: { fields: ['greeting'] },
      },
    ]);
    await expect(configure(messenger, 'greeting', 'get')).resolves.toEqual({ greetings: [] });
  });
});

// ---- personas (social_b) -------------------------------------------------------------------

describe('personas', () => {
  it('creates a persona at Meta and stores it with the id Meta gave', async () => {
    graph.answer(() => ({ status: 200, body: { id: '1001' } }));
    const persona = { personaId: '1001', name: 'Ana', profilePictureUrl: 'https://cdn.example/ana.png' };
    await expect(
      configure(messenger, 'personas', 'create', { name: 'Ana', profilePictureUrl: 'https://cdn.example/ana.png' }),
    ).resolves.toEqual(persona);
    expect(graphRequests()).toEqual([
      {
        method: 'POST',
        url: `/${META_GRAPH_VERSION}/FB-PAGE-1/personas`,
        authorization: 'Bearer fb-token',
        body: { name: 'Ana', profile_picture_url: 'https://cdn.example/ana.png' },
      },
    ]);
    expect((await stored(messenger))?.personas).toEqual({ 1001: { ...persona, createdAt: expect.any(Date) } });
  });

  it('stores nothing when Meta refuses the persona', async () => {
    const before = (await stored(messenger))?.personas;
    graph.answer(() => metaError('Invalid image URL'));
    const res = await failure(
      configure(messenger, 'personas', 'create', { name: 'Bob', profilePictureUrl: 'https://cdn.example/404.png' }),
    );
    expect(res).toMatchObject({
      status: 502,
      body: { error: 'ERR_PROVIDER_FAILED', message: expect.stringContaining('Invalid image URL') },
    });
    expect((await stored(messenger))?.personas).toEqual(before);
  });

  it("lists Meta's personas, following its pages", async () => {
    graph.answer((req) =>
      req.url.includes('after=CUR1')
        ? {
            status: 200,
            body: {
              data: [{ id: '1002', name: 'Bob', profile_picture_url: 'https://cdn.example/bob.png' }],
              paging: { cursors: { before: 'CUR1', after: 'CUR2' } },
            },
          }
        : {
            status: 200,
            body: {
              data: [{ id: '1001', name: 'Ana', profile_picture_url: 'https://cdn.example/ana.png' }],
              paging: {
                cursors: { before: 'CUR0', after: 'CUR1' },
                next: `https://graph.facebook.com/${META_GRAPH_VERSION}/FB-PAGE-1/personas?after=CUR1`,
              },
            },
          },
    );
    await expect(configure(messenger, 'personas', 'list')).resolves.toEqual({
      personas: [
        { personaId: '1001', name: 'Ana', profilePictureUrl: 'https://cdn.example/ana.png' },
        { personaId: '1002', name: 'Bob', profilePictureUrl: 'https://cdn.example/bob.png' },
      ],
    });
    expect(graphRequests().map((r) => [r.method, r.url, r.authorization])).toEqual([
      ['GET', `/${META_GRAPH_VERSION}/FB-PAGE-1/personas`, 'Bearer fb-token'],
      ['GET', `/${META_GRAPH_VERSION}/FB-PAGE-1/personas?after=CUR1`, 'Bearer fb-token'],
    ]);
  });

  it('deletes a persona at Meta and forgets it', async () => {
    graph.answer(() => ({ status: 200, body: { id: '2001' } }));
    await configure(messenger, 'personas', 'create', { name: 'Cid', profilePictureUrl: 'https://cdn.example/cid.png' });
    graph.reset();
    await expect(configure(messenger, 'personas', 'delete', { personaId: '2001' })).resolves.toEqual({ personaId: '2001', deleted: true });
    expect(graphRequests()).toEqual([
      { method: 'DELETE', url: `/${META_GRAPH_VERSION}/2001`, authorization: 'Bearer fb-token', body: undefined },
    ]);
    expect(Object.keys((await stored(messenger))?.personas)).toEqual(['1001']);
  });
});

// ---- the stored profile over GraphQL -------------------------------------------------------

describe('ChannelProfile (GraphQL)', () => {
  it('shows the menu and the personas created through the API', async () => {
    await configure(instagram, 'persistentMenu', 'set', { menuItems: [{ type: 'web_url', title: 'Shop', url: 'https://shop.example/' }] });
    graph.answer(() => ({ status: 200, body: { id: '3001' } }));
    await configure(messenger, 'personas', 'create', { name: 'Dee', profilePictureUrl: 'https://cdn.example/dee.png' });
    const query = `query ($t: Int!, $a: Int!, $b: Int!) {
      a: channelProfile(tenantId: $t, channelId: $a) { persistentMenu { composerInputDisabled menuItems { type title payload url } } }
      b: channelProfile(tenantId: $t, channelId: $b) { persistentMenu { composerInputDisabled } personas { personaId name profilePictureUrl createdAt } }
    }`;
    const res = await fetch(socialGraphql, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SUPER_ADMIN_TOKEN}` },
      body: JSON.stringify({ query, variables: { t: tenantId, a: instagram, b: messenger } }),
    });
    const { data } = (await res.json()) as { data: any };
    expect(data.a.persistentMenu).toEqual({
      composerInputDisabled: false,
      menuItems: [{ type: 'web_url', title: 'Shop', payload: null, url: 'https://shop.example/' }],
    });
    expect(data.b.persistentMenu).toBeNull();
    expect(data.b.personas).toContainEqual({
      personaId: '3001',
      name: 'Dee',
      profilePictureUrl: 'https://cdn.example/dee.png',
      createdAt: expect.any(String),
    });
  });
});

// ---- channels ------------------------------------------------------------------------------

describe('channel checks', () => {
  it.each([
    ['iceBreakers', messengerId, 'social_a', 'social_b'],
    ['persistentMenu', messengerId, 'social_a', 'social_b'],
    ['greeting', instagramId, 'social_b', 'social_a'],
    ['personas', whatsappId, 'social_b', 'engine_a'],
  ])('refuses %s on the wrong kind of channel, naming both kinds', async (feature, channelOf, needed, actual) => {
    const res = await failure(configure(channelOf(), feature, feature === 'personas' ? 'list' : 'get'));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('ERR_CHANNEL_MISMATCH');
    expect(res.body.message).toContain(needed);
    expect(res.body.message).toContain(actual);
    expect(graphRequests()).toEqual([]);
  });

  it("answers 404 for another tenant's channel and never calls Meta", async () => {
    const res = await failure(
      configure(instagram, 'iceBreakers', 'set', { iceBreakers: [{ question: 'Q', payload: 'P' }] }, otherTenantId),
    );
    expect(res).toMatchObject({ status: 404, body: { error: 'ERR_CHANNEL_NOT_FOUND' } });
    expect(graphRequests()).toEqual([]);
  });

  it('refuses an unknown feature or action, and a missing tenant', async () => {
    expect((await failure(configure(instagram, 'getStarted', 'get'))).body.details).toEqual([
      { field: 'feature', message: expect.any(String) },
    ]);
    expect((await failure(configure(instagram, 'iceBreakers', 'list'))).body.details).toEqual([
      { field: 'action', message: expect.any(String) },
    ]);
    expect((await failure(configure(instagram, 'iceBreakers', 'get', {}, 0))).status).toBe(400);
    // Every field's problem at once, not the first one only.
    expect((await failure(configure(0, 'nope', 'get', {}, 0))).body).toMatchObject({
      error: 'ERR_VALIDATION',
      details: [
        { field: 'tenantId', message: 'is required' },
        { field: 'channelId', message: 'is required' },
        { field: 'feature', message: expect.any(String) },
      ],
    });
    expect((await failure(configure(messenger, 'personas', 'delete', { personaId: '../me' }))).body.details).toEqual([
      { field: 'personaId', message: expect.any(String) },
    ]);
  });
});

function messengerId() {
  return messenger;
}
function instagramId() {
  return instagram;
}
function whatsappId() {
  return whatsapp;
}
