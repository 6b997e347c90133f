import type { Mesh } from '@convo/dev-mesh';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '@convo/test-support';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, settled, UNPACED, type Reply } from '../support/http';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * The whole conversation (CONVENTIONS.md) on the engines built on WhatsApp Web, through the real
 * processes: WPPConnect Server (engine_e) and the whatsapp-web.js REST server (whatsapp). The
 * business's own message, the echo of our own send, reactions, an edit and a deletion, posted as
 * those servers post them (wppconnect-server's createSessionUtil.ts, chrishubert/whatsapp-api's
 * sessions.js), each stored and forwarded once, naming messages by WhatsApp Web's serialised ids.
 */

const ENGINE_TOKEN = 'engine-secret';
const SESSION = 'acme';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = () => Math.floor(Date.now() / 1000);
const key = (fromMe: boolean, chat: string, id: string) => ({ fromMe, remote: chat, id, _serialized: `${fromMe}_${chat}_${id}` });

describe('the whole conversation on WhatsApp Web engines, end to end', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let receiver: WebhookReceiver;
  let admin: string;
  let tenantId: number;
  const crashes: string[] = [];
  const channels: Record<string, { id: number; root: string; token: string }> = {};

  const hooks = (channel: string, method: string) =>
    receiver.received.filter((h) => h.path === `/${channel}` && h.body?.method === method && h.answered === 200);
  const exactly = async (count: number, matching: () => ReceivedWebhook[]) => {
    await receiver.waitFor(() => matching().length >= count);
    await sleep(600);
    expect(matching()).toHaveLength(count);
    return matching();
  };
  const post = (channel: string, body: unknown) =>
    fetch(`${mesh.gatewayUrl}/webhooks/engine/${channels[channel].id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ENGINE_TOKEN}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    }).then(async (res): Promise<Reply> => ({ status: res.status, body: await res.json() }));
  const event = async (channel: string, body: unknown) => {
    const res = await post(channel, body);
    expect(res.status).toBe(200);
    return res.body.data.results as Array<{ outcome: string; messageId: string; ticketId: number }>;
  };
  const messageOf = async (channel: string, messageId: string) => {
    const { root, token } = channels[channel];
    const got = await call(`${root}/getMessageByMessageId?messageId=${encodeURIComponent(messageId)}`, { token });
    expect(got.status).toBe(200);
    return got.body.data;
  };

  async function session(name: string, type: string) {
    const res = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: {
        tenant: tenantId,
        name,
        type,
        engineUrl: `${engine.url}/${SESSION}`,
        engineToken: ENGINE_TOKEN,
        webhookEnabled: true,
        webhookUrl: `${receiver.url}/${name}`,
        webhookIncoming: true,
      },
    });
    expect(res.status).toBe(200);
    channels[name] = {
      id: res.body.data.whatsapp.id,
      root: `${mesh.gatewayUrl}/v2/api/external/${res.body.data.api.apiId}`,
      token: res.body.data.api.authToken,
    };
  }

  beforeAll(async () => {
    [engine, receiver] = await Promise.all([startFakeEngine(), startWebhookReceiver()]);
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
      env: { ...UNPACED, WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1', RELAY_POLL_MS: '100' },
    });
    admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Web Engines Ltda',
        maxUsers: 5,
        maxConnections: 0,
        acceptTerms: true,
        email: 'owner@webengines.example',
        password: 'S3cure!pass',
        userName: 'Ana Admin',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    tenantId = tenant.body.data.tenant.id;
    await session('wpp', 'engine_e');
    await session('wwebjs', 'whatsapp');
  }, 240_000);

  afterAll(async () => {
    await mesh?.stop();
    await Promise.all([engine?.close(), receiver?.close()]);
  });

  afterEach(() => expect(crashes).toEqual([]));

  describe('WPPConnect Server (engine_e)', () => {
    const chat = '5511955560001@c.us';
    const onmessage = (id: string, body: string, fromMe = false) => ({
      event: fromMe ? 'onselfmessage' : 'onmessage',
      session: SESSION,
      id: `${fromMe}_${chat}_${id}`,
      body,
      type: 'chat',
      t: seconds(),
      from: fromMe ? '5511900000000@c.us' : chat,
      to: fromMe ? chat : '5511900000000@c.us',
      fromMe,
      notifyName: fromMe ? 'Loja' : 'Bia',
      sender: fromMe ? { id: '5511900000000@c.us', isMe: true } : { id: chat, pushname: 'Bia' },
      isGroupMsg: false,
    });
    let ticketId: number;
    let contactMessageId: string;

    beforeAll(async () => {
      const [first] = await event('wpp', onmessage('IN-1', 'Oi'));
      expect(first.outcome).toBe('stored');
      ticketId = first.ticketId;
      contactMessageId = first.messageId;
    });

    it('stores onselfmessage as our outgoing message of the ticket, forwarded once with fromMe', async () => {
      const own = onmessage('PHONE-1', 'Sent from the phone', true);
      const [stored] = await event('wpp', own);
      expect(stored).toMatchObject({ outcome: 'stored', ticketId });
      expect((await event('wpp', own))[0]).toMatchObject({ outcome: 'duplicate', messageId: stored.messageId });
      const [hook] = await exactly(1, () => hooks('wpp', 'message').filter((h) => h.body.msg.fromMe === true));
      expect(hook.body.msg).toMatchObject({ direction: 'out', body: 'Sent from the phone', from: '5511955560001', ticketId });
    });

    it("takes onselfmessage of the platform's own send (its serialised id) as that message, not forwarded", async () => {
      const sentId = `true_${chat}_3EB0API0000000001`;
      engine.failNext(201, { status: 'success', response: [{ id: sentId, ack: 0 }], mapper: 'return' });
      const sent = await call(`${channels.wpp.root}/sendMessageByTicket`, {
        token: channels.wpp.token,
        body: { ticketId, body: 'Sent through the API' },
      });
      expect(sent.status).toBe(200);
      const { messageId } = sent.body.data;
      expect(await settled(channels.wpp.root, channels.wpp.token, messageId)).toMatchObject({ providerMessageId: sentId });
      const echo = { ...onmessage('3EB0API0000000001', 'Sent through the API', true), id: sentId };
      expect((await event('wpp', echo))[0]).toMatchObject({ outcome: 'duplicate', messageId });
      await sleep(800);
      expect(hooks('wpp', 'message').filter((h) => h.body.msg.providerMessageId === sentId)).toEqual([]);
    });

    it("stores the contact's reaction and its removal on the message, and a deletion for everyone", async () => {
      const reaction = (text: string, id: string) => ({
        event: 'onreactionmessage',
        session: SESSION,
        id: key(false, chat, id),
        msgId: key(false, chat, 'IN-1'),
        reactionText: text,
        read: false,
        orphan: 0,
        orphanReason: null,
        timestamp: Date.now(),
      });
      expect((await event('wpp', reaction('👍', 'R-1')))[0]).toMatchObject({ messageId: contactMessageId });
      await event('wpp', reaction('', 'R-2'));
      const reacted = await exactly(2, () => hooks('wpp', 'reaction'));
      expect(reacted.map((h) => [h.body.msg.messageId, h.body.msg.emoji, h.body.msg.fromMe])).toEqual([
        [contactMessageId, '👍', false],
        [contactMessageId, '', false],
      ]);

      const revoke = {
        event: 'onrevokedmessage',
        session: SESSION,
        from: chat,
        to: '5511900000000@c.us',
        id: `false_${chat}_REV-1`,
        refId: `false_${chat}_IN-1`,
      };
      await event('wpp', revoke);
      await event('wpp', revoke);
      const [deleted] = await exactly(1, () => hooks('wpp', 'delete'));
      expect(deleted.body.msg).toMatchObject({ messageId: contactMessageId, fromMe: false });
      expect(await messageOf('wpp', contactMessageId)).toMatchObject({ deleted: true, body: 'Oi' });
    });
  });

  describe('whatsapp-web.js REST API (whatsapp)', () => {
    const chat = '5511955560002@c.us';
    const own = key(true, chat, '3EB0OWN000000002');

    it('stores message_create of ours, then its message_edit with the earlier text kept, forwarded once', async () => {
      await event('wwebjs', {
        dataType: 'message',
        sessionId: SESSION,
        data: {
          message: {
            id: key(false, chat, 'IN-2'),
            from: chat,
            to: '5511900000000@c.us',
            fromMe: false,
            type: 'chat',
            body: 'Oi',
            timestamp: seconds(),
            _data: { notifyName: 'Caio' },
          },
        },
      });
      const created = {
        id: own,
        from: '5511900000000@c.us',
        to: chat,
        fromMe: true,
        type: 'chat',
        body: 'Preço: R$ 10',
        timestamp: seconds(),
        _data: {},
      };
      const [stored] = await event('wwebjs', { dataType: 'message_create', sessionId: SESSION, data: { message: created } });
      expect(stored.outcome).toBe('stored');

      const edit = {
        dataType: 'message_edit',
        sessionId: SESSION,
        data: {
          message: { ...created, body: 'Preço: R$ 12', _data: { latestEditSenderTimestampMs: Date.now() } },
          newBody: 'Preço: R$ 12',
          prevBody: 'Preço: R$ 10',
        },
      };
      await event('wwebjs', edit);
      await event('wwebjs', edit);
      const [hook] = await exactly(1, () => hooks('wwebjs', 'edit'));
      expect(hook.body.msg).toMatchObject({ messageId: stored.messageId, body: 'Preço: R$ 12', fromMe: true });
      const read = await messageOf('wwebjs', stored.messageId);
      expect(read).toMatchObject({ body: 'Preço: R$ 12', edited: true, editHistory: [expect.objectContaining({ body: 'Preço: R$ 10' })] });
    });
  });
});
