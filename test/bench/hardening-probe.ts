// npm run probe:hardening (in test/): the hardening targets (bounded input, fair rate limits, the
// mesh credential), measured on a real mesh with its default limits. Not a test: it prints figures.
//   1. A 4,000,000-element array body: status, time, answer size, gateway RSS (sampled throughout),
//      on a JSON route (1 MiB limit) and on a media route (24 MiB limit, so the body is validated).
//   2. 2,000 requests in 10 s from one token while another tenant's p50 is measured, against its
//      idle p50.
//   3. A gRPC call without the mesh credential to each of the five services.
import { loadService } from '@convo/kit';
import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { startFakeEngine } from '../support/fake-engine';
import { call, UNPACED } from '../support/http';
import { runScript } from './script';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0; // the process is gone (the mesh is stopping)
  }
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A POST that reads the answer even when the server answers (413) before reading the whole body
 * and closes the connection under the upload (fetch reports that as a failure, EPIPE).
 */
function postRaw(url: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    req.end(body);
  });
}

async function main() {
  const engine = await startFakeEngine();
  const mesh = await startMesh({ freePorts: true, env: UNPACED, onLine: () => undefined });
  try {
    const admin = mesh.superAdminToken;
    let n = 0;
    const integration = async () => {
      const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
        token: admin,
        body: {
          status: 'active',
          name: 'Probe',
          maxUsers: 10,
          maxConnections: 10,
          acceptTerms: true,
          email: `probe-${++n}@probe.example`,
          password: 'S3cure!pass',
          userName: 'Owner',
          profile: 'admin',
        },
      });
      const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
        token: admin,
        body: {
          tenant: tenant.body.data.tenant.id,
          name: 'engine_a',
          type: 'engine_a',
          engineUrl: engine.url,
          engineToken: 'engine-secret',
        },
      });
      const root = `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`;
      const token = session.body.data.api.authToken as string;
      const ticket = await call(`${root}/createTicket`, { token, body: { number: `552199000${1000 + n}`, body: 'probe' } });
      return { root, token, ticketId: ticket.body.data.ticketId as number };
    };
    const [a, b] = [await integration(), await integration()];
    const gatewayPid = mesh.processes.get('gateway')!.pid!;

    // ---- 1. the 4,000,000-element array ------------------------------------------------------
    for (const [label, op, payload] of [
      ['addTag (JSON route)', 'addTag', () => `{"ticketId":${a.ticketId},"tagIds":[${new Array(4_000_000).fill('"x"').join(',')}]}`],
      [
        'sendMessageByTicket (media route)',
        'sendMessageByTicket',
        () => `{"ticketId":[${new Array(4_000_000).fill('1').join(',')}],"body":"x"}`,
      ],
      [
        'sendMessageByTicket (media route, strings)',
        'sendMessageByTicket',
        () => `{"ticketId":${a.ticketId},"mediaUrl":[${new Array(4_000_000).fill('"x"').join(',')}]}`,
      ],
    ] as const) {
      const body = payload();
      let peak = rssMb(gatewayPid);
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(gatewayPid))), 20);
      const started = performance.now();
      const res = await postRaw(`${a.root}/${op}`, a.token, body);
      const text = res.text;
      const ms = performance.now() - started;
      await sleep(200);
      clearInterval(sampler);
      console.log(
        `4M array, ${label}: body ${(body.length / 1e6).toFixed(1)} MB → ${res.status} in ${ms.toFixed(0)} ms, answer ${text.length} B, gateway RSS peak ${peak.toFixed(0)} MB`,
      );
    }

    // ---- 2. burst from one token, another tenant's p50 -----------------------------------------
    const one = async (who: typeof a) => {
      const t = performance.now();
      const res = await fetch(`${who.root}/showTicketById`, {
        method: 'POST',
        headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ticketId: who.ticketId }),
      });
      await res.arrayBuffer();
      return { ms: performance.now() - t, status: res.status };
    };
    const idle: number[] = [];
    for (let i = 0; i < 100; i++) idle.push((await one(b)).ms);
    const codes = new Map<number, number>();
    const during: number[] = [];
    let bursting = true;
    const burst = (async () => {
      const inFlight: Promise<void>[] = [];
      const t0 = performance.now();
      for (let i = 0; i < 2000; i++) {
        // 200 per second for 10 s.
        const due = t0 + i * 5;
        if (due > performance.now()) await sleep(due - performance.now());
        inFlight.push(one(a).then((r) => void codes.set(r.status, (codes.get(r.status) ?? 0) + 1)));
      }
      await Promise.all(inFlight);
      bursting = false;
    })();
    while (bursting) during.push((await one(b)).ms);
    await burst;
    console.log(
      `burst of 2,000 in 10 s from one token: ${JSON.stringify(Object.fromEntries(codes))}; other tenant p50 idle ${median(idle).toFixed(1)} ms, during ${median(during).toFixed(1)} ms (${during.length} requests)`,
    );

    // ---- 3. gRPC without a credential --------------------------------------------------------
    const calls: [string, Parameters<typeof loadService>[0], string, object][] = [
      ['tickets', 'tickets', 'GetTicket', { tenantId: 1, ticketId: 1 }],
      ['messaging', 'messaging', 'LastMessages', { tenantId: 1, ticketIds: [1] }],
      ['channel-engines', 'channelEngines', 'PullWebchat', { channelId: 1, visitorId: '1', after: '', limit: 1 }],
      ['social-config', 'socialConfig', 'GetProfile', { tenantId: 1, channelId: 1 }],
      ['tenants', 'tenants', 'GetChannel', { tenantId: 0, channelId: 1 }],
    ];
    for (const [name, service, method, request] of calls) {
      const { Client } = loadService(service);
      const client = new Client(mesh.grpcAddresses[name], grpc.credentials.createInsecure()) as unknown as Record<
        string,
        (...args: unknown[]) => unknown
      > & { close(): void };
      const err = await new Promise<grpc.ServiceError | null>((resolve) =>
        client[method](request, new grpc.Metadata(), { deadline: Date.now() + 5_000 }, resolve),
      );
      client.close();
      console.log(`gRPC ${name}.${method} without credential: ${err ? grpc.status[err.code] : 'ANSWERED'}`);
    }
  } finally {
    await mesh.stop();
    await engine.close();
  }
}

runScript(main);
