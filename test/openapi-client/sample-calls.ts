import createClient from 'openapi-fetch';
// Generated from the gateway's /docs/json by test/e2e/clients.test.ts (openapi-typescript); not committed.
import type { paths } from './generated/api';

export interface SampleOptions {
  baseUrl: string;
  adminToken: string;
  email: string;
  number: string;
  engineUrl: string;
}

/**
 * Calls as a client generated from the OpenAPI document writes them: a tenant is created (the
 * tenant API), a ticket is opened through the external API of a channel of that tenant, then a
 * kanban column is created, the channels listed and the ticket's messages read. The
 * test type-checks this file against the generated types (tsc) and runs it against the gateway.
 */
export async function sampleCalls(o: SampleOptions) {
  const admin = createClient<paths>({ baseUrl: o.baseUrl, headers: { authorization: `Bearer ${o.adminToken}` } });
  const tenant = await admin.POST('/tenantApiStoreTenant', {
    body: {
      status: 'active',
      name: 'Typed client',
      maxUsers: 5,
      maxConnections: 5,
      acceptTerms: true,
      email: o.email,
      password: 'S3cure!pass',
      userName: 'Ana',
      profile: 'admin',
    },
  });
  if (!tenant.data) throw new Error(`tenantApiStoreTenant: ${tenant.error?.error}`);
  const tenantId: number = tenant.data.data.id;

  const session = await admin.POST('/tenantApiCreateSession', {
    body: { tenant: tenantId, name: 'typed channel', type: 'engine_a', engineUrl: o.engineUrl, engineToken: 'engine-secret' },
  });
  if (!session.data) throw new Error(`tenantApiCreateSession: ${session.error?.error}`);
  const { apiId, authToken } = session.data.data.api;

  const api = createClient<paths>({ baseUrl: o.baseUrl, headers: { authorization: `Bearer ${authToken}` } });
  const created = await api.POST('/v2/api/external/{apiId}/createTicket', {
    params: { path: { apiId } },
    body: { number: o.number, body: 'Hello from a generated client', queueId: null, chatFlowId: null },
  });
  if (!created.data) throw new Error(`createTicket: ${created.error?.error}`);
  const status: 'open' | 'pending' | 'closed' = created.data.data.ticket.status;
  // @ts-expect-error the answer has no such field: tsc fails here if the client were untyped
  void created.data.data.noSuchField;
  const ticketId = created.data.data.ticketId;

  // Three routes beyond the seed, typed by the same document: a kanban column, the channels, a page of messages.
  const path = { apiId };
  const kanban = await api.POST('/v2/api/external/{apiId}/createKanban', { params: { path }, body: { name: 'Typed board', position: 1 } });
  if (!kanban.data) throw new Error(`createKanban: ${kanban.error?.error}`);
  const position: number | null = kanban.data.data.position;
  const channels = await api.GET('/v2/api/external/{apiId}/listChannels', { params: { path } });
  if (!channels.data) throw new Error(`listChannels: ${channels.error?.error}`);
  const messages = await api.GET('/v2/api/external/{apiId}/listMessages', { params: { path, query: { ticketId, pageNumber: 1 } } });
  if (!messages.data) throw new Error(`listMessages: ${messages.error?.error}`);
  return {
    tenantId,
    channelId: session.data.data.id,
    ticketId,
    status,
    kanban: { name: kanban.data.data.name, position },
    channels: channels.data.data.channels.map((c) => ({ id: c.id, type: c.type })),
    messages: messages.data.data.messages.map((m) => ({ ticketId: m.ticketId, body: m.body, direction: m.direction })),
  };
}
