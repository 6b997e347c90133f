import type { Mesh } from '@convo/dev-mesh';
import { startWebhookReceiver, type WebhookReceiver } from '@convo/test-support';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { startFakeGraph, type FakeGraph, type MetaTemplate } from '../support/fake-graph';
import { call, eventually, settled, UNPACED, type Reply } from '../support/http';
import { hubSignature, postMeta, wabaEnvelope } from '../support/meta-webhooks';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * One person, one conversation, whatever the provider calls them: Meta's webhooks with a
 * business-scoped user id (BSUID) and no phone, with a phone only, and with both; the engines'
 * LIDs with and without the phone beside them (Baileys' engine_a and Evolution's engine_b), through
 * the real mesh with two gateways. Replies leave by the best identity: a phone as `to`, a BSUID as
 * Meta's `recipient`, a LID as its `@lid` JID.
 */

const META_APP_SECRET = 'meta-app-secret-for-identities';
const PHONE_ID = '1088000001';

interface Api {
  channelId: number;
  root: string;
  token: string;
}

describe('contact identities beyond the phone number', () => {
  let mesh: Mesh;
  let graph: FakeGraph;
  let engineA: FakeEngine;
  let evolution: FakeEngine;
  let receiver: WebhookReceiver;
  const crashes: string[] = [];
  let admin: string;
  const tenants: Array<{ id: number; waba: Api; a: Api; b: Api }> = [];
  let seq = 0;
  const unique = () => `${Date.now().toString(36)}${++seq}`;
  const newPhone = () => `55219${String(60_000_000 + ++seq)}`;
  const newBsuid = () => `BR.${String(1_502_576_394_600_000 + ++seq)}`;
  const newLid = () => `${String(276_375_994_200_000 + ++seq)}@lid`;

  const post = (api: Api, path: string, body: unknown) => call(`${api.root}${path}`, { token: api.token, body });
  const hooksFor = (channelId: number) =>
    receiver.received.filter((h) => h.body?.msg?.whatsappId === channelId || h.body?.ticket?.whatsappId === channelId);

  /** A signed Meta delivery, through the given gateway. */
  async function meta(value: Parameters<typeof wabaEnvelope>[1], gateway = mesh.gatewayUrl, phoneId = PHONE_ID): Promise<Reply> {
    const raw = JSON.stringify(wabaEnvelope(phoneId, value));
    return postMeta(gateway, raw, hubSignature(raw, META_APP_SECRET));
  }

  /** Meta's message of a user: `from` and `wa_id` only when Meta gives the phone. */
  const wabaMessage = (who: { phone?: string; bsuid?: string; username?: string; name?: string }, id: string, text: string) => ({
    contacts: [
      {
        profile: { name: who.name ?? 'Ana', ...(who.username && { username: who.username }) },
        ...(who.phone && { wa_id: who.phone }),
        ...(who.bsuid && { user_id: who.bsuid }),
      },
    ],
    messages: [
      {
        ...(who.phone && { from: who.phone }),
        ...(who.bsuid && { from_user_id: who.bsuid }),
        id,
        timestamp: String(Math.floor(Date.now() / 1000)),
        type: 'text',
        text: { body: text },
      },
    ],
  });

  const engineHook = (api: Api, body: unknown, gateway = mesh.gatewayUrl) =>
    fetch(`${gateway}/webhooks/engine/${api.channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer engine-token-${api.channelId}` },
      body: JSON.stringify(body),
    }).then(async (res): Promise<Reply> => ({ status: res.status, body: await res.json() }));

  /** A Baileys WAMessage from a one-to-one chat addressed by `remoteJid`, with Baileys 7's alternate JID. */
  const waMessage = (remoteJid: string, id: string, text: string, alt?: string) => ({
    key: { remoteJid, fromMe: false, id, ...(alt && { remoteJidAlt: alt }), addressingMode: remoteJid.endsWith('@lid') ? 'lid' : 'pn' },
    messageTimestamp: Math.floor(Date.now() / 1000),
    pushName: 'Caio',
    message: { conversation: text },
  });
  const baileysUpsert = (m: unknown) => ({ event: 'messages.upsert', data: { type: 'notify', messages: [m] } });
  const evolutionUpsert = (m: unknown) => ({ event: 'messages.upsert', instance: 'acme', data: m });

  async function tenant(name: string) {
    const res = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name,
        maxUsers: 5,
        maxConnections: 10,
        acceptTerms: true,
        email: `owner-${unique()}@ids.example`,
        password: 'S3cure!pass',
        userName: 'Ana',
        profile: 'admin',
      },
    });
    expect(res.status).toBe(200);
    const id = res.body.data.tenant.id as number;
    const session = async (body: Record<string, unknown>): Promise<Api> => {
      const created = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
        token: admin,
        body: {
          tenant: id,
          status: 'CONNECTED',
          webhookEnabled: true,
          webhookUrl: `${receiver.url}/${name}`,
          webhookIncoming: true,
          ...body,
        },
      });
      expect(created.status).toBe(200);
      const channelId = created.body.data.whatsapp.id as number;
      const api = {
        channelId,
        root: `${mesh.gatewayUrl}/v2/api/external/${created.body.data.api.apiId}`,
        token: created.body.data.api.authToken as string,
      };
      if (body.type !== 'waba') {
        const token = await call(`${mesh.gatewayUrl}/whatsapp/${channelId}`, {
          token: admin,
          method: 'PUT',
          body: { engineToken: `engine-token-${channelId}` },
        });
        expect(token.status).toBe(200);
      }
      return api;
    };
    // The waba channel of each tenant names its own phone-number id.
    const phoneId = tenants.length ? `${PHONE_ID}${tenants.length}` : PHONE_ID;
    const waba = await session({ name: `${name} official`, type: 'waba', tokenAPI: phoneId, wabaId: `WABA-${name}`, bmToken: 'bm-token' });
    const a = await session({ name: `${name} baileys`, type: 'engine_a', engineUrl: engineA.url });
    const b = await session({ name: `${name} evolution`, type: 'engine_b', engineUrl: `${evolution.url}/acme` });
    return { id, waba, a, b, phoneId };
  }

  let t1: Awaited<ReturnType<typeof tenant>>;
  let t2: Awaited<ReturnType<typeof tenant>>;

  beforeAll(async () => {
    [graph, engineA, evolution, receiver] = await Promise.all([
      startFakeGraph(),
      startFakeEngine(),
      startFakeEngine(),
      startWebhookReceiver(),
    ]);
    graph.catalog = [
      {
        name: 'otp',
        language: 'pt_BR',
        status: 'APPROVED',
        category: 'AUTHENTICATION',
        components: [{ type: 'BODY', text: 'Código {{1}}' }],
      },
      { name: 'hello', language: 'pt_BR', status: 'APPROVED', category: 'UTILITY', components: [{ type: 'BODY', text: 'Olá' }] },
    ] satisfies MetaTemplate[];
    mesh = await startMesh({
      freePorts: true,
      replicas: { gateway: 2 },
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
      env: {
        ...UNPACED,
        RATE_LIMIT_PER_TOKEN: '0',
        RATE_LIMIT_PER_TENANT: '0',
        META_APP_SECRET,
        META_GRAPH_URL: graph.url,
        WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1',
        RELAY_POLL_MS: '100',
      },
    });
    admin = mesh.superAdminToken;
    t1 = await tenant('ids-one');
    tenants.push(t1);
    t2 = await tenant('ids-two');
    tenants.push(t2);
  });

  afterAll(async () => {
    await mesh?.stop();
    await Promise.all([graph?.close(), engineA?.close(), evolution?.close(), receiver?.close()]);
    expect(crashes).toEqual([]);
  });

  it("stores and forwards a Meta message that carries only a BSUID, and answers it with Meta's recipient", async () => {
    const bsuid = newBsuid();
    const id = `wamid.BSUID-${unique()}`;
    const res = await meta(wabaMessage({ bsuid, username: 'ana.silva', name: 'Ana Silva' }, id, 'Oi, sem número'));
    expect(res.status).toBe(200);
    const hook = await eventually('the customer webhook', () =>
      hooksFor(t1.waba.channelId).find((h) => h.body?.msg?.body === 'Oi, sem número'),
    );
    expect(hook.body.ticket.contact).toMatchObject({ number: '', bsuid, username: 'ana.silva' });
    const ticketId = hook.body.ticket.id as number;

    // showcontact and showticket find the contact by its BSUID.
    const contact = await post(t1.waba, '/showcontact', { number: bsuid });
    expect(contact.status).toBe(200);
    expect(JSON.stringify(contact.body.data)).toContain(bsuid);
    const shown = await post(t1.waba, '/showticket', { number: bsuid });
    expect(shown.status).toBe(200);
    expect(JSON.stringify(shown.body.data)).toContain(String(ticketId));

    // The reply leaves with `recipient`, never with the BSUID in `to` (Meta drops it there).
    graph.wrote(bsuid);
    const sent = await post(t1.waba, '/sendMessageByTicket', { ticketId, body: 'Olá Ana' });
    expect(sent.status).toBe(200);
    await settled(t1.waba.root, t1.waba.token, sent.body.data.messageId);
    const request = graph.sends().find((r) => r.body?.text?.body === 'Olá Ana')!;
    expect(request.body).toMatchObject({ messaging_product: 'whatsapp', recipient_type: 'individual', recipient: bsuid, type: 'text' });
    expect(request.body.to).toBeUndefined();

    // An authentication template needs a phone: refused at acceptance, nothing stored.
    const otp = await post(t1.waba, '/template', { number: bsuid, templateName: 'otp', templateLangCode: 'pt_BR', params: ['123456'] });
    expect({ status: otp.status, error: otp.body.error }).toEqual({ status: 409, error: 'ERR_PHONE_REQUIRED' });
  });

  it('links a phone and a BSUID Meta sends together, merging the two contacts with open tickets: both ticket ids keep working', async () => {
    const [phone, bsuid] = [newPhone(), newBsuid()];
    await meta(wabaMessage({ phone }, `wamid.P-${unique()}`, 'pelo número'));
    await meta(wabaMessage({ bsuid }, `wamid.B-${unique()}`, 'pelo BSUID'));
    const byPhone = await eventually('phone ticket', () => hooksFor(t1.waba.channelId).find((h) => h.body?.msg?.body === 'pelo número'));
    const byBsuid = await eventually('bsuid ticket', () => hooksFor(t1.waba.channelId).find((h) => h.body?.msg?.body === 'pelo BSUID'));
    expect(byPhone.body.ticket.id).not.toBe(byBsuid.body.ticket.id);

    await meta(wabaMessage({ phone, bsuid }, `wamid.PB-${unique()}`, 'os dois'));
    const both = await eventually('merged ticket', () => hooksFor(t1.waba.channelId).find((h) => h.body?.msg?.body === 'os dois'));
    expect(both.body.ticket.contact).toMatchObject({ number: phone, bsuid });
    expect([byPhone.body.ticket.id, byBsuid.body.ticket.id]).toContain(both.body.ticket.id);

    const all = await post(t1.waba, '/showallticket', { number: bsuid });
    const ids = (all.body.data.tickets as Array<{ id: number }>).map((t) => t.id).sort();
    expect(ids).toEqual([byPhone.body.ticket.id, byBsuid.body.ticket.id].sort());
    // The BSUID-only ticket is the phone contact's now: a reply to it leaves by phone.
    graph.wrote(phone);
    const sent = await post(t1.waba, '/sendMessageByTicket', { ticketId: byBsuid.body.ticket.id, body: 'resposta por número' });
    expect(sent.status).toBe(200);
    await eventually('the reply by phone', () =>
      graph.sends().find((r) => r.body?.text?.body === 'resposta por número' && r.body.to === phone),
    );
  });

  it("matches a status naming only the BSUID to the message by its id, and links a status's phone and BSUID", async () => {
    const [phone, bsuid] = [newPhone(), newBsuid()];
    graph.wrote(phone);
    await meta(wabaMessage({ phone }, `wamid.S-${unique()}`, 'status test'));
    const hook = await eventually('ticket', () => hooksFor(t1.waba.channelId).find((h) => h.body?.msg?.body === 'status test'));
    const sent = await post(t1.waba, '/sendMessageByTicket', { ticketId: hook.body.ticket.id, body: 'vai ter status' });
    const messageId = sent.body.data.messageId as string;
    const { providerMessageId: providerId } = await settled(t1.waba.root, t1.waba.token, messageId);
    expect(providerId).toMatch(/^wamid\./);
    const ts = String(Math.floor(Date.now() / 1000));
    expect(
      (await meta({ statuses: [{ id: providerId, status: 'delivered', timestamp: ts, recipient_id: phone, recipient_user_id: bsuid }] }))
        .status,
    ).toBe(200);
    await eventually(
      'delivered',
      async () =>
        (await call(`${t1.waba.root}/getMessageByMessageId?messageId=${messageId}`, { token: t1.waba.token })).body.data.status ===
        'delivered',
    );
    expect((await meta({ statuses: [{ id: providerId, status: 'read', timestamp: ts, recipient_user_id: bsuid }] })).status).toBe(200);
    await eventually(
      'read',
      async () =>
        (await call(`${t1.waba.root}/getMessageByMessageId?messageId=${messageId}`, { token: t1.waba.token })).body.data.status === 'read',
    );
    const contact = await post(t1.waba, '/showcontact', { number: bsuid });
    expect(contact.status).toBe(200);
    expect(JSON.stringify(contact.body.data)).toContain(phone);
  });

  it("links the phone a BSUID-only user shares by answering Meta's contact request (a contacts message, origin contact_request)", async () => {
    const [phone, bsuid] = [newPhone(), newBsuid()];
    await meta(wabaMessage({ bsuid, username: 'bia.r' }, `wamid.CR1-${unique()}`, 'quero ser atendida'));
    const first = await eventually('ticket', () => hooksFor(t1.waba.channelId).find((h) => h.body?.msg?.body === 'quero ser atendida'));
    const shared = {
      contacts: [{ profile: { name: 'Bia', username: 'bia.r' }, user_id: bsuid }],
      messages: [
        {
          from_user_id: bsuid,
          id: `wamid.CR2-${unique()}`,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'contacts',
          origin: 'contact_request',
          contacts: [
            { name: { formatted_name: 'Bia R', first_name: 'Bia' }, phones: [{ phone: `+${phone}`, wa_id: phone, type: 'MOBILE' }] },
          ],
        },
      ],
    };
    expect((await meta(shared)).status).toBe(200);
    const reply = await eventually('the shared contact', () =>
      hooksFor(t1.waba.channelId).find((h) => h.body?.ticket?.id === first.body.ticket.id && h.body?.ticket?.contact?.number === phone),
    );
    expect(reply.body.ticket.contact).toMatchObject({ number: phone, bsuid });
    // From now on the contact is answered by phone.
    graph.wrote(phone);
    await post(t1.waba, '/sendMessageByTicket', { ticketId: first.body.ticket.id, body: 'agora pelo número' });
    await eventually('the reply by phone', () =>
      graph.sends().find((r) => r.body?.text?.body === 'agora pelo número' && r.body.to === phone && !r.body.recipient),
    );
  });

  it('answers a LID-only Evolution contact at its @lid JID, then moves to the phone once remoteJidAlt names it, on one ticket', async () => {
    const [lid, phone] = [newLid(), newPhone()];
    expect((await engineHook(t1.b, evolutionUpsert(waMessage(lid, `EV-${unique()}`, 'só LID')))).status).toBe(200);
    const first = await eventually('lid ticket', () => hooksFor(t1.b.channelId).find((h) => h.body?.msg?.body === 'só LID'));
    expect(first.body.ticket.contact).toMatchObject({ number: '', lid });
    const ticketId = first.body.ticket.id;
    const sent = await post(t1.b, '/sendMessageByTicket', { ticketId, body: 'para o LID' });
    expect(sent.status).toBe(200);
    const toLid = await eventually('send to the LID', () => evolution.requests.find((r) => r.body?.text === 'para o LID'));
    expect(toLid.body.number).toBe(lid);

    expect(
      (await engineHook(t1.b, evolutionUpsert(waMessage(lid, `EV-${unique()}`, 'com telefone', `${phone}@s.whatsapp.net`)))).status,
    ).toBe(200);
    const second = await eventually('same ticket', () => hooksFor(t1.b.channelId).find((h) => h.body?.msg?.body === 'com telefone'));
    expect(second.body.ticket.id).toBe(ticketId);
    expect(second.body.ticket.contact).toMatchObject({ number: phone, lid });
    await post(t1.b, '/sendMessageByTicket', { ticketId, body: 'para o telefone' });
    const toPhone = await eventually('send to the phone', () => evolution.requests.find((r) => r.body?.text === 'para o telefone'));
    expect(toPhone.body.number).toBe(phone);
  });

  it("answers a Baileys LID contact at its JID and repairs a contact stored with the LID's digits as its number", async () => {
    const lid = newLid();
    const digits = lid.split('@')[0];
    // What the platform stored before identities: a contact (and ticket) whose number is the LID's digits.
    const legacy = await post(t1.a, '/createTicket', { number: digits, body: 'antes' });
    expect(legacy.status).toBe(200);
    const legacyId = legacy.body.data.ticketId as number;
    expect((await engineHook(t1.a, baileysUpsert(waMessage(lid, `BA-${unique()}`, 'LID de novo')))).status).toBe(200);
    const hook = await eventually('repaired', () => hooksFor(t1.a.channelId).find((h) => h.body?.msg?.body === 'LID de novo'));
    expect(hook.body.ticket.id).toBe(legacyId);
    expect(hook.body.ticket.contact).toMatchObject({ number: '', lid });
    await post(t1.a, '/sendMessageByTicket', { ticketId: legacyId, body: 'reparado' });
    const req = await eventually('send to the LID', () => engineA.requests.find((r) => JSON.stringify(r.body ?? {}).includes('reparado')));
    expect(JSON.stringify(req.body)).toContain(lid);
    expect(JSON.stringify(req.body)).not.toContain(`${digits}@s.whatsapp.net`);
  });

  it('keeps two tenants apart when they receive the same BSUID and the same LID', async () => {
    const [bsuid, lid] = [newBsuid(), newLid()];
    await meta(wabaMessage({ bsuid }, `wamid.T1-${unique()}`, 'tenant one'));
    await meta(wabaMessage({ bsuid }, `wamid.T2-${unique()}`, 'tenant two'), mesh.gatewayUrl, t2.phoneId);
    await engineHook(t1.b, evolutionUpsert(waMessage(lid, `EV1-${unique()}`, 'lid one')));
    await engineHook(t2.b, evolutionUpsert(waMessage(lid, `EV2-${unique()}`, 'lid two')));
    const hooks = await Promise.all(
      ['tenant one', 'tenant two', 'lid one', 'lid two'].map((body) =>
        eventually(body, () => receiver.received.find((h) => h.body?.msg?.body === body)),
      ),
    );
    expect(new Set(hooks.map((h) => h.body.ticket.id)).size).toBe(4);
    for (const api of [t1.waba, t2.waba]) {
      const mine = await post(api, '/showallticket', { number: bsuid });
      expect((mine.body.data.tickets as Array<{ whatsappId: number }>).map((t) => t.whatsappId)).toEqual([api.channelId]);
    }
  });

  it('gives 50 webhooks carrying one new (phone, BSUID) pair, posted at once across both gateways, one contact and one open ticket', async () => {
    const [phone, bsuid] = [newPhone(), newBsuid()];
    const tag = unique();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        meta(wabaMessage({ phone, bsuid }, `wamid.C-${tag}-${i}`, `burst ${tag} ${i}`), mesh.gatewayUrls[i % mesh.gatewayUrls.length]),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    const hooks = await eventually(
      '50 webhooks',
      () => {
        const got = hooksFor(t1.waba.channelId).filter((h) => String(h.body?.msg?.body).startsWith(`burst ${tag} `));
        return got.length >= 50 && got;
      },
      30_000,
    );
    expect(new Set(hooks.map((h) => h.body.ticket.id)).size).toBe(1);
    expect(new Set(hooks.map((h) => h.body.ticket.contact.id)).size).toBe(1);
    const all = await post(t1.waba, '/showallticket', { number: phone });
    expect((all.body.data.tickets as Array<{ status: string }>).filter((t) => t.status !== 'closed')).toHaveLength(1);
  });
});
