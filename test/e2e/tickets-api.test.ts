import type { Mesh } from '@convo/dev-mesh';
import { call, settled, UNPACED, type Reply } from '../support/http';
import { startNetworkEngine, type NetworkEngine } from '../support/network-engine';

const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');

/**
 * The ticket, note, tag, pause, evaluation and message-read operations of the external API,
 * through the REST facade of the real mesh (every service its own process, the embedded
 * database), with an engine_a server on loopback that also answers number checks.
 */
describe('tickets API, end to end', () => {
  let mesh: Mesh;
  let engine: NetworkEngine;
  let admin: string;
  const crashes: string[] = [];
  let lastEmail = 0;
  let lastNumber = 0;
  const newNumber = () => `55119${String(40_000_000 + ++lastNumber)}`;

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
        name: 'Acme',
        maxUsers: 10,
        maxConnections: 10,
        acceptTerms: true,
        email: `owner-${++lastEmail}@tickets-api.example`,
        password: 'S3cure!pass',
        userName: 'Ana',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    const tenantId = tenant.body.data.tenant.id as number;
    const session = await newSession(tenantId, 'engine_a');
    return {
      tenantId,
      userId: tenant.body.data.adminUser.id,
      channelId: session.whatsapp.id,
      root: `${mesh.gatewayUrl}/v2/api/external/${session.api.apiId}`,
      token: session.api.authToken,
    };
  }

  async function newSession(tenantId: number, type: string) {
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body:
        type === 'webmail'
          ? // webmail channels send through an SMTP relay from their own address (test/e2e/email.test.ts delivers)
            { tenant: tenantId, name: 'webmail channel', type, engineUrl: 'smtp://127.0.0.1:9', emailAddress: 'support@shop.example' }
          : { tenant: tenantId, name: `${type} channel`, type, engineUrl: engine.url, engineToken: 'engine-secret' },
    });
    expect(session.status).toBe(200);
    return session.body.data;
  }

  const post = (api: Integration, op: string, body: unknown) => call(`${api.root}/${op}`, { token: api.token, body });
  const get = (api: Integration, op: string, query: Record<string, string | number>) =>
    call(`${api.root}/${op}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`, {
      token: api.token,
    });

  async function open(api: Integration, over: Record<string, unknown> = {}) {
    const res = await post(api, 'createTicket', { number: newNumber(), body: 'Hello!', ...over });
    expect(res.status).toBe(200);
    // Delivered before the test goes on, so that what it counts at the engine is its own doing.
    if (res.body.data.messageId) await settled(api.root, api.token, res.body.data.messageId);
    return res.body.data as { ticketId: number; messageId: string; ticket: { contact: { number: string } } };
  }

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

  beforeAll(async () => {
    engine = await startNetworkEngine();
    mesh = await startMesh({
      freePorts: true,
      env: UNPACED,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
    });
    admin = mesh.superAdminToken;
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  // ---- createTicket ------------------------------------------------------------------------

  describe('createTicket', () => {
    it('with validateNumber, refuses a number that is not on the network and creates nothing', async () => {
      const api = await newIntegration();
      const number = newNumber();
      engine.offNetwork.add(number);
      const before = engine.requests.length;

      const res = await post(api, 'createTicket', { number: `+${number}`, body: 'Hi', validateNumber: true });
      expectError(res, 400, 'ERR_NUMBER_NOT_ON_NETWORK');
      expect(res.body.details).toEqual([{ field: 'number', message: expect.stringContaining('engine_a') }]);
      const seen = engine.requests.slice(before);
      expect(seen.map((r) => r.url)).toEqual(['/contacts/check']);
      expect(seen[0].body).toEqual({ jids: [`${number}@s.whatsapp.net`] });
      expect((await post(api, 'showallticket', { number })).body.data).toEqual({ tickets: [], count: 0 });
    });

    it('with validateNumber, checks first and then opens the ticket for a number on the network', async () => {
      const api = await newIntegration();
      const before = engine.requests.length;
      const res = await post(api, 'createTicket', { number: newNumber(), body: 'Hi', validateNumber: true });
      expect(res.status).toBe(200);
      await settled(api.root, api.token, res.body.data.messageId);
      expect(engine.requests.slice(before).map((r) => r.url)).toEqual(['/contacts/check', '/messages']);
    });

    it("e-mail variant: refuses another tenant's channel and a channel that is not webmail, creating nothing", async () => {
      const api = await newIntegration();
      const other = await newIntegration();
      const foreignWebmail = (await newSession(other.tenantId, 'webmail')).whatsapp.id;

      const foreign = await post(api, 'createTicket', { email: 'ana@example.com', channelId: foreignWebmail, body: 'Hi' });
      expectError(foreign, 404, 'ERR_CHANNEL_NOT_FOUND');
      const notWebmail = await post(api, 'createTicket', { email: 'ana@example.com', channelId: api.channelId, body: 'Hi' });
      expectError(notWebmail, 400, 'ERR_CHANNEL_NOT_WEBMAIL');
      expect(notWebmail.body.details).toEqual([{ field: 'channelId', message: expect.stringContaining('engine_a') }]);
      expect((await get(api, 'listTickets', {})).body.data.count).toBe(0);
    });

    it("e-mail variant: opens the ticket on the tenant's webmail channel with the e-mail contact", async () => {
      const api = await newIntegration();
      const webmail = (await newSession(api.tenantId, 'webmail')).whatsapp.id;
      // The first body's delivery over webmail is the webmail driver's concern (test/e2e/email.test.ts;
      // here the relay is unreachable): whatever it answers, the ticket and its contact exist.
      await post(api, 'createTicket', { email: 'Maria@Example.com', channelId: webmail, body: 'Hi' });
      const listed = await get(api, 'listTickets', { searchParam: 'maria@example' });
      expect(listed.body.data.tickets).toEqual([
        expect.objectContaining({ whatsappId: webmail, contact: expect.objectContaining({ email: 'maria@example.com', number: '' }) }),
      ]);
    });

    it('refuses an unknown queue and creates nothing', async () => {
      const api = await newIntegration();
      expectError(await post(api, 'createTicket', { number: newNumber(), body: 'Hi', queueId: 987_654 }), 404, 'ERR_QUEUE_NOT_FOUND');
      expect((await get(api, 'listTickets', {})).body.data.count).toBe(0);
    });
  });

  // ---- reads -------------------------------------------------------------------------------

  describe('listTickets', () => {
    let api: Integration;
    let ids: number[];
    let queueId: number;

    beforeAll(async () => {
      api = await newIntegration();
      queueId = await createQueue(api.tenantId, 'Support');
      ids = [];
      for (let i = 0; i < 23; i++) ids.push((await open(api, { body: `first message ${i}` })).ticketId);
      await post(api, 'updateticketinfo', { ticketId: ids[0], status: 'pending', queueId });
    });

    it('pages 20 tickets, newest activity first, with count, hasMore and each last message', async () => {
      const one = await get(api, 'listTickets', {});
      expect(one.status).toBe(200);
      expect(one.body.data).toMatchObject({ count: 23, hasMore: true, pageNumber: 1, pageSize: 20 });
      expect(one.body.data.tickets).toHaveLength(20);
      const two = await get(api, 'listTickets', { pageNumber: 2 });
      expect(two.body.data).toMatchObject({ count: 23, hasMore: false, pageNumber: 2 });
      const order = [...one.body.data.tickets, ...two.body.data.tickets].map((t: { id: number }) => t.id);
      expect(order).toEqual([ids[0], ...ids.slice(1).reverse()]);
      const last = two.body.data.tickets.at(-1);
      expect(last.lastMessage).toEqual({
        messageId: expect.any(String),
        body: 'first message 1',
        direction: 'out',
        at: expect.any(String),
      });
    });

    it('filters by status, queuesIds, whatsappIds and searchParam', async () => {
      const only = async (query: Record<string, string>) =>
        (await get(api, 'listTickets', query)).body.data.tickets.map((t: { id: number }) => t.id);
      expect(await only({ status: 'pending' })).toEqual([ids[0]]);
      expect(await only({ queuesIds: `${queueId}, 999` })).toEqual([ids[0]]);
      expect((await get(api, 'listTickets', { whatsappIds: String(api.channelId) })).body.data.count).toBe(23);
      expect((await get(api, 'listTickets', { whatsappIds: '999999' })).body.data.count).toBe(0);
      const number = (await post(api, 'showTicketById', { ticketId: ids[5] })).body.data.contact.number as string;
      expect(await only({ searchParam: `+${number.slice(0, 2)} ${number.slice(2)}` })).toEqual([ids[5]]);
      expect(await only({ searchParam: '.*' })).toEqual([]);
    });

    it('refuses malformed filters with every field at fault', async () => {
      const res = await get(api, 'listTickets', { pageNumber: 0, status: 'archived', queuesIds: '1,x', whatsappIds: '-2' });
      expectError(res, 400, 'ERR_VALIDATION');
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['pageNumber', 'queuesIds', 'status', 'whatsappIds']);
    });

    it("never shows another tenant's tickets", async () => {
      const other = await newIntegration();
      expect((await get(other, 'listTickets', {})).body.data).toMatchObject({ tickets: [], count: 0, hasMore: false });
    });
  });

  describe('showticket, showallticket and showTicketById', () => {
    it('shows the current ticket of a number, or all of them newest first', async () => {
      const api = await newIntegration();
      const number = newNumber();
      const first = await open(api, { number });
      await post(api, 'updateticketinfo', { ticketId: first.ticketId, status: 'closed' });
      const second = await open(api, { number: `+${number}`, body: 'second ticket' });

      const current = await post(api, 'showticket', { number });
      expect(current.status).toBe(200);
      expect(current.body.data).toMatchObject({
        id: second.ticketId,
        status: 'open',
        lastMessage: { body: 'second ticket', direction: 'out' },
      });

      const all = await post(api, 'showallticket', { number });
      expect(all.body.data.count).toBe(2);
      expect(all.body.data.tickets.map((t: { id: number; status: string }) => [t.id, t.status])).toEqual([
        [second.ticketId, 'open'],
        [first.ticketId, 'closed'],
      ]);

      await post(api, 'updateticketinfo', { ticketId: second.ticketId, status: 'closed' });
      expectError(await post(api, 'showticket', { number }), 404, 'ERR_TICKET_NOT_FOUND');
      const other = await newIntegration();
      expect((await post(other, 'showallticket', { number })).body.data.tickets).toEqual([]);
    });

    it('shows a ticket by id with the documented record', async () => {
      const api = await newIntegration();
      const t = await open(api, { body: 'opening line' });
      const shown = await post(api, 'showTicketById', { ticketId: t.ticketId });
      expect(shown.body.data).toEqual({
        id: t.ticketId,
        ticketId: t.ticketId,
        status: 'open',
        whatsappId: api.channelId,
        contact: { id: expect.any(Number), number: t.ticket.contact.number, name: '', email: null },
        userId: null,
        queueId: null,
        chatFlowId: null,
        kanbanId: null,
        reasonId: null,
        value: null,
        externalKey: null,
        botBuilderStatus: false,
        llmAssistantStatus: false,
        workflowStatus: false,
        tagIds: [],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        closedAt: null,
        paused: false,
        pauseReason: null,
        pausedAt: null,
        evaluation: null,
        lastMessage: { messageId: t.messageId, body: 'opening line', direction: 'out', at: expect.any(String) },
      });
    });
  });

  // ---- queues and tags ---------------------------------------------------------------------

  describe('queues', () => {
    it("moves a ticket with updatequeue and refuses an unknown or another tenant's queue", async () => {
      const api = await newIntegration();
      const other = await newIntegration();
      const sales = await createQueue(api.tenantId, 'Sales');
      const foreign = await createQueue(other.tenantId, 'Sales');
      const { ticketId } = await open(api);

      const moved = await post(api, 'updatequeue', { ticketId, queueId: sales });
      expect(moved.status).toBe(200);
      expect(moved.body.data.queueId).toBe(sales);
      expectError(await post(api, 'updatequeue', { ticketId, queueId: foreign }), 404, 'ERR_QUEUE_NOT_FOUND');
      expectError(await post(api, 'updatequeue', { ticketId, queueId: 999_999 }), 404, 'ERR_QUEUE_NOT_FOUND');
      expectError(await post(other, 'updatequeue', { ticketId, queueId: foreign }), 404, 'ERR_TICKET_NOT_FOUND');
    });

    it('validates queueId in updateticketinfo the same way, and null still unassigns', async () => {
      const api = await newIntegration();
      const support = await createQueue(api.tenantId, 'Support');
      const { ticketId } = await open(api);
      expectError(await post(api, 'updateticketinfo', { ticketId, queueId: 999_999, status: 'pending' }), 404, 'ERR_QUEUE_NOT_FOUND');
      expect((await post(api, 'showTicketById', { ticketId })).body.data.status).toBe('open');
      expect((await post(api, 'updateticketinfo', { ticketId, queueId: support })).body.data.queueId).toBe(support);
      expect((await post(api, 'updateticketinfo', { ticketId, queueId: null })).body.data.queueId).toBeNull();
    });
  });

  describe('addTag and removeTag', () => {
    it('adds by tagId or tagIds without duplicates, and removes', async () => {
      const api = await newIntegration();
      const [vip, late] = [await createTag(api.tenantId, 'VIP'), await createTag(api.tenantId, 'Late')];
      const { ticketId } = await open(api);

      expect((await post(api, 'addTag', { ticketId, tagId: vip })).body.data.tagIds).toEqual([vip]);
      expect((await post(api, 'addTag', { ticketId, tagIds: [vip, late] })).body.data.tagIds).toEqual([vip, late]);
      expect((await post(api, 'addTag', { ticketId, tagId: vip })).body.data.tagIds).toEqual([vip, late]);
      expect((await post(api, 'removeTag', { ticketId, tagId: vip })).body.data.tagIds).toEqual([late]);
      expect((await post(api, 'showTicketById', { ticketId })).body.data.tagIds).toEqual([late]);
    });

    it("refuses an unknown tag, another tenant's tag, and a body without any tag", async () => {
      const api = await newIntegration();
      const other = await newIntegration();
      const foreign = await createTag(other.tenantId, 'VIP');
      const { ticketId } = await open(api);
      expectError(await post(api, 'addTag', { ticketId, tagId: 999_999 }), 404, 'ERR_TAG_NOT_FOUND');
      expectError(await post(api, 'addTag', { ticketId, tagIds: [foreign] }), 404, 'ERR_TAG_NOT_FOUND');
      expectError(await post(api, 'removeTag', { ticketId, tagId: foreign }), 404, 'ERR_TAG_NOT_FOUND');
      expectError(await post(api, 'addTag', { ticketId }), 400, 'ERR_VALIDATION');
      expectError(await post(other, 'addTag', { ticketId, tagId: foreign }), 404, 'ERR_TICKET_NOT_FOUND');
    });
  });

  // ---- notes and pauses --------------------------------------------------------------------

  describe('createNotes', () => {
    it('answers the note, and the same note for a repeated idFront, even concurrently', async () => {
      const api = await newIntegration();
      const { ticketId } = await open(api);
      // A userId must be a user of the ticket's tenant (CONVENTIONS "Input bounds").
      const plain = await post(api, 'createNotes', { ticketId, notes: 'Customer asked for a refund', userId: api.userId });
      expect(plain.status).toBe(200);
      expect(plain.body.data).toEqual({
        id: expect.any(Number),
        notes: 'Customer asked for a refund',
        ticketId,
        userId: api.userId,
        idFront: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });

      const answers = await Promise.all(
        Array.from({ length: 10 }, () => post(api, 'createNotes', { ticketId, notes: 'once', idFront: 'ui-42' })),
      );
      expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
      expect(answers[0].body.data).toMatchObject({ idFront: 'ui-42', notes: 'once' });
      expect(answers[0].body.data.id).not.toBe(plain.body.data.id);
    });

    it("refuses another tenant's ticket and a missing text", async () => {
      const api = await newIntegration();
      const other = await newIntegration();
      const { ticketId } = await open(api);
      expectError(await post(other, 'createNotes', { ticketId, notes: 'x' }), 404, 'ERR_TICKET_NOT_FOUND');
      expectError(await post(api, 'createNotes', { ticketId }), 400, 'ERR_VALIDATION');
    });
  });

  describe('ticket/pause', () => {
    it('pauses with a reason, keeps the status, refuses a second start, and ends', async () => {
      const api = await newIntegration();
      const { ticketId } = await open(api, { status: 'pending' });
      const start = await post(api, `ticket/pause/start/${ticketId}`, { pauseReason: 'Waiting for the carrier' });
      expect(start.status).toBe(200);
      expect(start.body.data).toMatchObject({
        paused: true,
        pauseReason: 'Waiting for the carrier',
        status: 'pending',
        pausedAt: expect.any(String),
      });
      expectError(await post(api, `ticket/pause/start/${ticketId}`, { pauseReason: 'again' }), 409, 'ERR_TICKET_ALREADY_PAUSED');

      const end = await post(api, `ticket/pause/end/${ticketId}`, {});
      expect(end.body.data).toMatchObject({ paused: false, pauseReason: null, pausedAt: null, status: 'pending' });
      expectError(await post(api, `ticket/pause/end/${ticketId}`, {}), 409, 'ERR_TICKET_NOT_PAUSED');
    });

    it("refuses a closed ticket, another tenant's ticket and a missing reason", async () => {
      const api = await newIntegration();
      const other = await newIntegration();
      const { ticketId } = await open(api);
      expectError(await post(api, `ticket/pause/start/${ticketId}`, {}), 400, 'ERR_VALIDATION');
      expectError(await post(other, `ticket/pause/start/${ticketId}`, { pauseReason: 'x' }), 404, 'ERR_TICKET_NOT_FOUND');
      await post(api, 'updateticketinfo', { ticketId, status: 'closed' });
      expectError(await post(api, `ticket/pause/start/${ticketId}`, { pauseReason: 'x' }), 409, 'ERR_TICKET_CLOSED');
    });
  });

  // ---- sendEvaluation ----------------------------------------------------------------------

  describe('sendEvaluation', () => {
    const sends = () => engine.to('/messages').length;

    it('sends the survey once, refuses a second unless forced, and records it on the ticket', async () => {
      const api = await newIntegration();
      const { ticketId, ticket } = await open(api);
      const before = sends();

      const first = await post(api, 'sendEvaluation', { ticketId });
      expect(first.status).toBe(200);
      await settled(api.root, api.token, first.body.data.messageId);
      expect(first.body.data).toMatchObject({
        ticketId,
        messageId: expect.any(String),
        evaluation: { sentAt: expect.any(String), answer: null },
      });
      const survey = engine.to('/messages').at(-1)!;
      expect(survey.body).toMatchObject({
        jid: `${ticket.contact.number}@s.whatsapp.net`,
        content: { text: expect.stringMatching(/rate/) },
      });

      expectError(await post(api, 'sendEvaluation', { ticketId }), 409, 'ERR_EVALUATION_ALREADY_SENT');
      expect(sends()).toBe(before + 1);
      const forced = await post(api, 'sendEvaluation', { ticketId, force: true });
      expect(forced.status).toBe(200);
      await settled(api.root, api.token, forced.body.data.messageId);
      expect(sends()).toBe(before + 2);
      const shown = await post(api, 'showTicketById', { ticketId });
      expect(shown.body.data.evaluation).toMatchObject({ messageId: forced.body.data.messageId, answer: null, answeredAt: null });
    });

    it('skips a repeated externalKey, sending nothing', async () => {
      const api = await newIntegration();
      const { ticketId } = await open(api);
      const before = sends();
      const first = await post(api, 'sendEvaluation', { ticketId, externalKey: 'nps-7' });
      expect(first.status).toBe(200);
      await settled(api.root, api.token, first.body.data.messageId);
      const again = await post(api, 'sendEvaluation', { ticketId, externalKey: 'nps-7', force: true });
      expect(again.body).toEqual({ success: true, idempotent: true, skipped: true, ticketId });
      expect(sends()).toBe(before + 1);
    });

    it('records the survey once accepted; an engine refusal then fails the message, not the answer', async () => {
      const api = await newIntegration();
      const { ticketId } = await open(api);
      engine.failNextSend(400, { message: 'session closed' });
      const res = await post(api, 'sendEvaluation', { ticketId, externalKey: 'nps-refused' });
      expect(res.status).toBe(200);
      expect((await post(api, 'showTicketById', { ticketId })).body.data.evaluation).toMatchObject({ messageId: res.body.data.messageId });
      expect(await settled(api.root, api.token, res.body.data.messageId)).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('session closed'),
      });
    });

    it("refuses a closed ticket and another tenant's ticket, sending nothing", async () => {
      const api = await newIntegration();
      const other = await newIntegration();
      const { ticketId } = await open(api);
      const before = sends();
      expectError(await post(other, 'sendEvaluation', { ticketId }), 404, 'ERR_TICKET_NOT_FOUND');
      await post(api, 'updateticketinfo', { ticketId, status: 'closed' });
      expectError(await post(api, 'sendEvaluation', { ticketId }), 409, 'ERR_TICKET_CLOSED');
      expect(sends()).toBe(before);
    });
  });

  // ---- message reads -----------------------------------------------------------------------

  describe('message reads', () => {
    let api: Integration;
    let ticketId: number;
    let firstMessageId: string;

    beforeAll(async () => {
      api = await newIntegration();
      const t = await open(api, { body: 'Your order 1001 shipped' });
      ticketId = t.ticketId;
      firstMessageId = t.messageId;
      for (const body of ['Price is 5.00 (USD)', 'ORDER 1002 SHIPPED', 'thanks']) {
        const sent = await post(api, 'sendMessageByTicket', { ticketId, body });
        expect(sent.status).toBe(200);
        await settled(api.root, api.token, sent.body.data.messageId);
      }
    });

    it('showAllMessages answers every message of the ticket in order, with the documented record', async () => {
      const res = await post(api, 'showAllMessages', { ticket: String(ticketId) });
      expect(res.status).toBe(200);
      expect(res.body.data.ticketId).toBe(ticketId);
      expect(res.body.data.hasMore).toBe(false);
      expect(res.body.data.messages.map((m: { body: string }) => m.body)).toEqual([
        'Your order 1001 shipped',
        'Price is 5.00 (USD)',
        'ORDER 1002 SHIPPED',
        'thanks',
      ]);
      expect(res.body.data.messages[0]).toEqual({
        messageId: firstMessageId,
        ticketId,
        whatsappId: api.channelId,
        direction: 'out',
        body: 'Your order 1001 shipped',
        status: 'sent',
        mediaUrl: null,
        mimeType: null,
        fileName: null,
        subject: null,
        interactive: null,
        error: null,
        providerMessageId: expect.any(String),
        via: null,
        pricing: null,
        reactions: [],
        edited: false,
        editHistory: [],
        deleted: false,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
    });

    it('showAllMessages refuses a ticket that is not a number, and hides other tenants', async () => {
      expectError(await post(api, 'showAllMessages', { ticket: 'abc' }), 400, 'ERR_VALIDATION');
      const other = await newIntegration();
      expectError(await post(other, 'showAllMessages', { ticket: String(ticketId) }), 404, 'ERR_TICKET_NOT_FOUND');
    });

    it('searchMessages matches text case-insensitively and literally, paged', async () => {
      const shipped = await get(api, 'searchMessages', { ticketId, searchParam: 'shipped' });
      expect(shipped.status).toBe(200);
      expect(shipped.body.data).toMatchObject({ count: 2, hasMore: false, page: 1, limit: 20 });
      expect(shipped.body.data.messages.map((m: { body: string }) => m.body)).toEqual(['Your order 1001 shipped', 'ORDER 1002 SHIPPED']);

      const paged = await get(api, 'searchMessages', { ticketId, searchParam: 'SHIPPED', page: 2, limit: 1 });
      expect(paged.body.data).toMatchObject({ count: 2, hasMore: false, page: 2, limit: 1 });
      expect(paged.body.data.messages.map((m: { body: string }) => m.body)).toEqual(['ORDER 1002 SHIPPED']);

      expect((await get(api, 'searchMessages', { ticketId, searchParam: '5.00 (usd)' })).body.data.count).toBe(1);
      expect((await get(api, 'searchMessages', { ticketId, searchParam: '.*' })).body.data.count).toBe(0);
    });

    it('searchMessages requires ticketId and searchParam, bounds limit, and hides other tenants', async () => {
      const missing = await call(`${api.root}/searchMessages`, { token: api.token });
      expectError(missing, 400, 'ERR_VALIDATION');
      expect(missing.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['searchParam', 'ticketId']);
      expectError(await get(api, 'searchMessages', { ticketId, searchParam: 'x', limit: 101 }), 400, 'ERR_VALIDATION');
      const other = await newIntegration();
      expectError(await get(other, 'searchMessages', { ticketId, searchParam: 'shipped' }), 404, 'ERR_TICKET_NOT_FOUND');
    });

    it("getMessageByMessageId answers the message record, and 404 for another tenant's", async () => {
      const res = await get(api, 'getMessageByMessageId', { messageId: firstMessageId });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ messageId: firstMessageId, ticketId, body: 'Your order 1001 shipped', direction: 'out' });
      const other = await newIntegration();
      expectError(await get(other, 'getMessageByMessageId', { messageId: firstMessageId }), 404, 'ERR_MESSAGE_NOT_FOUND');
    });
  });

  it('documents every route in the OpenAPI document', async () => {
    const doc = await call(`${mesh.gatewayUrl}/docs/json`);
    const paths = Object.keys(doc.body.paths);
    for (const op of [
      'createTicket',
      'listTickets',
      'showticket',
      'showallticket',
      'showTicketById',
      'updateticketinfo',
      'updatequeue',
      'addTag',
      'removeTag',
      'createNotes',
      'ticket/pause/start/{ticketId}',
      'ticket/pause/end/{ticketId}',
      'sendEvaluation',
      'showAllMessages',
      'searchMessages',
      'getMessageByMessageId',
    ]) {
      expect(paths).toContain(`/v2/api/external/{apiId}/${op}`);
    }
  });
});
