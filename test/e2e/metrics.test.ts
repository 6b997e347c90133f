import type { Mesh } from '@convo/dev-mesh';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, settled, UNPACED } from '../support/http';
import { samples } from '../support/metrics';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const declared = (text: string, name: string, type: string) => text.includes(`# TYPE ${name} ${type}`);

/**
 * Every process of the mesh serves Prometheus metrics on its HTTP port, and after one message has
 * gone from the REST API to the provider, the series that matter are there with real values.
 */
describe('metrics of every process', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  const crashes: string[] = [];
  const scraped = new Map<string, string>();

  beforeAll(async () => {
    engine = await startFakeEngine();
    mesh = await startMesh({ freePorts: true, onLine: () => undefined, onCrash: (p, c) => crashes.push(`${p}:${c}`), env: UNPACED });
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Metrics Ltda',
        maxUsers: 5,
        maxConnections: 5,
        acceptTerms: true,
        email: 'ops@metrics.example',
        password: 'S3cure!pass',
        userName: 'Ops',
        profile: 'admin',
      },
    });
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenant.body.data.tenant.id, name: 'Main', type: 'engine_a', engineUrl: engine.url, engineToken: 'engine-secret' },
    });
    const { apiId, authToken } = session.body.data.api;
    const root = `${mesh.gatewayUrl}/v2/api/external/${apiId}`;
    const created = await call(`${root}/createTicket`, { token: authToken, body: { number: '5511987650000', body: 'measured' } });
    expect(created.status).toBe(200);
    // A second request with the same token: the gateway's token cache answers it.
    const sent = await call(`${root}/sendMessageByTicket`, {
      token: authToken,
      body: { ticketId: created.body.data.ticketId, body: 'again' },
    });
    expect(sent.status).toBe(200);
    await settled(root, authToken, sent.body.data.messageId);
    for (const [name, { http }] of mesh.endpoints) {
      const res = await fetch(`${http}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      scraped.set(name, await res.text());
    }
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  it('scrapes all nine processes, each with event-loop lag, GC and process series', () => {
    expect([...scraped.keys()].sort()).toEqual([
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
    for (const [name, text] of scraped) {
      expect({ name, lag: samples(text, 'nodejs_eventloop_lag_seconds').length }).toEqual({ name, lag: 1 });
      expect({ name, gc: declared(text, 'nodejs_gc_duration_seconds', 'histogram') }).toEqual({ name, gc: true });
      expect({ name, cpu: samples(text, 'process_cpu_seconds_total')[0] > 0 }).toEqual({ name, cpu: true });
    }
  });

  it('counts and times each REST route by its pattern, and the token cache', () => {
    const gw = scraped.get('gateway')!;
    const route = { method: 'POST', route: '/v2/api/external/:apiId/sendMessageByTicket', status: '200' };
    expect(samples(gw, 'http_server_requests_total', route)).toEqual([1]);
    expect(samples(gw, 'http_server_request_duration_seconds_count', route)).toEqual([1]);
    expect(samples(gw, 'convo_cache_lookups_total', { cache: 'token', result: 'hit' })[0]).toBeGreaterThanOrEqual(1);
    expect(samples(gw, 'convo_cache_lookups_total', { cache: 'token', result: 'miss' })[0]).toBeGreaterThanOrEqual(1);
  });

  it('counts gRPC calls on both sides, by method and code', () => {
    const sendByTicket = { grpc_method: 'SendByTicket', grpc_code: 'OK' };
    expect(samples(scraped.get('gateway')!, 'grpc_client_handled_total', sendByTicket)).toEqual([1]);
    expect(samples(scraped.get('messaging')!, 'grpc_server_handled_total', sendByTicket)).toEqual([1]);
    expect(samples(scraped.get('messaging')!, 'grpc_server_handling_seconds_count', sendByTicket)).toEqual([1]);
    // The dispatcher hands the message to channel-engines over gRPC.
    expect(samples(scraped.get('messaging-dispatcher')!, 'grpc_client_handled_total', { grpc_method: 'Deliver', grpc_code: 'OK' })).toEqual(
      [2],
    );
    expect(samples(scraped.get('channel-engines')!, 'grpc_server_handled_total', { grpc_method: 'Deliver', grpc_code: 'OK' })).toEqual([2]);
  });

  it('counts provider calls by channel kind and outcome', () => {
    const engines = scraped.get('channel-engines')!;
    expect(samples(engines, 'convo_provider_calls_total', { kind: 'engine_a', outcome: 'sent' })).toEqual([2]);
    expect(samples(engines, 'convo_provider_call_duration_seconds_count', { kind: 'engine_a', outcome: 'sent' })).toEqual([2]);
  });

  it('reports the delivery queue and the webhook outbox (depth and oldest age), and webhook outcomes', () => {
    const dispatcher = scraped.get('messaging-dispatcher')!;
    expect(samples(dispatcher, 'convo_delivery_queue_depth')).toEqual([0]);
    expect(samples(dispatcher, 'convo_delivery_queue_oldest_age_seconds')).toEqual([0]);
    const relay = scraped.get('messaging-relay')!;
    expect(samples(relay, 'convo_webhook_outbox_depth')).toHaveLength(1);
    expect(samples(relay, 'convo_webhook_outbox_oldest_age_seconds')).toHaveLength(1);
    expect(declared(relay, 'convo_webhook_attempts_total', 'counter')).toBe(true);
  });

  it('times database commands and counts channel cache lookups in messaging', () => {
    const messaging = scraped.get('messaging')!;
    expect(
      samples(messaging, 'convo_db_command_duration_seconds_count', { database: 'convo_messaging', command: 'insert', outcome: 'ok' })[0],
    ).toBeGreaterThanOrEqual(1);
    expect(samples(messaging, 'convo_cache_lookups_total', { cache: 'channel' }).length).toBeGreaterThanOrEqual(1);
    for (const name of ['tickets', 'tenants', 'channel-engines']) {
      expect({ name, db: samples(scraped.get(name)!, 'convo_db_command_duration_seconds_count').length > 0 }).toEqual({ name, db: true });
    }
  });
});
