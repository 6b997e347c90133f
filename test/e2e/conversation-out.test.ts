import type { Mesh } from '@convo/dev-mesh';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, eventually, settled, UNPACED } from '../support/http';
import { hubSignature, messengerEnvelope, postMeta, wabaEnvelope, wabaText } from '../support/meta-webhooks';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * The whole conversation (CONVENTIONS.md), outbound, through the real processes: sendReaction (and
 * its removal) on an engine (Evolution v2, engine_b), on the Cloud API and on Messenger;
 * editMessage and deleteMessage on the engine; each accepted, delivered by the dispatcher after the
 * message it names, with the message's provider id, and shown on the message once the provider took
 * it. Kinds that cannot, unknown messages and another tenant's are refused.
 */

const META_APP_SECRET = 'meta-app-secret-for-changes-out';
const WABA_PHONE_ID = '15550003333';
const PAGE_ID = '3344556677';
const ENGINE_TOKEN = 'engine-secret';
const ID = /^[0-9a-f-]{36}$/;

describe('reactions, edits and deletions out, end to end', () => {
  let mesh: Mesh;
  let graph: FakeEngine;
  let engine: FakeEngine;
  let admin: string;
  const crashes: string[] = [];
  const channels: Record<string, { id: number; root: string; token: string }> = {};

  const api = (channel: string, path: string, body: unknown) =>
    call(`${channels[channel].root}${path}`, { token: channels[channel].token, body });
  const messageOf = async (channel: string, messageId: string) => {
    const got = await call(`${channels[channel].root}/getMessageByMessageId?messageId=${encodeURIComponent(messageId)}`, {
      token: channels[channel].token,
    });
    expect(got.status).toBe(200);
    return got.body.data;
  };
  const metaEvent = async (body: unknown) => {
    const raw = JSON.stringify(body);
    const res = await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET));
    expect(res.status).toBe(200);
    return res.body.data.results as Array<{ outcome: string; messageId: string; ticketId: number }>;
  };
  /** The requests a provider got after `from` whose path ends with `path`. */
  const after = (provider: FakeEngine, from: number, path: string) => provider.requests.slice(from).filter((r) => r.url.endsWith(path));

  async function tenant(name: string) {
    const res = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name,
        maxUsers: 5,
        maxConnections: 0,
        acceptTerms: true,
        email: `owner@${name.toLowerCase().replace(/\W/g, '')}.example`,
        password: 'S3cure!pass',
        userName: 'Ana Admin',
        profile: 'admin',
      },
    });
    expect(res.status).toBe(200);
    return res.body.data.tenant.id as number;
  }
  async function session(name: string, tenantId: number, body: Record<string, unknown>) {
    const res = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, { token: admin, body: { tenant: tenantId, name, ...body } });
    expect(res.status).toBe(200);
    channels[name] = {
      id: res.body.data.whatsapp.id,
      root: `${mesh.gatewayUrl}/v2/api/external/${res.body.data.api.apiId}`,
      token: res.body.data.api.authToken,
    };
  }

  beforeAll(async () => {
    [graph, engine] = await Promise.all([startFakeEngine(), startFakeEngine()]);
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
      env: { ...UNPACED, META_APP_SECRET, META_VERIFY_TOKEN: 'verify', META_GRAPH_URL: graph.url },
    });
    admin = mesh.superAdminToken;
    const [first, second] = [await tenant('Reage Ltda'), await tenant('Outra Ltda')];
    const evolution = { type: 'engine_b', engineUrl: `${engine.url}/loja`, engineToken: ENGINE_TOKEN };
    await session('engine', first, evolution);
    await session('waba', first, { type: 'waba', tokenAPI: WABA_PHONE_ID, wabaId: 'WABA-R', bmToken: 'bm-token' });
    await session('messenger', first, { type: 'social_b', pageId: PAGE_ID, pageToken: 'page-token' });
    await session('wwebjs', first, { type: 'whatsapp', engineUrl: `${engine.url}/sess`, engineToken: ENGINE_TOKEN });
    await session('other', second, { ...evolution, engineUrl: `${engine.url}/outra` });
  }, 300_000);

  afterAll(async () => {
    await mesh?.stop();
    await Promise.all([graph?.close(), engine?.close()]);
  });

  afterEach(() => expect(crashes).toEqual([]));

  describe('an engine (engine_b, Evolution v2)', () => {
    let ticketId: number;
    let messageId: string;

    beforeAll(async () => {
      const from = engine.requests.length;
      const sent = await api('engine', '', { number: '5511966660001', body: 'See you at 2 pm' });
      expect(sent.status).toBe(200);
      ({ ticketId, messageId } = sent.body.data);
      // Reacted to at once: queued behind the message, sent once the message has its provider id.
      const reacted = await api('engine', '/sendReaction', { ticketId, messageId, emoji: '👍' });
      expect(reacted.status).toBe(200);
      expect(reacted.body).toEqual({
        success: true,
        data: { message: 'Reaction accepted for delivery', ticketId, messageId, changeId: expect.stringMatching(ID) },
      });
      await eventually('the reaction at the engine', () => after(engine, from, '/message/sendReaction/loja').length === 1);
      const [text, reaction] = engine.requests.slice(from);
      expect(text.url).toBe('/message/sendText/loja');
      const { providerMessageId } = await settled(channels.engine.root, channels.engine.token, messageId);
      expect(reaction).toMatchObject({
        method: 'POST',
        headers: { apikey: ENGINE_TOKEN },
        body: { key: { remoteJid: '5511966660001@s.whatsapp.net', fromMe: true, id: providerMessageId }, reaction: '👍' },
      });
    }, 60_000);

    it('shows our reaction on the message, and removes it with ""', async () => {
      const shown = await eventually('the reaction on the message', async () => {
        const m = await messageOf('engine', messageId);
        return m.reactions.length > 0 && m;
      });
      expect(shown.reactions).toEqual([{ emoji: '👍', fromMe: true, at: expect.any(String) }]);

      const from = engine.requests.length;
      expect((await api('engine', '/sendReaction', { ticketId, messageId, emoji: '' })).status).toBe(200);
      await eventually('the removal at the engine', () => after(engine, from, '/message/sendReaction/loja').length === 1);
      expect(after(engine, from, '/message/sendReaction/loja')[0].body.reaction).toBe('');
      await eventually('no reaction on the message', async () => (await messageOf('engine', messageId)).reactions.length === 0);
    });

    it('edits the text, then deletes the message for everyone', async () => {
      const from = engine.requests.length;
      const edited = await api('engine', '/editMessage', { messageId, body: 'See you at 3 pm' });
      expect(edited.status).toBe(200);
      expect(edited.body.data).toMatchObject({ message: 'Edit accepted for delivery', ticketId, messageId });
      expect((await api('engine', '/deleteMessage', { messageId })).status).toBe(200);
      await eventually('the deletion at the engine', () => after(engine, from, '/chat/deleteMessageForEveryone/loja').length === 1);
      const [edit, deletion] = engine.requests.slice(from);
      const key = { remoteJid: '5511966660001@s.whatsapp.net', fromMe: true, id: expect.any(String) };
      expect(edit).toMatchObject({
        method: 'POST',
        url: '/chat/updateMessage/loja',
        body: { number: '5511966660001', key, text: 'See you at 3 pm' },
      });
      expect(deletion).toMatchObject({ method: 'DELETE', body: key });

      const message = await eventually('the deletion on the message', async () => {
        const m = await messageOf('engine', messageId);
        return m.deleted && m;
      });
      expect(message).toMatchObject({ body: 'See you at 3 pm', edited: true, deleted: true });
      expect(message.editHistory).toEqual([{ body: 'See you at 2 pm', at: expect.any(String) }]);
    });

    it("answers 404 ERR_MESSAGE_NOT_FOUND for an unknown message and for another tenant's", async () => {
      const unknown = await api('engine', '/sendReaction', { ticketId, messageId: '0193b6f2-5c1e-7a10-9e2b-3c4d5e6f7a8b', emoji: '👍' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ success: false, error: 'ERR_MESSAGE_NOT_FOUND' });
      const from = engine.requests.length;
      for (const [path, body] of [
        ['/sendReaction', { ticketId, messageId, emoji: '👍' }],
        ['/sendReaction', { number: '5511966660001', messageId, emoji: '👍' }],
        ['/editMessage', { messageId, body: 'Not yours' }],
        ['/deleteMessage', { messageId }],
      ] as const) {
        const res = await api('other', path, body);
        expect(res.status).toBe(404);
        expect(res.body.error).toBe('ERR_MESSAGE_NOT_FOUND');
      }
      await new Promise((r) => setTimeout(r, 500));
      expect(engine.requests.slice(from)).toEqual([]);
    });

    it('answers 400 ERR_CHANNEL_MISMATCH on a change the kind cannot make (an edit on whatsapp-web.js REST)', async () => {
      const sent = await api('wwebjs', '', { number: '5511966660002', body: 'Hello' });
      expect(sent.status).toBe(200);
      const res = await api('wwebjs', '/editMessage', { messageId: sent.body.data.messageId, body: 'Hello again' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('ERR_CHANNEL_MISMATCH');
    });
  });

  it('reacts on the Cloud API to the contact\'s message (type "reaction"), removes it, and cannot edit there', async () => {
    const number = '5511966660003';
    const [incoming] = await metaEvent(
      wabaEnvelope(WABA_PHONE_ID, {
        contacts: [{ profile: { name: 'Caio' }, wa_id: number }],
        messages: [wabaText(number, 'wamid.R-IN-1', 'Oi')],
      }),
    );
    expect(incoming.outcome).toBe('stored');
    const from = graph.requests.length;
    const reacted = await api('waba', '/sendReaction', { number: `+${number}`, messageId: incoming.messageId, emoji: '🙏' });
    expect(reacted.status).toBe(200);
    expect(reacted.body.data.ticketId).toBe(incoming.ticketId);
    expect((await api('waba', '/sendReaction', { ticketId: incoming.ticketId, messageId: incoming.messageId, emoji: '' })).status).toBe(
      200,
    );
    await eventually('both at the Cloud API', () => after(graph, from, `/${WABA_PHONE_ID}/messages`).length === 2);
    expect(after(graph, from, `/${WABA_PHONE_ID}/messages`).map((r) => r.body)).toEqual(
      ['🙏', ''].map((emoji) => ({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: number,
        type: 'reaction',
        reaction: { message_id: 'wamid.R-IN-1', emoji },
      })),
    );
    await eventually('the removal applied', async () => (await messageOf('waba', incoming.messageId)).reactions.length === 0);

    const edit = await api('waba', '/editMessage', { messageId: incoming.messageId, body: 'x' });
    expect(edit.status).toBe(400);
    expect(edit.body.error).toBe('ERR_CHANNEL_MISMATCH');
  });

  it('reacts on Messenger with the sender action react, and unreact for ""', async () => {
    const psid = '7700112233';
    const [incoming] = await metaEvent(
      messengerEnvelope(PAGE_ID, [
        { sender: { id: psid }, recipient: { id: PAGE_ID }, timestamp: Date.now(), message: { mid: 'm_R-IN-1', text: 'Hello' } },
      ]),
    );
    expect(incoming.outcome).toBe('stored');
    const from = graph.requests.length;
    expect(
      (await api('messenger', '/sendReaction', { ticketId: incoming.ticketId, messageId: incoming.messageId, emoji: '❤️' })).status,
    ).toBe(200);
    await eventually('the reaction at the Send API', () => after(graph, from, `/${PAGE_ID}/messages`).length === 1);
    const shown = await eventually('the reaction on the message', async () => {
      const m = await messageOf('messenger', incoming.messageId);
      return m.reactions.length > 0 && m;
    });
    expect(shown.reactions).toEqual([{ emoji: '❤️', fromMe: true, at: expect.any(String) }]);
    expect(
      (await api('messenger', '/sendReaction', { ticketId: incoming.ticketId, messageId: incoming.messageId, emoji: '' })).status,
    ).toBe(200);
    await eventually('the removal at the Send API', () => after(graph, from, `/${PAGE_ID}/messages`).length === 2);
    expect(after(graph, from, `/${PAGE_ID}/messages`).map((r) => r.body)).toEqual([
      { recipient: { id: psid }, sender_action: 'react', payload: { message_id: 'm_R-IN-1', reaction: '❤️' } },
      { recipient: { id: psid }, sender_action: 'unreact', payload: { message_id: 'm_R-IN-1' } },
    ]);
  });
});
