import type { Mesh } from '@convo/dev-mesh';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, eventually, settled, UNPACED, type Reply } from '../support/http';
import { hubSignature, postMeta, wabaEnvelope, wabaText } from '../support/meta-webhooks';
import { startNetworkEngine, type NetworkEngine } from '../support/network-engine';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const META_APP_SECRET = 'meta-app-secret-for-beyond-seed';
// A 1×1 transparent PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/**
 * The routes beyond the seed that public clients call (docs/api/beyond-the-seed.md), through
 * the REST facade of the real mesh: sends by number, sendPresence, contacts, catalogs, notes and the
 * pause log, each also with another tenant's ids (404 as if absent), with a fake engine_a server.
 */
describe('routes beyond the seed, end to end', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let network: NetworkEngine;
  let admin: string;
  const crashes: string[] = [];
  let lastEmail = 0;
  let lastNumber = 0;
  const newNumber = () => `55219${String(60_000_000 + ++lastNumber)}`;

  interface Integration {
    tenantId: number;
    channelId: number;
    root: string;
    token: string;
  }

  async function newIntegration(engineUrl = engine.url): Promise<Integration> {
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Beyond',
        maxUsers: 10,
        maxConnections: 10,
        acceptTerms: true,
        email: `owner-${++lastEmail}@beyond-seed.example`,
        password: 'S3cure!pass',
        userName: 'Owner Ana',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    const tenantId = tenant.body.data.tenant.id as number;
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenantId, name: 'engine_a channel', type: 'engine_a', engineUrl, engineToken: 'engine-secret' },
    });
    expect(session.status).toBe(200);
    const { whatsapp, api } = session.body.data;
    return { tenantId, channelId: whatsapp.id, root: `${mesh.gatewayUrl}/v2/api/external/${api.apiId}`, token: api.authToken };
  }

  const post = (api: Integration, op: string, body: unknown) => call(op ? `${api.root}/${op}` : api.root, { token: api.token, body });
  const get = (api: Integration, op: string, query: Record<string, string | number> = {}) =>
    call(`${api.root}/${op}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`, {
      token: api.token,
    });

  async function graphql(query: string): Promise<any> {
    const res = await call(mesh.graphqlUrl, { token: admin, body: { query } });
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  }
  const createTag = async (tenantId: number, name: string): Promise<number> =>
    (await graphql(`mutation { createTag(tenantId: ${tenantId}, name: "${name}") { id } }`)).createTag.id;
  const createQueue = async (tenantId: number, name: string): Promise<number> =>
    (await graphql(`mutation { createQueue(tenantId: ${tenantId}, name: "${name}") { id } }`)).createQueue.id;

  const expectError = (res: Reply, status: number, error: string) => {
    expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
    expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
  };
  /** What the engine got for one of our messages (its options.messageId). */
  const sentFor = (messageId: string) =>
    eventually(`the engine request of ${messageId}`, () =>
      engine.requests.find((r) => r.url === '/messages' && r.body?.options?.messageId === messageId),
    );
  const ticketsOf = async (api: Integration, number: string) => (await post(api, 'showallticket', { number })).body.data.tickets as any[];

  let a: Integration;
  let b: Integration;

  beforeAll(async () => {
    [engine, network] = await Promise.all([startFakeEngine(), startNetworkEngine()]);
    // The Graph API of the waba channel is the fake engine too (under /graph), so its calls are recorded.
    const env = { ...UNPACED, META_APP_SECRET, META_GRAPH_URL: `${engine.url}/graph` };
    mesh = await startMesh({ freePorts: true, env, onLine: () => undefined, onCrash: (part, code) => crashes.push(`${part}:${code}`) });
    admin = mesh.superAdminToken;
    [a, b] = [await newIntegration(), await newIntegration()];
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
    await network?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  // ---- sends by number -----------------------------------------------------------------------

  describe('sends by number', () => {
    it("POST {root}: opens the contact's ticket on the integration's channel, and the engine gets the message for that number", async () => {
      const number = newNumber();
      const res = await post(a, '', { number: `+${number}`, body: 'Hello by number' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { message: 'Message accepted for delivery', ticketId: expect.any(Number), messageId: expect.any(String) },
      });
      const { ticketId, messageId } = res.body.data;

      const sent = await sentFor(messageId);
      expect(sent.headers.authorization).toBe('Bearer engine-secret');
      expect(sent.body).toEqual({ jid: `${number}@s.whatsapp.net`, content: { text: 'Hello by number' }, options: { messageId } });
      await expect(settled(a.root, a.token, messageId)).resolves.toMatchObject({ ticketId, status: 'sent', body: 'Hello by number' });

      const [ticket] = await ticketsOf(a, number);
      expect(ticket).toMatchObject({ id: ticketId, status: 'pending', whatsappId: a.channelId, contact: { number } });
      // The next send to that number (trailing slash and all) goes to the same ticket.
      const again = await call(`${a.root}/`, { token: a.token, body: { number, body: 'Again' } });
      expect(again.body.data.ticketId).toBe(ticketId);
      await settled(a.root, a.token, again.body.data.messageId);
      expect(await ticketsOf(a, number)).toHaveLength(1);
    });

    it('skips a repeated externalKey with the ticket of the first send (also across sendMessageByTicket), sending once', async () => {
      const number = newNumber();
      const first = await post(a, '', { number, body: 'Once', externalKey: 'beyond-key-1' });
      expect(first.status).toBe(200);
      const again = await post(a, '', { number, body: 'Once more', externalKey: 'beyond-key-1' });
      expect(again.body).toEqual({ success: true, idempotent: true, skipped: true, ticketId: first.body.data.ticketId });
      const byTicket = await post(a, 'sendMessageByTicket', { ticketId: first.body.data.ticketId, body: 'x', externalKey: 'beyond-key-1' });
      expect(byTicket.body).toMatchObject({ idempotent: true, skipped: true, ticketId: first.body.data.ticketId });

      await settled(a.root, a.token, first.body.data.messageId);
      expect(engine.requests.filter((r) => r.body?.jid === `${number}@s.whatsapp.net`)).toHaveLength(1);
    });

    it('closes the ticket with isClosed (a JSON string number and text booleans of a form alike)', async () => {
      const number = newNumber();
      const form = new FormData();
      form.set('number', number);
      form.set('body', 'The invoice');
      form.set('isClosed', 'true');
      form.set('media', new Blob([Buffer.from('%PDF-1.4 tiny')], { type: 'application/pdf' }), 'invoice.pdf');
      const res = await fetch(a.root, { method: 'POST', headers: { authorization: `Bearer ${a.token}` }, body: form });
      expect(res.status).toBe(200);
      const { ticketId, messageId } = ((await res.json()) as { data: { ticketId: number; messageId: string } }).data;
      const sent = await sentFor(messageId);
      expect(sent.body.content).toMatchObject({
        caption: 'The invoice',
        fileName: 'invoice.pdf',
        mimetype: 'application/pdf',
        document: { url: expect.stringContaining('/media/') },
      });
      expect((await post(a, 'showTicketById', { ticketId: String(ticketId) })).body.data.status).toBe('closed');
    });

    it('/base64 sends the file; /url and /voice refuse private addresses and open nothing', async () => {
      const number = newNumber();
      const res = await post(a, 'base64', {
        number,
        base64Data: PNG.toString('base64'),
        mimeType: 'image/png',
        fileName: 'pixel',
        body: 'A pixel',
      });
      expect(res.status).toBe(200);
      expect((await sentFor(res.body.data.messageId)).body.content).toMatchObject({
        caption: 'A pixel',
        mimetype: 'image/png',
        image: { url: expect.any(String) },
      });

      const other = newNumber();
      for (const [op, body] of [
        ['url', { number: other, mediaUrl: `${engine.url}/secret.png` }],
        ['url', { number: other, mediaUrl: 'http://169.254.169.254/latest/meta-data' }],
        ['voice', { number: other, audio: `${engine.url}/note.ogg` }],
      ] as const) {
        expectError(await post(a, op, body), 400, 'ERR_URL_BLOCKED');
      }
      expect(await ticketsOf(a, other)).toEqual([]);
      expect(engine.requests.filter((r) => r.url.startsWith('/secret') || r.url.startsWith('/note'))).toEqual([]);

      const missing = await post(a, 'url', { number: other });
      expectError(missing, 400, 'ERR_VALIDATION');
      expect(missing.body.details).toEqual([{ field: 'mediaUrl', message: expect.any(String) }]);
      expectError(await post(a, 'voice', { number: other, audio: 'ftp://example.com/a.ogg' }), 400, 'ERR_VALIDATION');
      expectError(await post(a, 'base64', { number: other, base64Data: PNG.toString('base64'), fileName: 'x' }), 400, 'ERR_VALIDATION');
      expectError(await post(a, '', { number: 'not a number', body: 'x' }), 400, 'ERR_VALIDATION');
      expectError(await post(a, '', { number: other }), 400, 'ERR_VALIDATION');
    });

    it('with validateNumber, refuses a number that is not on the network and opens nothing', async () => {
      const api = await newIntegration(network.url);
      const number = newNumber();
      network.offNetwork.add(number);
      expectError(await post(api, '', { number, body: 'Hi', validateNumber: true }), 400, 'ERR_NUMBER_NOT_ON_NETWORK');
      expect(await ticketsOf(api, number)).toEqual([]);

      const ok = newNumber();
      const res = await post(api, '', { number: ok, body: 'Hi', validateNumber: true });
      expect(res.status).toBe(200);
      await settled(api.root, api.token, res.body.data.messageId);
      expect(network.requests.filter((r) => JSON.stringify(r.body).includes(ok)).map((r) => r.url)).toEqual([
        '/contacts/check',
        '/messages',
      ]);
    });
  });

  // ---- sendPresence --------------------------------------------------------------------------

  describe('sendPresence', () => {
    it("shows typing and paused to the ticket's contact through the engine, queuing nothing", async () => {
      const number = newNumber();
      const opened = await post(a, '', { number, body: 'Hi' });
      const ticketId = opened.body.data.ticketId as number;
      await settled(a.root, a.token, opened.body.data.messageId);

      const typing = await post(a, 'sendPresence', { ticketId: String(ticketId), state: 'typing' });
      expect(typing.body).toEqual({ success: true, data: { ticketId, state: 'typing', applied: true } });
      expect((await post(a, 'sendPresence', { ticketId, state: 'paused' })).status).toBe(200);
      expect(
        engine.requests
          .filter((r) => r.url === '/presence')
          .slice(-2)
          .map((r) => r.body),
      ).toEqual([
        { jid: `${number}@s.whatsapp.net`, presence: 'composing' },
        { jid: `${number}@s.whatsapp.net`, presence: 'paused' },
      ]);
      expect((await post(a, 'showAllMessages', { ticket: String(ticketId) })).body.data.messages).toHaveLength(1);

      expectError(await post(b, 'sendPresence', { ticketId, state: 'typing' }), 404, 'ERR_TICKET_NOT_FOUND');
      expectError(await post(a, 'sendPresence', { ticketId, state: 'recording' }), 400, 'ERR_VALIDATION');
      expectError(await post(a, 'sendPresence', { ticketId: 2_147_483_648, state: 'typing' }), 400, 'ERR_VALIDATION');
    });

    it('answers success without effect on a channel that has no presence (an e-mail ticket)', async () => {
      const webmail = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
        token: admin,
        body: { tenant: a.tenantId, name: 'mail', type: 'webmail', engineUrl: 'smtp://127.0.0.1:9', emailAddress: 'support@shop.example' },
      });
      const created = await post(a, 'createTicket', { email: 'ana@example.com', channelId: webmail.body.data.whatsapp.id, body: 'Hi' });
      const ticketId = created.body.data.ticketId;
      const before = engine.requests.length;
      const res = await post(a, 'sendPresence', { ticketId, state: 'typing' });
      expect(res.body).toEqual({ success: true, data: { ticketId, state: 'typing', applied: false } });
      expect(engine.requests.length).toBe(before);
    });

    it("waba: typing answers the contact's latest message with the Cloud API's typing indicator; paused has no effect", async () => {
      const tokenAPI = '1065409900';
      const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
        token: admin,
        body: { tenant: a.tenantId, name: 'official', type: 'waba', tokenAPI, wabaId: 'WABA-9', bmToken: 'bm-token' },
      });
      expect(session.status).toBe(200);
      const number = newNumber();
      const raw = JSON.stringify(
        wabaEnvelope(tokenAPI, {
          contacts: [{ profile: { name: 'Bia' }, wa_id: number }],
          messages: [wabaText(number, 'wamid.FROM-BIA', 'Hi there')],
        }),
      );
      expect((await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET))).status).toBe(200);
      const [ticket] = (await ticketsOf(a, number)).filter((t) => t.whatsappId === session.body.data.whatsapp.id);

      const typing = await post(a, 'sendPresence', { ticketId: ticket.id, state: 'typing' });
      expect(typing.body.data).toEqual({ ticketId: ticket.id, state: 'typing', applied: true });
      const sent = engine.requests.filter((r) => r.url === `/graph/${tokenAPI}/messages`);
      expect(sent.map((r) => ({ auth: r.headers.authorization, body: r.body }))).toEqual([
        {
          auth: 'Bearer bm-token',
          body: { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.FROM-BIA', typing_indicator: { type: 'text' } },
        },
      ]);
      expect((await post(a, 'sendPresence', { ticketId: ticket.id, state: 'paused' })).body.data.applied).toBe(false);
      expect(engine.requests.filter((r) => r.url === `/graph/${tokenAPI}/messages`)).toHaveLength(1);
    });

    it('answers 502 ERR_PROVIDER_FAILED when the engine refuses', async () => {
      const number = newNumber();
      const opened = await post(a, '', { number, body: 'Hi' });
      await settled(a.root, a.token, opened.body.data.messageId);
      engine.failNext(500, { message: 'session closed' });
      expectError(await post(a, 'sendPresence', { ticketId: opened.body.data.ticketId, state: 'typing' }), 502, 'ERR_PROVIDER_FAILED');
    });
  });

  // ---- contacts ------------------------------------------------------------------------------

  describe('contacts', () => {
    it("creates, shows, updates and lists contacts of the integration's channel; another tenant's answer 404", async () => {
      const number = newNumber();
      const created = await post(a, 'createContact', {
        number: `+${number}`,
        firstName: 'Ana',
        lastName: 'Souza',
        email: 'ana@example.com',
        externalKey: 'crm-7',
      });
      expect(created.status).toBe(200);
      expect(created.body.data).toEqual({
        created: true,
        contact: {
          id: expect.any(Number),
          number,
          name: 'Ana Souza',
          email: 'ana@example.com',
          firstName: 'Ana',
          lastName: 'Souza',
          businessName: null,
          externalKey: 'crm-7',
          whatsappId: a.channelId,
          tagIds: [],
          kanban: null,
          walletIds: [],
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      });
      const id = created.body.data.contact.id;
      expectError(await post(a, 'createContact', { number }), 409, 'ERR_CONTACT_EXISTS');
      expect((await post(a, 'createContact', { number, externalKey: 'crm-7' })).body.data).toMatchObject({
        created: false,
        contact: { id },
      });

      expect((await post(a, 'showcontact', { number })).body.data).toMatchObject({ id, name: 'Ana Souza' });
      const updated = await post(a, 'updateContact', { number, name: 'Ana S.', businessName: 'Acme' });
      expect(updated.body.data).toMatchObject({ id, name: 'Ana S.', businessName: 'Acme', email: 'ana@example.com' });
      const listed = await get(a, 'listContacts', { searchParam: 'ana s.' });
      expect(listed.body.data).toMatchObject({ count: 1, hasMore: false, pageNumber: 1, pageSize: 20 });
      expect(listed.body.data.contacts[0].id).toBe(id);

      expectError(await post(b, 'showcontact', { number }), 404, 'ERR_CONTACT_NOT_FOUND');
      expectError(await post(b, 'updateContact', { number, name: 'Hijack' }), 404, 'ERR_CONTACT_NOT_FOUND');
      expect((await get(b, 'listContacts', { searchParam: number })).body.data.count).toBe(0);
      expect((await post(a, 'showcontact', { number })).body.data.name).toBe('Ana S.');
    });

    it("lists by tag (the tags of the contact's tickets), and refuses another tenant's tag with 404", async () => {
      const number = newNumber();
      const opened = await post(a, '', { number, body: 'Hi' });
      const vip = await createTag(a.tenantId, 'VIP');
      await post(a, 'addTag', { ticketId: opened.body.data.ticketId, tagId: vip });
      const byTag = await get(a, 'listContacts', { tagId: String(vip) });
      expect(byTag.body.data.contacts.map((c: { number: string }) => c.number)).toEqual([number]);
      expect(byTag.body.data.contacts[0].tagIds).toEqual([vip]);

      const foreign = await createTag(b.tenantId, 'VIP');
      expectError(await get(a, 'listContacts', { tagId: foreign }), 404, 'ERR_TAG_NOT_FOUND');
      expectError(await get(a, 'listContacts', { tagId: 0 }), 400, 'ERR_VALIDATION');
      expectError(await get(a, 'listContacts', { pageNumber: 0 }), 400, 'ERR_VALIDATION');
      expectError(await get(a, 'listContacts', { searchParam: 'x'.repeat(101) }), 400, 'ERR_VALIDATION');
      await settled(a.root, a.token, opened.body.data.messageId);
    });
  });

  // ---- catalogs ------------------------------------------------------------------------------

  describe('catalogs', () => {
    it("listTags, listQueues and listUsers answer the integration's tenant's own, by name, in pages", async () => {
      const api = await newIntegration();
      await createTag(api.tenantId, 'Urgent');
      await createTag(api.tenantId, 'Billing');
      await createTag(b.tenantId, 'Foreign');
      const queue = await createQueue(api.tenantId, 'Support');

      const tags = await get(api, 'listTags');
      expect(tags.body).toEqual({
        success: true,
        data: {
          tags: [
            { id: expect.any(Number), name: 'Billing', createdAt: expect.any(String) },
            { id: expect.any(Number), name: 'Urgent', createdAt: expect.any(String) },
          ],
          count: 2,
          hasMore: false,
          pageNumber: 1,
          pageSize: 20,
        },
      });
      expect((await get(api, 'listTags', { searchParam: 'urg' })).body.data.tags.map((t: { name: string }) => t.name)).toEqual(['Urgent']);
      expect((await get(api, 'listTags', { pageNumber: '2' })).body.data).toMatchObject({ tags: [], count: 2, pageNumber: 2 });
      expect((await get(api, 'listQueues')).body.data.queues).toEqual([{ id: queue, name: 'Support', createdAt: expect.any(String) }]);

      const users = await get(api, 'listUsers');
      expect(users.body.data).toEqual({
        users: [{ id: expect.any(Number), name: 'Owner Ana', email: expect.stringContaining('@beyond-seed.example'), profile: 'admin' }],
        count: 1,
        hasMore: false,
        pageNumber: 1,
        pageSize: 20,
      });
      expect(JSON.stringify(users.body)).not.toMatch(/password/i);
    });
  });

  // ---- notes and the pause log ---------------------------------------------------------------

  describe('notes and the pause log', () => {
    it("lists a ticket's notes and changes one; another tenant's ticket and note answer 404", async () => {
      const opened = await post(a, '', { number: newNumber(), body: 'Hi' });
      const ticketId = opened.body.data.ticketId;
      const first = await post(a, 'createNotes', { ticketId, notes: 'Asked for a refund' });
      await post(a, 'createNotes', { ticketId, notes: 'Refund approved' });

      const updated = await post(a, 'updateNote', { noteId: String(first.body.data.id), notes: 'Asked for a refund (order 42)' });
      expect(updated.body.data).toMatchObject({
        id: first.body.data.id,
        notes: 'Asked for a refund (order 42)',
        ticketId,
        createdAt: first.body.data.createdAt,
      });
      const notes = await get(a, 'listNotes', { ticketId });
      expect(notes.body.data).toMatchObject({ ticketId, count: 2, hasMore: false, pageNumber: 1, pageSize: 20 });
      expect(notes.body.data.notes.map((n: { notes: string }) => n.notes)).toEqual(['Asked for a refund (order 42)', 'Refund approved']);

      expectError(await get(b, 'listNotes', { ticketId }), 404, 'ERR_TICKET_NOT_FOUND');
      expectError(await post(b, 'updateNote', { noteId: first.body.data.id, notes: 'Hijack' }), 404, 'ERR_NOTE_NOT_FOUND');
      expectError(await post(a, 'updateNote', { noteId: first.body.data.id, notes: '' }), 400, 'ERR_VALIDATION');
      expectError(await get(a, 'listNotes', { ticketId: '1.5' }), 400, 'ERR_VALIDATION');
      expect((await get(a, 'listNotes', { ticketId })).body.data.notes[0].notes).toBe('Asked for a refund (order 42)');
      await settled(a.root, a.token, opened.body.data.messageId);
    });

    it("answers the pause log of a ticket, oldest first; another tenant's ticket answers 404", async () => {
      const opened = await post(a, '', { number: newNumber(), body: 'Hi' });
      const ticketId = opened.body.data.ticketId;
      await post(a, `ticket/pause/start/${ticketId}`, { pauseReason: 'Lunch' });
      await post(a, `ticket/pause/end/${ticketId}`, {});
      await post(a, `ticket/pause/start/${ticketId}`, { pauseReason: 'Waiting for the carrier' });

      const log = await get(a, `ticket/pause/logs/${ticketId}`);
      expect(log.body).toEqual({
        success: true,
        data: {
          ticketId,
          pauses: [
            {
              id: expect.any(Number),
              ticketId,
              pauseReason: 'Lunch',
              startedAt: expect.any(String),
              endedAt: expect.any(String),
              endedBy: 'end',
              durationSeconds: expect.any(Number),
            },
            {
              id: expect.any(Number),
              ticketId,
              pauseReason: 'Waiting for the carrier',
              startedAt: expect.any(String),
              endedAt: null,
              endedBy: null,
              durationSeconds: null,
            },
          ],
          count: 2,
          hasMore: false,
          pageNumber: 1,
          pageSize: 20,
        },
      });
      expectError(await get(b, `ticket/pause/logs/${ticketId}`), 404, 'ERR_TICKET_NOT_FOUND');
      expectError(await get(a, 'ticket/pause/logs/2147483648'), 400, 'ERR_VALIDATION');
      await settled(a.root, a.token, opened.body.data.messageId);
    });
  });

  it('documents every route beyond the seed in the OpenAPI document', async () => {
    const doc = await call(`${mesh.gatewayUrl}/docs/json`);
    const paths = Object.keys(doc.body.paths);
    // `POST {root}`, named without its trailing slash (Redocly's no-path-trailing-slash); `{root}/` answers too.
    expect(paths).toContain('/v2/api/external/{apiId}');
    for (const op of [
      'url',
      'base64',
      'voice',
      'sendPresence',
      'showcontact',
      'createContact',
      'updateContact',
      'listContacts',
      'listTags',
      'listQueues',
      'listUsers',
      'listNotes',
      'updateNote',
      'ticket/pause/logs/{ticketId}',
      'listKanban',
      'createKanban',
      'updateKanban/{id}',
      'deleteKanban/{id}',
      'listReasons',
      'createReason',
      'updateReason/{id}',
      'deleteReason/{id}',
      'createQueueData',
      'updatetag',
      'listChannels',
      'showChannelById',
      'getContactExtraInfo',
      'contacts/search',
      'updateContactKanban',
      'updateContactWallet',
      'listMessages',
    ]) {
      expect(paths).toContain(`/v2/api/external/{apiId}/${op}`);
    }
  });
});
