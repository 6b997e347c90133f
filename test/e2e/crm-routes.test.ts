import type { Mesh } from '@convo/dev-mesh';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, settled, UNPACED, type Reply } from '../support/http';

const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');

/**
 * Kanban columns, reasons, queues by name, a ticket's tags replaced, channels, contacts by id and a
 * page of messages (docs/api/beyond-the-seed.md), through the REST facade of the real mesh,
 * each also called with the other tenant's ids (404 as if absent).
 */
describe('kanban, reasons, channels, contacts and message pages, end to end', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let admin: string;
  const crashes: string[] = [];
  let lastEmail = 0;
  let lastNumber = 0;
  const newNumber = () => `55319${String(60_000_000 + ++lastNumber)}`;

  interface Integration {
    tenantId: number;
    userId: number;
    channelId: number;
    root: string;
    token: string;
  }

  async function newIntegration(): Promise<Integration> {
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Board Co',
        maxUsers: 10,
        maxConnections: 10,
        acceptTerms: true,
        email: `owner-${++lastEmail}@crm-routes.example`,
        password: 'S3cure!pass',
        userName: 'Owner Ana',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    const tenantId = tenant.body.data.tenant.id as number;
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenantId, name: 'engine_a channel', type: 'engine_a', engineUrl: engine.url, engineToken: 'engine-secret' },
    });
    expect(session.status).toBe(200);
    const { whatsapp, api } = session.body.data;
    return {
      tenantId,
      userId: tenant.body.data.adminUser.id,
      channelId: whatsapp.id,
      root: `${mesh.gatewayUrl}/v2/api/external/${api.apiId}`,
      token: api.authToken,
    };
  }

  const post = (api: Integration, op: string, body: unknown) => call(`${api.root}/${op}`, { token: api.token, body });
  const send = (api: Integration, method: string, op: string, body?: unknown) =>
    call(`${api.root}/${op}`, { token: api.token, method, body });
  const get = (api: Integration, op: string, query: Record<string, string | number> = {}) =>
    call(`${api.root}/${op}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`, {
      token: api.token,
    });
  async function graphql(query: string): Promise<any> {
    const res = await call(mesh.graphqlUrl, { token: admin, body: { query } });
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  }
  const expectError = (res: Reply, status: number, error: string) => {
    expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
    expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
  };
  const openTicket = async (api: Integration, extra: Record<string, unknown> = {}) => {
    const res = await post(api, 'createTicket', { number: newNumber(), body: 'Hello', ...extra });
    expect(res.status).toBe(200);
    await settled(api.root, api.token, res.body.data.messageId);
    return res.body.data.ticketId as number;
  };
  const ticketOf = async (api: Integration, ticketId: number) => (await post(api, 'showTicketById', { ticketId })).body.data;

  let a: Integration;
  let b: Integration;

  beforeAll(async () => {
    engine = await startFakeEngine();
    mesh = await startMesh({
      freePorts: true,
      env: { ...UNPACED },
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
    });
    admin = mesh.superAdminToken;
    [a, b] = [await newIntegration(), await newIntegration()];
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  // ---- kanban columns ----------------------------------------------------------------------------

  describe('kanban columns', () => {
    it('create, list, update (PUT and POST), and a repeated name answers the same column', async () => {
      const created = await post(a, 'createKanban', { name: 'Leads', position: 1 });
      expect(created.body).toEqual({
        success: true,
        data: { id: expect.any(Number), name: 'Leads', position: 1, createdAt: expect.any(String) },
      });
      const id = created.body.data.id;
      expect((await post(a, 'createKanban', { name: 'Leads' })).body.data.id).toBe(id);

      expect((await send(a, 'PUT', `updateKanban/${id}`, { name: 'Qualified leads' })).body.data).toMatchObject({
        id,
        name: 'Qualified leads',
        position: 1,
      });
      expect((await post(a, `updateKanban/${id}`, { position: 3 })).body.data).toMatchObject({ id, name: 'Qualified leads', position: 3 });
      await post(a, 'createKanban', { name: 'Won', position: 4 });
      expect((await post(a, 'createKanban', { name: 'Leads ' + 'x'.repeat(100) })).status).toBe(400);

      const list = await get(a, 'listKanban');
      expect(list.body.data).toMatchObject({ count: 2, hasMore: false, pageNumber: 1, pageSize: 20 });
      expect(list.body.data.kanbans.map((k: { name: string }) => k.name)).toEqual(['Qualified leads', 'Won']);
      // The other tenant sees none of them, and cannot change or delete them.
      expect((await get(b, 'listKanban')).body.data.kanbans).toEqual([]);
      expectError(await send(b, 'PUT', `updateKanban/${id}`, { name: 'Taken' }), 404, 'ERR_KANBAN_NOT_FOUND');
      expectError(await send(b, 'DELETE', `deleteKanban/${id}`), 404, 'ERR_KANBAN_NOT_FOUND');
      // Renaming to a name the tenant has → 409.
      expectError(await send(a, 'PUT', `updateKanban/${id}`, { name: 'Won' }), 409, 'ERR_KANBAN_EXISTS');
    });

    it("createTicket and updateticketinfo refuse an unknown or the other tenant's column (404), and accept the tenant's", async () => {
      const mine = (await post(a, 'createKanban', { name: 'Board A' })).body.data.id;
      const theirs = (await post(b, 'createKanban', { name: 'Board B' })).body.data.id;

      const number = newNumber();
      expectError(await post(a, 'createTicket', { number, body: 'Hi', kanbanId: theirs }), 404, 'ERR_KANBAN_NOT_FOUND');
      expect((await post(a, 'showallticket', { number })).body.data.count).toBe(0);

      const ticketId = await openTicket(a, { kanbanId: mine });
      expect(await ticketOf(a, ticketId)).toMatchObject({ kanbanId: mine });
      expectError(await post(a, 'updateticketinfo', { ticketId, kanbanId: theirs }), 404, 'ERR_KANBAN_NOT_FOUND');
      expectError(await post(a, 'updateticketinfo', { ticketId, kanbanId: 2_000_000_000 }), 404, 'ERR_KANBAN_NOT_FOUND');
      expect(await ticketOf(a, ticketId)).toMatchObject({ kanbanId: mine });
      expect((await post(a, 'updateticketinfo', { ticketId, kanbanId: null })).body.data.kanbanId).toBeNull();
      expect((await post(a, 'updateticketinfo', { ticketId, kanbanId: mine })).body.data.kanbanId).toBe(mine);
    });

    it('a deleted column is cleared from the tickets and contacts on it', async () => {
      const column = (await post(a, 'createKanban', { name: 'Doomed' })).body.data.id;
      const keep = (await post(a, 'createKanban', { name: 'Kept' })).body.data.id;
      const [on, other] = [await openTicket(a, { kanbanId: column }), await openTicket(a, { kanbanId: keep })];
      const contactId = (await ticketOf(a, on)).contact.id;
      expect((await post(a, 'updateContactKanban', { contactId, kanban: column })).body.data.kanban).toBe(column);

      const deleted = await send(a, 'DELETE', `deleteKanban/${column}`);
      expect(deleted.body).toEqual({ success: true, data: { id: column, deleted: true, ticketsCleared: 1 } });
      expect(await ticketOf(a, on)).toMatchObject({ kanbanId: null });
      expect(await ticketOf(a, other)).toMatchObject({ kanbanId: keep });
      expect((await get(a, 'getContactExtraInfo', { contactId })).status).toBe(200);
      const contact = (await post(a, 'contacts/search', { searchParam: (await ticketOf(a, on)).contact.number })).body.data.contacts[0];
      expect(contact).toMatchObject({ id: contactId, kanban: null });
      // Gone: a second delete, or a ticket naming it, is 404; POST deletes like DELETE.
      expectError(await post(a, `deleteKanban/${column}`, {}), 404, 'ERR_KANBAN_NOT_FOUND');
      expectError(await post(a, 'createTicket', { number: newNumber(), body: 'Hi', kanbanId: column }), 404, 'ERR_KANBAN_NOT_FOUND');
    });

    it('GraphQL mirrors them for dashboards', async () => {
      const saved = await graphql(
        `mutation { saveKanban(tenantId: ${a.tenantId}, name: "From GraphQL", position: 9) { id name position } }`,
      );
      expect(saved.saveKanban).toMatchObject({ name: 'From GraphQL', position: 9 });
      const names = (await graphql(`{ kanbans(tenantId: ${a.tenantId}) { id name } }`)).kanbans.map((k: { name: string }) => k.name);
      expect(names).toContain('From GraphQL');
      expect((await get(a, 'listKanban', { searchParam: 'GraphQL' })).body.data.kanbans).toEqual([
        expect.objectContaining({ id: saved.saveKanban.id }),
      ]);
      expect(
        (await graphql(`mutation { deleteKanban(tenantId: ${a.tenantId}, id: ${saved.saveKanban.id}) { id ticketsCleared } }`))
          .deleteKanban,
      ).toEqual({ id: saved.saveKanban.id, ticketsCleared: 0 });
    });
  });

  // ---- reasons -----------------------------------------------------------------------------------

  describe('reasons', () => {
    it("create, list, rename, delete; tickets refuse the other tenant's and lose a deleted one", async () => {
      const reason = (await post(a, 'createReason', { name: 'Solved' })).body.data;
      expect(reason).toEqual({ id: expect.any(Number), name: 'Solved', createdAt: expect.any(String) });
      const theirs = (await post(b, 'createReason', { name: 'Spam' })).body.data.id;
      expect((await send(a, 'PUT', `updateReason/${reason.id}`, { name: 'Resolved' })).body.data.name).toBe('Resolved');
      expect((await post(a, `updateReason/${reason.id}`, { name: 'Resolved!' })).body.data.name).toBe('Resolved!');
      expect((await get(a, 'listReasons')).body.data.reasons.map((r: { id: number }) => r.id)).toEqual([reason.id]);
      expectError(await send(b, 'PUT', `updateReason/${reason.id}`, { name: 'x' }), 404, 'ERR_REASON_NOT_FOUND');
      expectError(await send(a, 'DELETE', `deleteReason/${theirs}`), 404, 'ERR_REASON_NOT_FOUND');

      expectError(await post(a, 'createTicket', { number: newNumber(), body: 'Hi', reasonId: theirs }), 404, 'ERR_REASON_NOT_FOUND');
      const ticketId = await openTicket(a);
      expectError(await post(a, 'updateticketinfo', { ticketId, reasonId: theirs }), 404, 'ERR_REASON_NOT_FOUND');
      expect((await post(a, 'updateticketinfo', { ticketId, status: 'closed', reasonId: reason.id })).body.data).toMatchObject({
        status: 'closed',
        reasonId: reason.id,
      });

      expect((await send(a, 'DELETE', `deleteReason/${reason.id}`)).body.data).toEqual({ id: reason.id, deleted: true, ticketsCleared: 1 });
      expect(await ticketOf(a, ticketId)).toMatchObject({ reasonId: null });
      expect((await graphql(`{ reasons(tenantId: ${a.tenantId}) { id } }`)).reasons).toEqual([]);
    });
  });

  // ---- queues and tags ---------------------------------------------------------------------------

  describe('createQueueData and updatetag', () => {
    it('createQueueData creates a queue by name that tickets can use; the other tenant cannot', async () => {
      const res = await post(a, 'createQueueData', {
        queue: 'Support',
        isActive: true,
        businessHours: [],
        messageBusinessHours: 'Closed now',
      });
      expect(res.body).toEqual({ success: true, data: { id: expect.any(Number), name: 'Support', createdAt: expect.any(String) } });
      const queueId = res.body.data.id;
      expect((await get(a, 'listQueues')).body.data.queues.map((q: { id: number }) => q.id)).toContain(queueId);
      expect((await get(b, 'listQueues')).body.data.queues).toEqual([]);
      const ticketId = await openTicket(a);
      expect((await post(a, 'updatequeue', { ticketId, queueId })).body.data.queueId).toBe(queueId);
      expectError(await post(b, 'createTicket', { number: newNumber(), body: 'Hi', queueId }), 404, 'ERR_QUEUE_NOT_FOUND');
      expect((await post(a, 'createQueueData', {})).status).toBe(400);
    });

    it("updatetag replaces the ticket's tags; another tenant's tag or ticket is 404 and changes nothing", async () => {
      const tag = async (tenantId: number, name: string) =>
        (await graphql(`mutation { createTag(tenantId: ${tenantId}, name: "${name}") { id } }`)).createTag.id as number;
      const [t1, t2, t3, foreign] = [
        await tag(a.tenantId, 'vip'),
        await tag(a.tenantId, 'late'),
        await tag(a.tenantId, 'new'),
        await tag(b.tenantId, 'theirs'),
      ];
      const ticketId = await openTicket(a);
      await post(a, 'addTag', { ticketId, tagIds: [t1, t2] });
      expect((await post(a, 'updatetag', { ticketId, tagIds: [t3, t1] })).body.data.tagIds.sort()).toEqual([t1, t3].sort());
      expectError(await post(a, 'updatetag', { ticketId, tagIds: [foreign] }), 404, 'ERR_TAG_NOT_FOUND');
      expectError(await post(b, 'updatetag', { ticketId, tagIds: [foreign] }), 404, 'ERR_TICKET_NOT_FOUND');
      expect((await ticketOf(a, ticketId)).tagIds.sort()).toEqual([t1, t3].sort());
      // The contact no longer carries the dropped tag (listContacts' tagId).
      expect((await get(a, 'listContacts', { tagId: t2 })).body.data.contacts).toEqual([]);
      expect((await post(a, 'updatetag', { ticketId, tag: t2 })).body.data.tagIds).toEqual([t2]);
      expect((await post(a, 'updatetag', { ticketId, tagIds: [] })).body.data.tagIds).toEqual([]);
      expect((await post(a, 'updatetag', { ticketId })).status).toBe(400);
    });
  });

  // ---- channels ----------------------------------------------------------------------------------

  describe('channels', () => {
    it("listChannels and showChannelById answer the tenant's channels, never a secret", async () => {
      const list = await get(a, 'listChannels');
      expect(list.body.data.count).toBe(1);
      expect(list.body.data.channels[0]).toEqual({
        id: a.channelId,
        name: 'engine_a channel',
        type: 'engine_a',
        status: expect.any(String),
        number: null,
        wabaId: null,
        pageId: null,
        emailAddress: null,
        hybridMode: expect.any(String),
        linkedChannelId: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const one = await post(a, 'showChannelById', { id: a.channelId });
      expect(one.body.data).toEqual(list.body.data.channels[0]);
      const text = JSON.stringify([list.body, one.body]);
      for (const secret of ['engine-secret', 'whsec_', engine.url, 'engineToken', 'webhookSecret']) expect(text).not.toContain(secret);

      expectError(await post(a, 'showChannelById', { id: b.channelId }), 404, 'ERR_CHANNEL_NOT_FOUND');
      expect((await get(b, 'listChannels')).body.data.channels.map((c: { id: number }) => c.id)).toEqual([b.channelId]);
    });
  });

  // ---- contacts by id ----------------------------------------------------------------------------

  describe('contacts', () => {
    it('getContactExtraInfo answers the custom fields set by createContact / updateContact', async () => {
      const number = newNumber();
      const created = await post(a, 'createContact', { number, name: 'Bia', extraInfo: [{ name: 'Plan', value: 'Gold' }] });
      const contactId = created.body.data.contact.id;
      expect((await get(a, 'getContactExtraInfo', { contactId })).body).toEqual({
        success: true,
        data: { contactId, extraInfo: [{ name: 'Plan', value: 'Gold' }] },
      });
      await post(a, 'updateContact', {
        number,
        extraInfo: [
          { name: 'Plan', value: 'Silver' },
          { name: 'City', value: 'Recife' },
        ],
      });
      expect((await get(a, 'getContactExtraInfo', { contactId })).body.data.extraInfo).toEqual([
        { name: 'Plan', value: 'Silver' },
        { name: 'City', value: 'Recife' },
      ]);
      expectError(await get(b, 'getContactExtraInfo', { contactId }), 404, 'ERR_CONTACT_NOT_FOUND');
      expect(
        (
          await post(a, 'createContact', {
            number: newNumber(),
            extraInfo: Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, value: '' })),
          })
        ).status,
      ).toBe(400);
    });

    it("contacts/search pages the tenant's contacts by text", async () => {
      const number = newNumber();
      await post(a, 'createContact', { number, name: 'Zuleica Searchable' });
      const found = await post(a, 'contacts/search', { searchParam: 'zuleica', pageNumber: 1 });
      expect(found.body.data).toMatchObject({ count: 1, hasMore: false, pageNumber: 1, pageSize: 20 });
      expect(found.body.data.contacts[0]).toMatchObject({ number, name: 'Zuleica Searchable' });
      expect((await post(b, 'contacts/search', { searchParam: 'zuleica' })).body.data.contacts).toEqual([]);
      // `page`, as some clients name it: the second page of one match is empty.
      expect((await post(a, 'contacts/search', { searchParam: 'zuleica', page: 2 })).body.data).toMatchObject({
        contacts: [],
        pageNumber: 2,
      });
      expect((await post(a, 'contacts/search', { searchParam: 'x'.repeat(101) })).status).toBe(400);
    });

    it("updateContactKanban puts a contact in one of the tenant's columns; another tenant's column or contact is 404", async () => {
      const contactId = (await post(a, 'createContact', { number: newNumber(), name: 'Caio' })).body.data.contact.id;
      const mine = (await post(a, 'createKanban', { name: 'Contacts board' })).body.data.id;
      const theirs = (await post(b, 'createKanban', { name: 'Their board' })).body.data.id;
      expect((await post(a, 'updateContactKanban', { contactId, kanban: mine })).body.data).toMatchObject({ id: contactId, kanban: mine });
      expectError(await post(a, 'updateContactKanban', { contactId, kanban: theirs }), 404, 'ERR_KANBAN_NOT_FOUND');
      expectError(await post(b, 'updateContactKanban', { contactId, kanban: theirs }), 404, 'ERR_CONTACT_NOT_FOUND');
      expect((await post(a, 'updateContactKanban', { contactId, kanban: null })).body.data.kanban).toBeNull();
    });

    it("updateContactWallet takes the tenant's users only (walletId or walletIds), and replaces the wallet", async () => {
      const contactId = (await post(a, 'createContact', { number: newNumber(), name: 'Duda' })).body.data.contact.id;
      expect((await post(a, 'updateContactWallet', { contactId, walletId: a.userId })).body.data.walletIds).toEqual([a.userId]);
      expectError(await post(a, 'updateContactWallet', { contactId, walletIds: [a.userId, b.userId] }), 404, 'ERR_USER_NOT_FOUND');
      expectError(await post(b, 'updateContactWallet', { contactId, walletIds: [b.userId] }), 404, 'ERR_CONTACT_NOT_FOUND');
      expect((await post(a, 'contacts/search', { searchParam: 'Duda' })).body.data.contacts[0].walletIds).toEqual([a.userId]);
      expect((await post(a, 'updateContactWallet', { contactId, walletIds: [] })).body.data.walletIds).toEqual([]);
      expect((await post(a, 'updateContactWallet', { contactId, walletId: a.userId, walletIds: [a.userId] })).status).toBe(400);
      expect((await post(a, 'updateContactWallet', { contactId, walletIds: Array.from({ length: 21 }, (_, i) => i + 1) })).status).toBe(
        400,
      );
    });
  });

  // ---- WhatsApp groups ---------------------------------------------------------------------------

  describe('groups', () => {
    const GROUP = '120363025246125486';

    it("/group sends to the group's JID through the engine, on the group's own ticket, like every send", async () => {
      const res = await post(a, 'group', { groupId: GROUP, body: 'Hello group', externalKey: 'group-1' });
      expect(res.body).toEqual({
        success: true,
        data: { message: 'Message accepted for delivery', ticketId: expect.any(Number), messageId: expect.any(String) },
      });
      const { ticketId, messageId } = res.body.data;
      await expect(settled(a.root, a.token, messageId)).resolves.toMatchObject({ ticketId, status: 'sent', body: 'Hello group' });
      const sent = engine.requests.find((r) => r.url === '/messages' && r.body?.options?.messageId === messageId)!;
      expect(sent.body).toEqual({ jid: `${GROUP}@g.us`, content: { text: 'Hello group' }, options: { messageId } });

      // Older clients send the id as `number`, with or without @g.us: the same group, the same ticket.
      const again = await post(a, 'group', { number: `${GROUP}@g.us`, body: 'Again' });
      expect(again.body.data.ticketId).toBe(ticketId);
      await settled(a.root, a.token, again.body.data.messageId);
      // A reply by ticket goes to the group too.
      const reply = await post(a, 'sendMessageByTicket', { ticketId, body: 'By ticket' });
      await settled(a.root, a.token, reply.body.data.messageId);
      expect(engine.requests.find((r) => r.body?.options?.messageId === reply.body.data.messageId)!.body.jid).toBe(`${GROUP}@g.us`);
      // The same idempotency as every send.
      expect((await post(a, 'group', { groupId: GROUP, body: 'Hello group', externalKey: 'group-1' })).body).toMatchObject({
        idempotent: true,
        skipped: true,
        ticketId,
      });
      // The other tenant's send to the same group id is its own ticket, and it cannot read this one.
      expectError(await get(b, 'listMessages', { ticketId }), 404, 'ERR_TICKET_NOT_FOUND');
    });

    it('/groupMediaUrl takes the media rules of every send; bad ids and channels without groups are refused', async () => {
      expectError(await post(a, 'groupMediaUrl', { groupId: GROUP, mediaUrl: `${engine.url}/photo.png` }), 400, 'ERR_URL_BLOCKED');
      expect((await post(a, 'groupMediaUrl', { groupId: GROUP })).status).toBe(400);
      expect((await post(a, 'group', { groupId: 'not-a-group', body: 'x' })).status).toBe(400);
      expect((await post(a, 'group', { body: 'x' })).status).toBe(400);

      const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
        token: admin,
        body: { tenant: a.tenantId, name: 'site chat', type: 'webchat' },
      });
      expect(session.status).toBe(200);
      const chat = {
        ...a,
        root: `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`,
        token: session.body.data.api.authToken,
      };
      expectError(await post(chat, 'group', { groupId: GROUP, body: 'x' }), 400, 'ERR_CHANNEL_MISMATCH');
    });
  });

  // ---- a page of messages ------------------------------------------------------------------------

  describe('listMessages', () => {
    it("answers a page of the ticket's messages newest first, the records of showAllMessages; another tenant's ticket is 404", async () => {
      const ticketId = await openTicket(a);
      for (const body of ['second', 'third']) {
        const sent = await post(a, 'sendMessageByTicket', { ticketId, body });
        await settled(a.root, a.token, sent.body.data.messageId);
      }
      const all = (await post(a, 'showAllMessages', { ticket: String(ticketId) })).body.data.messages;
      const page = await get(a, 'listMessages', { ticketId, pageNumber: 1 });
      expect(page.body.data).toEqual({ ticketId, messages: [...all].reverse(), hasMore: false, pageNumber: 1, pageSize: 20 });
      expect(page.body.data.messages.map((m: { body: string }) => m.body)).toEqual(['third', 'second', 'Hello']);
      expect((await get(a, 'listMessages', { ticketId, pageNumber: 2 })).body.data).toMatchObject({
        messages: [],
        hasMore: false,
        pageNumber: 2,
      });
      expectError(await get(b, 'listMessages', { ticketId }), 404, 'ERR_TICKET_NOT_FOUND');
      expect((await get(a, 'listMessages', { ticketId, pageNumber: 10_001 })).status).toBe(400);
    });
  });
});
