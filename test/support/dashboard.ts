import type { Mesh, MeshOptions } from '@convo/dev-mesh';
import { randomBytes } from 'node:crypto';
import { call, UNPACED, type Reply } from './http';

/** A tenant as the dashboard tests use it: its administrator's console session and one integration. */
export interface DashboardTenant {
  id: number;
  /** Its administrator's user id. */
  adminUserId: number;
  email: string;
  session: string;
  channelId: number;
  /** The external API root of its integration, and that integration's token. */
  root: string;
  integrationToken: string;
}

export const ADMIN_PASSWORD = 'S3cure!pass';

let lastEmail = 0;
/** This file's own part of the e-mail addresses: the test files on the shared mesh each load this module. */
const FILE_TAG = randomBytes(4).toString('hex');

export const gql = (mesh: Mesh, token: string | undefined, query: string, variables?: Record<string, unknown>): Promise<Reply> =>
  call(mesh.graphqlUrl, { token, body: { query, variables } });

export const login = (mesh: Mesh, email: string, password = ADMIN_PASSWORD) =>
  call(`${mesh.gatewayUrl}/graphql/login`, { body: { email, password } });

/** Stores a tenant with an engine_a channel on `engineUrl` and signs its administrator in. */
export async function newDashboardTenant(
  mesh: Mesh,
  name: string,
  engineUrl = 'http://127.0.0.1:9',
  channelFields: Record<string, unknown> = {},
): Promise<DashboardTenant> {
  const admin = mesh.superAdminToken;
  const email = `${name.toLowerCase()}-${FILE_TAG}-${++lastEmail}@dashboard.example`;
  const res = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
    token: admin,
    body: {
      status: 'active',
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
  if (res.status !== 200) throw new Error(`store tenant: ${JSON.stringify(res.body)}`);
  const id = res.body.data.tenant.id as number;
  const channel = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
    token: admin,
    body: { tenant: id, name: `${name} line`, type: 'engine_a', engineUrl, engineToken: 'engine-secret', ...channelFields },
  });
  if (channel.status !== 200) throw new Error(`create session: ${JSON.stringify(channel.body)}`);
  const session = await login(mesh, email);
  if (session.status !== 200) throw new Error(`login: ${JSON.stringify(session.body)}`);
  const { whatsapp, api } = channel.body.data;
  return {
    id,
    adminUserId: res.body.data.adminUser.id as number,
    email,
    session: session.body.data.token,
    channelId: whatsapp.id,
    root: `${mesh.gatewayUrl}/v2/api/external/${api.apiId}`,
    integrationToken: api.authToken,
  };
}

/**
 * A mesh whose customer webhooks die at once (retry window 1 ms, private receivers allowed): what
 * the delivery-health and console tests need to have dead webhooks to show and replay.
 */
export function startDeliveryMesh(startMesh: (opts: MeshOptions) => Promise<Mesh>, crashes: string[]): Promise<Mesh> {
  return startMesh({
    freePorts: true,
    onLine: () => undefined,
    onCrash: (part, code) => crashes.push(`${part}:${code}`),
    env: { ...UNPACED, WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1', RELAY_POLL_MS: '100', WEBHOOK_RETRY_WINDOW_MS: '1' },
  });
}

/** A contact writes to the tenant's engine_a channel (as the engine posts it): a ticket, and a `message` webhook. */
export function contactWrites(mesh: Mesh, t: DashboardTenant, number: string, id: string, text: string): Promise<Reply> {
  return call(`${mesh.gatewayUrl}/webhooks/engine/${t.channelId}?token=engine-secret`, {
    body: {
      event: 'messages.upsert',
      data: {
        type: 'notify',
        messages: [
          {
            key: { remoteJid: `${number}@s.whatsapp.net`, fromMe: false, id },
            messageTimestamp: 1718000000,
            pushName: 'Bia',
            message: { conversation: text },
          },
        ],
      },
    },
  });
}
