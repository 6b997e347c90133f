import { buildSchema, Kind, parse, validate, type OperationDefinitionNode } from 'graphql';
import { checkTenantScopes, tenantScopeViolation } from '@convo/kit/graphql/tenant-scope';
import { readGatewayConfig } from '../src/config';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { depthRule } from '../src/dashboard/limits';
import { SessionSigner } from '../src/dashboard/session';

describe('SessionSigner', () => {
  let now = 1_000_000;
  const signer = new SessionSigner('secret-of-the-test', 60, () => now);

  it('verifies its own token until it expires', () => {
    const { token, expiresAt } = signer.sign(7, 21, 'v1');
    expect(expiresAt.getTime()).toBe((1_000_000 + 60) * 1000);
    expect(signer.verify(token)).toEqual({ tenantId: 7, userId: 21, version: 'v1', exp: 1_000_060 });
    now += 60;
    expect(signer.verify(token)).toBeUndefined();
    now = 1_000_000;
  });

  it('refuses a token whose tenant was changed, or signed with another secret', () => {
    const { token } = signer.sign(7, 21, 'v1');
    const [, payload, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), t: 8 })).toString('base64url');
    expect(signer.verify(`cs1.${forged}.${mac}`)).toBeUndefined();
    expect(new SessionSigner('another-secret', 60, () => now).verify(token)).toBeUndefined();
    expect(signer.verify('cs1.garbage')).toBeUndefined();
  });
});

// The supergraph the gateway serves carries each root field's tenant scope (the subgraphs' `@tag`s),
// which the gateway checks before any subgraph is asked (the check itself: the kit's tests).
describe('tenant scope over the composed supergraph', () => {
  // Composed by the build from the subgraphs' SDL files.
  const supergraph = buildSchema(readFileSync(join(__dirname, '..', 'supergraph.graphql'), 'utf8'));
  const check = (query: string, variables: Record<string, unknown> = {}) => {
    const document = parse(query);
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    return tenantScopeViolation(supergraph, { document, operation, variables }, { kind: 'tenant', tenantId: 5 });
  };

  it('holds only declarations its fields can honour', () => {
    expect(() => checkTenantScopes(supergraph)).not.toThrow();
  });

  it('lets a tenant session ask its own tenant (tenant by id, the rest by tenantId) and the catalogues', () => {
    expect(check('{ tenant(id: 5) { id } tags(tenantId: 5) { id } plans { id } driverKinds }')).toBeUndefined();
    expect(
      check('query($t: Int!) { ticket(tenantId: $t, id: 1) { id } channelProfile(tenantId: $t, channelId: 1) { channelId } }', { t: 5 }),
    ).toBeUndefined();
    expect(
      check('mutation { createTag(tenantId: 5, name: "x") { id } replayWebhookDelivery(tenantId: 5, id: "x") { id } }'),
    ).toBeUndefined();
  });

  it('refuses another tenant, and the platform fields', () => {
    expect(check('{ tenant(id: 6) { id } }')).toBe('tenant: this session reaches tenant 5 only');
    expect(check('query($t: Int!) { deliveryHealth(tenantId: $t) { __typename } }', { t: 6 })).toMatch(/tenant 5 only/);
    expect(check('{ tenants { id } }')).toBe('tenants is for the platform administrator only');
    expect(check('mutation { createPlan(name: "x", maxUsers: 1, maxConnections: 1) { id } }')).toMatch(/platform administrator/);
    expect(check('{ deliveries(channelId: 1) { id } }')).toMatch(/platform administrator/);
    expect(check('{ paymentWebhooks(tenantId: 5) { __typename } }')).toMatch(/platform administrator/);
  });
});

describe('query limits', () => {
  const schema = buildSchema('type Node { child: Node name: String } type Query { root: Node }');
  it('refuses an operation deeper than the limit', () => {
    const rule = depthRule({ maxDepth: 3, maxComplexity: 100 });
    expect(validate(schema, parse('{ root { child { child { name } } } }'), [rule])).toEqual([]);
    const errors = validate(schema, parse('{ root { child { child { child { child { name } } } } } }'), [rule]);
    expect(errors[0]?.message).toMatch(/exceeds maximum operation depth of 3/);
  });
});

describe('introspection policy', () => {
  const env = { SUPER_ADMIN_TOKEN: 'x'.repeat(20), SUBGRAPH_TOKEN: 'g'.repeat(32), SESSION_SECRET: 's'.repeat(32) };
  it('is on by default, off in production, and set explicitly by GRAPHQL_INTROSPECTION', () => {
    expect(readGatewayConfig(env).dashboard.introspection).toBe(true);
    expect(readGatewayConfig({ ...env, NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com' }).dashboard.introspection).toBe(
      false,
    );
    expect(readGatewayConfig({ ...env, NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' }).dashboard.introspection).toBe(true);
    expect(readGatewayConfig({ ...env, GRAPHQL_INTROSPECTION: 'false' }).dashboard.introspection).toBe(false);
  });
});

describe('independent secrets', () => {
  const admin = 'a'.repeat(32);
  const base = { SUPER_ADMIN_TOKEN: admin, SUBGRAPH_TOKEN: 'g'.repeat(32), SESSION_SECRET: 's'.repeat(32), MESH_SECRET: 'm'.repeat(32) };
  const without = (name: keyof typeof base, extra: Record<string, string> = {}) => {
    const env: Record<string, string> = { ...base, ...extra };
    delete env[name];
    return env;
  };

  it('reads each of its own, none derived from the super-admin token', () => {
    const config = readGatewayConfig(base);
    expect(config.subgraphToken).toBe('g'.repeat(32));
    expect(config.dashboard.sessionSecret).toBe('s'.repeat(32));
  });

  it('requires the subgraph token everywhere, and the session key in production', () => {
    expect(() => readGatewayConfig(without('SUBGRAPH_TOKEN'))).toThrow(/SUBGRAPH_TOKEN is required/);
    expect(() => readGatewayConfig(without('SESSION_SECRET', { NODE_ENV: 'production' }))).toThrow(
      /SESSION_SECRET is required in production/,
    );
  });

  it('in development, an unset session key is random, never derived from the super-admin token', () => {
    const one = readGatewayConfig(without('SESSION_SECRET')).dashboard.sessionSecret;
    const two = readGatewayConfig(without('SESSION_SECRET')).dashboard.sessionSecret;
    expect(one.length).toBeGreaterThanOrEqual(32);
    expect(one).not.toBe(two);
    expect(one).not.toContain(admin);
  });

  it('refuses two secrets that are the same, and a short one', () => {
    expect(() => readGatewayConfig({ ...base, SUBGRAPH_TOKEN: admin })).toThrow(/SUPER_ADMIN_TOKEN and SUBGRAPH_TOKEN must be different/);
    expect(() => readGatewayConfig({ ...base, SESSION_SECRET: 'm'.repeat(32) })).toThrow(
      /SESSION_SECRET and MESH_SECRET must be different/,
    );
    expect(() => readGatewayConfig({ ...base, SESSION_SECRET: 'short' })).toThrow(/SESSION_SECRET must have at least 16/);
  });
});
