import { commandsDuring, SUPER_ADMIN_TOKEN } from '@convo/test-support';
import { randomUUID } from 'node:crypto';
import { engineSession, startHarness, tenantRequest, type Harness } from './support/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('tenants-page-reads-test');
});

afterAll(async () => {
  await h?.stop();
});

async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${h.svc.graphqlPort}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SUPER_ADMIN_TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data: T; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data;
}

interface PageRow {
  id: number;
  name: string;
  plan: { name: string } | null;
  usage: { users: number; maxUsers: number; connections: number; maxConnections: number };
  users?: Array<{ name: string }>;
  integrations?: Array<{ name: string }>;
  channels?: Array<{ name: string }>;
}

/** The console's tenant page (gateway/console/src/main.ts), with the lists a dashboard may add. */
const PAGE = `query($first: Int!, $name: String) { tenantConnection(first: $first, name: $name) { nodes {
  id name status plan { name } usage { users maxUsers connections maxConnections } } } }`;
const PAGE_WITH_LISTS = `query($first: Int!, $name: String) { tenantConnection(first: $first, name: $name) { nodes {
  id name plan { name } usage { users maxUsers connections maxConnections }
  users { name } integrations { name } channels { name } } } }`;

/** The revocation feed's poll (domain/revocations.ts) runs on its own timer, whatever the request. */
const background = (command: string) => command === 'find api_revocations';

/** The database commands one query sends, by kind (`find tenants`, `aggregate users`, …). */
async function commandsOf(query: string, first: number, name: string): Promise<{ rows: PageRow[]; commands: string[] }> {
  let rows: PageRow[] = [];
  const commands = await commandsDuring(h.svc.db, async () => {
    rows = (await graphql<{ tenantConnection: { nodes: PageRow[] } }>(query, { first, name })).tenantConnection.nodes;
  });
  return { rows, commands: commands.filter((c) => !background(c)) };
}

describe("the tenants page's reads (plan, usage, users, integrations, channels batched per request)", () => {
  const tag = `page-${randomUUID().slice(0, 8)}`;
  const tenantIds: number[] = [];

  beforeAll(async () => {
    const plans = await Promise.all(
      ['Basic', 'Pro'].map((plan) =>
        graphql<{ createPlan: { id: number } }>(`mutation { createPlan(name: "${tag} ${plan}", maxUsers: 5, maxConnections: 3) { id } }`),
      ),
    );
    for (let i = 0; i < 100; i++) {
      const planId = i % 3 === 2 ? undefined : plans[i % 3].createPlan.id;
      const { tenant } = await h.client.StoreTenant(
        tenantRequest({ name: `${tag} ${String(i).padStart(3, '0')}`, maxUsers: 5, maxConnections: 3, ...(planId ? { planId } : {}) }),
      );
      tenantIds.push(tenant!.id);
    }
    // A few tenants with more than their first user, and channels: the counts must be each tenant's own.
    for (const [i, channels] of [
      [0, 2],
      [7, 1],
      [99, 3],
    ] as const) {
      for (let c = 0; c < channels; c++) await h.client.CreateSession(engineSession(tenantIds[i], { name: `line ${i}.${c}` }));
    }
  }, 120_000);

  it('answers each tenant its own plan and usage', async () => {
    const { rows } = await commandsOf(PAGE, 100, tag);
    expect(rows.map((r) => r.id)).toEqual(tenantIds);
    expect(rows[0]).toMatchObject({ plan: { name: `${tag} Basic` }, usage: { users: 1, maxUsers: 5, connections: 2, maxConnections: 3 } });
    expect(rows[1].plan).toEqual({ name: `${tag} Pro` });
    expect(rows[2].plan).toBeNull();
    expect(rows[7].usage.connections).toBe(1);
    expect(rows[99].usage.connections).toBe(3);
    expect(rows.filter((r) => r.usage.connections === 0)).toHaveLength(97);
    expect(rows.every((r) => r.usage.users === 1)).toBe(true);
  });

  it("sends as many database commands for 100 tenants as for 5 (the console's page)", async () => {
    const small = await commandsOf(PAGE, 5, tag);
    const large = await commandsOf(PAGE, 100, tag);
    expect(large.rows).toHaveLength(100);
    expect(large.commands.sort()).toEqual(small.commands.sort());
    expect(large.commands.length).toBeLessThanOrEqual(5);
  });

  it('batches the lists too, each tenant answered its own', async () => {
    const small = await commandsOf(PAGE_WITH_LISTS, 5, tag);
    const large = await commandsOf(PAGE_WITH_LISTS, 100, tag);
    expect(large.commands.sort()).toEqual(small.commands.sort());
    expect(large.rows[0].channels!.map((c) => c.name)).toEqual(['line 0.0', 'line 0.1']);
    expect(large.rows[99].channels!.map((c) => c.name)).toEqual(['line 99.0', 'line 99.1', 'line 99.2']);
    expect(large.rows[1].channels).toEqual([]);
    // Each channel made its integration (tenantApiCreateSession's), named as the channel.
    expect(large.rows[99].integrations!.map((i) => i.name)).toEqual(['line 99.0', 'line 99.1', 'line 99.2']);
    expect(large.rows[1].integrations).toEqual([]);
    expect(large.rows.every((r) => r.users!.length === 1 && r.users![0].name === 'Alice')).toBe(true);
  });
});
