import type { Mesh } from '@convo/dev-mesh';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '@convo/test-support';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, eventually, settled, UNPACED, type Reply } from '../support/http';
import { hubSignature, messengerEnvelope, postMeta, wabaText } from '../support/meta-webhooks';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * The whole conversation (CONVENTIONS.md), inbound, through the real processes: what the business
 * sent from elsewhere (an engine's fromMe message, a Messenger echo, a WhatsApp Business app echo),
 * the echo of our own send, and reactions, edits and deletions, each stored and forwarded once to
 * the customer's webhook however often the provider posts it. Payloads as the providers post them.
 */

const META_APP_SECRET = 'meta-app-secret-for-the-conversation';
const WABA_PHONE_ID = '15550002222';
const BUSINESS_NUMBER = '15550000000';
const PAGE_ID = '2233445566';
const ENGINE_TOKEN = 'engine-secret';

const seconds = () => Math.floor(Date.now() / 1000);

/** A Baileys WAMessage as engine_a posts it in messages.upsert; `message` is its content. */
const waMessage = (number: string, id: string, fromMe: boolean, message: Record<string, unknown>) => ({
  key: { remoteJid: `${number}@s.whatsapp.net`, fromMe, id },
  messageTimestamp: seconds(),
  pushName: fromMe ? 'Loja' : 'Bia',
  message,
});
const upsert = (...messages: unknown[]) => ({ event: 'messages.upsert', data: { type: 'notify', messages } });

describe('the whole conversation, end to end', () => {
  let mesh: Mesh;
  let graph: FakeEngine;
  let engine: FakeEngine;
  let receiver: WebhookReceiver;
  let admin: string;
  let tenantId: number;
  const crashes: string[] = [];
  const channels: Record<string, { id: number; root: string; token: string }> = {};

  const hooks = (channel: string, method?: string) =>
    receiver.received.filter((h) => h.path === `/${channel}` && (!method || h.body?.method === method));
  const api = (channel: string, path: string, body: unknown) =>
    call(`${channels[channel].root}${path}`, { token: channels[channel].token, body });
  const messageOf = async (channel: string, messageId: string) => {
    const got = await call(`${channels[channel].root}/getMessageByMessageId?messageId=${encodeURIComponent(messageId)}`, {
      token: channels[channel].token,
    });
    expect(got.status).toBe(200);
    return got.body.data;
  };
  const ticketMessages = async (channel: string, ticketId: number) => {
    const got = await api(channel, '/showAllMessages', { ticket: String(ticketId) });
    expect(got.status).toBe(200);
    return got.body.data.messages as Array<{ messageId: string; direction: string; body: string; providerMessageId: string | null }>;
  };

  const engineWebhook = (body: unknown) =>
    fetch(`${mesh.gatewayUrl}/webhooks/engine/${channels.engine.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ENGINE_TOKEN}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    }).then(async (res): Promise<Reply> => ({ status: res.status, body: await res.json() }));
  /** Posts an engine event and answers the outcome of each event it carried. */
  const engineEvent = async (body: unknown) => {
    const res = await engineWebhook(body);
    expect(res.status).toBe(200);
    return res.body.data.results as Array<{ outcome: string; messageId: string; ticketId: number }>;
  };
  const metaEvent = async (body: unknown) => {
    const raw = JSON.stringify(body);
    const res = await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET));
    expect(res.status).toBe(200);
    return res.body.data.results as Array<{ outcome: string; messageId: string; ticketId: number }>;
  };
  /**
   * Waits until no webhook of the channel waits for delivery (its outbox rows are written before
   * the event is answered): none can reach the receiver after that.
   */
  const webhooksSettled = (channel: string) =>
    eventually(`${channel}'s webhooks delivered`, async () => {
      const query = `{ deliveryHealth(tenantId: ${tenantId}) { channelId webhooksPending } }`;
      const rows = (await call(mesh.graphqlUrl, { token: admin, body: { query } })).body?.data?.deliveryHealth as
        { channelId: number; webhooksPending: number }[] | undefined;
      return !!rows && (rows.find((r) => r.channelId === channels[channel].id)?.webhooksPending ?? 0) === 0;
    });
  /** Waits for `count` webhooks matching, then until the channel has none pending: the repeated posts must not add one. */
  const exactly = async (channel: string, count: number, matching: () => ReceivedWebhook[]) => {
    await receiver.waitFor(() => matching().filter((h) => h.answered === 200).length >= count);
    await webhooksSettled(channel);
    expect(matching()).toHaveLength(count);
    return matching();
  };

  async function session(name: string, body: Record<string, unknown>) {
    const res = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenantId, name, webhookEnabled: true, webhookUrl: `${receiver.url}/${name}`, webhookIncoming: true, ...body },
    });
    expect(res.status).toBe(200);
    channels[name] = {
      id: res.body.data.whatsapp.id,
      root: `${mesh.gatewayUrl}/v2/api/external/${res.body.data.api.apiId}`,
      token: res.body.data.api.authToken,
    };
  }

  beforeAll(async () => {
    [graph, engine, receiver] = await Promise.all([startFakeEngine(), startFakeEngine(), startWebhookReceiver()]);
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
      env: {
        ...UNPACED,
        META_APP_SECRET,
        META_VERIFY_TOKEN: 'verify',
        META_GRAPH_URL: graph.url,
        WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1',
        RELAY_POLL_MS: '100',
      },
    });
    admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Conversa Ltda',
        maxUsers: 5,
        maxConnections: 0,
        acceptTerms: true,
        email: 'owner@conversa.example',
        password: 'S3cure!pass',
        userName: 'Ana Admin',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    tenantId = tenant.body.data.tenant.id;
    await session('engine', { type: 'engine_a', engineUrl: engine.url, engineToken: ENGINE_TOKEN });
    await session('messenger', { type: 'social_b', pageId: PAGE_ID, pageToken: 'page-token' });
    await session('waba', { type: 'waba', tokenAPI: WABA_PHONE_ID, wabaId: 'WABA-C', bmToken: 'bm-token' });
  }, 120_000);

  afterAll(async () => {
    await mesh?.stop();
    await Promise.all([graph?.close(), engine?.close(), receiver?.close()]);
  });

  afterEach(() => expect(crashes).toEqual([]));

  describe('an unofficial engine (engine_a, Baileys)', () => {
    const number = '5511955550001';
    let ticketId: number;

    beforeAll(async () => {
      const [first] = await engineEvent(upsert(waMessage(number, 'IN-1', false, { conversation: 'Oi' })));
      expect(first.outcome).toBe('stored');
      ticketId = first.ticketId;
    });

    it('stores a message sent from the phone as an outgoing message of the ticket, forwarded once with fromMe', async () => {
      const event = upsert(waMessage(number, 'PHONE-1', true, { conversation: 'Sent from the phone' }));
      const [stored] = await engineEvent(event);
      expect(stored).toMatchObject({ outcome: 'stored', ticketId, messageId: `echo:${channels.engine.id}:PHONE-1` });
      expect((await engineEvent(event))[0]).toMatchObject({ outcome: 'duplicate', messageId: stored.messageId });

      const [hook] = await exactly('engine', 1, () => hooks('engine', 'message').filter((h) => h.body.msg.providerMessageId === 'PHONE-1'));
      expect(hook.body).toMatchObject({
        msg: { fromMe: true, direction: 'out', body: 'Sent from the phone', from: number, ticketId },
        ticket: { id: ticketId, contact: { number } },
      });
      const mine = (await ticketMessages('engine', ticketId)).filter((m) => m.providerMessageId === 'PHONE-1');
      expect(mine.map((m) => [m.messageId, m.direction, m.body])).toEqual([[stored.messageId, 'out', 'Sent from the phone']]);
      expect(await messageOf('engine', stored.messageId)).toMatchObject({ direction: 'out', status: 'sent', ticketId });
    });

    it("takes the echo of the platform's own send as that message: stored once, not forwarded", async () => {
      const sent = await api('engine', '/sendMessageByTicket', { ticketId, body: 'Sent through the API' });
      expect(sent.status).toBe(200);
      const { messageId } = sent.body.data;
      const { providerMessageId } = await settled(channels.engine.root, channels.engine.token, messageId);
      expect(providerMessageId).toBeTruthy();

      const echo = upsert(waMessage(number, providerMessageId, true, { conversation: 'Sent through the API' }));
      expect((await engineEvent(echo))[0]).toMatchObject({ outcome: 'duplicate', messageId, ticketId });
      expect((await engineEvent(echo))[0]).toMatchObject({ outcome: 'duplicate', messageId });
      await webhooksSettled('engine');
      expect(hooks('engine', 'message').filter((h) => h.body.msg.providerMessageId === providerMessageId)).toEqual([]);
      expect((await ticketMessages('engine', ticketId)).filter((m) => m.body === 'Sent through the API').map((m) => m.messageId)).toEqual([
        messageId,
      ]);
    });

    it('recognises the echo that arrives before the engine answered the send', async () => {
      engine.failNext(200, { key: { id: 'RACE-1', fromMe: true }, status: 'PENDING' });
      engine.delay(1_500);
      try {
        const before = engine.requests.length;
        const sent = await api('engine', '/sendMessageByTicket', { ticketId, body: 'Raced by its echo' });
        expect(sent.status).toBe(200);
        await eventually('the send at the engine', () => engine.requests.length > before);
        const [echo] = await engineEvent(upsert(waMessage(number, 'RACE-1', true, { conversation: 'Raced by its echo' })));
        expect(echo).toMatchObject({ outcome: 'duplicate', messageId: sent.body.data.messageId });
      } finally {
        engine.delay(0);
      }
      await webhooksSettled('engine');
      expect(hooks('engine', 'message').filter((h) => h.body.msg.providerMessageId === 'RACE-1')).toEqual([]);
      expect((await ticketMessages('engine', ticketId)).filter((m) => m.body === 'Raced by its echo')).toHaveLength(1);
    });

    it('keeps a reaction on the message and removes it, each forwarded once as `reaction`', async () => {
      const target = `in:${channels.engine.id}:IN-1`;
      const reaction = (id: string, text: string, ms: number) =>
        upsert(
          waMessage(number, id, false, {
            reactionMessage: { key: { remoteJid: `${number}@s.whatsapp.net`, fromMe: false, id: 'IN-1' }, text, senderTimestampMs: ms },
          }),
        );
      const sentAt = Date.now();
      const added = reaction('REACT-1', '❤️', sentAt);
      expect((await engineEvent(added))[0]).toMatchObject({ outcome: 'reaction_applied', messageId: target, ticketId });
      expect((await engineEvent(added))[0]).toMatchObject({ outcome: 'duplicate', messageId: target });
      expect((await messageOf('engine', target)).reactions).toEqual([{ emoji: '❤️', fromMe: false, at: new Date(sentAt).toISOString() }]);

      const removed = reaction('REACT-2', '', sentAt + 1_000);
      expect((await engineEvent(removed))[0]).toMatchObject({ outcome: 'reaction_applied', messageId: target });
      expect((await engineEvent(removed))[0]).toMatchObject({ outcome: 'duplicate' });
      expect((await messageOf('engine', target)).reactions).toEqual([]);

      const forwarded = await exactly('engine', 2, () => hooks('engine', 'reaction'));
      expect(forwarded.map((h) => h.body.msg.emoji).sort()).toEqual(['', '❤️']);
      for (const hook of forwarded) {
        expect(hook.body).toMatchObject({
          method: 'reaction',
          msg: { messageId: target, ticketId, whatsappId: channels.engine.id, fromMe: false },
          ticket: { id: ticketId },
        });
      }
      // The tenant's delivery listing shows them with their method.
      const listed = await eventually('the reactions listed as delivered', async () => {
        const res = await call(mesh.graphqlUrl, {
          token: admin,
          body: { query: `{ webhookDeliveries(tenantId: ${tenantId}, channelId: ${channels.engine.id}, limit: 200) { method status } }` },
        });
        expect(res.body.errors).toBeUndefined();
        const reactions = (res.body.data.webhookDeliveries as Array<{ method: string; status: string }>).filter(
          (d) => d.method === 'reaction',
        );
        return reactions.every((d) => d.status !== 'pending') && reactions;
      });
      expect(listed).toEqual([
        { method: 'reaction', status: 'delivered' },
        { method: 'reaction', status: 'delivered' },
      ]);
    });

    it('applies an edit (`edit`, edited with its history) and a deletion for everyone (`delete`, deleted), each once', async () => {
      await engineEvent(
        upsert(
          waMessage(number, 'IN-2', false, { conversation: 'Quero 2 pizzas' }),
          waMessage(number, 'IN-3', false, { conversation: 'Errado' }),
        ),
      );
      const [edited, revoked] = [`in:${channels.engine.id}:IN-2`, `in:${channels.engine.id}:IN-3`];
      const key = (id: string) => ({ remoteJid: `${number}@s.whatsapp.net`, fromMe: false, id });
      const edit = upsert(
        waMessage(number, 'EDIT-1', false, {
          protocolMessage: { key: key('IN-2'), type: 14, editedMessage: { conversation: 'Quero 3 pizzas' }, timestampMs: Date.now() },
        }),
      );
      const revoke = upsert(waMessage(number, 'REVOKE-1', false, { protocolMessage: { key: key('IN-3'), type: 0 } }));
      expect((await engineEvent(edit))[0]).toMatchObject({ outcome: 'edit_applied', messageId: edited });
      expect((await engineEvent(edit))[0]).toMatchObject({ outcome: 'duplicate', messageId: edited });
      expect((await engineEvent(revoke))[0]).toMatchObject({ outcome: 'delete_applied', messageId: revoked });
      expect((await engineEvent(revoke))[0]).toMatchObject({ outcome: 'duplicate', messageId: revoked });

      const shown = await messageOf('engine', edited);
      expect(shown).toMatchObject({ body: 'Quero 3 pizzas', edited: true, deleted: false });
      expect(shown.editHistory).toEqual([{ body: 'Quero 2 pizzas', at: expect.any(String) }]);
      expect(await messageOf('engine', revoked)).toMatchObject({ body: 'Errado', deleted: true, edited: false });

      const [editHook] = await exactly('engine', 1, () => hooks('engine', 'edit'));
      expect(editHook.body).toMatchObject({
        msg: { messageId: edited, body: 'Quero 3 pizzas', fromMe: false, ticketId },
        ticket: { id: ticketId },
      });
      const [deleteHook] = await exactly('engine', 1, () => hooks('engine', 'delete'));
      expect(deleteHook.body).toMatchObject({ msg: { messageId: revoked, fromMe: false, ticketId }, ticket: { id: ticketId } });
    });
  });

  it("stores a Messenger echo (a page's message sent from Meta's inbox) as the contact's outgoing message, once", async () => {
    const psid = '27183645091827364';
    const envelope = messengerEnvelope(PAGE_ID, [
      {
        sender: { id: PAGE_ID },
        recipient: { id: psid },
        timestamp: Date.now(),
        message: { mid: 'm_ECHO-1', is_echo: true, app_id: 263902037430900, text: 'Answered from the inbox' },
      },
    ]);
    const [stored] = await metaEvent(envelope);
    expect(stored).toMatchObject({ outcome: 'stored', messageId: `echo:${channels.messenger.id}:m_ECHO-1` });
    expect((await metaEvent(envelope))[0]).toMatchObject({ outcome: 'duplicate', messageId: stored.messageId });

    const [hook] = await exactly('messenger', 1, () => hooks('messenger', 'message'));
    expect(hook.body).toMatchObject({
      msg: { fromMe: true, direction: 'out', body: 'Answered from the inbox', from: psid, channelType: 'social_b' },
      ticket: { id: stored.ticketId },
    });
    expect(await messageOf('messenger', stored.messageId)).toMatchObject({
      direction: 'out',
      body: 'Answered from the inbox',
      ticketId: stored.ticketId,
    });
  });

  it('stores a WhatsApp Business app echo (smb_message_echoes) on the contact ticket, and a reaction to it', async () => {
    const number = '5511955550002';
    const [first] = await metaEvent(
      wabaChange('messages', {
        contacts: [{ profile: { name: 'Caio' }, wa_id: number }],
        messages: [wabaText(number, 'wamid.C-IN-1', 'Bom dia')],
      }),
    );
    expect(first.outcome).toBe('stored');
    const echo = wabaChange('smb_message_echoes', {
      message_echoes: [
        {
          from: BUSINESS_NUMBER,
          to: number,
          id: 'wamid.C-ECHO-1',
          timestamp: String(seconds()),
          type: 'text',
          text: { body: 'Typed in the Business app' },
        },
      ],
    });
    const [stored] = await metaEvent(echo);
    expect(stored).toMatchObject({ outcome: 'stored', ticketId: first.ticketId, messageId: `echo:${channels.waba.id}:wamid.C-ECHO-1` });
    expect((await metaEvent(echo))[0]).toMatchObject({ outcome: 'duplicate', messageId: stored.messageId });

    const reaction = wabaChange('messages', {
      contacts: [{ profile: { name: 'Caio' }, wa_id: number }],
      messages: [
        {
          from: number,
          id: 'wamid.C-REACT-1',
          timestamp: String(seconds()),
          type: 'reaction',
          reaction: { message_id: 'wamid.C-ECHO-1', emoji: '👍' },
        },
      ],
    });
    expect((await metaEvent(reaction))[0]).toMatchObject({ outcome: 'reaction_applied', messageId: stored.messageId });
    expect((await metaEvent(reaction))[0]).toMatchObject({ outcome: 'duplicate' });

    const [hook] = await exactly('waba', 1, () => hooks('waba', 'message').filter((h) => h.body.msg.fromMe));
    expect(hook.body).toMatchObject({
      msg: { direction: 'out', body: 'Typed in the Business app', from: number, providerMessageId: 'wamid.C-ECHO-1' },
      ticket: { id: first.ticketId },
    });
    const [reacted] = await exactly('waba', 1, () => hooks('waba', 'reaction'));
    expect(reacted.body).toMatchObject({
      msg: { messageId: stored.messageId, emoji: '👍', fromMe: false },
      ticket: { id: first.ticketId },
    });
    expect(await messageOf('waba', stored.messageId)).toMatchObject({ direction: 'out', reactions: [{ emoji: '👍', fromMe: false }] });
  });

  /** A WhatsApp Business Account delivery of one change of `field` (messages, smb_message_echoes). */
  function wabaChange(field: string, value: Record<string, unknown>) {
    return {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA-C',
          changes: [
            {
              field,
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: BUSINESS_NUMBER, phone_number_id: WABA_PHONE_ID },
                ...value,
              },
            },
          ],
        },
      ],
    };
  }
});
