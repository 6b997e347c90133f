// npm run bench: sendMessageByTicket through the whole mesh under load, next to a floor pipeline
// (one Fastify process doing the same database insert and outbound HTTP call). Not a test: it
// prints figures. Bounded in time; all traffic stays on loopback.
import autocannon from 'autocannon';
import Fastify from 'fastify';
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';
import { startFakeEngine } from '../support/fake-engine';
import { call } from '../support/http';

const { startMesh } = require('@convo/gateway/dist/mesh') as typeof import('@convo/gateway/dist/mesh');

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failures: number;
}

async function load(name: string, url: string, headers: Record<string, string>, body: string): Promise<Figures> {
  const r = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration: DURATION_S });
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

async function main() {
  const engine = await startFakeEngine();
  const mesh = await startMesh({ freePorts: true, onLine: () => undefined });
  const results: Figures[] = [];
  try {
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: { status: 'active', name: 'Bench', maxUsers: 1, maxConnections: 1, acceptTerms: true, email: `bench-${randomUUID()}@example.com`, password: 'B3nch!mark', userName: 'Bench', profile: 'admin' },
    });
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenant.body.data.tenant.id, name: 'bench', type: 'engine_a', engineUrl: engine.url },
    });
    const { apiId, authToken } = session.body.data.api;
    const root = `${mesh.gatewayUrl}/v2/api/external/${apiId}`;
    const ticket = await call(`${root}/createTicket`, { token: authToken, body: { number: '5511987654321', body: 'warm-up' } });
    const body = JSON.stringify({ ticketId: ticket.body.data.ticketId, body: 'Benchmark message' });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${authToken}` };

    results.push(await load('mesh: gateway → messaging → tickets/tenants/engines → engine', `${root}/sendMessageByTicket`, headers, body));

    // The floor: the least any send pipeline must do — one insert, one provider call.
    const conn = await mongoose.createConnection(mesh.database.uri, { dbName: 'bench_floor' }).asPromise();
    const floor = Fastify();
    floor.post('/send', async (req) => {
      const { ticketId, body: text } = req.body as { ticketId: number; body: string };
      const _id = randomUUID();
      await conn.collection('messages').insertOne({ _id: _id as never, ticketId, body: text, status: 'pending', createdAt: new Date() });
      const res = await fetch(`${engine.url}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jid: '5511987654321@s.whatsapp.net', content: { text } }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.json();
      return { success: true, data: { messageId: _id, ticketId } };
    });
    await floor.listen({ port: 0, host: '127.0.0.1' });
    const { port } = floor.server.address() as { port: number };
    results.push(await load('floor: one Fastify process, insert + HTTP call', `http://127.0.0.1:${port}/send`, headers, body));
    await floor.close();
    await conn.close();
  } finally {
    await mesh.stop();
    await engine.close();
  }

  console.log(`\nsendMessageByTicket, ${CONNECTIONS} connections, ${DURATION_S} s each, database: ${mesh.database.kind}\n`);
  console.log('pipeline'.padEnd(64), 'req/s'.padStart(8), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'requests'.padStart(9), 'failed'.padStart(7));
  for (const f of results) {
    console.log(
      f.name.padEnd(64),
      f.rps.toFixed(0).padStart(8),
      String(f.p50).padStart(8),
      String(f.p99).padStart(8),
      String(f.requests).padStart(9),
      String(f.failures).padStart(7),
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
