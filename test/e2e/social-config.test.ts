import type { Mesh } from '@convo/dev-mesh';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, type Reply } from '../support/http';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

interface GraphRequest {
  method: string;
  url: string;
  authorization?: string;
  body: any;
}

/**
 * Meta's Graph API on loopback (the mesh's META_GRAPH_URL): records every request and answers
 * as Meta does, or with the refusals queued by a test.
 */
async function startFakeGraph() {
  const requests: GraphRequest[] = [];
  const refusals: string[] = [];
  // Personas by page token, as Meta keeps them per page.
  const personas = new Map<string, Array<{ id: string; name: string; profile_picture_url: string }>>();
  let lastPersona = 5000;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method!,
        url: req.url!,
        authorization: req.headers.authorization,
        body: raw ? JSON.parse(raw) : undefined,
      };
      requests.push(recorded);
      const refusal = refusals.shift();
      const [status, body] = refusal
        ? [400, { error: { message: refusal, type: 'OAuthException', code: 100, fbtrace_id: 'TRACE' } }]
        : [200, answerOf(recorded)];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  const answerOf = (r: GraphRequest): unknown => {
    if (r.url.endsWith('/messenger_profile')) return { result: 'success' };
    const page = personas.get(r.authorization!) ?? [];
    personas.set(r.authorization!, page);
    if (r.url.endsWith('/personas') && r.method === 'POST') {
      page.push({ id: String(++lastPersona), name: r.body.name, profile_picture_url: r.body.profile_picture_url });
      return { id: String(lastPersona) };
    }
    if (r.url.endsWith('/personas')) return { data: page, paging: {} };
    // DELETE /{personaId}
    const at = page.findIndex((p) => r.url === `/v21.0/${p.id}`);
    if (at >= 0) page.splice(at, 1);
    return { success: true };
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v21.0`,
    requests,
    refuseNext: (message: string) => void refusals.push(message),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The four social configuration endpoints through the REST facade of the real mesh, with the
 * social-config service pointed at a fake Graph API.
 */
describe('social channel configuration, end to end', () => {
  let mesh: Mesh;
  let graph: Awaited<ReturnType<typeof startFakeGraph>>;
  let admin: string;
  const crashes: string[] = [];
  let lastEmail = 0;

  interface Integration {
    root: string;
    token: string;
    pageToken: string;
  }

  async function newTenant(): Promise<number> {
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Social Co',
        maxUsers: 5,
        maxConnections: 5,
        acceptTerms: true,
        email: `owner-${++lastEmail}@social-config.example`,
        password: 'S3cure!pass',
        userName: 'Ana',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    return tenant.body.data.tenant.id;
  }

  async function newChannel(tenant: number, type: 'social_a' | 'social_b'): Promise<Integration> {
    const pageToken = `${type}-token-${tenant}`;
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant, name: type, type, pageId: `PAGE-${type}-${tenant}`, pageToken },
    });
    expect(session.status).toBe(200);
    return { root: `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`, token: session.body.data.api.authToken, pageToken };
  }

  let instagram: Integration;
  let messenger: Integration;
  let otherInstagram: Integration;
  let pageIdOfMessenger: string;

  const post = (api: Integration, path: string, body: unknown) => call(`${api.root}/${path}`, { token: api.token, body });
  const sent = (from: number) => graph.requests.slice(from);
  const expectError = (res: Reply, status: number, error: string) => {
    expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
    expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
  };

  beforeAll(async () => {
    graph = await startFakeGraph();
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
      env: { META_GRAPH_URL: graph.url },
    });
    admin = mesh.superAdminToken;
    const tenant = await newTenant();
    instagram = await newChannel(tenant, 'social_a');
    messenger = await newChannel(tenant, 'social_b');
    pageIdOfMessenger = `PAGE-social_b-${tenant}`;
    otherInstagram = await newChannel(await newTenant(), 'social_a');
  });

  afterAll(async () => {
    await mesh?.stop();
    await graph?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  // ---- the four endpoints ------------------------------------------------------------------

  it('iceBreakers: get, set, get, delete, get', async () => {
    const iceBreakers = [
      { question: 'Where is my order?', payload: 'ORDER' },
      { question: 'Do you ship abroad?', payload: 'SHIPPING' },
    ];
    const from = graph.requests.length;
    expect((await post(instagram, 'social_a/iceBreakers', { action: 'get' })).body).toEqual({ success: true, data: { iceBreakers: [] } });

    expect((await post(instagram, 'social_a/iceBreakers', { action: 'set', iceBreakers })).body).toEqual({
      success: true,
      data: { iceBreakers },
    });
    expect((await post(instagram, 'social_a/iceBreakers', { action: 'get' })).body.data).toEqual({ iceBreakers });

    expect((await post(instagram, 'social_a/iceBreakers', { action: 'delete' })).body).toEqual({ success: true, data: { deleted: true } });
    expect((await post(instagram, 'social_a/iceBreakers', { action: 'get' })).body.data).toEqual({ iceBreakers: [] });

    // get answers the stored configuration: only set and delete reach Meta.
    expect(sent(from)).toEqual([
      {
        method: 'POST',
        url: '/v21.0/me/messenger_profile',
        authorization: `Bearer ${instagram.pageToken}`,
        body: { platform: 'instagram', ice_breakers: [{ locale: 'default', call_to_actions: iceBreakers }] },
      },
      {
        method: 'DELETE',
        url: '/v21.0/me/messenger_profile',
        authorization: `Bearer ${instagram.pageToken}`,
        body: { platform: 'instagram', fields: ['ice_breakers'] },
      },
    ]);
  });

  it('persistentMenu: set, get, delete; composerInputDisabled: true is refused on Instagram', async () => {
    const menuItems = [
      { type: 'postback', title: 'Talk to an agent', payload: 'AGENT' },
      { type: 'web_url', title: 'Shop now', url: 'https://shop.example/' },
    ];
    const from = graph.requests.length;
    const set = await post(instagram, 'social_a/persistentMenu', { action: 'set', composerInputDisabled: false, menuItems });
    expect(set.body).toEqual({ success: true, data: { composerInputDisabled: false, menuItems } });
    expect(sent(from)).toEqual([
      {
        method: 'POST',
        url: '/v21.0/me/messenger_profile',
        authorization: `Bearer ${instagram.pageToken}`,
        body: { platform: 'instagram', persistent_menu: [{ locale: 'default', call_to_actions: menuItems }] },
      },
    ]);
    expect((await post(instagram, 'social_a/persistentMenu', { action: 'get' })).body.data).toEqual({
      composerInputDisabled: false,
      menuItems,
    });

    const disabled = await post(instagram, 'social_a/persistentMenu', { action: 'set', composerInputDisabled: true, menuItems });
    expectError(disabled, 400, 'ERR_VALIDATION');
    expect(disabled.body.details).toEqual([{ field: 'composerInputDisabled', message: expect.stringContaining('Instagram') }]);
    expect(sent(from)).toHaveLength(1);

    expect((await post(instagram, 'social_a/persistentMenu', { action: 'delete' })).body).toEqual({
      success: true,
      data: { deleted: true },
    });
    expect(sent(from)[1]).toMatchObject({ method: 'DELETE', body: { platform: 'instagram', fields: ['persistent_menu'] } });
    expect((await post(instagram, 'social_a/persistentMenu', { action: 'get' })).body.data).toEqual({
      composerInputDisabled: false,
      menuItems: [],
    });
  });

  it("answers under the channels' real names (instagram, messenger) as under the seed's", async () => {
    const iceBreakers = [{ question: 'Open today?', payload: 'HOURS' }];
    expect((await post(instagram, 'instagram/iceBreakers', { action: 'set', iceBreakers })).body).toEqual({
      success: true,
      data: { iceBreakers },
    });
    expect((await post(instagram, 'social_a/iceBreakers', { action: 'get' })).body.data).toEqual({ iceBreakers });
    expect((await post(instagram, 'instagram/iceBreakers', { action: 'delete' })).body.data).toEqual({ deleted: true });
    expect((await post(messenger, 'messenger/greeting', { action: 'get' })).body).toEqual(
      (await post(messenger, 'social_b/greeting', { action: 'get' })).body,
    );
  });

  it('greeting: set, get, delete on the Messenger page', async () => {
    const greetings = [
      { locale: 'default', text: 'Hi {{user_first_name}}, how can we help?' },
      { locale: 'pt_BR', text: 'Olá {{user_first_name}}, como podemos ajudar?' },
    ];
    const from = graph.requests.length;
    expect((await post(messenger, 'social_b/greeting', { action: 'set', greetings })).body).toEqual({ success: true, data: { greetings } });
    expect((await post(messenger, 'social_b/greeting', { action: 'get' })).body.data).toEqual({ greetings });
    expect((await post(messenger, 'social_b/greeting', { action: 'delete' })).body.data).toEqual({ deleted: true });
    expect((await post(messenger, 'social_b/greeting', { action: 'get' })).body.data).toEqual({ greetings: [] });
    expect(sent(from)).toEqual([
      { method: 'POST', url: '/v21.0/me/messenger_profile', authorization: `Bearer ${messenger.pageToken}`, body: { greeting: greetings } },
      {
        method: 'DELETE',
        url: '/v21.0/me/messenger_profile',
        authorization: `Bearer ${messenger.pageToken}`,
        body: { fields: ['greeting'] },
      },
    ]);
  });

  it('personas: create, list, delete', async () => {
    const from = graph.requests.length;
    const created = await post(messenger, 'social_b/personas', {
      action: 'create',
      name: 'Ana',
      profilePictureUrl: 'https://cdn.example/ana.png',
    });
    expect(created.body).toEqual({
      success: true,
      data: { personaId: '5001', name: 'Ana', profilePictureUrl: 'https://cdn.example/ana.png' },
    });

    const listed = await post(messenger, 'social_b/personas', { action: 'list' });
    expect(listed.body).toEqual({
      success: true,
      data: { personas: [{ personaId: '5001', name: 'Ana', profilePictureUrl: 'https://cdn.example/ana.png' }] },
    });

    const deleted = await post(messenger, 'social_b/personas', { action: 'delete', personaId: '5001' });
    expect(deleted.body).toEqual({ success: true, data: { personaId: '5001', deleted: true } });
    expect((await post(messenger, 'social_b/personas', { action: 'list' })).body.data).toEqual({ personas: [] });

    const auth = `Bearer ${messenger.pageToken}`;
    expect(sent(from)).toEqual([
      {
        method: 'POST',
        url: `/v21.0/${pageIdOfMessenger}/personas`,
        authorization: auth,
        body: { name: 'Ana', profile_picture_url: 'https://cdn.example/ana.png' },
      },
      { method: 'GET', url: `/v21.0/${pageIdOfMessenger}/personas`, authorization: auth, body: undefined },
      { method: 'DELETE', url: '/v21.0/5001', authorization: auth, body: undefined },
      { method: 'GET', url: `/v21.0/${pageIdOfMessenger}/personas`, authorization: auth, body: undefined },
    ]);
  });

  // ---- refusals ----------------------------------------------------------------------------

  const iceBreaker = { question: 'Q?', payload: 'P' };
  const postback = { type: 'postback', title: 'Menu', payload: 'MENU' };
  const hello = { locale: 'default', text: 'Hello' };
  // [rule, endpoint, body, the fields named]
  const rules: Array<[string, 'a' | 'b', string, Record<string, unknown>, string[]]> = [
    ['action is required', 'a', 'social_a/iceBreakers', {}, ['action']],
    ['action is get, set or delete', 'a', 'social_a/iceBreakers', { action: 'list' }, ['action']],
    ['iceBreakers is required on set', 'a', 'social_a/iceBreakers', { action: 'set' }, ['iceBreakers']],
    ['at most 4 ice breakers', 'a', 'social_a/iceBreakers', { action: 'set', iceBreakers: Array(5).fill(iceBreaker) }, ['iceBreakers']],
    [
      'an ice breaker needs its question',
      'a',
      'social_a/iceBreakers',
      { action: 'set', iceBreakers: [{ payload: 'P' }] },
      ['iceBreakers[0].question'],
    ],
    [
      'an ice breaker needs its payload',
      'a',
      'social_a/iceBreakers',
      { action: 'set', iceBreakers: [{ question: 'Q?' }] },
      ['iceBreakers[0].payload'],
    ],
    ['menu action is get, set or delete', 'a', 'social_a/persistentMenu', { action: 'create' }, ['action']],
    ['menuItems is required on set', 'a', 'social_a/persistentMenu', { action: 'set' }, ['menuItems']],
    ['at most 20 menu items', 'a', 'social_a/persistentMenu', { action: 'set', menuItems: Array(21).fill(postback) }, ['menuItems']],
    [
      'a menu item is postback or web_url',
      'a',
      'social_a/persistentMenu',
      { action: 'set', menuItems: [{ ...postback, type: 'phone_number' }] },
      ['menuItems[0].type'],
    ],
    [
      'a menu item needs its title',
      'a',
      'social_a/persistentMenu',
      { action: 'set', menuItems: [{ type: 'postback', payload: 'P' }] },
      ['menuItems[0].title'],
    ],
    [
      'a postback item needs its payload',
      'a',
      'social_a/persistentMenu',
      { action: 'set', menuItems: [{ type: 'postback', title: 'T' }] },
      ['menuItems[0].payload'],
    ],
    [
      'a web_url item needs its url',
      'a',
      'social_a/persistentMenu',
      { action: 'set', menuItems: [postback, { type: 'web_url', title: 'T' }] },
      ['menuItems[1].url'],
    ],
    [
      'a web_url is an http(s) URL',
      'a',
      'social_a/persistentMenu',
      { action: 'set', menuItems: [{ type: 'web_url', title: 'T', url: 'javascript:alert(1)' }] },
      ['menuItems[0].url'],
    ],
    [
      'composerInputDisabled is a boolean',
      'a',
      'social_a/persistentMenu',
      { action: 'set', composerInputDisabled: 'maybe', menuItems: [postback] },
      ['composerInputDisabled'],
    ],
    ['greetings is required on set', 'b', 'social_b/greeting', { action: 'set' }, ['greetings']],
    [
      'a greeting for the default locale is required',
      'b',
      'social_b/greeting',
      { action: 'set', greetings: [{ locale: 'pt_BR', text: 'Olá' }] },
      ['greetings'],
    ],
    [
      'a greeting is at most 160 characters',
      'b',
      'social_b/greeting',
      { action: 'set', greetings: [{ locale: 'default', text: 'x'.repeat(161) }] },
      ['greetings[0].text'],
    ],
    ['a greeting needs its text', 'b', 'social_b/greeting', { action: 'set', greetings: [{ locale: 'default' }] }, ['greetings[0].text']],
    [
      'a locale is default or a Meta locale',
      'b',
      'social_b/greeting',
      { action: 'set', greetings: [hello, { locale: 'brazil', text: 'Oi' }] },
      ['greetings[1].locale'],
    ],
    ['a locale appears once', 'b', 'social_b/greeting', { action: 'set', greetings: [hello, hello] }, ['greetings[1].locale']],
    ['personas action is list, create or delete', 'b', 'social_b/personas', { action: 'get' }, ['action']],
    ['a persona needs its name', 'b', 'social_b/personas', { action: 'create', profilePictureUrl: 'https://cdn.example/a.png' }, ['name']],
    ['a persona needs its picture', 'b', 'social_b/personas', { action: 'create', name: 'Ana' }, ['profilePictureUrl']],
    [
      'a persona picture is an http(s) URL',
      'b',
      'social_b/personas',
      { action: 'create', name: 'Ana', profilePictureUrl: 'ana.png' },
      ['profilePictureUrl'],
    ],
    ['delete needs the personaId', 'b', 'social_b/personas', { action: 'delete' }, ['personaId']],
    ['a personaId is a Meta id', 'b', 'social_b/personas', { action: 'delete', personaId: '../me' }, ['personaId']],
  ];

  it.each(rules)('400 naming the field: %s', async (_rule, channel, path, body, fields) => {
    const from = graph.requests.length;
    const res = await post(channel === 'a' ? instagram : messenger, path, body);
    expectError(res, 400, 'ERR_VALIDATION');
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(fields);
    expect(sent(from)).toEqual([]);
  });

  it('refuses a feature of the other social channel with ERR_CHANNEL_MISMATCH, naming both kinds', async () => {
    const from = graph.requests.length;
    const cases: Array<[Integration, string, Record<string, unknown>, string, string]> = [
      [messenger, 'social_a/iceBreakers', { action: 'set', iceBreakers: [iceBreaker] }, 'social_a', 'social_b'],
      [messenger, 'social_a/persistentMenu', { action: 'get' }, 'social_a', 'social_b'],
      [instagram, 'social_b/greeting', { action: 'set', greetings: [hello] }, 'social_b', 'social_a'],
      [instagram, 'social_b/personas', { action: 'list' }, 'social_b', 'social_a'],
    ];
    for (const [api, path, body, needed, actual] of cases) {
      const res = await post(api, path, body);
      expectError(res, 400, 'ERR_CHANNEL_MISMATCH');
      expect(res.body.message).toMatch(new RegExp(`needs a ${needed} channel.* is ${actual}`));
    }
    expect(sent(from)).toEqual([]);
  });

  it("answers 502 with Meta's message when Meta refuses, and stores nothing", async () => {
    const before = [{ question: 'Kept?', payload: 'KEPT' }];
    expect((await post(instagram, 'social_a/iceBreakers', { action: 'set', iceBreakers: before })).status).toBe(200);

    graph.refuseNext('(#100) Param ice_breakers[0][call_to_actions] is invalid');
    const res = await post(instagram, 'social_a/iceBreakers', { action: 'set', iceBreakers: [iceBreaker] });
    expectError(res, 502, 'ERR_PROVIDER_FAILED');
    expect(res.body.message).toContain('(#100) Param ice_breakers[0][call_to_actions] is invalid');
    expect((await post(instagram, 'social_a/iceBreakers', { action: 'get' })).body.data).toEqual({ iceBreakers: before });

    graph.refuseNext('Invalid image');
    const persona = await post(messenger, 'social_b/personas', {
      action: 'create',
      name: 'Bad',
      profilePictureUrl: 'https://cdn.example/x.gif',
    });
    expectError(persona, 502, 'ERR_PROVIDER_FAILED');
    expect(persona.body.message).toContain('Invalid image');
  });

  it("keeps each tenant's configuration to itself", async () => {
    const mine = [{ question: 'Mine?', payload: 'MINE' }];
    const theirs = [{ question: 'Theirs?', payload: 'THEIRS' }];
    await post(instagram, 'social_a/iceBreakers', { action: 'set', iceBreakers: mine });
    const from = graph.requests.length;
    expect((await post(otherInstagram, 'social_a/iceBreakers', { action: 'get' })).body.data).toEqual({ iceBreakers: [] });
    await post(otherInstagram, 'social_a/iceBreakers', { action: 'set', iceBreakers: theirs });
    // The other tenant's change went to its own page, with its own token.
    expect(sent(from)).toEqual([expect.objectContaining({ authorization: `Bearer ${otherInstagram.pageToken}` })]);
    expect((await post(instagram, 'social_a/iceBreakers', { action: 'get' })).body.data).toEqual({ iceBreakers: mine });
    expect((await post(otherInstagram, 'social_a/iceBreakers', { action: 'get' })).body.data).toEqual({ iceBreakers: theirs });

    // One integration's token does not open another's path.
    const crossed = await call(`${instagram.root}/social_a/iceBreakers`, { token: otherInstagram.token, body: { action: 'get' } });
    expectError(crossed, 403, 'ERR_FORBIDDEN');
  });
});
