import type { Mesh } from '@convo/dev-mesh';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, eventually, UNPACED } from '../support/http';
import { samples } from '../support/metrics';
import { newIntegration, roundRobin, sharedRateLimits, type TestIntegration } from '../support/replicas';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const LIMIT = 600;
/** Longer than the requests take on a loaded machine, so that they all fall in one window. */
const WINDOW_MS = 60_000;

/**
 * Two replicas of every process (MESH_REPLICAS=2 as an option): the services reached over their
 * address lists (round_robin), the gateways sharing their rate limits in Redis.
 */
describe('two replicas of every process', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let api: TestIntegration;
  const crashes: string[] = [];

  beforeAll(async () => {
    engine = await startFakeEngine();
    const env = {
      ...UNPACED,
      ...sharedRateLimits(),
      RATE_LIMIT_PER_TOKEN: String(LIMIT),
      RATE_LIMIT_PER_TENANT: '1000000',
      RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
    };
    mesh = await startMesh({
      freePorts: true,
      replicas: { '*': 2 },
      env,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
    });
    api = await newIntegration(mesh, engine.url);
  }, 300_000);

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  it('starts each replica on its own ports and gives every process the address list of each service', () => {
    expect(mesh.replicas.messaging).toEqual(['messaging', 'messaging-2']);
    expect(mesh.gatewayUrls).toHaveLength(2);
    const ports = [...mesh.endpoints.values()].flatMap((e) => [e.http, e.grpc ?? []].flat());
    expect(new Set(ports).size).toBe(ports.length);
    expect(mesh.env.MESSAGING_GRPC_ADDR).toBe(`${mesh.grpcAddresses.messaging},${mesh.grpcAddresses['messaging-2']}`);
    // Two connections to the embedded database for each of the 16 processes that use it (FerretDB has 36).
    expect(mesh.env.MONGODB_MAX_POOL_SIZE).toBe(mesh.database.kind.startsWith('ferretdb') ? '2' : undefined);
    for (const name of Object.values(mesh.replicas).flat()) expect(mesh.processes.get(name)?.exitCode).toBeNull();
  });

  it('delivers sends made through either gateway, each once', async () => {
    const gateway = roundRobin(mesh.gatewayUrls);
    const created = await call(`${gateway()}${api.path}/createTicket`, {
      token: api.token,
      body: { number: '5521990004000', body: 'first' },
    });
    expect(created.status).toBe(200);
    const ids = [created.body.data.messageId as string];
    for (let i = 0; i < 10; i++) {
      const sent = await call(`${gateway()}${api.path}/sendMessageByTicket`, {
        token: api.token,
        body: { ticketId: created.body.data.ticketId, body: `m${i}` },
      });
      expect(sent.status).toBe(200);
      ids.push(sent.body.data.messageId);
    }
    await eventually(
      'every message at the engine',
      () => ids.every((id) => engine.requests.some((r) => r.body?.options?.messageId === id)),
      60_000,
    );
    const seen = engine.requests.map((r) => r.body?.options?.messageId).filter((id) => ids.includes(id));
    // Once each, in acceptance order (the ticket's messages go out one after another).
    expect(seen).toEqual(ids);
  });

  it('refuses a send asked after a close answered, through either gateway, though messaging replicas kept copies of the open ticket', async () => {
    const gateway = roundRobin(mesh.gatewayUrls);
    const created = await call(`${gateway()}${api.path}/createTicket`, {
      token: api.token,
      body: { number: '5521990004002', body: 'first' },
    });
    expect(created.status).toBe(200);
    const ticketId = created.body.data.ticketId as number;
    // Sends accepted on a kept copy of the ticket, over the messaging replicas.
    const copiesUsed = async () => {
      let hits = 0;
      for (const name of mesh.replicas.messaging) {
        const text = await (await fetch(`${mesh.endpoints.get(name)!.http}/metrics`)).text();
        hits += samples(text, 'convo_cache_lookups_total', { cache: 'ticket', result: 'hit' })[0] ?? 0;
      }
      return hits;
    };
    const before = await copiesUsed();
    for (let i = 0; i < 10; i++) {
      const sent = await call(`${gateway()}${api.path}/sendMessageByTicket`, { token: api.token, body: { ticketId, body: `burst ${i}` } });
      expect(sent.status).toBe(200);
    }
    expect(await copiesUsed()).toBeGreaterThan(before);

    const closed = await call(`${gateway()}${api.path}/updateticketinfo`, { token: api.token, body: { ticketId, status: 'closed' } });
    expect(closed.status).toBe(200);
    for (const url of mesh.gatewayUrls) {
      for (let i = 0; i < 2; i++) {
        const refused = await call(`${url}${api.path}/sendMessageByTicket`, {
          token: api.token,
          body: { ticketId, body: 'after the close' },
        });
        expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 409, error: 'ERR_TICKET_CLOSED' });
      }
    }
  });

  it("answers GraphQL from a subgraph's other replica while the first is down", async () => {
    expect(mesh.env.TICKETS_GRAPHQL_URL.split(',')).toHaveLength(2);
    const query = { query: `{ tags(tenantId: ${api.tenantId}) { id } }` };
    const ask = () => call(mesh.graphqlUrl, { token: mesh.superAdminToken, body: query });
    expect((await ask()).body.errors).toBeUndefined();
    await mesh.kill('tickets');
    try {
      // Every query answered, whichever replica's turn it was.
      for (let i = 0; i < 6; i++) {
        const res = await ask();
        expect(res.status).toBe(200);
        expect(res.body.errors).toBeUndefined();
      }
    } finally {
      await mesh.restart('tickets');
      // The kill was this test's own doing.
      const killed = crashes.findIndex((c) => c.startsWith('tickets:'));
      if (killed >= 0) crashes.splice(killed, 1);
    }
  });

  it("holds one token's rate limit across both gateways: 2,000 requests in 10 s, no more allowed on a count than the limit", async () => {
    // A token of its own, so that its window starts with createTicket below: the token the tests
    // above used may still be inside a window of theirs that ends during the burst (a second
    // window's worth allowed: 1,161 on a slow machine).
    const own = await newIntegration(mesh, engine.url, 'Rate limit');
    const started = Date.now();
    const created = await call(`${mesh.gatewayUrl}${own.path}/createTicket`, {
      token: own.token,
      body: { number: '5521990004001', body: 'hi' },
    });
    expect(created.status).toBe(200);
    const { ticketId } = created.body.data;
    const gateway = roundRobin(mesh.gatewayUrls);
    const answers = await Promise.all(
      Array.from({ length: 2_000 }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 5));
        const url = gateway();
        const res = await fetch(`${url}${own.path}/showTicketById`, {
          method: 'POST',
          headers: { authorization: `Bearer ${own.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ticketId }),
          signal: AbortSignal.timeout(60_000),
        });
        await res.arrayBuffer();
        return { url, status: res.status, remaining: res.headers.get('ratelimit-remaining') };
      }),
    );
    const elapsed = Date.now() - started;
    // Allowed: every request the limiter let through, whatever it then answered (on this loaded
    // machine a few time out at the gateway: 504, counted and printed).
    const allowed = answers.filter((a) => a.status !== 429);
    const byGateway = mesh.gatewayUrls.map((u) => allowed.filter((a) => a.url === u).length);
    const timedOut = answers.filter((a) => a.status === 504 || a.status === 503).length;
    // Let through uncounted: Redis did not answer the gateway within its command timeout (500 ms),
    // and a request is then let through (docs/operations.md), with the limit's full remainder in its
    // headers, which no counted request carries. On this 2-core machine: none on a quiet run, 222 on
    // one loaded by a build, both gateways' event loops lagging under the burst (the command still
    // reaches Redis and counts there).
    const failedOpen = allowed.filter((a) => a.remaining === String(LIMIT)).length;
    const counted = allowed.length - failedOpen;
    console.log(
      `rate limit ${LIMIT} per token across 2 gateways: ${allowed.length} allowed (${byGateway.join(' + ')}; ${timedOut} of them 503/504; ` +
        `${failedOpen} let through when Redis did not answer in time), ${answers.length - allowed.length} refused, in ${elapsed} ms`,
    );
    expect(answers.filter((a) => ![200, 429, 503, 504].includes(a.status))).toEqual([]);
    // All in one window (from createTicket to the last answer), or the sum could be two windows' worth.
    expect(elapsed).toBeLessThan(WINDOW_MS);
    // Counted in one place: the requests allowed on a count, with createTicket's, never more than the
    // limit (each gateway counting alone would allow up to twice as many); those let through
    // uncounted make up the rest of it, at least 90 % in all ...
    expect(counted + 1).toBeLessThanOrEqual(LIMIT);
    expect(allowed.length + 1).toBeGreaterThanOrEqual(LIMIT * 0.9);
    // ... and most of the requests beyond it were refused (not all let through on a store in trouble).
    expect(answers.length - allowed.length).toBeGreaterThanOrEqual((answers.length - LIMIT) * 0.75);
    // Both gateways allowed some.
    expect(Math.min(...byGateway)).toBeGreaterThan(0);
  });
});
