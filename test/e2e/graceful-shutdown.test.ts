import type { Mesh } from '@convo/dev-mesh';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { startGatewayReplica } from '../support/gateway-replica';
import { call, eventually, UNPACED } from '../support/http';

const { startMesh, freePort } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

interface Sent {
  body: string;
  status: number | 'no answer';
  messageId?: string;
  error?: string;
}

/**
 * SIGTERM under load: a process that is told to stop finishes what it accepted. Every send answered
 * 200 (durably accepted) while messaging, the dispatcher or a gateway replica were being stopped
 * is delivered to the provider exactly once; the other answers are 503 (refused, nothing stored).
 */
describe('graceful shutdown under load', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let root: string;
  let token: string;
  let apiId: string;
  const ticketIds: number[] = [];
  const crashes: string[] = [];
  const expectedExits = new Set<string>();

  beforeAll(async () => {
    engine = await startFakeEngine();
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      onCrash: (part, code) => {
        if (!expectedExits.delete(part) || code !== 0) crashes.push(`${part}:${code}`);
      },
      // The load is far above the default per-token rate limit: what is measured is shutdown.
      env: { ...UNPACED, RATE_LIMIT_PER_TOKEN: '1000000', RATE_LIMIT_PER_TENANT: '1000000' },
    });
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Shutdown Ltda',
        maxUsers: 5,
        maxConnections: 5,
        acceptTerms: true,
        email: 'ops@shutdown.example',
        password: 'S3cure!pass',
        userName: 'Ops',
        profile: 'admin',
      },
    });
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenant.body.data.tenant.id, name: 'Main', type: 'engine_a', engineUrl: engine.url, engineToken: 'engine-secret' },
    });
    ({ apiId, authToken: token } = session.body.data.api);
    root = `${mesh.gatewayUrl}/v2/api/external/${apiId}`;
    for (let i = 0; i < 4; i++) {
      const t = await call(`${root}/createTicket`, { token, body: { number: `551198765${2000 + i}`, body: `open ${i}` } });
      expect(t.status).toBe(200);
      ticketIds.push(t.body.data.ticketId);
    }
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  /** Sends from `workers` loops against `base` until `until()` resolves; every outcome is kept. */
  async function underLoad(base: string, tag: string, during: () => Promise<void>): Promise<Sent[]> {
    const sent: Sent[] = [];
    let running = true;
    let n = 0;
    const loop = async () => {
      while (running) {
        const body = `${tag}-${n++}`;
        try {
          const res = await fetch(`${base}/v2/api/external/${apiId}/sendMessageByTicket`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ ticketId: ticketIds[n % ticketIds.length], body }),
            signal: AbortSignal.timeout(20_000),
          });
          const json = (await res.json()) as { data?: { messageId: string } };
          sent.push({ body, status: res.status, messageId: json.data?.messageId });
        } catch (err) {
          sent.push({ body, status: 'no answer', error: String((err as Error).cause ?? err) });
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const loops = Array.from({ length: 6 }, loop);
    await new Promise((r) => setTimeout(r, 500));
    await during();
    await new Promise((r) => setTimeout(r, 500));
    running = false;
    await Promise.all(loops);
    return sent;
  }

  async function sigterm(name: string): Promise<void> {
    const child = mesh.processes.get(name)!;
    expectedExits.add(name);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }

  /**
   * How many provider requests carry each send's body (`svc-12`, `gw-3`). Requests are read once, as
   * they arrive: the wait below checks every 20 ms, and re-reading hundreds of requests for each of
   * hundreds of sends starved this process, which is also the provider's.
   */
  const carried = new Map<string, number>();
  let read = 0;
  function deliveries(): Map<string, number> {
    for (; read < engine.requests.length; read++) {
      const found = JSON.stringify(engine.requests[read].body).match(/"(svc|gw)-\d+"/g) ?? [];
      for (const body of new Set(found.map((quoted) => quoted.slice(1, -1)))) carried.set(body, (carried.get(body) ?? 0) + 1);
    }
    return carried;
  }

  async function expectDeliveredOnce(sent: Sent[]): Promise<void> {
    const accepted = sent.filter((s) => s.status === 200);
    expect(accepted.length).toBeGreaterThan(0);
    // Anything else was refused as a whole (503 while a backend stops): nothing half-done.
    expect(
      [...new Set(sent.filter((s) => s.status !== 200 && s.status !== 'no answer').map((s) => s.status))].filter((s) => s !== 503),
    ).toEqual([]);
    await eventually('every accepted send at the provider', () => accepted.every((s) => deliveries().has(s.body)), 60_000).catch(
      async (err: Error) => {
        const missing = accepted.filter((s) => !deliveries().has(s.body)).slice(0, 5);
        const records = await Promise.all(
          missing.map(async (s) => ({
            body: s.body,
            record: (await call(`${root}/getMessageByMessageId?messageId=${s.messageId}`, { token })).body.data,
          })),
        );
        throw new Error(`${err.message}; not there (at most 5): ${JSON.stringify(records)}`);
      },
    );
    for (const s of accepted) {
      expect({ body: s.body, seen: deliveries().get(s.body) }).toEqual({ body: s.body, seen: 1 });
      const msg = await call(`${root}/getMessageByMessageId?messageId=${s.messageId}`, { token });
      expect({ body: s.body, status: msg.body.data.status }).toEqual({ body: s.body, status: 'sent' });
    }
  }

  it('messaging and the dispatcher stopped and restarted mid-load: every accepted send delivered once', async () => {
    const sent = await underLoad(mesh.gatewayUrl, 'svc', async () => {
      await sigterm('messaging');
      await mesh.restart('messaging');
      await sigterm('messaging-dispatcher');
      await mesh.restart('messaging-dispatcher');
    });
    expect(sent.filter((s) => s.status === 'no answer')).toEqual([]);
    await expectDeliveredOnce(sent);
    expect(crashes).toEqual([]);
  });

  it('a gateway replica stopped mid-load answers what it accepted', async () => {
    const replica = await startGatewayReplica(await freePort(), mesh.env);
    const sent = await underLoad(replica.url, 'gw', () => replica.stop());
    // A send without an answer was never accepted: after the stop its connection is refused, or
    // (HTTP/1.1's keep-alive race) it was written on an idle connection the stopping server closed
    // before reading it. Either way it must not reach the provider: an accepted send is answered.
    const unanswered = sent.filter((x) => x.status === 'no answer');
    for (const s of unanswered)
      expect({ body: s.body, error: s.error }).toEqual({
        body: s.body,
        error: expect.stringMatching(/ECONNREFUSED|other side closed|ECONNRESET/),
      });
    await expectDeliveredOnce(sent);
    for (const s of unanswered) expect({ body: s.body, seen: deliveries().get(s.body) ?? 0 }).toEqual({ body: s.body, seen: 0 });
    expect(crashes).toEqual([]);
  });
});
