import * as grpc from '@grpc/grpc-js';
import { EventEmitter } from 'node:events';
import { buildGateway, type Gateway } from '../src/app';
import { readGatewayConfig } from '../src/config';
import { warmUpThenReady } from '../src/warmup';

// The gateway reports ready only once its warm-up ran (warmup.ts), and the warm-up acts as no
// tenant: every call it makes past the gateway is a read or a send for tenant 0, which messaging
// refuses (no ticket of tenant 0 exists), so nothing is stored.

// Static files (the console, Swagger UI) play no part here, and @fastify/static loads an ES module
// that jest's CommonJS runtime cannot.
jest.mock('@fastify/static', () => {
  const plugin = async () => undefined;
  return Object.assign(plugin, { default: plugin, fastifyStatic: plugin });
});

const env = { SUPER_ADMIN_TOKEN: 'x'.repeat(20), SUBGRAPH_TOKEN: 'g'.repeat(32), SESSION_SECRET: 's'.repeat(32) };

/** Every call the gateway makes to a peer, by `service.Method`, with its request. */
function recordPeers(gw: Gateway, answers: Record<string, (req: unknown) => Promise<unknown>>) {
  const calls: Array<{ method: string; req: Record<string, unknown> }> = [];
  for (const [service, client] of Object.entries(gw.clients)) {
    for (const method of Object.keys(client)) {
      (client as Record<string, unknown>)[method] = (req: Record<string, unknown>) => {
        calls.push({ method: `${service}.${method}`, req });
        // The revocation feed (a read): a stream that stays silent.
        if (method === 'WatchRevocations') return Object.assign(new EventEmitter(), { cancel: () => undefined });
        const answer = answers[`${service}.${method}`];
        if (!answer) return Promise.reject(new Error(`unexpected call ${service}.${method}`));
        return answer(req);
      };
    }
  }
  return calls;
}

/** An error as a peer's gRPC call fails with it. */
const grpcError = (code: grpc.status, details: string) =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: new grpc.Metadata() });

const noTicket = async () => {
  throw grpcError(grpc.status.NOT_FOUND, 'ticket not found');
};
const unknownToken = async () => {
  throw grpcError(grpc.status.UNAUTHENTICATED, 'unknown token');
};

describe('gateway warm-up', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await buildGateway(readGatewayConfig(env), { logger: false });
    // As main.ts does: listening before the warm-up.
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
  });
  beforeEach(() => {
    gw.readiness.ready = false;
  });
  afterAll(async () => {
    gw.auth.close();
    // A gateway built outside main.ts takes long to close (its process exits instead): bounded here.
    await Promise.race([gw.app.close(), new Promise((r) => setTimeout(r, 1_000).unref())]);
  });

  it('keeps /readyz at 503 until the warm-up has finished', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const calls = recordPeers(gw, { 'messaging.SendByTicket': () => held.then(noTicket), 'tenants.ResolveApiToken': unknownToken });
    const warming = warmUpThenReady(gw, { ms: 10_000, requests: 40 });
    while (!calls.length) await new Promise((r) => setTimeout(r, 5));
    expect((await gw.app.inject({ url: '/readyz' })).statusCode).toBe(503);
    release();
    const result = await warming;
    expect(result.requests).toBe(40);
    expect((await gw.app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });

  it('sends only as tenant 0, without idempotency keys, and its token stops working once ready', async () => {
    const calls = recordPeers(gw, { 'messaging.SendByTicket': noTicket, 'tenants.ResolveApiToken': unknownToken });
    const result = await warmUpThenReady(gw, { ms: 10_000, requests: 64 });
    expect(result.statuses).toEqual({ 404: 60, 401: 4 });
    const sends = calls.filter((c) => c.method === 'messaging.SendByTicket');
    expect(sends).toHaveLength(60);
    for (const { req } of sends) expect(req).toMatchObject({ tenantId: 0, externalKey: '' });
    // The rest: token lookups and the revocation feed, reads.
    const others = new Set(calls.filter((c) => c.method !== 'messaging.SendByTicket').map((c) => c.method));
    for (const method of others) expect(['tenants.ResolveApiToken', 'tenants.WatchRevocations']).toContain(method);
    // After it, the warm-up principal is gone: every token resolves through tenants again.
    const after = await gw.app.inject({
      method: 'POST',
      url: '/v2/api/external/warm-up/sendMessageByTicket',
      headers: { authorization: 'Bearer guess' },
      payload: { ticketId: 1, body: 'x' },
    });
    expect(after.statusCode).toBe(401);
  });

  it('is never refused by the rate limits at their defaults: every request takes the whole route', async () => {
    const { perToken, perTenant } = readGatewayConfig(env).rateLimits;
    const requests = 16 * Math.ceil((perTenant.max + perToken.max) / 16);
    recordPeers(gw, { 'messaging.SendByTicket': noTicket, 'tenants.ResolveApiToken': unknownToken });
    const result = await warmUpThenReady(gw, { ms: 60_000, requests });
    expect(result.statuses).toEqual({ 404: (requests * 15) / 16, 401: requests / 16 });
  });

  it('is bounded by WARMUP_MS when a peer is slow to answer, and WARMUP_MS=0 makes it ready at once', async () => {
    // Answers only long after the bound.
    recordPeers(gw, {
      'messaging.SendByTicket': () => new Promise((r) => setTimeout(r, 3_000)).then(noTicket),
      'tenants.ResolveApiToken': unknownToken,
    });
    const started = Date.now();
    await warmUpThenReady(gw, { ms: 300, requests: 1_000 });
    expect(Date.now() - started).toBeLessThan(2_500);
    expect((await gw.app.inject({ url: '/readyz' })).statusCode).toBe(200);

    gw.readiness.ready = false;
    const none = await warmUpThenReady(gw, { ms: 0, requests: 1_000 });
    expect(none.requests).toBe(0);
    expect(gw.readiness.ready).toBe(true);
  });
});
