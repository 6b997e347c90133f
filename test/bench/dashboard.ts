// npm run bench:dashboard: the dashboard's ticket page over GraphQL against the same data through
// REST listTickets, and GraphQL through the gateway against the same query sent straight to the
// tickets subgraph. Not a test: it prints figures. Seeds BENCH_TICKETS tickets (default 50)
// through the external API, then measures each request with autocannon for BENCH_SECONDS.
import autocannon from 'autocannon';
import { newDashboardTenant } from '../support/dashboard';
import { call, UNPACED } from '../support/http';
import { startNetworkEngine } from '../support/network-engine';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const TICKETS = Number(process.env.BENCH_TICKETS ?? 50);
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 2);

interface Target {
  name: string;
  url: string;
  token: string;
  body?: unknown;
}

async function measure(t: Target) {
  const result = await autocannon({
    url: t.url,
    method: t.body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    body: t.body === undefined ? undefined : JSON.stringify(t.body),
    connections: CONNECTIONS,
    duration: DURATION_S,
  });
  const failures = result.non2xx + result.errors;
  return {
    name: t.name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures,
  };
}

const page = (tenantId: number, first: number) => ({
  query: `query { tickets(tenantId: ${tenantId}, first: ${first}) { totalCount nodes { id status tagIds updatedAt
    contact { number name } channel { name type } messages { body createdAt } } } }`,
});
const flat = (tenantId: number) => ({
  query: `query { tickets(tenantId: ${tenantId}, first: 20) { nodes { id status tagIds updatedAt contact { number name } } } }`,
});

async function main() {
  const engine = await startNetworkEngine();
  let ticketsSubgraph = '';
  const mesh = await startMesh({
    freePorts: true,
    env: UNPACED,
    onLine: (part, line) => {
      const port = part === 'tickets' && /"graphqlPort":(\d+)/.exec(line)?.[1];
      if (port) ticketsSubgraph = `http://127.0.0.1:${port}/graphql`;
    },
  });
  try {
    const t = await newDashboardTenant(mesh, 'Bench', engine.url);
    for (let i = 0; i < TICKETS; i++) {
      const res = await call(`${t.root}/createTicket`, {
        token: t.integrationToken,
        body: { number: `5511977${String(100_000 + i)}`, body: `hello ${i}` },
      });
      if (res.status !== 200) throw new Error(`createTicket: ${JSON.stringify(res.body)}`);
    }
    const admin = mesh.superAdminToken;
    const figures = [];
    figures.push(
      await measure({ name: 'REST listTickets (20, with last message)', url: `${t.root}/listTickets`, token: t.integrationToken }),
    );
    figures.push(
      await measure({
        name: 'GraphQL tickets(first: 20) + contact, channel, messages',
        url: mesh.graphqlUrl,
        token: t.session,
        body: page(t.id, 20),
      }),
    );
    figures.push(
      await measure({
        name: `GraphQL tickets(first: ${TICKETS}) + contact, channel, messages`,
        url: mesh.graphqlUrl,
        token: t.session,
        body: page(t.id, TICKETS),
      }),
    );
    figures.push(
      await measure({ name: 'GraphQL tickets(first: 20) flat, through the gateway', url: mesh.graphqlUrl, token: admin, body: flat(t.id) }),
    );
    if (ticketsSubgraph) {
      figures.push(
        await measure({
          name: 'GraphQL tickets(first: 20) flat, straight to the tickets subgraph',
          url: ticketsSubgraph,
          token: mesh.env.SUBGRAPH_TOKEN,
          body: flat(t.id),
        }),
      );
    }
    console.table(figures);
    const [, , , viaGateway, direct] = figures;
    // A line whose requests failed measured the refusal, not the work: no ratio from it.
    if (direct && !direct.failures && !viaGateway.failures)
      console.log(`gateway / subgraph throughput: ${Math.round((100 * viaGateway.rps) / direct.rps)} %`);
    else if (direct) console.log('gateway / subgraph throughput: not computed, a line had failures');
  } finally {
    await mesh.stop();
    await engine.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
