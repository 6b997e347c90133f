// Shared by the service-level tests: the real tenants service on port 0 over the test database.
import { createClient, type proto, type ServiceClient } from '@convo/kit';
import { startTestMesh, type TestMesh, type TestService } from '@convo/test-support';
import { randomUUID } from 'node:crypto';
import { tenantsService, type TenantsConfig } from '../../src/spec';

export interface Harness {
  /** The test file's database and services: more instances, or one on another database. */
  mesh: TestMesh;
  svc: TestService<'tenants', TenantsConfig>;
  client: ServiceClient<'tenants'>;
  count(collection: string, filter?: Record<string, unknown>): Promise<number>;
  /** Stores a valid tenant with an identity of its own; answers it with that identity. */
  newTenant(over?: Record<string, unknown>): Promise<proto.tenants.Tenant__Output & { identity: string }>;
  /** Another instance of the service on the same database: a second replica. */
  replica(env?: Record<string, string>): Promise<TestService<'tenants', TenantsConfig>>;
  stop(): Promise<void>;
}

export async function startHarness(name: string, env: Record<string, string> = {}): Promise<Harness> {
  const mesh = await startTestMesh(name, env);
  const replica = (extra: Record<string, string> = {}) => mesh.start(tenantsService, { env: extra });
  const svc = await replica().catch(async (err: unknown) => {
    await mesh.stop();
    throw err;
  });
  return {
    mesh,
    svc,
    // As messaging, the caller that receives a channel's every secret (grpc/channel-secrets.ts).
    client: createClient('tenants', svc.address, { caller: 'messaging' }),
    count: (collection, filter = {}) => svc.db.collection(collection).countDocuments(filter),
    newTenant: async (over = {}) => {
      const identity = uniqueIdentity();
      const { tenant } = await svc.client.StoreTenant(tenantRequest({ identity, ...over }));
      return { ...tenant!, identity };
    },
    replica,
    stop: mesh.stop,
  };
}

/** Every string value of a document, however deeply nested. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
  return [];
}

export const uniqueEmail = () => `admin-${randomUUID()}@example.com`;
/** A CNPJ-shaped identity nobody else has. */
export const uniqueIdentity = () => `${Date.now()}${Math.floor(Math.random() * 1e6)}`.slice(-14).padStart(14, '0');

/** A valid StoreTenant request; override what a test is about. */
export const tenantRequest = (over: Record<string, unknown> = {}) => ({
  status: 'active',
  name: 'Acme',
  maxUsers: 5,
  maxConnections: 10,
  acceptTerms: true,
  email: uniqueEmail(),
  password: 'secret-pass1',
  userName: 'Alice',
  profile: 'admin',
  ...over,
});

export const engineSession = (tenant: number, over: Record<string, unknown> = {}) => ({
  tenant,
  name: 'Engine line',
  type: 'engine_a',
  engineUrl: 'http://engine.local',
  engineToken: 'eng-tok',
  ...over,
});

export const wabaSession = (tenant: number, over: Record<string, unknown> = {}) => ({
  tenant,
  name: 'Official line',
  type: 'waba',
  tokenApi: '1234567890',
  wabaId: 'waba-1',
  bmToken: 'bm-token',
  ...over,
});
