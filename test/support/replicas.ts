import type { Mesh } from '@convo/dev-mesh';
import { randomUUID } from 'node:crypto';
import { call } from './http';

/** Each call answers the next of `items`, round and round: requests spread over the gateway replicas. */
export function roundRobin<T>(items: readonly T[]): () => T {
  if (!items.length) throw new Error('roundRobin: nothing to spread over');
  let next = 0;
  return () => items[next++ % items.length];
}

/** The Redis the gateways share their rate limits in (REDIS_URL, else this machine's), refused clearly when absent. */
export const redisUrl = (): string => process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Redis settings for a mesh's gateways: the shared store, under a prefix of this run's own. */
export const sharedRateLimits = (): Record<string, string> => ({
  REDIS_URL: redisUrl(),
  RATE_LIMIT_REDIS_PREFIX: `convo-rl-test-${randomUUID()}-`,
});

export interface TestIntegration {
  tenantId: number;
  channelId: number;
  apiId: string;
  token: string;
  /** The external API's path (`/v2/api/external/<apiId>`): prefix it with any gateway's URL. */
  path: string;
}

/** A tenant with an engine_a channel pointed at `engineUrl`, and its integration. */
export async function newIntegration(mesh: Mesh, engineUrl: string, name = 'Replicas'): Promise<TestIntegration> {
  const identity = String(Date.now()) + String(Math.floor(Math.random() * 1e4)).padStart(4, '0');
  const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
    token: mesh.superAdminToken,
    body: {
      status: 'active',
      name,
      maxUsers: 10,
      maxConnections: 10,
      acceptTerms: true,
      identity,
      email: `owner-${randomUUID()}@replicas.example`,
      password: 'S3cure!pass',
      userName: 'Owner Ana',
      profile: 'admin',
    },
  });
  if (tenant.status !== 200) throw new Error(`tenant not created: ${tenant.status} ${JSON.stringify(tenant.body)}`);
  const tenantId = tenant.body.data.tenant.id as number;
  const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
    token: mesh.superAdminToken,
    body: { tenant: tenantId, name: 'engine_a channel', type: 'engine_a', engineUrl, engineToken: 'engine-secret' },
  });
  if (session.status !== 200) throw new Error(`channel not created: ${session.status} ${JSON.stringify(session.body)}`);
  const { whatsapp, api } = session.body.data;
  return { tenantId, channelId: whatsapp.id, apiId: api.apiId, token: api.authToken, path: `/v2/api/external/${api.apiId}` };
}
