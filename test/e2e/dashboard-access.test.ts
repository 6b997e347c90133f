import type { Mesh } from '@convo/dev-mesh';
import { ADMIN_PASSWORD, gql as gqlAt, login as loginAt, newDashboardTenant, type DashboardTenant } from '../support/dashboard';
import { call, UNPACED } from '../support/http';

const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');

/**
 * Who sees what on the GraphQL API, through the real gateway and subgraphs: the super-admin token
 * every tenant, a tenant administrator's console session its own tenant only, integration tokens
 * nothing; domain errors keep their ERR_ code; oversized operations are refused.
 */
describe('GraphQL access, end to end', () => {
  let mesh: Mesh;
  let admin: string;
  const crashes: string[] = [];
  let a: DashboardTenant;
  let b: DashboardTenant;

  const gql = (token: string | undefined, query: string, variables?: Record<string, unknown>) => gqlAt(mesh, token, query, variables);
  const login = (email: string, pw = ADMIN_PASSWORD) => loginAt(mesh, email, pw);

  async function newInactiveTenant(name: string) {
    const email = `${name.toLowerCase()}-${Date.now()}@dashboard.example`;
    const res = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'inactive',
        name,
        maxUsers: 5,
        maxConnections: 5,
        acceptTerms: true,
        email,
        password: ADMIN_PASSWORD,
        userName: 'Ana',
        profile: 'admin',
      },
    });
    expect(res.status).toBe(200);
    return { email };
  }

  beforeAll(async () => {
    mesh = await startMesh({
      freePorts: true,
      env: UNPACED,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
    });
    admin = mesh.superAdminToken;
    a = await newDashboardTenant(mesh, 'Alpha');
    b = await newDashboardTenant(mesh, 'Beta');
  });

  afterAll(async () => {
    await mesh?.stop();
  });

  afterEach(() => expect(crashes).toEqual([]));

  describe('tenant administrator sign-in', () => {
    it('answers a short-lived session for the right password, naming the tenant', async () => {
      const res = await login(a.email.toUpperCase());
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ tenantId: a.id, token: expect.stringMatching(/^cs1\./) });
      const ttl = Date.parse(res.body.data.expiresAt) - Date.now();
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(15 * 60_000);
    });

    it('refuses a wrong password and an unknown e-mail with the same 401', async () => {
      for (const res of [await login(a.email, 'Wr0ng!pass'), await login(`nobody-${Date.now()}@dashboard.example`)]) {
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ success: false, error: 'ERR_UNAUTHORIZED' });
      }
    });

    it("refuses an inactive tenant's administrator", async () => {
      const inactive = await newInactiveTenant('Dormant');
      const res = await login(inactive.email);
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('ERR_TENANT_INACTIVE');
    });
  });

  describe('who sees what', () => {
    it('the super-admin token sees every tenant', async () => {
      const res = await gql(admin, `{ x: tenant(id: ${a.id}) { id name } y: tenant(id: ${b.id}) { id name } }`);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data).toEqual({ x: { id: a.id, name: 'Alpha' }, y: { id: b.id, name: 'Beta' } });
    });

    it('a tenant session sees its own tenant and writes its own catalogue', async () => {
      const mine = await gql(a.session, `{ tenant(id: ${a.id}) { id name } channels(tenantId: ${a.id}) { name } }`);
      expect(mine.body.errors).toBeUndefined();
      expect(mine.body.data).toEqual({ tenant: { id: a.id, name: 'Alpha' }, channels: [{ name: 'Alpha line' }] });
      const tag = await gql(a.session, 'mutation($t: Int!) { createTag(tenantId: $t, name: "vip") { id tenantId } }', { t: a.id });
      expect(tag.body.data.createTag.tenantId).toBe(a.id);
    });

    it('a tenant session gets ERR_FORBIDDEN for the other tenant, and nothing is written there', async () => {
      for (const [query, variables] of [
        [`{ tenant(id: ${b.id}) { id name } }`, undefined],
        ['query($t: Int!) { channels(tenantId: $t) { name } }', { t: b.id }],
        [`mutation { createTag(tenantId: ${b.id}, name: "intruder") { id } }`, undefined],
        ['{ tenants { id } }', undefined],
        ['mutation { createPlan(name: "free-for-all", maxUsers: 1, maxConnections: 1) { id } }', undefined],
      ] as const) {
        const res = await gql(a.session, query, variables);
        expect(res.status).toBe(403);
        expect(res.body.data).toBeUndefined();
        expect(res.body.errors[0].extensions.code).toBe('ERR_FORBIDDEN');
      }
      const tags = await gql(b.session, `{ tags(tenantId: ${b.id}) { name } }`);
      expect(tags.body.data.tags).toEqual([]);
    });

    it('integration tokens get nothing; a forged or missing session gets 401', async () => {
      const integration = await gql(a.integrationToken, `{ tenant(id: ${a.id}) { id } }`);
      expect(integration.status).toBe(403);
      expect(integration.body.error).toBe('ERR_FORBIDDEN');
      const [, payload, mac] = a.session.split('.');
      const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), t: b.id })).toString(
        'base64url',
      );
      expect((await gql(`cs1.${forged}.${mac}`, `{ tenant(id: ${b.id}) { id } }`)).status).toBe(401);
      expect((await gql(undefined, '{ plans { id } }')).status).toBe(401);
    });
  });

  describe('errors and limits', () => {
    it("a subgraph's domain error carries its ERR_ code in extensions.code", async () => {
      const res = await gql(a.session, `mutation { createTag(tenantId: ${a.id}, name: "") { id } }`);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'ERR_VALIDATION', details: [{ field: 'name' }] });
    });

    it('refuses an operation whose cost exceeds the complexity limit, before asking any subgraph', async () => {
      const fields = Array.from({ length: 6 }, (_, i) => `t${i}: tenants(limit: 500) { id name }`).join(' ');
      const res = await gql(admin, `{ ${fields} }`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('ERR_QUERY_TOO_COMPLEX');
    });

    it('introspection is on outside production', async () => {
      const res = await gql(admin, '{ __schema { queryType { name } } }');
      expect(res.body.data.__schema.queryType.name).toBe('Query');
    });
  });
});
