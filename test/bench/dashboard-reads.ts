// npm run bench:dashboard-reads: what one page of the dashboard's tickets (joined with contact,
// channel and messages) costs each subgraph, for pages of 5, 20 and 50 tickets: the requests the
// gateway sends it and the database commands it runs (deltas of each process's Prometheus series
// `http_server_requests_total` and `convo_db_command_duration_seconds_count`). Not a test: it
// prints figures. The tenants service also polls its revocation feed every 200 ms, so its figure
// can carry one or two `find`s that are not the page's: each line is the median of REPEATS pages.
import type { Mesh } from '@convo/dev-mesh';
import { newDashboardTenant } from '../support/dashboard';
import { call, UNPACED } from '../support/http';
import { startNetworkEngine } from '../support/network-engine';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const SUBGRAPHS = ['tickets', 'tenants', 'messaging'] as const;
const SIZES = [5, 20, 50];
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);

const page = (tenantId: number, first: number) => ({
  query: `query { tickets(tenantId: ${tenantId}, first: ${first}) { totalCount nodes { id status tagIds updatedAt
    contact { number name } channel { name type } messages { body createdAt } } } }`,
});

/** The sum of the samples of `name` (any labels) whose labels include `filter`. */
function total(text: string, name: string, filter = ''): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(filter))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

async function counters(mesh: Mesh): Promise<Record<string, { fetches: number; commands: number }>> {
  const out: Record<string, { fetches: number; commands: number }> = {};
  for (const name of SUBGRAPHS) {
    const text = await (await fetch(`${mesh.endpoints.get(name)!.http}/metrics`)).text();
    out[name] = {
      fetches: total(text, 'http_server_requests_total', 'route="/graphql"'),
      commands: total(text, 'convo_db_command_duration_seconds_count'),
    };
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const engine = await startNetworkEngine();
  const mesh = await startMesh({ freePorts: true, env: UNPACED, onLine: () => undefined });
  try {
    const t = await newDashboardTenant(mesh, 'Reads', engine.url);
    for (let i = 0; i < Math.max(...SIZES); i++) {
      const res = await call(`${t.root}/createTicket`, {
        token: t.integrationToken,
        body: { number: `5511966${String(100_000 + i)}`, body: `hello ${i}` },
      });
      if (res.status !== 200) throw new Error(`createTicket: ${JSON.stringify(res.body)}`);
    }
    const rows = [];
    for (const size of SIZES) {
      const runs: Array<Record<string, { fetches: number; commands: number }>> = [];
      for (let r = 0; r < REPEATS; r++) {
        const before = await counters(mesh);
        const res = await call(mesh.graphqlUrl, { token: t.session, body: page(t.id, size) });
        if (res.status !== 200 || res.body.errors || res.body.data.tickets.nodes.length !== size)
          throw new Error(`page: ${JSON.stringify(res.body).slice(0, 300)}`);
        const after = await counters(mesh);
        runs.push(
          Object.fromEntries(
            SUBGRAPHS.map((s) => [s, { fetches: after[s].fetches - before[s].fetches, commands: after[s].commands - before[s].commands }]),
          ),
        );
      }
      const row: Record<string, number | string> = { 'page size': size };
      for (const s of SUBGRAPHS) {
        row[`${s} requests`] = median(runs.map((x) => x[s].fetches));
        row[`${s} db commands`] = median(runs.map((x) => x[s].commands));
      }
      rows.push(row);
    }
    console.table(rows);
  } finally {
    await mesh.stop();
    await engine.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
