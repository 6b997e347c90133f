import type { Mesh } from '@convo/dev-mesh';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, eventually, UNPACED } from '../support/http';

const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');

/**
 * The first slice through the real processes: five services and the gateway, each its own
 * process, over gRPC, against the embedded database, with a fake engine server on loopback.
 */
describe('the mesh, end to end', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let admin: string;
  const crashes: string[] = [];

  const tenantPayload = (email: string) => ({
    status: 'active',
    name: 'Acme Ltda',
    maxUsers: 10,
    maxConnections: 5,
    acceptTerms: true,
    email,
    password: 'S3cure!pass',
    userName: 'Ana Admin',
    profile: 'admin',
  });

  async function newIntegration(email: string) {
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, { token: admin, body: tenantPayload(email) });
    expect(tenant.status).toBe(200);
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: {
        tenant: tenant.body.data.tenant.id,
        name: 'Main number',
        type: 'engine_a',
        engineUrl: engine.url,
        engineToken: 'engine-secret',
      },
    });
    expect(session.status).toBe(200);
    const { apiId, authToken } = session.body.data.api;
    return {
      tenantId: tenant.body.data.tenant.id as number,
      session: session.body.data,
      apiId,
      token: authToken as string,
      root: `${mesh.gatewayUrl}/v2/api/external/${apiId}`,
    };
  }

  beforeAll(async () => {
    engine = await startFakeEngine();
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
      env: UNPACED,
    });
    admin = mesh.superAdminToken;
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  it('runs every service as its own process and reports ready', async () => {
    expect([...mesh.processes.keys()].sort()).toEqual([
      'channel-engines',
      'gateway',
      'messaging',
      'messaging-dispatcher',
      'messaging-relay',
      'social-config',
      'tenants',
      'tenants-reconciler',
      'tickets',
    ]);
    const pids = new Set([...mesh.processes.values()].map((p) => p.pid));
    expect(pids.size).toBe(9);
    const ready = await call(`${mesh.gatewayUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('serves the slice: tenant → channel → ticket → send → read → close → 409', async () => {
    const it = await newIntegration('owner@acme.example');
    expect(it.session.whatsapp).toMatchObject({ type: 'engine_a', status: 'DISCONNECTED', name: 'Main number' });
    expect(it.session.whatsapp).not.toHaveProperty('engineToken');
    expect(it.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    engine.requests.length = 0;

    const created = await call(`${it.root}/createTicket`, {
      token: it.token,
      body: { number: '+5511987654321', body: 'Hello from the API' },
    });
    expect(created.status).toBe(200);
    const ticketId = created.body.data.ticketId;
    expect(created.body.data.ticket).toMatchObject({ id: ticketId, status: 'open', contact: { number: '5511987654321' } });
    await eventually('the first message at the engine', () => engine.requests.length >= 1);
    expect(engine.requests).toHaveLength(1);
    expect(engine.requests[0]).toMatchObject({
      method: 'POST',
      url: '/messages',
      headers: { authorization: 'Bearer engine-secret' },
      body: {
        jid: '5511987654321@s.whatsapp.net',
        content: { text: 'Hello from the API' },
        options: { messageId: created.body.data.messageId },
      },
    });

    const sent = await call(`${it.root}/sendMessageByTicket`, { token: it.token, body: { ticketId, body: 'Second message' } });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({
      success: true,
      data: { message: expect.any(String), ticketId, messageId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
    await eventually('the second message at the engine', () => engine.requests.length >= 2);
    expect(engine.requests).toHaveLength(2);
    expect(engine.requests[1].body.content).toEqual({ text: 'Second message' });

    const shown = await call(`${it.root}/showTicketById`, { token: it.token, body: { ticketId } });
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({ id: ticketId, status: 'open', whatsappId: it.session.whatsapp.id });

    const closed = await call(`${it.root}/updateticketinfo`, { token: it.token, body: { ticketId, status: 'closed' } });
    expect(closed.status).toBe(200);
    expect(closed.body.data).toMatchObject({ status: 'closed', closedAt: expect.any(String) });

    const refused = await call(`${it.root}/sendMessageByTicket`, { token: it.token, body: { ticketId, body: 'Too late' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ success: false, error: 'ERR_TICKET_CLOSED', message: expect.any(String) });
    expect(engine.requests).toHaveLength(2);

    // The closed ticket's queued messages were still delivered: both end up sent.
    const gql = await eventually('both messages recorded as sent', async () => {
      const got = await call(`${mesh.graphqlUrl}`, {
        token: admin,
        body: { query: `{ ticket(tenantId: ${it.tenantId}, id: ${ticketId}) { status channel { name type } messages { body status } } }` },
      });
      return got.body?.data?.ticket?.messages?.every((m: { status: string }) => m.status !== 'queued') && got;
    });
    expect(gql.status).toBe(200);
    expect(gql.body.data.ticket).toEqual({
      status: 'closed',
      channel: { name: 'Main number', type: 'engine_a' },
      messages: [
        { body: 'Hello from the API', status: 'sent' },
        { body: 'Second message', status: 'sent' },
      ],
    });
  });

  it("refuses a missing token, another integration's token and the wrong kind of token", async () => {
    const a = await newIntegration('a@tenant-a.example');
    const b = await newIntegration('b@tenant-b.example');
    const body = { ticketId: 1 };
    expect((await call(`${a.root}/showTicketById`, { body })).status).toBe(401);
    expect((await call(`${a.root}/showTicketById`, { body, token: 'not-a-real-token' })).status).toBe(401);
    const foreign = await call(`${a.root}/showTicketById`, { body, token: b.token });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe('ERR_FORBIDDEN');
    expect((await call(`${a.root}/showTicketById`, { body, token: admin })).status).toBe(403);
    expect((await call(`${mesh.gatewayUrl}/tenantApiShowTenant`, { body: { id: a.tenantId } })).status).toBe(401);
    expect((await call(`${mesh.gatewayUrl}/tenantApiShowTenant`, { body: { id: a.tenantId }, token: a.token })).status).toBe(403);
    expect((await call(mesh.graphqlUrl, { body: { query: '{ tenants { id } }' }, token: a.token })).status).toBe(403);
  });

  it("keeps tenants apart: another tenant's ticket is 404", async () => {
    const a = await newIntegration('iso-a@example.com');
    const b = await newIntegration('iso-b@example.com');
    const t = await call(`${a.root}/createTicket`, { token: a.token, body: { number: '5521999998888', body: 'hi' } });
    const ticketId = t.body.data.ticketId;
    const peek = await call(`${b.root}/showTicketById`, { token: b.token, body: { ticketId } });
    expect(peek.status).toBe(404);
    expect(peek.body.error).toBe('ERR_TICKET_NOT_FOUND');
    const poke = await call(`${b.root}/sendMessageByTicket`, { token: b.token, body: { ticketId, body: 'x' } });
    expect(poke.status).toBe(404);
  });

  it('answers a bad body with 400 and every field at fault', async () => {
    const a = await newIntegration('bad-body@example.com');
    const res = await call(`${a.root}/updateticketinfo`, {
      token: a.token,
      body: { ticketId: 'abc', status: 'archived', queueId: -3 },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: 'ERR_VALIDATION', message: expect.any(String) });
    const fields = res.body.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['queueId', 'status', 'ticketId']);

    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: { ...tenantPayload('weak@example.com'), password: 'weakpassword' },
    });
    expect(tenant.status).toBe(400);
    expect(tenant.body.details).toEqual([{ field: 'password', message: expect.stringMatching(/digit/) }]);
  });

  it('accepts a send the engine then refuses, and records the message as failed with the reason', async () => {
    const a = await newIntegration('refused@example.com');
    const t = await call(`${a.root}/createTicket`, { token: a.token, body: { number: '5531988887777', body: 'first' } });
    await eventually(
      'the first message delivered',
      async () =>
        (await call(`${a.root}/getMessageByMessageId?messageId=${t.body.data.messageId}`, { token: a.token })).body?.data?.status ===
        'sent',
    );
    engine.failNext(400, { message: 'session not connected' });
    const res = await call(`${a.root}/sendMessageByTicket`, { token: a.token, body: { ticketId: t.body.data.ticketId, body: 'x' } });
    expect(res.status).toBe(200);
    const messageId = res.body.data.messageId;
    const failed = await eventually('the refusal recorded', async () => {
      const got = await call(`${a.root}/getMessageByMessageId?messageId=${messageId}`, { token: a.token });
      return got.body?.data?.status === 'failed' && got.body.data;
    });
    expect(failed.error).toContain('session not connected');
    const gql = await call(mesh.graphqlUrl, {
      token: admin,
      body: { query: `{ ticket(tenantId: ${a.tenantId}, id: ${t.body.data.ticketId}) { messages { body status } } }` },
    });
    expect(gql.body.data.ticket.messages.at(-1)).toEqual({ body: 'x', status: 'failed' });
  });

  it("serves the OpenAPI document with the seed's paths", async () => {
    const doc = await call(`${mesh.gatewayUrl}/docs/json`);
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/tenantApiStoreTenant',
        '/tenantApiCreateSession',
        '/v2/api/external/{apiId}/createTicket',
        '/v2/api/external/{apiId}/sendMessageByTicket',
      ]),
    );
  });
});
