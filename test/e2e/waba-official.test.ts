import type { Mesh } from '@convo/dev-mesh';
import { startWebhookReceiver, type WebhookReceiver } from '@convo/test-support';
import { randomBytes } from 'node:crypto';
import { startFakeGraph, type FakeGraph, type MetaTemplate } from '../support/fake-graph';
import { call, eventually, settled, UNPACED, type Reply } from '../support/http';
import { hubSignature, postMeta, wabaEnvelope, wabaText } from '../support/meta-webhooks';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * The official channel (waba) as Meta runs it, through the real mesh: the 24-hour window enforced
 * at acceptance, templates checked against the channel's catalog (Meta's message_templates, paged)
 * and delivered, and coexistence routing decided at delivery. The Graph API is a fake on loopback
 * that refuses what Meta refuses (131047 outside the window, 132001 for an unknown template).
 */

const META_APP_SECRET = 'meta-app-secret-for-waba';
const PHONE_ID = '1077000001';
const WABA_ID = 'WABA-77';
const TEMPLATE_CACHE_MS = 1_500;
const CHANNEL_CACHE_MS = 100;

/** A template of Meta's catalog, with `n` body parameters and optional extra components. */
const template = (name: string, over: Partial<MetaTemplate> = {}): MetaTemplate => ({
  name,
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Olá {{1}}' }],
  ...over,
});

const ORDER_UPDATE = template('order_update', {
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Pedido {{1}}' },
    { type: 'BODY', text: 'Olá {{1}}, seu pedido {{2}} saiu para entrega.' },
    { type: 'FOOTER', text: 'Loja' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'URL', text: 'Rastrear', url: 'https://shop.example/track/{{1}}' },
        { type: 'QUICK_REPLY', text: 'Falar' },
      ],
    },
  ],
});

describe('the official channel: window, templates, coexistence', () => {
  let mesh: Mesh;
  let graph: FakeGraph;
  let receiver: WebhookReceiver;
  const crashes: string[] = [];
  let admin: string;
  let tenantId: number;
  let waba: { channelId: number; root: string; token: string };
  let engine: { channelId: number; root: string; token: string };
  let seq = 0;
  const newNumber = () => `55119${String(70_000_000 + ++seq)}`;

  const post = (path: string, body: unknown, api = waba) => call(`${api.root}${path}`, { token: api.token, body });
  const expectError = (res: Reply, status: number, error: string) => {
    expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
    expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
  };
  const ticketsOf = async (number: string) =>
    ((await post('/showallticket', { number })).body.data?.tickets ?? []).filter(
      (t: { whatsappId: number }) => t.whatsappId === waba.channelId,
    );
  const message = async (messageId: string) => {
    const res = await call(`${waba.root}/getMessageByMessageId?messageId=${messageId}`, { token: waba.token });
    if (res.status !== 200) throw new Error(`getMessageByMessageId ${messageId}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };

  /** The contact writes (a signed Meta webhook, timestamped now); Meta then takes free-form messages too. */
  async function contactWrites(number: string) {
    const now = String(Math.floor(Date.now() / 1000));
    const raw = JSON.stringify(
      wabaEnvelope(PHONE_ID, {
        contacts: [{ profile: { name: 'Bia' }, wa_id: number }],
        messages: [wabaText(number, `wamid.IN-${number}-${now}`, 'Oi', now)],
      }),
    );
    expect((await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET))).status).toBe(200);
    graph.wrote(number);
  }

  async function session(body: Record<string, unknown>) {
    const res = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, { token: admin, body: { tenant: tenantId, ...body } });
    expect(res.status).toBe(200);
    const { apiId, authToken } = res.body.data.api;
    return {
      channelId: res.body.data.whatsapp.id as number,
      root: `${mesh.gatewayUrl}/v2/api/external/${apiId}`,
      token: authToken as string,
    };
  }

  const setLink = async (status: 'CONNECTED' | 'DISCONNECTED') => {
    const res = await call(`${mesh.gatewayUrl}/whatsapp/${engine.channelId}`, { token: admin, body: { status }, method: 'PUT' });
    expect(res.status).toBe(200);
    // Past the channel caches of acceptance and delivery.
    await new Promise((resolve) => setTimeout(resolve, CHANNEL_CACHE_MS * 5));
  };

  beforeAll(async () => {
    [graph, receiver] = await Promise.all([startFakeGraph(), startWebhookReceiver()]);
    // 130 filler templates before the ones sent: the catalog comes in two pages of 100.
    graph.catalog = [
      ...Array.from({ length: 130 }, (_, i) => template(`filler_${i}`)),
      ORDER_UPDATE,
      template('welcome'),
      template('promo', { status: 'PENDING', category: 'MARKETING' }),
    ];
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
      // No rate limit: the coexistence run's 200 sends, 100 ticket lookups and 400 or more reads
      // of records can exceed one token's 600 requests in 10 s on a fast machine (a CI run's read
      // came back without data, and so did one of three runs of this file alone).
      env: {
        ...UNPACED,
        RATE_LIMIT_PER_TOKEN: '0',
        RATE_LIMIT_PER_TENANT: '0',
        META_APP_SECRET,
        WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1',
        RELAY_POLL_MS: '100',
        META_GRAPH_URL: graph.url,
        TEMPLATE_CACHE_MS: String(TEMPLATE_CACHE_MS),
        CHANNEL_CACHE_MS: String(CHANNEL_CACHE_MS),
      },
    });
    admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Official Co',
        maxUsers: 5,
        maxConnections: 10,
        acceptTerms: true,
        email: 'owner@official.example',
        password: 'S3cure!pass',
        userName: 'Ana',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    tenantId = tenant.body.data.tenant.id;
    const userId = tenant.body.data.adminUser.id;
    engine = await session({
      name: 'linked',
      type: 'engine_a',
      status: 'CONNECTED',
      engineUrl: `${graph.url}/engine`,
      engineToken: 'engine-token',
    });
    waba = await session({
      name: 'official',
      type: 'waba',
      tokenAPI: PHONE_ID,
      wabaId: WABA_ID,
      bmToken: 'bm-token',
      hybridMode: 'coexistence',
      linkedChannelId: engine.channelId,
    });
    // Status callbacks of the waba channel's messages (urlMessageStatus of a second integration).
    const callbacks = await call(`${mesh.gatewayUrl}/tenantCreateApi`, {
      token: admin,
      body: {
        name: 'status',
        sessionId: waba.channelId,
        userId,
        tenant: tenantId,
        authToken: randomBytes(24).toString('hex'),
        urlMessageStatus: `${receiver.url}/status`,
      },
    });
    expect(callbacks.status).toBe(200);
  });

  afterAll(async () => {
    await mesh?.stop();
    await graph?.close();
    await receiver?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  // ---- the 24-hour window -----------------------------------------------------------------------

  describe('the window', () => {
    it('refuses free-form sends to a contact that never wrote: 409 ERR_OUTSIDE_WINDOW, no ticket, nothing sent', async () => {
      const number = newNumber();
      const before = graph.sends().length;
      expectError(await post('', { number, body: 'Hello' }), 409, 'ERR_OUTSIDE_WINDOW');
      expectError(await post('/createTicket', { number, body: 'Hello' }), 409, 'ERR_OUTSIDE_WINDOW');
      expectError(await post('/sendButtonWABA', { number, message: 'Confirm?', button1: 'Yes', button2: 'No' }), 409, 'ERR_OUTSIDE_WINDOW');
      expectError(
        await post('/sendListWABA', {
          number,
          body: 'Pick',
          button_text: 'Open',
          sections: [{ title: 'S', rows: [{ id: 'a', title: 'A' }] }],
        }),
        409,
        'ERR_OUTSIDE_WINDOW',
      );
      expect(await ticketsOf(number)).toEqual([]);

      // A template opens the conversation; a text on its ticket is still outside the window.
      const opened = await post('/template', { number, templateName: 'welcome', templateLangCode: 'pt_BR', params: ['Bia'] });
      expect(opened.status).toBe(200);
      const { ticketId } = opened.body.data;
      expectError(await post('/sendMessageByTicket', { ticketId, body: 'Free text' }), 409, 'ERR_OUTSIDE_WINDOW');
      await settled(waba.root, waba.token, opened.body.data.messageId);
      const history = await post('/showAllMessages', { ticket: String(ticketId) });
      expect(history.body.data.messages.map((m: { body: string }) => m.body)).toEqual(['Olá Bia']);
      expect(
        graph
          .sends()
          .slice(before)
          .map((r) => r.body.type),
      ).toEqual(['template']);
    });

    it('accepts and delivers the same text once the contact has written (signed Meta webhook)', async () => {
      const number = newNumber();
      expectError(await post('', { number, body: 'Hello' }), 409, 'ERR_OUTSIDE_WINDOW');
      await contactWrites(number);
      const res = await post('', { number, body: 'Hello' });
      expect(res.status).toBe(200);
      const done = await settled(waba.root, waba.token, res.body.data.messageId);
      expect(done).toMatchObject({ status: 'sent', via: 'official', body: 'Hello' });
      const sent = graph.sends().find((r) => r.body.to === number && r.body.type === 'text');
      expect(sent?.body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: number,
        type: 'text',
        text: { body: 'Hello' },
      });
      // A new ticket of the same contact (the old one closed) keeps the contact's window.
      await post('/updateticketinfo', { ticketId: res.body.data.ticketId, status: 'closed' });
      const again = await post('/createTicket', { number, body: 'New conversation' });
      expect(again.status).toBe(200);
      expect(again.body.data.ticketId).not.toBe(res.body.data.ticketId);
    });

    it("fails at once, with Meta's reason and not retried, a message Meta refuses as outside the window (131047)", async () => {
      // The contact wrote (our window is open) but Meta's fake does not know it: Meta answers 131047.
      const refusing = newNumber();
      const raw = JSON.stringify(
        wabaEnvelope(PHONE_ID, { messages: [wabaText(refusing, `wamid.IN-R-${refusing}`, 'Oi', String(Math.floor(Date.now() / 1000)))] }),
      );
      expect((await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET))).status).toBe(200);
      const res = await post('', { number: refusing, body: 'Late' });
      expect(res.status).toBe(200);
      const done = await settled(waba.root, waba.token, res.body.data.messageId);
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(/outside the 24-hour window.*131047/);
      expect(graph.sends().filter((r) => r.body.to === refusing)).toHaveLength(1);
    });
  });

  // ---- templates ----------------------------------------------------------------------------------

  describe('templates', () => {
    it("delivers a template to a new contact with the catalog's name, language and parameters (templateData shape)", async () => {
      const number = newNumber();
      const components = [
        { type: 'header', parameters: [{ type: 'text', text: '#981' }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Bia' },
            { type: 'text', text: '#981' },
          ],
        },
        { type: 'button', sub_type: 'url', index: 0, parameters: [{ type: 'text', text: '981' }] },
      ];
      const res = await post('/templateBody', {
        number,
        externalKey: `tpl-${number}`,
        templateData: {
          messaging_product: 'whatsapp',
          to: number,
          type: 'template',
          template: { name: 'order_update', language: { code: 'pt_BR' }, components },
        },
      });
      expect(res.status).toBe(200);
      const done = await settled(waba.root, waba.token, res.body.data.messageId);
      expect(done).toMatchObject({
        status: 'sent',
        via: 'official',
        body: 'Olá Bia, seu pedido #981 saiu para entrega.',
        ticketId: res.body.data.ticketId,
      });
      const sent = graph.sends().filter((r) => r.body.to === number);
      expect(sent.map((r) => [r.url, r.headers.authorization, r.body])).toEqual([
        [
          `/${PHONE_ID}/messages`,
          'Bearer bm-token',
          {
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to: number,
            type: 'template',
            template: { name: 'order_update', language: { code: 'pt_BR' }, components },
          },
        ],
      ]);
      // The contact's ticket was opened; the same externalKey answers skipped.
      expect((await ticketsOf(number)).map((t: { id: number }) => t.id)).toEqual([res.body.data.ticketId]);
      const repeat = await post('/template', {
        number,
        externalKey: `tpl-${number}`,
        templateName: 'welcome',
        templateLangCode: 'pt_BR',
        params: ['x'],
      });
      expect(repeat.body).toEqual({ success: true, idempotent: true, skipped: true, ticketId: res.body.data.ticketId });
      // The catalog was read from Meta page by page.
      const reads = graph.catalogReads();
      expect(reads.length).toBeGreaterThanOrEqual(2);
      expect(reads[0].headers.authorization).toBe('Bearer bm-token');
      expect(reads[0].url).toMatch(new RegExp(`^/${WABA_ID}/message_templates\\?`));
      expect(reads.some((r) => new URL(r.url, 'http://x').searchParams.get('after'))).toBe(true);
    });

    it('takes the flat shape (templateName, templateLangCode, params) on /template and /templateMarketingBody', async () => {
      for (const path of ['/template', '/templateMarketingBody']) {
        const number = newNumber();
        const res = await post(path, { number: `+${number}`, templateName: 'welcome', templateLangCode: 'pt_BR', params: ['Ana'] });
        expect(res.status).toBe(200);
        await settled(waba.root, waba.token, res.body.data.messageId);
        const sent = graph.sends().find((r) => r.body.to === number);
        expect(sent?.body.template).toEqual({
          name: 'welcome',
          language: { code: 'pt_BR' },
          components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }],
        });
      }
    });

    it('refuses unknown, unapproved and miscounted templates with the documented 4xx, opening nothing', async () => {
      const number = newNumber();
      const flat = (over: Record<string, unknown>) => ({
        number,
        templateName: 'welcome',
        templateLangCode: 'pt_BR',
        params: ['Ana'],
        ...over,
      });
      expectError(await post('/template', flat({ templateName: 'no_such_template' })), 400, 'ERR_TEMPLATE_NOT_FOUND');
      expectError(await post('/template', flat({ templateLangCode: 'en_US' })), 400, 'ERR_TEMPLATE_NOT_FOUND');
      expectError(await post('/template', flat({ templateName: 'promo', params: ['Ana'] })), 409, 'ERR_TEMPLATE_NOT_APPROVED');
      const tooMany = await post('/template', flat({ params: ['Ana', 'extra'] }));
      expectError(tooMany, 400, 'ERR_VALIDATION');
      expect(tooMany.body.details.map((d: { field: string }) => d.field)).toEqual(['components.body']);
      const noButton = await post('/template', {
        number,
        templateData: {
          template: {
            name: 'order_update',
            language: { code: 'pt_BR' },
            components: [
              { type: 'header', parameters: [{ type: 'text', text: '#1' }] },
              {
                type: 'body',
                parameters: [
                  { type: 'text', text: 'A' },
                  { type: 'text', text: 'B' },
                ],
              },
            ],
          },
        },
      });
      expectError(noButton, 400, 'ERR_VALIDATION');
      expect(noButton.body.details.map((d: { field: string }) => d.field)).toEqual(['components.button[0]']);
      expectError(await post('/template', { number, templateLangCode: 'pt_BR' }), 400, 'ERR_VALIDATION');
      expectError(await post('/template', flat({}), engine), 400, 'ERR_CHANNEL_MISMATCH');
      expect(await ticketsOf(number)).toEqual([]);
      expect(graph.sends().filter((r) => r.body.to === number)).toEqual([]);
    });

    it('lists the catalog, and reads Meta again on a miss at most every TEMPLATE_CACHE_MS', async () => {
      const listed = await call(`${waba.root}/templates`, { token: waba.token });
      expect(listed.status).toBe(200);
      const byName = new Map(listed.body.data.templates.map((t: { name: string }) => [t.name, t]));
      expect(byName.size).toBe(133);
      expect(byName.get('order_update')).toEqual({
        name: 'order_update',
        language: 'pt_BR',
        category: 'UTILITY',
        status: 'APPROVED',
        parameters: {
          header: 1,
          body: 2,
          buttons: [
            { index: 0, type: 'URL', parameters: 1 },
            { index: 1, type: 'QUICK_REPLY', parameters: 0 },
          ],
        },
      });
      expect(byName.get('promo')).toMatchObject({ status: 'PENDING', category: 'MARKETING' });

      await new Promise((resolve) => setTimeout(resolve, TEMPLATE_CACHE_MS));
      const number = newNumber();
      const unknown = { number, templateName: 'launch', templateLangCode: 'pt_BR', params: ['Ana'] };
      const first = graph.catalogReads().length;
      // A burst of misses: Meta is read once (two pages), not once per send.
      for (let i = 0; i < 5; i++) expectError(await post('/template', unknown), 400, 'ERR_TEMPLATE_NOT_FOUND');
      expect(graph.catalogReads().length - first).toBe(2);
      // Approved at Meta meanwhile: found once the copy is TEMPLATE_CACHE_MS old.
      graph.catalog = [...graph.catalog, template('launch')];
      await new Promise((resolve) => setTimeout(resolve, TEMPLATE_CACHE_MS));
      const res = await post('/template', unknown);
      expect(res.status).toBe(200);
    });
  });

  // ---- coexistence ------------------------------------------------------------------------------

  describe("coexistence: interactive sends and the linked engine's incoming messages", () => {
    const BUTTONS = { message: 'Did it arrive?', button1: 'Yes', button2: 'No' };
    const LIST = {
      body: 'Pick a plan',
      button_text: 'Plans',
      sections: [
        {
          title: 'Monthly',
          rows: [
            { id: 'basic', title: 'Basic' },
            { id: 'pro', title: 'Pro' },
          ],
        },
      ],
    };
    const delivered = (messageId: string) =>
      eventually(
        `${messageId} delivered`,
        async () => ((await message(messageId)).status !== 'queued' ? message(messageId) : undefined),
        30_000,
      );
    /** The contact writes to the linked engine's number (engine_a's messages.upsert), timestamped now. */
    const writesToEngine = async (number: string) => {
      const upsert = {
        event: 'messages.upsert',
        data: {
          type: 'notify',
          messages: [
            {
              key: { remoteJid: `${number}@s.whatsapp.net`, fromMe: false, id: `IN-${number}` },
              messageTimestamp: Math.floor(Date.now() / 1000),
              pushName: 'Bia',
              message: { conversation: 'Oi' },
            },
          ],
        },
      };
      const res = await fetch(`${mesh.gatewayUrl}/webhooks/engine/${engine.channelId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer engine-token' },
        body: JSON.stringify(upsert),
      });
      expect(res.status).toBe(200);
    };

    it('buttons and lists with routeVia auto leave through the linked engine inside the window while it is connected, else through the official API', async () => {
      const number = newNumber();
      await contactWrites(number);
      await setLink('CONNECTED');
      const engineBefore = graph.engineSends().length;
      const buttons = await post('/sendButtonWABA', { number, ...BUTTONS, routeVia: 'auto' });
      expect(buttons.status).toBe(200);
      expect(await delivered(buttons.body.data.messageId)).toMatchObject({ status: 'sent', via: 'linked' });
      const list = await post('/sendListWABA', { number, ...LIST, routeVia: 'auto' });
      expect(await delivered(list.body.data.messageId)).toMatchObject({ status: 'sent', via: 'linked' });
      // engine_a's native flow, the reply ids those of the Cloud API (a button's title, a row's id).
      const [b, l] = graph
        .engineSends()
        .slice(engineBefore)
        .map((r) => r.body.content.interactiveMessage.nativeFlowMessage.buttons);
      expect(b.map((x: { name: string; buttonParamsJson: string }) => [x.name, JSON.parse(x.buttonParamsJson).id])).toEqual([
        ['quick_reply', 'Yes'],
        ['quick_reply', 'No'],
      ]);
      expect(JSON.parse(l[0].buttonParamsJson).sections[0].rows.map((r: { id: string }) => r.id)).toEqual(['basic', 'pro']);

      // routeVia official, or the link down: the Cloud API's own interactive message.
      const official = await post('/sendListWABA', { number, ...LIST, routeVia: 'official' });
      expect(await delivered(official.body.data.messageId)).toMatchObject({ status: 'sent', via: 'official' });
      await setLink('DISCONNECTED');
      const down = await post('/sendButtonWABA', { number, ...BUTTONS, routeVia: 'auto' });
      expect(await delivered(down.body.data.messageId)).toMatchObject({ status: 'sent', via: 'official' });
      const toMeta = graph.sends().filter((r) => r.body.to === number && r.body.type === 'interactive');
      expect(toMeta.map((r) => r.body.interactive.type)).toEqual(['list', 'button']);

      // Outside the window an interactive send is refused at acceptance, whatever routeVia says.
      expectError(await post('/sendButtonWABA', { number: newNumber(), ...BUTTONS, routeVia: 'auto' }), 409, 'ERR_OUTSIDE_WINDOW');
    }, 120_000);

    it("a contact writing to the linked engine opens the waba channel's window (same number), without opening a waba ticket", async () => {
      const number = newNumber();
      expectError(await post('', { number, body: 'before' }), 409, 'ERR_OUTSIDE_WINDOW');
      await writesToEngine(number);
      expect(await ticketsOf(number)).toEqual([]);
      graph.wrote(number);
      await setLink('CONNECTED');
      const viaLink = await post('', { number, body: 'after, auto', routeVia: 'auto' });
      expect(viaLink.status).toBe(200);
      expect(await delivered(viaLink.body.data.messageId)).toMatchObject({ status: 'sent', via: 'linked' });
      const viaMeta = await post('/sendMessageByTicket', { ticketId: viaLink.body.data.ticketId, body: 'after, official' });
      expect(await delivered(viaMeta.body.data.messageId)).toMatchObject({ status: 'sent', via: 'official' });
    }, 60_000);
  });

  it('coexistence: 200 sends with routeVia auto, the link toggled during the run: in-window sends while connected leave through the linked engine, every other through the official API, in order per ticket', async () => {
    const inWindow = [newNumber(), newNumber(), newNumber(), newNumber()];
    const outside = [newNumber(), newNumber()];
    for (const number of inWindow) await contactWrites(number);
    const accepted: Array<{ messageId: string; number: string; body: string; expected: 'linked' | 'official' }> = [];
    const phases: Array<'CONNECTED' | 'DISCONNECTED'> = ['CONNECTED', 'DISCONNECTED', 'CONNECTED', 'DISCONNECTED'];
    for (const [phase, link] of phases.entries()) {
      if (phase > 0) await setLink(link);
      const batch: typeof accepted = [];
      for (let i = 0; i < 50; i++) {
        const body = `p${phase}-m${i}`;
        if (i % 5 === 4) {
          // Outside the window: only a template, which always stays on the official API.
          const number = outside[i % 2];
          const res = await post('/template', { number, templateName: 'welcome', templateLangCode: 'pt_BR', params: [body] });
          expect(res.status).toBe(200);
          batch.push({ messageId: res.body.data.messageId, number, body: `Olá ${body}`, expected: 'official' });
        } else {
          const number = inWindow[i % 4];
          // Every third in-window send asks for the official API explicitly.
          const routeVia = i % 3 === 0 ? 'official' : 'auto';
          const res =
            i % 2
              ? await post('', { number, body, routeVia })
              : await post('/sendMessageByTicket', { ticketId: (await ticketsOf(number))[0].id, body, routeVia });
          expect(res.status).toBe(200);
          batch.push({
            messageId: res.body.data.messageId,
            number,
            body,
            expected: routeVia === 'auto' && link === 'CONNECTED' ? 'linked' : 'official',
          });
        }
      }
      // Each phase is delivered before the link changes: the link's state at delivery is known.
      await eventually(
        `phase ${phase} delivered`,
        async () => (await Promise.all(batch.map((m) => message(m.messageId)))).every((m) => m.status !== 'queued'),
        60_000,
      );
      accepted.push(...batch);
    }
    expect(accepted).toHaveLength(200);
    const records = await Promise.all(accepted.map((m) => message(m.messageId)));
    expect(records.map((r) => r.status)).toEqual(accepted.map(() => 'sent'));
    expect(records.map((r) => r.via)).toEqual(accepted.map((m) => m.expected));

    // What each way received: texts by body, templates by their parameter.
    const arrivals = graph.requests.filter((r) => r.method === 'POST' && (r.url.startsWith('/engine/') || r.url.endsWith('/messages')));
    const textOf = (r: (typeof arrivals)[number]) =>
      r.url.startsWith('/engine/')
        ? r.body.content?.text
        : r.body.type === 'template'
          ? `Olá ${r.body.template.components[0].parameters[0].text}`
          : r.body.text?.body;
    const wayOf = (r: (typeof arrivals)[number]) => (r.url.startsWith('/engine/') ? 'linked' : 'official');
    const seen = new Map(arrivals.map((r) => [textOf(r), wayOf(r)]));
    for (const m of accepted) expect([m.body, seen.get(m.body)]).toEqual([m.body, m.expected]);
    // Per ticket, the order of arrival (both ways in one record) is the order of acceptance.
    for (const number of [...inWindow, ...outside]) {
      const mine = new Set(accepted.filter((m) => m.number === number).map((m) => m.body));
      expect(arrivals.map(textOf).filter((t) => mine.has(t))).toEqual(accepted.filter((m) => m.number === number).map((m) => m.body));
    }

    // The linked engine reports the statuses of what it carried: they reach the waba channel's message.
    const viaEngine = accepted.find((m) => m.expected === 'linked')!;
    const engineId = records[accepted.indexOf(viaEngine)].providerMessageId;
    const update = {
      event: 'messages.update',
      data: [{ key: { id: engineId, fromMe: true, remoteJid: `${viaEngine.number}@s.whatsapp.net` }, update: { status: 'DELIVERY_ACK' } }],
    };
    const hook = await fetch(`${mesh.gatewayUrl}/webhooks/engine/${engine.channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer engine-token' },
      body: JSON.stringify(update),
    });
    expect(hook.status).toBe(200);
    expect(
      ((await hook.json()) as { data: { results: Array<{ outcome: string }> } }).data.results.map((r: { outcome: string }) => r.outcome),
    ).toEqual(['status_applied']);
    expect(await message(viaEngine.messageId)).toMatchObject({ status: 'delivered', via: 'linked' });

    // The status callbacks say the way each message left.
    const sentHook = (messageId: string) =>
      receiver.received.find((h) => h.path === '/status' && h.body.msg.messageId === messageId && h.body.msg.status === 'sent');
    for (const m of [viaEngine, accepted.find((a) => a.expected === 'official')!]) {
      const hook = await eventually(`the sent callback of ${m.messageId}`, () => sentHook(m.messageId), 30_000);
      expect(hook.body.msg).toMatchObject({ messageId: m.messageId, status: 'sent', via: m.expected });
    }

    // GraphQL shows the way too.
    const gql = await call(`${mesh.gatewayUrl}/graphql`, {
      token: admin,
      body: { query: `{ message(tenantId: ${tenantId}, id: "${accepted[1].messageId}") { id via } }` },
    });
    expect(gql.body.data.message).toEqual({ id: accepted[1].messageId, via: accepted[1].expected });
  }, 240_000);
});
