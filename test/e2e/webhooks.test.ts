import type { Mesh } from '@convo/dev-mesh';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '@convo/test-support';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, eventually, settled, type Reply } from '../support/http';
import { hubSignature, messengerEnvelope, postMeta, wabaButtonReply, wabaEnvelope, wabaStatus, wabaText } from '../support/meta-webhooks';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * Inbound provider webhooks and outbound customer webhooks through the real processes: gateway,
 * channel-engines (parsing), messaging (storing, the outbox), tickets, tenants and the webhook
 * relay process, with a customer endpoint, an engine server and a Graph API stand-in on loopback.
 */

const META_APP_SECRET = 'meta-app-secret-for-the-tests';
const META_VERIFY_TOKEN = 'meta-verify-token';
const WABA_PHONE_ID = '15550001111';
const PAGE_ID = '1122334455';
/** The relay's lease in this mesh: what a killed relay's events wait before another takes them. */
const LEASE_MS = 14_000;

interface Channel {
  id: number;
  webhookSecret: string;
}

/**
 * A receiver's own check of the Standard Webhooks signature with node:crypto: some `v1,<base64>`
 * of the header is HMAC-SHA256(base64-decoded secret, `<webhook-id>.<webhook-timestamp>.<body>`).
 */
function signedWith(secret: string, hook: ReceivedWebhook): boolean {
  const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${hook.id}.${hook.timestamp}.${hook.raw}`)
    .digest();
  return hook.signature.split(' ').some((s) => {
    const given = Buffer.from(s.slice('v1,'.length), 'base64');
    return s.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('webhooks, end to end', () => {
  let mesh: Mesh;
  let graph: FakeEngine;
  let engine: FakeEngine;
  let receiver: WebhookReceiver;
  let admin: string;
  let tenantId: number;
  let userId: number;
  const crashes: string[] = [];
  const expectedCrashes: string[] = [];
  const channels: Record<string, Channel> = {};
  const roots: Record<string, { root: string; token: string }> = {};

  const at = (path: string) => receiver.received.filter((h) => h.path === path);
  const deliveredAt = (path: string) => at(path).filter((h) => h.answered >= 200 && h.answered < 300);
  const graphql = async (query: string) => {
    const res = await call(mesh.graphqlUrl, { token: admin, body: { query } });
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };
  /**
   * Waits until no webhook of the channel waits for delivery (its outbox rows are written before
   * the event is answered): none can reach the receiver after that.
   */
  const webhooksSettled = (channel: string) =>
    eventually(`${channel}'s webhooks delivered`, async () => {
      const rows = (await graphql(`{ deliveryHealth(tenantId: ${tenantId}) { channelId webhooksPending } }`)).deliveryHealth as {
        channelId: number;
        webhooksPending: number;
      }[];
      return (rows.find((r) => r.channelId === channels[channel].id)?.webhooksPending ?? 0) === 0;
    });

  async function session(name: string, body: Record<string, unknown>) {
    const res = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenantId, name, webhookEnabled: true, webhookUrl: `${receiver.url}/${name}`, webhookIncoming: true, ...body },
    });
    expect(res.status).toBe(200);
    channels[name] = res.body.data.whatsapp;
    roots[name] = { root: `${mesh.gatewayUrl}/v2/api/external/${res.body.data.api.apiId}`, token: res.body.data.api.authToken };
    return res.body.data.whatsapp as Channel;
  }

  async function callbacks(channel: string, urls: { urlMessageStatus?: string; urlServiceStatus?: string }) {
    const res = await call(`${mesh.gatewayUrl}/tenantCreateApi`, {
      token: admin,
      body: {
        name: `${channel} callbacks`,
        sessionId: channels[channel].id,
        userId,
        tenant: tenantId,
        authToken: randomBytes(24).toString('hex'),
        ...urls,
      },
    });
    expect(res.status).toBe(200);
  }

  const engineWebhook = (channelId: number, body: unknown, token?: string) =>
    fetch(`${mesh.gatewayUrl}/webhooks/engine/${channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }).then(async (res): Promise<Reply> => ({ status: res.status, body: await res.json() }));

  const upsert = (...messages: Array<{ id: string; from: string; text: string }>) => ({
    event: 'messages.upsert',
    data: {
      type: 'notify',
      messages: messages.map((m) => ({
        key: { remoteJid: `${m.from}@s.whatsapp.net`, fromMe: false, id: m.id },
        messageTimestamp: 1718000000,
        pushName: 'Bia',
        message: { conversation: m.text },
      })),
    },
  });

  beforeAll(async () => {
    [graph, engine, receiver] = await Promise.all([startFakeEngine(), startFakeEngine(), startWebhookReceiver()]);
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
      env: {
        META_APP_SECRET,
        META_VERIFY_TOKEN,
        META_GRAPH_URL: graph.url,
        // The customer endpoint is on loopback: the operator's allow-list lets webhooks reach it.
        WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1',
        RELAY_POLL_MS: '100',
        WEBHOOK_TIMEOUT_MS: '3000',
        RELAY_LEASE_MS: String(LEASE_MS),
        WEBHOOK_BACKOFF_BASE_MS: '300',
        WEBHOOK_BACKOFF_MAX_MS: '2000',
      },
    });
    admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Hooks Ltda',
        maxUsers: 5,
        maxConnections: 0,
        acceptTerms: true,
        email: 'owner@hooks.example',
        password: 'S3cure!pass',
        userName: 'Ana Admin',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    tenantId = tenant.body.data.tenant.id;
    userId = tenant.body.data.adminUser.id;
    await session('waba', { type: 'waba', tokenAPI: WABA_PHONE_ID, wabaId: 'WABA-1', bmToken: 'bm-token' });
    await session('messenger', { type: 'social_b', pageId: PAGE_ID, pageToken: 'page-token' });
    await session('engine', { type: 'engine_a', engineUrl: engine.url, engineToken: 'engine-secret' });
    await session('mail', {
      type: 'webmail',
      emailAddress: 'support@hooks.example',
      engineUrl: 'smtp://127.0.0.1:2525',
      engineToken: 'mail-bridge-secret',
    });
    await callbacks('waba', { urlMessageStatus: `${receiver.url}/waba-status` });
    await callbacks('engine', { urlServiceStatus: `${receiver.url}/engine-service` });
  });

  afterAll(async () => {
    await mesh?.stop();
    await Promise.all([graph?.close(), engine?.close(), receiver?.close()]);
  });

  afterEach(() => {
    expect(crashes).toEqual(expectedCrashes);
    receiver.answer(() => ({ status: 200 }));
  });

  describe('Meta (WhatsApp Cloud API, Messenger)', () => {
    const handshake = (mode: string, token: string) =>
      fetch(`${mesh.gatewayUrl}/webhooks/meta?hub.mode=${mode}&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=1158201444`);

    it('answers the verification handshake with the raw challenge, and 403 otherwise', async () => {
      const ok = await handshake('subscribe', META_VERIFY_TOKEN);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await ok.text()).toBe('1158201444');
      expect((await handshake('subscribe', 'wrong-token')).status).toBe(403);
      expect((await handshake('unsubscribe', META_VERIFY_TOKEN)).status).toBe(403);
    });

    it('refuses a delivery without (401) or with a wrong signature (403), and stores nothing', async () => {
      const number = '5511900000001';
      const raw = JSON.stringify(wabaEnvelope(WABA_PHONE_ID, { messages: [wabaText(number, 'wamid.FORGED', 'Forged')] }));
      expect((await postMeta(mesh.gatewayUrl, raw)).status).toBe(401);
      expect((await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, 'another-app-secret'))).status).toBe(403);
      expect((await postMeta(mesh.gatewayUrl, raw.replace('Forged', 'Forgex'), hubSignature(raw, META_APP_SECRET))).status).toBe(403);
      const forbidden = await postMeta(mesh.gatewayUrl, raw, 'sha256=00');
      expect(forbidden).toMatchObject({ status: 403, body: { success: false, error: 'ERR_FORBIDDEN' } });

      const tickets = await call(`${roots.waba.root}/showallticket`, { token: roots.waba.token, body: { number } });
      expect(tickets.body.data).toMatchObject({ tickets: [], count: 0 });
      await webhooksSettled('waba');
      expect(at('/waba').filter((h) => h.body.msg.providerMessageId === 'wamid.FORGED')).toEqual([]);
    });

    it('stores a signed delivery once however often it comes, and the customer gets each message signed, with its ticket', async () => {
      const number = '5511900000002';
      // The business writes first, so with a template (checked against the channel's catalog, read
      // from the Graph API first), then the Cloud API takes the message.
      const shipped = {
        name: 'order_shipped',
        language: 'en_US',
        status: 'APPROVED',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Your order shipped' }],
      };
      graph.failNext(200, { data: [shipped], paging: { cursors: { before: 'a', after: 'b' } } });
      graph.failNext(200, {
        messaging_product: 'whatsapp',
        contacts: [{ input: number, wa_id: number }],
        messages: [{ id: 'wamid.OUT-1' }],
      });
      const created = await call(`${roots.waba.root}/template`, {
        token: roots.waba.token,
        body: { number, templateName: 'order_shipped', templateLangCode: 'en_US' },
      });
      expect(created.status).toBe(200);
      const { ticketId, messageId } = created.body.data;
      // The provider's statuses name the id its answer gave: the dispatcher must have stored it.
      await settled(roots.waba.root, roots.waba.token, messageId);

      const raw = JSON.stringify(
        wabaEnvelope(WABA_PHONE_ID, {
          contacts: [{ profile: { name: 'Ana Souza' }, wa_id: number }],
          messages: [
            wabaText(number, 'wamid.IN-1', 'Olá, where is it? ✈️'),
            wabaButtonReply(number, 'wamid.IN-2', { id: 'track-order', title: 'Track order' }, 'wamid.OUT-1'),
          ],
          statuses: [wabaStatus('wamid.OUT-1', 'delivered', number, '1718000002'), wabaStatus('wamid.OUT-1', 'read', number, '1718000003')],
        }),
      );
      const first = await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET));
      expect(first.status).toBe(200);
      expect(first.body.data.results.map((r: { outcome: string }) => r.outcome)).toEqual([
        'stored',
        'stored',
        'status_applied',
        'status_applied',
      ]);
      expect(first.body.data.results.map((r: { ticketId: number }) => r.ticketId)).toEqual([ticketId, ticketId, ticketId, ticketId]);
      const again = await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET));
      expect(again.body.data.results.map((r: { outcome: string }) => r.outcome)).toEqual([
        'duplicate',
        'duplicate',
        'duplicate',
        'duplicate',
      ]);

      const messages = await call(`${roots.waba.root}/showAllMessages`, { token: roots.waba.token, body: { ticket: String(ticketId) } });
      expect(
        messages.body.data.messages.map((m: { direction: string; body: string; status: string }) => [m.direction, m.body, m.status]),
      ).toEqual([
        ['out', 'Your order shipped', 'read'],
        ['in', 'Olá, where is it? ✈️', 'delivered'],
        ['in', 'track-order', 'delivered'],
      ]);

      await receiver.waitFor(() => deliveredAt('/waba').length >= 2);
      await webhooksSettled('waba'); // the repeated delivery must not reach the customer
      const hooks = at('/waba');
      expect(hooks).toHaveLength(2);
      expect(hooks.map((h) => h.body.msg.body).sort()).toEqual(['Olá, where is it? ✈️', 'track-order']);
      for (const hook of hooks) {
        expect(signedWith(channels.waba.webhookSecret, hook)).toBe(true);
        expect(hook.body).toMatchObject({
          method: 'message',
          ticket: { id: ticketId, status: 'pending', contact: { number } },
          msg: { ticketId, from: number, contactName: 'Ana Souza', direction: 'in' },
        });
      }
      expect(hooks.find((h) => h.body.msg.type === 'interactive')!.body.msg).toMatchObject({
        body: 'track-order',
        replyTo: 'wamid.OUT-1',
        raw: { interactive: { button_reply: { id: 'track-order' } } },
      });
      expect(new Set(hooks.map((h) => h.id)).size).toBe(2);

      // Every status change of the sent message, the send path's own "sent" included.
      await receiver.waitFor(() => deliveredAt('/waba-status').filter((h) => h.body.msg.messageId === messageId).length >= 3);
      const statuses = at('/waba-status').filter((h) => h.body.msg.messageId === messageId);
      expect(statuses.map((h) => h.body.msg.status).sort()).toEqual(['delivered', 'read', 'sent']);
      for (const hook of statuses) {
        expect(signedWith(channels.waba.webhookSecret, hook)).toBe(true);
        expect(hook.body).toMatchObject({
          method: 'message.status',
          msg: { providerMessageId: 'wamid.OUT-1', ticketId },
          ticket: { id: ticketId },
        });
      }
    });

    it('takes Messenger quick replies and postbacks as messages whose body is the payload', async () => {
      const psid = '24571938475610293';
      const event = (extra: Record<string, unknown>, ms: number) => ({
        sender: { id: psid },
        recipient: { id: PAGE_ID },
        timestamp: 1718000000000 + ms,
        ...extra,
      });
      const raw = JSON.stringify(
        messengerEnvelope(PAGE_ID, [
          event({ message: { mid: 'm_QR1', text: 'Yes please', quick_reply: { payload: 'YES_PLEASE' } } }, 0),
          event({ postback: { mid: 'm_PB1', title: 'Talk to us', payload: 'CONTACT_US' } }, 1_000),
        ]),
      );
      const first = await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET));
      expect(first.body.data.results.map((r: { outcome: string }) => r.outcome)).toEqual(['stored', 'stored']);
      const [{ ticketId }] = first.body.data.results;
      const again = await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET));
      expect(again.body.data.results.map((r: { outcome: string }) => r.outcome)).toEqual(['duplicate', 'duplicate']);

      await receiver.waitFor(() => deliveredAt('/messenger').length >= 2);
      await webhooksSettled('messenger');
      const hooks = at('/messenger');
      expect(hooks.map((h) => [h.body.msg.type, h.body.msg.body]).sort()).toEqual([
        ['postback', 'CONTACT_US'],
        ['quick_reply', 'YES_PLEASE'],
      ]);
      for (const hook of hooks) {
        expect(signedWith(channels.messenger.webhookSecret, hook)).toBe(true);
        expect(hook.body).toMatchObject({
          method: 'message',
          ticket: { id: ticketId, status: 'pending' },
          msg: { from: psid, channelType: 'social_b' },
        });
      }
    });
  });

  describe('engine servers', () => {
    it('answers an unknown channel as a wrong engine token (401: ids cannot be enumerated), storing nothing', async () => {
      const body = upsert({ id: '3EB0FORGED', from: '5511900000003', text: 'Forged' });
      const unknown = await engineWebhook(99_999_999, body, 'engine-secret');
      const wrong = await engineWebhook(channels.engine.id, body, 'not-the-secret');
      expect(unknown).toEqual(wrong);
      expect(unknown).toMatchObject({ status: 401, body: { error: 'ERR_UNAUTHORIZED' } });
      expect(await engineWebhook(channels.engine.id, body)).toMatchObject({ status: 401, body: { error: 'ERR_UNAUTHORIZED' } });
      expect((await engineWebhook(channels.engine.id, body, 'engine-secreT')).status).toBe(401);
      expect((await engineWebhook(channels.engine.id, body, 'mail-bridge-secret')).status).toBe(401);
      const byQuery = (token: string) =>
        fetch(`${mesh.gatewayUrl}/webhooks/engine/${channels.engine.id}?token=${encodeURIComponent(token)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await byQuery('engine-secreT')).status).toBe(401);
      const tickets = await call(`${roots.engine.root}/showallticket`, { token: roots.engine.token, body: { number: '5511900000003' } });
      expect(tickets.body.data.count).toBe(0);
    });

    it('stores an engine message and forwards it; a connection change reaches urlServiceStatus', async () => {
      const number = '5511900000004';
      const res = await engineWebhook(channels.engine.id, upsert({ id: '3EB0AAA1', from: number, text: 'Oi, tudo bem?' }), 'engine-secret');
      expect(res.status).toBe(200);
      const [{ outcome, ticketId }] = res.body.data.results;
      expect(outcome).toBe('stored');
      await receiver.waitFor(() => deliveredAt('/engine').some((h) => h.body.msg.providerMessageId === '3EB0AAA1'));
      const hook = at('/engine').find((h) => h.body.msg.providerMessageId === '3EB0AAA1')!;
      expect(hook.body).toMatchObject({
        method: 'message',
        msg: { body: 'Oi, tudo bem?', from: number, contactName: 'Bia' },
        ticket: { id: ticketId },
      });
      expect(signedWith(channels.engine.webhookSecret, hook)).toBe(true);

      const open = await engineWebhook(channels.engine.id, { event: 'connection.update', data: { connection: 'open' } }, 'engine-secret');
      expect(open.body.data.results).toEqual([{ outcome: 'connection_applied', messageId: '', ticketId: 0 }]);
      await receiver.waitFor(() => deliveredAt('/engine-service').length >= 1);
      const [service] = at('/engine-service');
      expect(service.body).toMatchObject({
        method: 'service.status',
        whatsappId: channels.engine.id,
        status: 'CONNECTED',
        session: { id: channels.engine.id, type: 'engine_a' },
      });
      expect(signedWith(channels.engine.webhookSecret, service)).toBe(true);
    });

    it('takes the engine token from the URL for engines that cannot send headers', async () => {
      const number = '5511900000005';
      const res = await fetch(`${mesh.gatewayUrl}/webhooks/engine/${channels.engine.id}?token=engine-secret`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(upsert({ id: '3EB0QUERY1', from: number, text: 'Via query token' })),
      });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { data: { results: Array<{ outcome: string }> } };
      expect(answer.data.results[0].outcome).toBe('stored');
    });

    it("refuses an engine's old token once the channel's token is changed, without waiting out the gateway's cache", async () => {
      const rotating = await session('rotating', { type: 'engine_a', engineUrl: engine.url, engineToken: 'rotating-secret-1' });
      const body = upsert({ id: '3EB0ROTATE1', from: '5511900000006', text: 'Before the rotation' });
      // Twice: the second check is served by the gateway's copy of the channel.
      expect((await engineWebhook(rotating.id, body, 'rotating-secret-1')).status).toBe(200);
      expect((await engineWebhook(rotating.id, body, 'rotating-secret-1')).status).toBe(200);
      const edited = await call(`${mesh.gatewayUrl}/whatsapp/${rotating.id}`, {
        method: 'PUT',
        token: admin,
        body: { engineToken: 'rotating-secret-2' },
      });
      expect(edited.status).toBe(200);
      // The edit is announced on the revocation feed: well inside TOKEN_CACHE_MS (5 s), the copy is gone.
      await eventually(
        'the old engine token refused',
        async () => (await engineWebhook(rotating.id, body, 'rotating-secret-1')).status === 401,
        2_000,
      );
      expect((await engineWebhook(rotating.id, body, 'rotating-secret-2')).status).toBe(200);
    });

    it('forwards an e-mail with its ticket id too', async () => {
      const mail = {
        type: 'email',
        from: 'Carla@Example.com',
        fromName: 'Carla',
        subject: 'Invoice',
        text: 'Where is my invoice?',
        messageId: '<m1@mail.example.com>',
      };
      const res = await engineWebhook(channels.mail.id, mail, 'mail-bridge-secret');
      expect(res.status).toBe(200);
      const [{ outcome, ticketId }] = res.body.data.results;
      expect(outcome).toBe('stored');
      await receiver.waitFor(() => deliveredAt('/mail').length >= 1);
      const [hook] = at('/mail');
      expect(hook.body).toMatchObject({
        method: 'message',
        msg: { email: 'carla@example.com', subject: 'Invoice', body: 'Where is my invoice?', type: 'email' },
        ticket: { id: ticketId },
      });
      expect(typeof hook.body.ticket.id).toBe('number');
    });
  });

  describe('the relay', () => {
    it('lists every delivery and its attempts over GraphQL', async () => {
      const data = await graphql(
        `{ webhookDeliveries(tenantId: ${tenantId}, status: delivered, channelId: ${channels.waba.id}) { id method status attempts payload attemptLog { number outcome httpStatus url } } }`,
      );
      const messages = data.webhookDeliveries.filter((d: { method: string }) => d.method === 'message');
      expect(messages).toHaveLength(2);
      for (const d of messages) {
        expect(d).toMatchObject({
          status: 'delivered',
          attempts: 1,
          attemptLog: [{ number: 1, outcome: 'delivered', httpStatus: 200, url: `${receiver.url}/waba` }],
        });
        expect(at('/waba').map((h) => h.id)).toContain(d.id);
      }
    });

    it('delivers every event once more after the relay is killed mid-delivery, each under one webhook-id', async () => {
      await session('crash', { type: 'engine_a', engineUrl: engine.url, engineToken: 'crash-secret' });
      receiver.answer((hook) => (hook.path === '/crash' ? new Promise(() => undefined) : { status: 200 }));
      const sent = ['3EB0C1', '3EB0C2', '3EB0C3'];
      const res = await engineWebhook(
        channels.crash.id,
        upsert(...sent.map((id, i) => ({ id, from: `551190000010${i}`, text: `Message ${i}` }))),
        'crash-secret',
      );
      expect(res.body.data.results.map((r: { outcome: string }) => r.outcome)).toEqual(['stored', 'stored', 'stored']);
      await receiver.waitFor(() => at('/crash').length === 3);

      const relay = mesh.processes.get('messaging-relay')!;
      expectedCrashes.push('messaging-relay:null');
      const exited = new Promise((r) => relay.once('exit', r));
      relay.kill('SIGKILL');
      await exited;
      receiver.answer(() => ({ status: 200 }));
      await mesh.startRelay();
      await receiver.waitFor(() => deliveredAt('/crash').length >= 3, LEASE_MS + 30_000);

      const idsByMessage = new Map<string, Set<string>>();
      for (const hook of at('/crash'))
        idsByMessage.set(hook.body.msg.providerMessageId, (idsByMessage.get(hook.body.msg.providerMessageId) ?? new Set()).add(hook.id));
      expect([...idsByMessage.keys()].sort()).toEqual(sent);
      for (const ids of idsByMessage.values()) expect(ids.size).toBe(1);
      expect(new Set(deliveredAt('/crash').map((h) => h.body.msg.providerMessageId))).toEqual(new Set(sent));

      // The killed attempt stays on record, unfinished; the next one delivered, and only once the
      // killed relay's lease had run out. The receiver counts a delivery when it answers, the relay
      // records it once that answer reaches it: read until the relay has.
      const data = await eventually('the deliveries recorded', async () => {
        const read = await graphql(
          `{ webhookDeliveries(tenantId: ${tenantId}, channelId: ${channels.crash.id}) { status attemptLog { number outcome startedAt } } }`,
        );
        return read.webhookDeliveries.every((d: { status: string }) => d.status !== 'pending') && read;
      });
      expect(data.webhookDeliveries).toHaveLength(3);
      for (const d of data.webhookDeliveries) {
        expect(d.status).toBe('delivered');
        expect(d.attemptLog.map((a: { number: number; outcome: string | null }) => [a.number, a.outcome])).toEqual([
          [1, null],
          [2, 'delivered'],
        ]);
        expect(Date.parse(d.attemptLog[1].startedAt) - Date.parse(d.attemptLog[0].startedAt)).toBeGreaterThanOrEqual(LEASE_MS);
      }
    });

    it('never delivers one event from two relay replicas at once', async () => {
      await session('replicas', { type: 'engine_a', engineUrl: engine.url, engineToken: 'replica-secret' });
      await mesh.startRelay('messaging-relay-2');
      receiver.answer(async (hook) => {
        if (hook.path === '/replicas') await sleep(20 + Math.random() * 60);
        return { status: 200 };
      });
      const ids: string[] = [];
      for (let batch = 0; batch < 4; batch++) {
        const messages = Array.from({ length: 10 }, (_, i) => ({
          id: `3EB0R${batch}${i}`,
          from: `55119000002${batch}${i}`,
          text: `Replica test ${batch}.${i}`,
        }));
        ids.push(...messages.map((m) => m.id));
        const res = await engineWebhook(channels.replicas.id, upsert(...messages), 'replica-secret');
        expect(res.status).toBe(200);
      }
      await receiver.waitFor(() => deliveredAt('/replicas').length >= ids.length, 60_000);
      await webhooksSettled('replicas');
      const hooks = at('/replicas');
      expect(receiver.overlaps).toEqual([]);
      expect(hooks.map((h) => h.body.msg.providerMessageId).sort()).toEqual([...ids].sort());
      expect(new Set(hooks.map((h) => h.id)).size).toBe(ids.length);

      const data = await graphql(
        `{ webhookDeliveries(tenantId: ${tenantId}, channelId: ${channels.replicas.id}, limit: 100) { attemptLog { relayId } } }`,
      );
      const relays = new Set(
        data.webhookDeliveries.flatMap((d: { attemptLog: Array<{ relayId: string }> }) => d.attemptLog.map((a) => a.relayId)),
      );
      expect(relays.size).toBe(2);
    });
  });
});
