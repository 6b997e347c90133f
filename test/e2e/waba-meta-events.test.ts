import type { Mesh } from '@convo/dev-mesh';
import { startFakeGraph, type FakeGraph, type MetaTemplate } from '../support/fake-graph';
import { call, settled, UNPACED, type Reply } from '../support/http';
import { hubSignature, postMeta, wabaEnvelope, wabaStatus, wabaTemplateChange } from '../support/meta-webhooks';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * What Meta reports about a waba channel beyond its messages, through the real mesh: the pricing of
 * a status stored on the message and shown by its reads (REST and GraphQL), and the template
 * webhooks applied to the channel's catalog at once. TEMPLATE_CACHE_MS is long here, so only the
 * webhooks can have acceptance see a change before the catalog is read from Meta again.
 */

const META_APP_SECRET = 'meta-app-secret-for-reports';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PHONE_ID = '1077000002';
const WABA_ID = 'WABA-88';

const template = (name: string, over: Partial<MetaTemplate> = {}): MetaTemplate => ({
  name,
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Olá {{1}}' }],
  ...over,
});

describe('the official channel: what Meta reports', () => {
  let mesh: Mesh;
  let graph: FakeGraph;
  let admin: string;
  let tenantId: number;
  let waba: { root: string; token: string };
  let channelId: number;
  let seq = 0;
  const newNumber = () => `55119${String(80_000_000 + ++seq)}`;

  const post = (path: string, body: unknown) => call(`${waba.root}${path}`, { token: waba.token, body });
  const sendTemplate = (number: string, name: string) =>
    post('/template', { number, templateName: name, templateLangCode: 'pt_BR', params: ['Bia'] });
  const expectError = (res: Reply, status: number, error: string) =>
    expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
  /** Meta posts this (signed) to the webhook; the gateway answers 200 once it is applied. */
  const metaPosts = async (body: unknown) => {
    const raw = JSON.stringify(body);
    expect((await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET))).status).toBe(200);
  };
  const templateEvent = (name: string, value: Record<string, unknown>, field = 'message_template_status_update') =>
    wabaTemplateChange(WABA_ID, field, {
      message_template_id: 1,
      message_template_name: name,
      message_template_language: 'pt_BR',
      ...value,
    });

  beforeAll(async () => {
    graph = await startFakeGraph();
    graph.catalog = [
      template('welcome'),
      template('shipping_notice'),
      template('login_code'),
      template('spring_sale', { category: 'MARKETING' }),
      template('order_ready'),
    ];
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      // CHANNEL_CACHE_MS short: a channel's setting reaches the dispatcher within it.
      env: { ...UNPACED, META_APP_SECRET, META_GRAPH_URL: graph.url, TEMPLATE_CACHE_MS: '600000', CHANNEL_CACHE_MS: '200' },
    });
    admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Reports Co',
        maxUsers: 5,
        maxConnections: 10,
        acceptTerms: true,
        email: 'owner@reports.example',
        password: 'S3cure!pass',
        userName: 'Ana',
        profile: 'admin',
      },
    });
    tenantId = tenant.body.data.tenant.id;
    const res = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenantId, name: 'official', type: 'waba', tokenAPI: PHONE_ID, wabaId: WABA_ID, bmToken: 'bm-token' },
    });
    expect(res.status).toBe(200);
    const { apiId, authToken } = res.body.data.api;
    channelId = res.body.data.whatsapp.id;
    waba = { root: `${mesh.gatewayUrl}/v2/api/external/${apiId}`, token: authToken };
  }, 240_000);

  afterAll(async () => {
    await mesh?.stop();
    await graph?.close();
  });

  it("stores a status's pricing on the message: the message read and GraphQL show it", async () => {
    const number = newNumber();
    const accepted = await sendTemplate(number, 'welcome');
    expect(accepted.status).toBe(200);
    const { messageId } = accepted.body.data;
    const sent = await settled(waba.root, waba.token, messageId);
    expect(sent).toMatchObject({ status: 'sent', pricing: null });

    const pricing = { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' };
    const now = String(Math.floor(Date.now() / 1000));
    await metaPosts(wabaEnvelope(PHONE_ID, { statuses: [{ ...wabaStatus(sent.providerMessageId, 'delivered', number, now), pricing }] }));

    const read = await call(`${waba.root}/getMessageByMessageId?messageId=${messageId}`, { token: waba.token });
    expect(read.body.data).toMatchObject({
      messageId,
      status: 'delivered',
      pricing: { billable: true, pricingModel: 'PMP', category: 'utility' },
    });
    const gql = await call(`${mesh.gatewayUrl}/graphql`, {
      token: admin,
      body: { query: `{ message(tenantId: ${tenantId}, id: "${messageId}") { id pricing { billable pricingModel category } } }` },
    });
    expect(gql.body.data.message).toEqual({ id: messageId, pricing: { billable: true, pricingModel: 'PMP', category: 'utility' } });
  });

  it('a template that stops being APPROVED is refused from the webhook on; approved again, it is sent', async () => {
    expect((await sendTemplate(newNumber(), 'shipping_notice')).status).toBe(200);
    const reads = graph.catalogReads().length;

    await metaPosts(templateEvent('shipping_notice', { event: 'PAUSED', reason: 'NONE' }));
    expectError(await sendTemplate(newNumber(), 'shipping_notice'), 409, 'ERR_TEMPLATE_NOT_APPROVED');

    await metaPosts(templateEvent('shipping_notice', { event: 'APPROVED', reason: 'NONE' }));
    expect((await sendTemplate(newNumber(), 'shipping_notice')).status).toBe(200);
    // The catalog's copy stayed; only the webhooks changed what acceptance saw.
    expect(graph.catalogReads().length).toBe(reads);
  });

  it('a re-categorised template is listed with its new category, and acceptance applies it (authentication needs a phone)', async () => {
    const bsuid = 'BR.13491208655302741918';
    expect((await sendTemplate(bsuid, 'login_code')).status).toBe(200);

    await metaPosts(
      templateEvent('login_code', { previous_category: 'UTILITY', new_category: 'AUTHENTICATION' }, 'template_category_update'),
    );
    graph.catalog = graph.catalog.map((t) => (t.name === 'login_code' ? { ...t, category: 'AUTHENTICATION' } : t));
    const listed = await call(`${waba.root}/templates`, { token: waba.token });
    expect(listed.body.data.templates.find((t: { name: string }) => t.name === 'login_code')).toMatchObject({
      category: 'AUTHENTICATION',
      status: 'APPROVED',
    });
    expectError(await sendTemplate(bsuid, 'login_code'), 409, 'ERR_PHONE_REQUIRED');
  });

  it('with marketingMessagesApi set, a MARKETING template goes to /marketing_messages and a UTILITY one to /messages, a re-categorised one by its new category', async () => {
    const set = await call(`${mesh.gatewayUrl}/whatsapp/${channelId}`, {
      method: 'PUT',
      token: admin,
      body: { marketingMessagesApi: true },
    });
    expect(set.status).toBe(200);
    expect(set.body.data.whatsapp).toMatchObject({ id: channelId, type: 'waba', marketingMessagesApi: true });
    await sleep(400);
    const before = { messages: graph.sends().length, marketing: graph.marketingSends().length };

    const sendSettled = async (number: string, name: string) => {
      const accepted = await sendTemplate(number, name);
      expect(accepted.status).toBe(200);
      return settled(waba.root, waba.token, accepted.body.data.messageId);
    };
    const promo = newNumber();
    expect(await sendSettled(promo, 'spring_sale')).toMatchObject({ status: 'sent' });
    const utility = newNumber();
    expect(await sendSettled(utility, 'order_ready')).toMatchObject({ status: 'sent' });

    const marketing = graph.marketingSends().slice(before.marketing);
    expect(marketing.map((r) => [r.url, r.body.to, r.body.template.name])).toEqual([
      [`/${PHONE_ID}/marketing_messages`, promo, 'spring_sale'],
    ]);
    expect(marketing[0].body).toMatchObject({ messaging_product: 'whatsapp', recipient_type: 'individual', type: 'template' });
    expect(
      graph
        .sends()
        .slice(before.messages)
        .map((r) => [r.body.to, r.body.template.name]),
    ).toEqual([[utility, 'order_ready']]);

    // Meta re-categorises order_ready as MARKETING: the next send of it follows the new category.
    await metaPosts(templateEvent('order_ready', { previous_category: 'UTILITY', new_category: 'MARKETING' }, 'template_category_update'));
    const later = newNumber();
    await sendSettled(later, 'order_ready');
    expect(
      graph
        .marketingSends()
        .slice(before.marketing)
        .map((r) => r.body.to),
    ).toEqual([promo, later]);

    // Off again: MARKETING templates go back to /messages.
    await call(`${mesh.gatewayUrl}/whatsapp/${channelId}`, { method: 'PUT', token: admin, body: { marketingMessagesApi: false } });
    await sleep(400);
    const off = newNumber();
    await sendSettled(off, 'spring_sale');
    expect(
      graph
        .sends()
        .slice(before.messages)
        .map((r) => r.body.to),
    ).toEqual([utility, off]);
  });

  it('refuses marketingMessagesApi on a channel that is not waba', async () => {
    const engine = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenantId, name: 'engine line', type: 'engine_a', engineUrl: 'http://127.0.0.1:9/engine', engineToken: 'k' },
    });
    expect(engine.status).toBe(200);
    const res = await call(`${mesh.gatewayUrl}/whatsapp/${engine.body.data.whatsapp.id}`, {
      method: 'PUT',
      token: admin,
      body: { marketingMessagesApi: true },
    });
    expectError(res, 400, 'ERR_VALIDATION');
  });
});
