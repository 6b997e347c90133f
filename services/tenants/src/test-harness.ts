// Shared by the service-level tests: the real tenants service on port 0 over the test database.
import * as grpc from '@grpc/grpc-js';
import { closeAllClients, createClient, startService, type RunningService, type ServiceClient } from '@convo/kit';
import { startDatabase, type Database } from '@convo/dev-db';
import { randomUUID } from 'node:crypto';
import { tenantsService, type TenantsConfig } from './server';

export const SUPER_ADMIN_TOKEN = 'x'.repeat(24);

export interface Harness {
  database: Database;
  svc: RunningService<TenantsConfig>;
  client: ServiceClient<'tenants'>;
  count(collection: string, filter?: Record<string, unknown>): Promise<number>;
  /** Another instance of the service on the same database: a second replica. */
  replica(env?: Record<string, string>): Promise<RunningService<TenantsConfig>>;
  stop(): Promise<void>;
}

export async function startHarness(name: string, env: Record<string, string> = {}): Promise<Harness> {
  const database = await startDatabase({ name });
  const replicas: Array<RunningService<TenantsConfig>> = [];
  const start = (extra: Record<string, string> = {}) =>
    startService(tenantsService, {
      MONGODB_URI: database.uri,
      GRPC_PORT: '0',
      GRAPHQL_PORT: '0',
      SUPER_ADMIN_TOKEN,
      LOG_LEVEL: 'silent',
      ...env,
      ...extra,
    }).then((s) => {
      replicas.push(s);
      return s;
    });
  const svc = await start();
  return {
    database,
    svc,
    client: createClient('tenants', `127.0.0.1:${svc.grpcPort}`),
    count: (collection, filter = {}) => svc.db.collection(collection).countDocuments(filter),
    replica: start,
    stop: async () => {
      closeAllClients();
      await Promise.all(replicas.map((r) => r.stop()));
      await database.stop();
    },
  };
}

/** The rejection of a call that must fail. */
export async function rpcError(call: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await call;
  } catch (err) {
    return err as grpc.ServiceError;
  }
  throw new Error('expected the call to fail, it succeeded');
}

export const errCode = (err: grpc.ServiceError) => err.metadata.get('err-code')[0];

export const errDetails = (err: grpc.ServiceError): Array<{ field: string; message: string }> => {
  const raw = err.metadata.get('err-details-bin')[0];
  return raw ? (JSON.parse(Buffer.from(raw as Buffer).toString('utf8')) as Array<{ field: string; message: string }>) : [];
};

export const errFields = (err: grpc.ServiceError): string[] => errDetails(err).map((d) => d.field);

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
