import { SUPER_ADMIN_TOKEN } from '@convo/test-support';
import { startHarness, type Harness } from './support/harness';

// A tenant administrator's reach, held by the tenants subgraph itself (whoever forwards the
// operation), by the same declarations and check as the gateway: the subgraph asked directly.

let h: Harness;

beforeAll(async () => {
  h = await startHarness('tenants-tenant-scope-test');
});

afterAll(() => h?.stop());

interface Answer {
  status: number;
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

async function gql(caller: string, query: string): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${h.svc.graphqlPort}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SUPER_ADMIN_TOKEN}`, 'x-convo-caller': caller },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, ...((await res.json()) as Omit<Answer, 'status'>) };
}

const CREATE_PLAN = 'mutation { createPlan(name: "Scope test", maxUsers: 1, maxConnections: 1) { name } }';

describe('tenant scope on the tenants subgraph', () => {
  it("answers a tenant session its own tenant and the plans, and refuses another tenant's, tenants and createPlan", async () => {
    const mine = await h.newTenant();
    const theirs = await h.newTenant();
    const caller = `tenant:${mine.id}`;

    const own = await gql(caller, `{ tenant(id: ${mine.id}) { id } plans { id } }`);
    expect(own.errors).toBeUndefined();
    expect(own.data).toEqual({ tenant: { id: mine.id }, plans: expect.any(Array) });

    const refused = [
      [`{ tenant(id: ${theirs.id}) { id } }`, `tenant: this session reaches tenant ${mine.id} only`],
      ['{ tenants { id } }', 'tenants is for the platform administrator only'],
      [CREATE_PLAN, 'createPlan is for the platform administrator only'],
    ];
    for (const [query, message] of refused) {
      const res = await gql(caller, query);
      expect({ status: res.status, error: res.errors?.[0] }).toEqual({
        status: 403,
        error: expect.objectContaining({ message, extensions: { code: 'ERR_FORBIDDEN' } }),
      });
      expect(res.data ?? null).toBeNull();
    }
  });

  it('answers the platform every one of them', async () => {
    const tenant = await h.newTenant();
    for (const query of [`{ tenant(id: ${tenant.id}) { id } }`, '{ tenants { id } }', CREATE_PLAN]) {
      const res = await gql('platform', query);
      expect({ status: res.status, errors: res.errors }).toEqual({ status: 200, errors: undefined });
    }
  });
});
