import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Kind, parse, type ObjectTypeDefinitionNode } from 'graphql';
import type { Reply } from './http';

// The two-tenant cases of every id-taking root field of the composed schema
// (e2e/dashboard-isolation.test.ts drives them through the real mesh).

/** The supergraph the gateway serves (composed from the subgraphs at build time). */
const SUPERGRAPH = join(dirname(require.resolve('@convo/gateway/package.json')), 'supergraph.graphql');

/** An argument names an id when it is `id` or ends in `Id` / `Ids`. */
const isIdArgument = (name: string) => name === 'id' || /(Id|Ids)$/.test(name);

/** Every root Query field and Mutation of the composed schema that takes an id, with those arguments. */
export function idTakingRootFields(): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const def of parse(readFileSync(SUPERGRAPH, 'utf8')).definitions) {
    if (def.kind !== Kind.OBJECT_TYPE_DEFINITION && def.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
    if (def.name.value !== 'Query' && def.name.value !== 'Mutation') continue;
    for (const f of (def as ObjectTypeDefinitionNode).fields ?? []) {
      const ids = (f.arguments ?? []).map((a) => a.name.value).filter(isIdArgument);
      if (ids.length) fields.set(f.name.value, [...(fields.get(f.name.value) ?? []), ...ids]);
    }
  }
  return fields;
}

/** The two tenants' ids every case is made of. */
export interface Ids {
  tenant: number;
  user: number;
  ticket: number;
  queue: number;
  tag: number;
  channel: number;
  apiId: string;
  message: string;
  delivery: string;
  kanban: number;
  reason: number;
}

/**
 * What tenant A's session must get for B's id: `refused` with one of the codes (not found, or
 * forbidden where the gateway refuses another tenant's id at once), or `empty` (a filter or a
 * nullable read that finds nothing: null, [] or a count of 0). Either way nothing of B changes.
 */
export type Expected = { refused: string[] } | 'empty';

export interface Case {
  op: 'query' | 'mutation';
  /** The field's arguments (values inlined as GraphQL literals), and what to select. */
  args: Record<string, unknown>;
  select?: string;
  expect: Expected;
}

const FORBIDDEN: Expected = { refused: ['ERR_FORBIDDEN'] };
const notFound = (...codes: string[]): Expected => ({ refused: codes });

/**
 * One case per id argument of every id-taking root field: `a` holds the session's own ids, `b` the
 * other tenant's. A tenant argument set to B is refused by the gateway (ERR_FORBIDDEN); any other
 * id of B under A's own tenant is refused or finds nothing by the service that owns it. A field
 * added to the schema with an id argument and no entry here fails the first test below.
 */
export const CASES: Record<string, Record<string, (a: Ids, b: Ids) => Case>> = {
  tenant: { id: (_a, b) => ({ op: 'query', args: { id: b.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  updateTenant: { id: (_a, b) => ({ op: 'mutation', args: { id: b.tenant, maxUsers: 1 }, select: '{ id }', expect: FORBIDDEN }) },
  channels: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  tags: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  queues: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  createTag: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, name: 'intruder' }, select: '{ id }', expect: FORBIDDEN }),
  },
  createQueue: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, name: 'intruder' }, select: '{ id }', expect: FORBIDDEN }),
  },
  ticketCounts: {
    tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ byStatus { count } }', expect: FORBIDDEN }),
  },
  deliveryHealth: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ channelId }', expect: FORBIDDEN }) },
  // Platform only: a tenant session is refused whatever channel it names.
  deliveries: { channelId: (_a, b) => ({ op: 'query', args: { channelId: b.channel }, select: '{ id }', expect: FORBIDDEN }) },
  createChannel: {
    tenantId: (_a, b) => ({
      op: 'mutation',
      args: { tenantId: b.tenant, channel: { name: 'intruder', type: new Enum('engine_a') } },
      select: '{ authToken }',
      expect: FORBIDDEN,
    }),
  },
  updateChannel: {
    tenantId: (_a, b) => ({
      op: 'mutation',
      args: { tenantId: b.tenant, channelId: b.channel, changes: { name: 'mine' } },
      select: '{ id }',
      expect: FORBIDDEN,
    }),
    channelId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, channelId: b.channel, changes: { name: 'mine' } },
      select: '{ id }',
      expect: notFound('ERR_CHANNEL_NOT_FOUND'),
    }),
  },
  rotateWebhookSecret: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, channelId: b.channel }, expect: FORBIDDEN }),
    channelId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, channelId: b.channel },
      expect: notFound('ERR_CHANNEL_NOT_FOUND'),
    }),
  },
  createIntegration: {
    tenantId: (_a, b) => ({
      op: 'mutation',
      args: { tenantId: b.tenant, channelId: b.channel, name: 'x' },
      select: '{ authToken }',
      expect: FORBIDDEN,
    }),
    channelId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, channelId: b.channel, name: 'x' },
      select: '{ authToken }',
      expect: notFound('ERR_CHANNEL_NOT_FOUND'),
    }),
    userId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, channelId: a.channel, name: 'x', userId: b.user },
      select: '{ authToken }',
      expect: notFound('ERR_USER_NOT_FOUND'),
    }),
  },
  revokeIntegration: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, apiId: b.apiId }, expect: FORBIDDEN }),
    apiId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, apiId: b.apiId },
      expect: notFound('ERR_API_NOT_FOUND', 'ERR_INTEGRATION_NOT_FOUND'),
    }),
  },
  channelProfile: {
    tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant, channelId: b.channel }, select: '{ channelId }', expect: FORBIDDEN }),
    channelId: (a, b) => ({
      op: 'query',
      args: { tenantId: a.tenant, channelId: b.channel },
      select: '{ channelId }',
      expect: notFound('ERR_CHANNEL_NOT_FOUND'),
    }),
  },
  ticket: {
    tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant, id: b.ticket }, select: '{ id }', expect: FORBIDDEN }),
    id: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, id: b.ticket }, select: '{ id }', expect: 'empty' }),
  },
  tickets: {
    tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ totalCount }', expect: FORBIDDEN }),
    userId: (a, b) => ({
      op: 'query',
      args: { tenantId: a.tenant, userId: b.user },
      select: '{ totalCount nodes { id } }',
      expect: 'empty',
    }),
    tagId: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, tagId: b.tag }, select: '{ totalCount nodes { id } }', expect: 'empty' }),
    channelId: (a, b) => ({
      op: 'query',
      args: { tenantId: a.tenant, channelId: b.channel },
      select: '{ totalCount nodes { id } }',
      expect: 'empty',
    }),
    queueId: (a, b) => ({
      op: 'query',
      args: { tenantId: a.tenant, queueId: b.queue },
      select: '{ totalCount nodes { id } }',
      expect: 'empty',
    }),
  },
  closeTicket: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, ticketId: b.ticket }, select: '{ id }', expect: FORBIDDEN }),
    ticketId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, ticketId: b.ticket },
      select: '{ id }',
      expect: notFound('ERR_TICKET_NOT_FOUND'),
    }),
  },
  reopenTicket: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, ticketId: b.ticket }, select: '{ id }', expect: FORBIDDEN }),
    ticketId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, ticketId: b.ticket },
      select: '{ id }',
      expect: notFound('ERR_TICKET_NOT_FOUND'),
    }),
  },
  assignTicket: {
    tenantId: (_a, b) => ({
      op: 'mutation',
      args: { tenantId: b.tenant, ticketId: b.ticket, userId: b.user },
      select: '{ id }',
      expect: FORBIDDEN,
    }),
    ticketId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, ticketId: b.ticket, userId: a.user },
      select: '{ id }',
      expect: notFound('ERR_TICKET_NOT_FOUND'),
    }),
    userId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, ticketId: a.ticket, userId: b.user },
      select: '{ id userId }',
      expect: notFound('ERR_USER_NOT_FOUND'),
    }),
  },
  moveTicket: {
    tenantId: (_a, b) => ({
      op: 'mutation',
      args: { tenantId: b.tenant, ticketId: b.ticket, queueId: b.queue },
      select: '{ id }',
      expect: FORBIDDEN,
    }),
    ticketId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, ticketId: b.ticket, queueId: a.queue },
      select: '{ id }',
      expect: notFound('ERR_TICKET_NOT_FOUND'),
    }),
    queueId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, ticketId: a.ticket, queueId: b.queue },
      select: '{ id }',
      expect: notFound('ERR_QUEUE_NOT_FOUND'),
    }),
  },
  addTicketTags: {
    tenantId: (_a, b) => ({
      op: 'mutation',
      args: { tenantId: b.tenant, ticketId: b.ticket, tagIds: [b.tag] },
      select: '{ id }',
      expect: FORBIDDEN,
    }),
    ticketId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, ticketId: b.ticket, tagIds: [a.tag] },
      select: '{ id }',
      expect: notFound('ERR_TICKET_NOT_FOUND'),
    }),
    tagIds: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, ticketId: a.ticket, tagIds: [b.tag] },
      select: '{ id }',
      expect: notFound('ERR_TAG_NOT_FOUND'),
    }),
  },
  removeTicketTag: {
    tenantId: (_a, b) => ({
      op: 'mutation',
      args: { tenantId: b.tenant, ticketId: b.ticket, tagId: b.tag },
      select: '{ id }',
      expect: FORBIDDEN,
    }),
    ticketId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, ticketId: b.ticket, tagId: a.tag },
      select: '{ id }',
      expect: notFound('ERR_TICKET_NOT_FOUND'),
    }),
    tagId: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, ticketId: a.ticket, tagId: b.tag },
      select: '{ id }',
      expect: notFound('ERR_TAG_NOT_FOUND'),
    }),
  },
  message: {
    tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant, id: b.message }, select: '{ id }', expect: FORBIDDEN }),
    id: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, id: b.message }, select: '{ id }', expect: 'empty' }),
  },
  webhookDeliveries: {
    tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ id }', expect: FORBIDDEN }),
    channelId: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, channelId: b.channel }, select: '{ id }', expect: 'empty' }),
  },
  webhookDelivery: {
    tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant, id: b.delivery }, select: '{ id }', expect: FORBIDDEN }),
    id: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, id: b.delivery }, select: '{ id }', expect: 'empty' }),
  },
  replayWebhookDelivery: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, id: b.delivery }, select: '{ id }', expect: FORBIDDEN }),
    id: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, id: b.delivery },
      select: '{ id }',
      expect: notFound('ERR_WEBHOOK_DELIVERY_NOT_FOUND', 'ERR_DELIVERY_NOT_FOUND', 'ERR_NOT_FOUND'),
    }),
  },
  kanbans: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  reasons: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  saveKanban: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, name: 'intruder' }, select: '{ id }', expect: FORBIDDEN }),
    id: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, id: b.kanban, name: 'mine' },
      select: '{ id }',
      expect: notFound('ERR_KANBAN_NOT_FOUND'),
    }),
  },
  saveReason: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, name: 'intruder' }, select: '{ id }', expect: FORBIDDEN }),
    id: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, id: b.reason, name: 'mine' },
      select: '{ id }',
      expect: notFound('ERR_REASON_NOT_FOUND'),
    }),
  },
  deleteKanban: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, id: b.kanban }, select: '{ id }', expect: FORBIDDEN }),
    id: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, id: b.kanban },
      select: '{ id }',
      expect: notFound('ERR_KANBAN_NOT_FOUND'),
    }),
  },
  deleteReason: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, id: b.reason }, select: '{ id }', expect: FORBIDDEN }),
    id: (a, b) => ({
      op: 'mutation',
      args: { tenantId: a.tenant, id: b.reason },
      select: '{ id }',
      expect: notFound('ERR_REASON_NOT_FOUND'),
    }),
  },
  // Payments are the platform's: a tenant session is refused whatever it names.
  paymentWebhooks: { tenantId: (a) => ({ op: 'query', args: { tenantId: a.tenant }, select: '{ eventId }', expect: FORBIDDEN }) },
  paymentChanges: { tenantId: (a) => ({ op: 'query', args: { tenantId: a.tenant }, select: '{ to }', expect: FORBIDDEN }) },
  reconcilePayments: { tenantId: (a) => ({ op: 'mutation', args: { tenantId: a.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  paymentReconciliation: { id: () => ({ op: 'query', args: { id: 'operator-run' }, select: '{ id }', expect: FORBIDDEN }) },
};

/** An enum value: written bare in a GraphQL literal. */
class Enum {
  constructor(readonly value: string) {}
}

/** A JS value as a GraphQL literal (input objects unquoted keys; strings JSON-quoted). */
function literal(v: unknown): string {
  if (v instanceof Enum) return v.value;
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (v && typeof v === 'object')
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${k}: ${literal(x)}`)
      .join(', ')} }`;
  return JSON.stringify(v);
}

export const operation = (field: string, c: Case) =>
  `${c.op} { ${field}(${Object.entries(c.args)
    .map(([k, v]) => `${k}: ${literal(v)}`)
    .join(', ')}) ${c.select ?? ''} }`;

/** Null, [], { totalCount: 0 } or a connection without nodes: nothing found. */
function isEmpty(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  const v = value as { totalCount?: number; nodes?: unknown[] };
  return v.totalCount === 0 && (v.nodes ?? []).length === 0;
}

/** The outcome in words, for a readable failure: `refused ERR_…`, `empty`, or what was answered. */
export function outcome(field: string, res: Reply): string {
  const code = res.body?.errors?.[0]?.extensions?.code;
  if (code) return `refused ${code}`;
  const value = res.body?.data?.[field];
  return value !== undefined && isEmpty(value) ? 'empty' : `answered ${JSON.stringify(res.body)}`;
}
