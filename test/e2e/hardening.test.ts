import type { Mesh } from '@convo/dev-mesh';
import { randomBytes, randomUUID } from 'node:crypto';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, UNPACED, type Reply } from '../support/http';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * The platform's hardening rules through the real mesh: bounded input, malformed multipart, tenant rules
 * (inactive tenant, another tenant's userId, scheme case, weak caller tokens).
 */
describe('hardening, end to end', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let admin: string;
  const crashes: string[] = [];

  interface Integration {
    tenantId: number;
    identity: string;
    userId: number;
    channelId: number;
    root: string;
    token: string;
  }

  async function newIntegration(): Promise<Integration> {
    const identity = String(Date.now()) + String(Math.floor(Math.random() * 1e4)).padStart(4, '0');
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Hardening',
        maxUsers: 10,
        maxConnections: 10,
        acceptTerms: true,
        identity,
        email: `owner-${randomUUID()}@hardening.example`,
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
      identity,
      userId: tenant.body.data.adminUser.id,
      channelId: whatsapp.id,
      root: `${mesh.gatewayUrl}/v2/api/external/${api.apiId}`,
      token: api.authToken,
    };
  }

  let a: Integration;
  let b: Integration;
  let ticketId: number;

  const post = (api: Integration, op: string, body: unknown) => call(`${api.root}/${op}`, { token: api.token, body });
  const failed = (res: Reply, status: number, error: string) => {
    expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
    return res.body;
  };
  async function raw(url: string, init: { headers: Record<string, string>; body: string | Buffer }) {
    const res = await fetch(url, { method: 'POST', ...init, signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  }

  beforeAll(async () => {
    engine = await startFakeEngine();
    // Limits low enough to reach in a test, high enough for the other tests here (docs/operations.md "Limits").
    const env = {
      ...UNPACED,
      RATE_LIMIT_PER_TOKEN: '120',
      RATE_LIMIT_PER_TENANT: '100000',
      RATE_LIMIT_WINDOW_MS: '60000',
      WEBCHAT_VISITORS_PER_ADDRESS: '5',
      WEBCHAT_MAX_OPEN_POLLS: '1',
    };
    mesh = await startMesh({ freePorts: true, env, onLine: () => undefined, onCrash: (part, code) => crashes.push(`${part}:${code}`) });
    admin = mesh.superAdminToken;
    [a, b] = [await newIntegration(), await newIntegration()];
    const created = await post(a, 'createTicket', { number: '5521990001111', body: 'hello' });
    expect(created.status).toBe(200);
    ticketId = created.body.data.ticketId;
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  it('refuses ids beyond int32 and booleans for ids, instead of wrapping or reading them as 1', async () => {
    failed(await post(a, 'showTicketById', { ticketId: 4294967296 + ticketId }), 400, 'ERR_VALIDATION');
    failed(await post(a, 'showTicketById', { ticketId: true }), 400, 'ERR_VALIDATION');
    failed(await post(a, 'createTicket', { number: '5521990001112', body: 'x', kanbanId: 1e21 }), 400, 'ERR_VALIDATION');
    failed(await post(a, 'updateticketinfo', { ticketId, userId: 2147483648 }), 400, 'ERR_VALIDATION');
    failed(await post(a, 'sendMessageByTicket', { ticketId, body: 'x', isClosed: 1 }), 400, 'ERR_VALIDATION');
    expect((await post(a, 'showTicketById', { ticketId: String(ticketId) })).status).toBe(200);
  });

  it('answers a huge array with one small 400, and bodies over 1 MiB with 413 except on media routes', async () => {
    const huge = await raw(`${a.root}/addTag`, {
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ticketId, tagIds: new Array(200_000).fill(1) }),
    });
    expect(huge.status).toBe(400);
    expect(huge.text.length).toBeLessThan(20_000);
    const twoMiB = JSON.stringify({ ticketId: 0, body: 'x'.repeat(2 * 1024 * 1024) });
    failed(
      await raw(`${a.root}/addTag`, { headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' }, body: twoMiB }),
      413,
      'ERR_PAYLOAD_TOO_LARGE',
    );
    // The media route reads it, then refuses the fields (ticketId 0, body over 4096).
    failed(
      await raw(`${a.root}/sendMessageByTicket`, {
        headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
        body: twoMiB,
      }),
      400,
      'ERR_VALIDATION',
    );
  });

  it('answers malformed multipart bodies 400 and a file on a route without media 413', async () => {
    const auth = { authorization: `Bearer ${a.token}` };
    const part = (boundary: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="ticketId"\r\n\r\n${ticketId}\r\n--${boundary}--\r\n`;
    const bodies: [string, string][] = [
      ['multipart/form-data', part('x')],
      ['multipart/form-data; boundary=abc', part('xyz')],
      ['multipart/form-data; boundary=abc', 'garbage'],
      ['multipart/form-data; boundary=abc', `--abc\r\nContent-Disposition: form-data; name="ticketId"\r\n\r\n1`],
    ];
    for (const op of ['sendMessageByTicket', 'showTicketById', 'addTag', 'createNotes', '']) {
      for (const [type, body] of bodies) {
        const res = await raw(op ? `${a.root}/${op}` : a.root, { headers: { ...auth, 'content-type': type }, body });
        expect({ op, type, body, status: res.status, error: res.body.error }).toEqual({
          op,
          type,
          body,
          status: 400,
          error: 'ERR_VALIDATION',
        });
      }
    }
    const form = new FormData();
    form.set('ticketId', String(ticketId));
    form.set('media', new Blob([Buffer.alloc(1024)], { type: 'image/png' }), 'a.png');
    const res = await fetch(`${a.root}/showTicketById`, { method: 'POST', headers: auth, body: form });
    expect(res.status).toBe(413);
  });

  it('takes the bearer scheme in any case', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const res = await fetch(`${a.root}/showTicketById`, {
        method: 'POST',
        headers: { authorization: `${scheme} ${a.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ticketId }),
      });
      expect({ scheme, status: res.status }).toEqual({ scheme, status: 200 });
    }
  });

  it("refuses another tenant's userId on createTicket, updateticketinfo and createNotes, writing nothing", async () => {
    failed(await post(a, 'createTicket', { number: '5521990001113', body: 'x', userId: b.userId }), 404, 'ERR_USER_NOT_FOUND');
    failed(await post(a, 'updateticketinfo', { ticketId, userId: b.userId }), 404, 'ERR_USER_NOT_FOUND');
    failed(await post(a, 'createNotes', { ticketId, notes: 'n', userId: b.userId }), 404, 'ERR_USER_NOT_FOUND');
    const shown = await post(a, 'showticket', { number: '5521990001113' });
    expect(shown.body?.data ?? null).toBeFalsy();
    expect((await post(a, 'updateticketinfo', { ticketId, userId: a.userId })).status).toBe(200);
    expect((await post(a, 'createNotes', { ticketId, notes: 'n', userId: a.userId })).status).toBe(200);
  });

  it('refuses caller-chosen tokens that are short or made of few characters', async () => {
    const base = { name: 'CRM', sessionId: a.channelId, userId: a.userId, tenant: a.tenantId };
    for (const authToken of ['a'.repeat(32), 'ab'.repeat(20), 'abcdefghi'.repeat(4), randomBytes(12).toString('hex').slice(0, 31)]) {
      failed(await call(`${mesh.gatewayUrl}/tenantCreateApi`, { token: admin, body: { ...base, authToken } }), 400, 'ERR_VALIDATION');
    }
    expect(
      (await call(`${mesh.gatewayUrl}/tenantCreateApi`, { token: admin, body: { ...base, authToken: randomBytes(24).toString('hex') } }))
        .status,
    ).toBe(200);
  });

  it('answers 403 ERR_TENANT_INACTIVE on every external route once the tenant is inactive, at once', async () => {
    const c = await newIntegration();
    // Cached on the gateway by this first call.
    expect((await call(`${c.root}/listTags`, { token: c.token })).status).toBe(200);
    const update = (status: string) =>
      call(`${mesh.gatewayUrl}/tenantApiUpdateTenant`, { token: admin, body: { identity: c.identity, status } });
    expect((await update('inactive')).status).toBe(200);
    failed(await call(`${c.root}/listTags`, { token: c.token }), 403, 'ERR_TENANT_INACTIVE');
    failed(await post(c, 'showTicketById', { ticketId: 1 }), 403, 'ERR_TENANT_INACTIVE');
    failed(await post(c, 'createTicket', { number: '5521990001114', body: 'x' }), 403, 'ERR_TENANT_INACTIVE');
    // Other tenants are untouched; reactivation restores access.
    expect((await post(a, 'showTicketById', { ticketId })).status).toBe(200);
    expect((await update('active')).status).toBe(200);
    expect((await call(`${c.root}/listTags`, { token: c.token })).status).toBe(200);
  });

  it("answers a token's burst 429 ERR_RATE_LIMITED with Retry-After and RateLimit-*, leaving other tenants alone", async () => {
    const c = await newIntegration();
    const answers = await Promise.all(
      Array.from({ length: 160 }, () =>
        fetch(`${c.root}/showTicketById`, {
          method: 'POST',
          headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ticketId: 1 }),
        }),
      ),
    );
    const codes = answers.map((r) => r.status);
    expect(codes.filter((s) => s === 429)).toHaveLength(40);
    expect(codes.filter((s) => s >= 500)).toEqual([]);
    const refused = answers.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).toBe('120');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toMatchObject({ success: false, error: 'ERR_RATE_LIMITED' });
    expect((await post(b, 'showTicketById', { ticketId: 1 })).status).toBe(404);
  });

  let webchatId = 0;
  async function webchat(): Promise<number> {
    if (webchatId) return webchatId;
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: a.tenantId, name: 'Site chat', type: 'webchat' },
    });
    expect(session.status).toBe(200);
    return (webchatId = session.body.data.whatsapp.id);
  }

  it('caps the long polls open at once: one more is told to come back (429, Retry-After)', async () => {
    const channelId = await webchat();
    const visitor = await call(`${mesh.gatewayUrl}/webchat/${channelId}/visitors`, { body: {} });
    const { visitorToken } = visitor.body.data;
    const poll = (wait: number, signal?: AbortSignal) =>
      fetch(`${mesh.gatewayUrl}/webchat/${channelId}/messages?wait=${wait}`, {
        headers: { authorization: `Bearer ${visitorToken}` },
        signal,
      });
    const holder = new AbortController();
    const open = poll(20, holder.signal).catch(() => undefined);
    // The first poll is open once the gateway holds it: a second long poll is then refused.
    let refused: Response | undefined;
    for (let i = 0; i < 50 && !refused; i++) {
      const res = await poll(5);
      if (res.status === 429) refused = res;
      else await res.arrayBuffer();
    }
    expect(refused?.headers.get('retry-after')).toBe('1');
    expect(await refused!.json()).toMatchObject({ success: false, error: 'ERR_RATE_LIMITED' });
    // A short poll (wait=0) is not capped.
    expect((await poll(0)).status).toBe(200);
    holder.abort();
    await open;
  });

  it('limits anonymous web-chat visitor creation per client address', async () => {
    // One visitor of this address was created by the test above (5 per minute here).
    const url = `${mesh.gatewayUrl}/webchat/${await webchat()}/visitors`;
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await call(url, { body: {} })).status);
    expect(codes).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('refuses webhook and callback URLs that the SSRF rules refuse, when they are set', async () => {
    const blocked = [
      'http://127.0.0.1:9/hook',
      'http://169.254.169.254/latest',
      'http://localhost/hook',
      'http://[::1]/x',
      'http://10.0.0.1/x',
    ];
    for (const url of blocked) {
      const created = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
        token: admin,
        body: {
          tenant: a.tenantId,
          name: 'hooked',
          type: 'engine_a',
          engineUrl: engine.url,
          engineToken: 'engine-secret',
          webhookEnabled: true,
          webhookUrl: url,
        },
      });
      expect(failed(created, 400, 'ERR_VALIDATION').details).toEqual([expect.objectContaining({ field: 'webhookUrl' })]);
      failed(
        await call(`${mesh.gatewayUrl}/whatsapp/${a.channelId}`, { method: 'PUT', token: admin, body: { webhookUrl: url } }),
        400,
        'ERR_VALIDATION',
      );
      const api = await call(`${mesh.gatewayUrl}/tenantCreateApi`, {
        token: admin,
        body: {
          name: 'CRM',
          sessionId: a.channelId,
          userId: a.userId,
          tenant: a.tenantId,
          authToken: randomBytes(24).toString('hex'),
          urlMessageStatus: url,
        },
      });
      expect(failed(api, 400, 'ERR_VALIDATION').details).toEqual([expect.objectContaining({ field: 'urlMessageStatus' })]);
    }
    // A public target is accepted (a name that does not resolve yet too: delivery checks again).
    const ok = await call(`${mesh.gatewayUrl}/whatsapp/${a.channelId}`, {
      method: 'PUT',
      token: admin,
      body: { webhookUrl: 'https://hooks.example/in' },
    });
    expect(ok.status).toBe(200);
  });

  it('answers 400 for a mediaUrl whose host name does not resolve', async () => {
    const res = await post(a, 'sendMessageByTicket', { ticketId, mediaUrl: 'http://nothing-here.invalid/a.png' });
    expect(failed(res, 400, 'ERR_URL_UNRESOLVED').details).toEqual([expect.objectContaining({ field: 'url' })]);
  });

  it('refuses internal gRPC calls without the mesh credential on all five services', async () => {
    const { loadService } = require('@convo/kit') as typeof import('@convo/kit');
    const grpc = require('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
    const calls: [string, Parameters<typeof loadService>[0], string, object][] = [
      ['tickets', 'tickets', 'GetTicket', { tenantId: a.tenantId, ticketId }],
      ['messaging', 'messaging', 'LastMessages', { tenantId: a.tenantId, ticketIds: [ticketId] }],
      ['channel-engines', 'channelEngines', 'PullWebchat', { channelId: a.channelId, visitorId: '1', after: '', limit: 1 }],
      ['social-config', 'socialConfig', 'GetProfile', { tenantId: a.tenantId, channelId: a.channelId }],
      ['tenants', 'tenants', 'GetChannel', { tenantId: 0, channelId: a.channelId }],
    ];
    for (const [process, service, method, request] of calls) {
      const { Client } = loadService(service);
      const client = new Client(mesh.grpcAddresses[process], grpc.credentials.createInsecure()) as unknown as Record<
        string,
        (...args: unknown[]) => unknown
      > & { close(): void };
      const code = await new Promise((resolve) =>
        client[method](request, new grpc.Metadata(), { deadline: Date.now() + 5_000 }, (err: { code: number } | null) =>
          resolve(err?.code ?? 0),
        ),
      );
      client.close();
      expect({ process, code }).toEqual({ process, code: grpc.status.UNAUTHENTICATED });
    }
    // The streams that carry the per-message calls (the kit's call streams): refused when they open.
    const streams: [string, Parameters<typeof loadService>[0], string, object][] = [
      ['tickets', 'tickets', 'GetTicketStream', { id: 1, request: { tenantId: a.tenantId, ticketId } }],
      ['messaging', 'messaging', 'SendByTicketStream', { id: 1, request: { tenantId: a.tenantId, ticketId, body: 'not sent' } }],
      ['channel-engines', 'channelEngines', 'DeliverStream', { id: 1, request: { to: '5511987654321', content: { text: 'not sent' } } }],
    ];
    for (const [process, service, method, item] of streams) {
      const { Client } = loadService(service);
      const client = new Client(mesh.grpcAddresses[process], grpc.credentials.createInsecure()) as unknown as Record<
        string,
        (...args: unknown[]) => import('@grpc/grpc-js').ClientDuplexStream<object, object>
      > & { close(): void };
      const stream = client[method](new grpc.Metadata());
      const outcomes: object[] = [];
      stream.on('data', (outcome: object) => outcomes.push(outcome));
      const settled = new Promise((resolve) => {
        stream.on('error', (err: { code: number }) => resolve(err.code));
        stream.on('end', () => resolve(0));
      });
      stream.write(item);
      const code = await settled;
      client.close();
      expect({ process, code, outcomes }).toEqual({ process, code: grpc.status.UNAUTHENTICATED, outcomes: [] });
    }
  });
});
