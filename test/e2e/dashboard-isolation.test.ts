import type { Mesh } from '@convo/dev-mesh';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { Kind, parse, type ObjectTypeDefinitionNode } from 'graphql';
import { contactWrites, gql as gqlAt, newDashboardTenant, startDeliveryMesh, type DashboardTenant } from '../support/dashboard';
import { call, eventually, settled, type Reply } from '../support/http';
import { startNetworkEngine, type NetworkEngine } from '../support/network-engine';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/** The supergraph the gateway serves (composed from the subgraphs at build time). */
const SUPERGRAPH = join(dirname(require.resolve('@convo/gateway/package.json')), 'supergraph.graphql');

/** An argument names an id when it is `id` or ends in `Id` / `Ids`. */
const isIdArgument = (name: string) => name === 'id' || /(Id|Ids)$/.test(name);

/** Every root Query field and Mutation of the composed schema that takes an id, with those arguments. */
function idTakingRootFields(): Map<string, string[]> {
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
interface Ids {
  tenant: number;
  user: number;
  ticket: number;
  queue: number;
  tag: number;
  channel: number;
  apiId: string;
  message: string;
  delivery: string;
}

/**
 * What tenant A's session must get for B's id: `refused` with one of the codes (not found, or
 * forbidden where the gateway refuses another tenant's id at once), or `empty` (a filter or a
 * nullable read that finds nothing: null, [] or a count of 0). Either way nothing of B changes.
 */
type Expected = { refused: string[] } | 'empty';

interface Case {
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
const CASES: Record<string, Record<string, (a: Ids, b: Ids) => Case>> = {
  tenant: { id: (_a, b) => ({ op: 'query', args: { id: b.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  updateTenant: { id: (_a, b) => ({ op: 'mutation', args: { id: b.tenant, maxUsers: 1 }, select: '{ id }', expect: FORBIDDEN }) },
  channels: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  tags: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  queues: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ id }', expect: FORBIDDEN }) },
  createTag: { tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, name: 'intruder' }, select: '{ id }', expect: FORBIDDEN }) },
  createQueue: { tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, name: 'intruder' }, select: '{ id }', expect: FORBIDDEN }) },
  ticketCounts: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ byStatus { count } }', expect: FORBIDDEN }) },
  deliveryHealth: { tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ channelId }', expect: FORBIDDEN }) },
  // Platform only: a tenant session is refused whatever channel it names.
  deliveries: { channelId: (_a, b) => ({ op: 'query', args: { channelId: b.channel }, select: '{ id }', expect: FORBIDDEN }) },
  createChannel: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, channel: { name: 'intruder', type: new Enum('engine_a') } }, select: '{ authToken }', expect: FORBIDDEN }),
  },
  updateChannel: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, channelId: b.channel, changes: { name: 'mine' } }, select: '{ id }', expect: FORBIDDEN }),
    channelId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, channelId: b.channel, changes: { name: 'mine' } }, select: '{ id }', expect: notFound('ERR_CHANNEL_NOT_FOUND') }),
  },
  rotateWebhookSecret: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, channelId: b.channel }, expect: FORBIDDEN }),
    channelId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, channelId: b.channel }, expect: notFound('ERR_CHANNEL_NOT_FOUND') }),
  },
  createIntegration: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, channelId: b.channel, name: 'x' }, select: '{ authToken }', expect: FORBIDDEN }),
    channelId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, channelId: b.channel, name: 'x' }, select: '{ authToken }', expect: notFound('ERR_CHANNEL_NOT_FOUND') }),
    userId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, channelId: a.channel, name: 'x', userId: b.user }, select: '{ authToken }', expect: notFound('ERR_USER_NOT_FOUND') }),
  },
  revokeIntegration: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, apiId: b.apiId }, expect: FORBIDDEN }),
    apiId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, apiId: b.apiId }, expect: notFound('ERR_API_NOT_FOUND', 'ERR_INTEGRATION_NOT_FOUND') }),
  },
  channelProfile: {
    tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant, channelId: b.channel }, select: '{ channelId }', expect: FORBIDDEN }),
    channelId: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, channelId: b.channel }, select: '{ channelId }', expect: notFound('ERR_CHANNEL_NOT_FOUND') }),
  },
  ticket: {
    tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant, id: b.ticket }, select: '{ id }', expect: FORBIDDEN }),
    id: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, id: b.ticket }, select: '{ id }', expect: 'empty' }),
  },
  tickets: {
    tenantId: (_a, b) => ({ op: 'query', args: { tenantId: b.tenant }, select: '{ totalCount }', expect: FORBIDDEN }),
    userId: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, userId: b.user }, select: '{ totalCount nodes { id } }', expect: 'empty' }),
    tagId: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, tagId: b.tag }, select: '{ totalCount nodes { id } }', expect: 'empty' }),
    channelId: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, channelId: b.channel }, select: '{ totalCount nodes { id } }', expect: 'empty' }),
    queueId: (a, b) => ({ op: 'query', args: { tenantId: a.tenant, queueId: b.queue }, select: '{ totalCount nodes { id } }', expect: 'empty' }),
  },
  closeTicket: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, ticketId: b.ticket }, select: '{ id }', expect: FORBIDDEN }),
    ticketId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, ticketId: b.ticket }, select: '{ id }', expect: notFound('ERR_TICKET_NOT_FOUND') }),
  },
  reopenTicket: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, ticketId: b.ticket }, select: '{ id }', expect: FORBIDDEN }),
    ticketId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, ticketId: b.ticket }, select: '{ id }', expect: notFound('ERR_TICKET_NOT_FOUND') }),
  },
  assignTicket: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, ticketId: b.ticket, userId: b.user }, select: '{ id }', expect: FORBIDDEN }),
    ticketId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, ticketId: b.ticket, userId: a.user }, select: '{ id }', expect: notFound('ERR_TICKET_NOT_FOUND') }),
    userId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, ticketId: a.ticket, userId: b.user }, select: '{ id userId }', expect: notFound('ERR_USER_NOT_FOUND') }),
  },
  moveTicket: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, ticketId: b.ticket, queueId: b.queue }, select: '{ id }', expect: FORBIDDEN }),
    ticketId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, ticketId: b.ticket, queueId: a.queue }, select: '{ id }', expect: notFound('ERR_TICKET_NOT_FOUND') }),
    queueId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, ticketId: a.ticket, queueId: b.queue }, select: '{ id }', expect: notFound('ERR_QUEUE_NOT_FOUND') }),
  },
  addTicketTags: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, ticketId: b.ticket, tagIds: [b.tag] }, select: '{ id }', expect: FORBIDDEN }),
    ticketId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, ticketId: b.ticket, tagIds: [a.tag] }, select: '{ id }', expect: notFound('ERR_TICKET_NOT_FOUND') }),
    tagIds: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, ticketId: a.ticket, tagIds: [b.tag] }, select: '{ id }', expect: notFound('ERR_TAG_NOT_FOUND') }),
  },
  removeTicketTag: {
    tenantId: (_a, b) => ({ op: 'mutation', args: { tenantId: b.tenant, ticketId: b.ticket, tagId: b.tag }, select: '{ id }', expect: FORBIDDEN }),
    ticketId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, ticketId: b.ticket, tagId: a.tag }, select: '{ id }', expect: notFound('ERR_TICKET_NOT_FOUND') }),
    tagId: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, ticketId: a.ticket, tagId: b.tag }, select: '{ id }', expect: notFound('ERR_TAG_NOT_FOUND') }),
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
    id: (a, b) => ({ op: 'mutation', args: { tenantId: a.tenant, id: b.delivery }, select: '{ id }', expect: notFound('ERR_WEBHOOK_DELIVERY_NOT_FOUND', 'ERR_DELIVERY_NOT_FOUND', 'ERR_NOT_FOUND') }),
  },
};

/** An enum value: written bare in a GraphQL literal. */
class Enum {
  constructor(readonly value: string) {}
}

/** A JS value as a GraphQL literal (input objects unquoted keys; strings JSON-quoted). */
function literal(v: unknown): string {
  if (v instanceof Enum) return v.value;
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (v && typeof v === 'object') return `{ ${Object.entries(v).map(([k, x]) => `${k}: ${literal(x)}`).join(', ')} }`;
  return JSON.stringify(v);
}

const operation = (field: string, c: Case) => `${c.op} { ${field}(${Object.entries(c.args).map(([k, v]) => `${k}: ${literal(v)}`).join(', ')}) ${c.select ?? ''} }`;

/** Null, [], { totalCount: 0 } or a connection without nodes: nothing found. */
function isEmpty(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  const v = value as { totalCount?: number; nodes?: unknown[] };
  return v.totalCount === 0 && (v.nodes ?? []).length === 0;
}

/** The outcome in words, for a readable failure: `refused ERR_…`, `empty`, or what was answered. */
function outcome(field: string, res: Reply): string {
  const code = res.body?.errors?.[0]?.extensions?.code;
  if (code) return `refused ${code}`;
  const value = res.body?.data?.[field];
  return value !== undefined && isEmpty(value) ? 'empty' : `answered ${JSON.stringify(res.body)}`;
}

describe('tenant isolation of every id-taking root field, end to end', () => {
  let mesh: Mesh;
  let engine: NetworkEngine;
  const crashes: string[] = [];
  let a: DashboardTenant;
  let b: DashboardTenant;
  const ids: Record<'a' | 'b', Ids> = {} as never;

  const gql = (token: string, query: string, variables?: Record<string, unknown>) => gqlAt(mesh, token, query, variables);
  async function data(token: string, query: string, variables?: Record<string, unknown>) {
    const res = await gql(token, query, variables);
    if (res.body.errors) throw new Error(`${query}: ${JSON.stringify(res.body.errors)}`);
    return res.body.data;
  }

  /** Everything of a tenant the platform reads: it must be the same before and after B's ids were tried. */
  const snapshot = (tenantId: number) =>
    data(
      mesh.superAdminToken,
      `query($t: Int!) {
        tenant(id: $t) { maxUsers channels { id name status webhookUrl webhookEnabled updatedAt } integrations { apiId channelId userId } }
        tags(tenantId: $t) { id name } queues(tenantId: $t) { id name }
        tickets(tenantId: $t) { totalCount nodes { id status userId queueId tagIds updatedAt } }
        webhookDeliveries(tenantId: $t) { id status attempts }
      }`,
      { t: tenantId },
    );

  beforeAll(async () => {
    engine = await startNetworkEngine();
    // Customer webhooks die at once (to a closed loopback port), so each tenant has a delivery to name.
    mesh = await startDeliveryMesh(startMesh, crashes);
    const hook = { webhookEnabled: true, webhookUrl: 'http://127.0.0.1:9/hook', webhookIncoming: true };
    a = await newDashboardTenant(mesh, 'Alpha', engine.url, hook);
    b = await newDashboardTenant(mesh, 'Beta', engine.url, hook);
    const admin = mesh.superAdminToken;
    for (const [t, key] of [[a, 'a'], [b, 'b']] as const) {
      const tag = (await data(admin, `mutation { createTag(tenantId: ${t.id}, name: "vip") { id } }`)).createTag.id;
      const queue = (await data(admin, `mutation { createQueue(tenantId: ${t.id}, name: "Sales") { id } }`)).createQueue.id;
      const opened = await call(`${t.root}/createTicket`, { token: t.integrationToken, body: { number: `5511966${String(t.id).padStart(6, '0')}`, body: 'hello' } });
      expect(opened.status).toBe(200);
      await settled(t.root, t.integrationToken, opened.body.data.messageId);
      expect((await contactWrites(mesh, t, `5511955${String(t.id).padStart(6, '0')}`, `IN-${t.id}`, 'Oi')).status).toBe(200);
      const delivery = await eventually(`a dead webhook of ${t.id}`, async () => {
        const res = await gql(admin, 'query($t: Int!) { webhookDeliveries(tenantId: $t, status: dead) { id } }', { t: t.id });
        return res.body.data?.webhookDeliveries?.[0]?.id as string | undefined;
      });
      ids[key] = {
        tenant: t.id,
        user: t.adminUserId,
        ticket: opened.body.data.ticketId,
        queue,
        tag,
        channel: t.channelId,
        apiId: t.root.split('/').pop()!,
        message: opened.body.data.messageId,
        delivery,
      };
    }
  }, 120_000);

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  it('has a two-tenant case for every id argument of every root field and mutation of the composed schema', () => {
    const fields = idTakingRootFields();
    expect(fields.size).toBeGreaterThan(20);
    const needed = [...fields].flatMap(([field, args]) => args.map((arg) => `${field}.${arg}`)).sort();
    const covered = Object.entries(CASES).flatMap(([field, byArg]) => Object.keys(byArg).map((arg) => `${field}.${arg}`)).sort();
    expect({ missing: needed.filter((n) => !covered.includes(n)), stale: covered.filter((c) => !needed.includes(c)) }).toEqual({ missing: [], stale: [] });
  });

  it("refuses tenant A's session every id of tenant B, or finds nothing, and changes nothing of either tenant", async () => {
    const before = { a: await snapshot(a.id), b: await snapshot(b.id) };
    const wrong: string[] = [];
    for (const [field, byArg] of Object.entries(CASES)) {
      for (const [arg, make] of Object.entries(byArg)) {
        const c = make(ids.a, ids.b);
        const res = await gql(a.session, operation(field, c));
        const got = outcome(field, res);
        const ok = c.expect === 'empty' ? got === 'empty' : c.expect.refused.some((code) => got === `refused ${code}`);
        if (!ok) wrong.push(`${field}(${arg}: B's): expected ${c.expect === 'empty' ? 'empty' : `refused ${c.expect.refused.join('|')}`}, got ${got}`);
        if (got.startsWith('refused')) expect(res.body.data?.[field] ?? null).toBeNull();
      }
    }
    expect(wrong).toEqual([]);
    expect({ a: await snapshot(a.id), b: await snapshot(b.id) }).toEqual(before);
  });

  it("refuses assignTicket to another tenant's user or a user that exists nowhere, as REST updateticketinfo does", async () => {
    const assign = (userId: number) =>
      gql(a.session, 'mutation($t: Int!, $id: Int!, $u: Int!) { assignTicket(tenantId: $t, ticketId: $id, userId: $u) { id userId } }', { t: a.id, id: ids.a.ticket, u: userId });
    for (const userId of [b.adminUserId, 2_000_000_000]) {
      const res = await assign(userId);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('ERR_USER_NOT_FOUND');
      const rest = await call(`${a.root}/updateticketinfo`, { token: a.integrationToken, body: { ticketId: ids.a.ticket, userId } });
      expect(rest.status).toBe(404);
      expect(rest.body.error).toBe('ERR_USER_NOT_FOUND');
    }
    const ticket = await data(a.session, `{ ticket(tenantId: ${a.id}, id: ${ids.a.ticket}) { userId } }`);
    expect(ticket.ticket.userId).toBeNull();
    // Its own administrator is taken.
    expect((await assign(a.adminUserId)).body.data.assignTicket).toEqual({ id: ids.a.ticket, userId: a.adminUserId });
  });

  describe('channel fields a tenant administrator may set', () => {
    let trap: Server;
    let trapUrl: string;
    let trapped = 0;
    const UPDATE = 'mutation($t: Int!, $id: Int!, $c: ChannelChanges!) { updateChannel(tenantId: $t, channelId: $id, changes: $c) { id webhookUrl } }';

    beforeAll(async () => {
      // What a tenant would like the platform to call: a loopback server that records any request.
      trap = createServer((req, res) => {
        trapped++;
        req.resume();
        res.end('{}');
      });
      await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
      trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => trap.close(resolve)));

    it("refuses a tenant session the engine's URL and token (operator fields), so a send never reaches an address the tenant named", async () => {
      for (const changes of [{ engineUrl: 'http://169.254.169.254/latest/meta-data' }, { engineUrl: trapUrl }, { engineToken: 'mine' }, { engineUrl: trapUrl, name: 'x' }]) {
        const res = await gql(a.session, UPDATE, { t: a.id, id: a.channelId, c: changes });
        expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'ERR_FORBIDDEN', details: expect.arrayContaining([expect.objectContaining({ field: Object.keys(changes)[0] })]) });
      }
      const created = await gql(a.session, 'mutation($t: Int!, $c: NewChannel!) { createChannel(tenantId: $t, channel: $c) { authToken } }', {
        t: a.id,
        c: { name: 'Trap line', type: 'engine_a', engineUrl: trapUrl },
      });
      expect(created.body.errors?.[0]?.extensions?.code).toBe('ERR_FORBIDDEN');
      expect((await data(mesh.superAdminToken, `{ tenant(id: ${a.id}) { channels { name } } }`)).tenant.channels).toEqual([{ name: 'Alpha line' }]);

      // A send on the channel goes to the operator's engine, and nothing reaches the tenant's address.
      const seen = engine.requests.length;
      const sent = await call(`${a.root}/createTicket`, { token: a.integrationToken, body: { number: '5511977000001', body: 'after the edits' } });
      expect(sent.status).toBe(200);
      expect(await settled(a.root, a.integrationToken, sent.body.data.messageId)).toMatchObject({ status: 'sent' });
      expect(engine.requests.length).toBeGreaterThan(seen);
      expect(trapped).toBe(0);
    });

    it('checks a webhook URL a tenant sets by the URL policy, with the codes REST answers', async () => {
      const target = 'http://169.254.169.254/hook';
      const res = await gql(a.session, UPDATE, { t: a.id, id: a.channelId, c: { webhookUrl: target } });
      expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'ERR_VALIDATION', details: [expect.objectContaining({ field: 'webhookUrl' })] });
      const rest = await call(`${mesh.gatewayUrl}/whatsapp/${a.channelId}`, { method: 'PUT', token: mesh.superAdminToken, body: { webhookUrl: target } });
      expect(rest.status).toBe(400);
      expect(rest.body).toMatchObject({ error: 'ERR_VALIDATION', details: [expect.objectContaining({ field: 'webhookUrl' })] });
      // A public target is the tenant's to set.
      const ok = await gql(a.session, UPDATE, { t: a.id, id: a.channelId, c: { webhookUrl: 'https://hooks.example.com/alpha' } });
      expect(ok.body.data.updateChannel).toEqual({ id: a.channelId, webhookUrl: 'https://hooks.example.com/alpha' });
    });

    it('lets the operator set the engine fields, on GraphQL as on PUT /whatsapp/{id}', async () => {
      const graph = await gql(mesh.superAdminToken, UPDATE, { t: b.id, id: b.channelId, c: { engineUrl: engine.url, engineToken: 'engine-secret' } });
      expect(graph.body.errors).toBeUndefined();
      const rest = await call(`${mesh.gatewayUrl}/whatsapp/${b.channelId}`, { method: 'PUT', token: mesh.superAdminToken, body: { engineUrl: engine.url } });
      expect(rest.status).toBe(200);
      // A tenant's session cannot reach PUT /whatsapp at all.
      const asTenant = await call(`${mesh.gatewayUrl}/whatsapp/${a.channelId}`, { method: 'PUT', token: a.session, body: { engineUrl: trapUrl } });
      expect(asTenant.status).toBeGreaterThanOrEqual(401);
      expect(asTenant.status).toBeLessThanOrEqual(403);
    });
  });
});
