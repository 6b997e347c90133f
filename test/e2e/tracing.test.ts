import { randomBytes } from 'node:crypto';
import type { Mesh } from '@convo/dev-mesh';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, eventually, settled, UNPACED } from '../support/http';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * One REST send is one trace, from the gateway through every gRPC hop and the delivery queue to
 * the provider call, exported by every process over OTLP/HTTP (the standard OTEL_* variables) to
 * a receiver on loopback; its id is the answer's X-Request-Id and reaches the provider.
 */
describe('tracing across the mesh', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let otlp: OtlpReceiver;
  let root: string;
  let token: string;
  let ticketId: number;
  const crashes: string[] = [];
  const lines: Array<{ part: string; line: string }> = [];

  beforeAll(async () => {
    engine = await startFakeEngine();
    otlp = await startOtlpReceiver();
    mesh = await startMesh({
      freePorts: true,
      onLine: (part, line) => lines.push({ part, line }),
      onCrash: (p, c) => crashes.push(`${p}:${c}`),
      env: { ...UNPACED, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
    });
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Traced Ltda',
        maxUsers: 5,
        maxConnections: 5,
        acceptTerms: true,
        email: 'ops@traced.example',
        password: 'S3cure!pass',
        userName: 'Ops',
        profile: 'admin',
      },
    });
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenant.body.data.tenant.id, name: 'Main', type: 'engine_a', engineUrl: engine.url, engineToken: 'engine-secret' },
    });
    ({ authToken: token } = session.body.data.api);
    root = `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`;
    const created = await call(`${root}/createTicket`, { token, body: { number: '5511987651111', body: 'first' } });
    ticketId = created.body.data.ticketId;
    await settled(root, token, created.body.data.messageId);
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
    await otlp?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  it('follows sendMessageByTicket from the gateway to the provider call in one trace', async () => {
    const res = await fetch(`${root}/sendMessageByTicket`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ticketId, body: 'traced' }),
    });
    expect(res.status).toBe(200);
    const traceId = res.headers.get('x-request-id')!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const { messageId } = ((await res.json()) as { data: { messageId: string } }).data;
    await settled(root, token, messageId);

    // The provider saw the same trace in the request's traceparent.
    const atProvider = engine.requests.find((r) => JSON.stringify(r.body).includes('traced'))!;
    expect(String(atProvider.headers.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));

    const wanted = ['gateway', 'messaging', 'tickets', 'messaging-dispatcher', 'channel-engines'];
    const spans = await eventually('spans of every hop exported', () => {
      const mine = otlp.spans.filter((s) => s.traceId === traceId);
      const services = new Set(mine.map((s) => s.service));
      const providerCall = mine.some((s) => s.service === 'channel-engines' && s.kind === 3 && s.name.startsWith('POST'));
      return wanted.every((w) => services.has(w)) && providerCall && mine;
    });
    // One tree: a single root (the gateway's server span), every other span's parent in the trace.
    const ids = new Set(spans.map((s) => s.spanId));
    const roots = spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
    expect(roots.map((s) => [s.service, s.kind])).toEqual([['gateway', 2]]);
    // The hops, each a server span of its process: gRPC into messaging, tickets and channel-engines.
    for (const service of ['messaging', 'tickets', 'channel-engines']) {
      expect({ service, server: spans.some((s) => s.service === service && s.kind === 2) }).toEqual({ service, server: true });
    }
    expect(spans.some((s) => s.service === 'messaging-dispatcher' && s.name === 'deliver message')).toBe(true);

    // One access line for the request, in the kit's shape, carrying the same id.
    const access = lines.filter((l) => l.part === 'gateway' && l.line.includes(traceId)).map((l) => JSON.parse(l.line));
    expect(access).toEqual([
      expect.objectContaining({
        severity: 'INFO',
        service: 'gateway',
        message: 'request',
        requestId: traceId,
        traceId,
        method: 'POST',
        route: '/v2/api/external/:apiId/sendMessageByTicket',
        status: 200,
        tenant: expect.any(Number),
        ms: expect.any(Number),
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
    ]);
  });

  it('answers X-Request-Id on every answer, errors and unknown routes included', async () => {
    for (const [url, status] of [
      [`${root}/listTickets`, 401],
      [`${mesh.gatewayUrl}/nowhere`, 404],
      [`${mesh.gatewayUrl}/healthz`, 200],
    ] as const) {
      const res = await fetch(url);
      expect({ url, status: res.status }).toEqual({ url, status });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    }
  });
});

/**
 * Without an exporter only the HTTP server and gRPC are instrumented, yet a request keeps one id
 * everywhere: the answer's X-Request-Id is the trace the dispatcher continues from the queued
 * message (stored by messaging inside the gRPC call), as its log line of a retried delivery shows.
 */
describe('trace ids across the mesh with export off', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  const lines: Array<{ part: string; line: string }> = [];
  const crashes: string[] = [];

  beforeAll(async () => {
    engine = await startFakeEngine();
    mesh = await startMesh({
      freePorts: true,
      onLine: (part, line) => lines.push({ part, line }),
      onCrash: (p, c) => crashes.push(`${p}:${c}`),
      env: { ...UNPACED, DELIVERY_BACKOFF_BASE_MS: '50', DELIVERY_BACKOFF_MAX_MS: '100' },
    });
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  it('carries the X-Request-Id to the dispatcher through gRPC and the queue', async () => {
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Untraced Ltda',
        maxUsers: 5,
        maxConnections: 5,
        acceptTerms: true,
        email: 'ops@untraced.example',
        password: 'S3cure!pass',
        userName: 'Ops',
        profile: 'admin',
      },
    });
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenant.body.data.tenant.id, name: 'Main', type: 'engine_a', engineUrl: engine.url, engineToken: 'engine-secret' },
    });
    const token = session.body.data.api.authToken as string;
    const root = `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`;
    engine.failNext(503, { error: 'busy' });
    const res = await fetch(`${root}/createTicket`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ number: '5511987652222', body: 'first, retried' }),
    });
    expect(res.status).toBe(200);
    const traceId = res.headers.get('x-request-id')!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const { messageId } = ((await res.json()) as { data: { messageId: string } }).data;
    expect((await settled(root, token, messageId)).status).toBe('sent');

    const retried = lines
      .filter((l) => l.part === 'messaging-dispatcher' && l.line.includes('delivery will be retried'))
      .map((l) => JSON.parse(l.line));
    expect(retried).toEqual([expect.objectContaining({ messageId, traceId })]);
    // Unexported, the provider call carries no trace header (nobody could read it).
    expect(engine.requests.every((r) => r.headers.traceparent === undefined)).toBe(true);
    expect(crashes).toEqual([]);
  });

  it("continues a caller's traceparent: its trace id is the X-Request-Id", async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`${mesh.gatewayUrl}/tenantApiListTenants`, {
      headers: { authorization: `Bearer ${mesh.superAdminToken}`, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(res.headers.get('x-request-id')).toBe(traceId);
    // Without one, each request starts a trace of its own.
    const a = await fetch(`${mesh.gatewayUrl}/nowhere`);
    const b = await fetch(`${mesh.gatewayUrl}/nowhere`);
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(b.headers.get('x-request-id')).not.toBe(a.headers.get('x-request-id'));
  });
});
