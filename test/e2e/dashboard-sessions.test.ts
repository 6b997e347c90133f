import type { Mesh } from '@convo/dev-mesh';
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';
import { startGatewayReplica, type GatewayReplica } from '../support/gateway-replica';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ADMIN_PASSWORD, contactWrites, newDashboardTenant, type DashboardTenant } from '../support/dashboard';
import { LIST_BOUNDS } from '../support/list-bounds';
import { UNPACED } from '../support/http';

const { startMesh, freePort } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

// The gateway's own graphql package (a dependency of the gateway, not of the tests), to read its supergraph.
const gatewayDir = dirname(require.resolve('@convo/gateway/package.json'));
const { Kind, parse } = require(require.resolve('graphql', { paths: [gatewayDir] })) as typeof import('graphql');

/** The codes CONVENTIONS "Errors" gives a client's mistake on the GraphQL API. */
const CLIENT_CODES = [
  'ERR_VALIDATION',
  'ERR_METHOD_NOT_ALLOWED',
  'ERR_UNAUTHORIZED',
  'ERR_FORBIDDEN',
  'ERR_PAYLOAD_TOO_LARGE',
  'ERR_UNSUPPORTED_MEDIA_TYPE',
];

interface Raw {
  status: number;
  headers: Headers;
  body: { error?: string; errors?: { message: string; extensions?: { code?: string } }[]; data?: unknown; [k: string]: unknown } | null;
}

/** A request as a client sends it, body as given (not re-encoded), answer unchecked by the OpenAPI document. */
async function raw(
  url: string,
  init: { method?: string; token?: string; body?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Raw> {
  const res = await fetch(url, {
    method: init.method ?? 'POST',
    headers: {
      ...(init.contentType !== undefined
        ? { 'content-type': init.contentType }
        : init.body !== undefined
          ? { 'content-type': 'application/json' }
          : {}),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    body: init.body,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** The code a GraphQL or REST error answer carries. */
const codeOf = (r: Raw) => r.body?.errors?.[0]?.extensions?.code ?? r.body?.error;

/**
 * Tenant administrators' sessions and sign-in on two gateway replicas sharing Redis: a session
 * ends within seconds of its reason (tenant inactive, password changed, user removed) on both;
 * sign-in is rate limited per address and per e-mail across replicas; every client mistake on
 * /graphql answers 4xx with an ERR_ code; list sizes outside 1..max are refused by the services.
 */
describe('dashboard sessions, sign-in and errors, on two replicas', () => {
  let mesh: Mesh;
  let replica: GatewayReplica;
  let admin: string;
  let db: mongoose.Connection;
  const crashes: string[] = [];
  const prefix = `e2e-rl-${randomUUID()}-`;
  const gateways = () => [mesh.gatewayUrl, replica.url];

  beforeAll(async () => {
    const env = {
      ...UNPACED,
      REDIS_URL,
      RATE_LIMIT_REDIS_PREFIX: prefix,
      LOGIN_RATE_LIMIT_PER_ADDRESS: '40',
      LOGIN_RATE_LIMIT_PER_EMAIL: '5',
    };
    mesh = await startMesh({ freePorts: true, env, onLine: () => undefined, onCrash: (part, code) => crashes.push(`${part}:${code}`) });
    admin = mesh.superAdminToken;
    replica = await startGatewayReplica(await freePort(), { ...mesh.env, REDIS_URL, RATE_LIMIT_REDIS_PREFIX: prefix });
    db = await mongoose.createConnection(mesh.database.uri, { dbName: 'convo_tenants' }).asPromise();
  });

  afterAll(async () => {
    await db?.close();
    await Promise.all([replica?.stop(), mesh?.stop()]);
  });

  afterEach(() => expect(crashes).toEqual([]));

  const ask = (url: string, token: string, query: string) => raw(`${url}/graphql`, { token, body: JSON.stringify({ query }) });
  const readsTags = (url: string, t: DashboardTenant) => ask(url, t.session, `{ tags(tenantId: ${t.id}) { id } }`);

  /** Polls both replicas until each refuses the session; answers how long that took. */
  async function refusedOnBoth(t: DashboardTenant, from: number): Promise<{ ms: number; answers: Raw[] }> {
    for (;;) {
      const answers = await Promise.all(gateways().map((url) => readsTags(url, t)));
      if (answers.every((a) => a.status >= 400)) return { ms: Date.now() - from, answers };
      if (Date.now() - from > 5_000)
        throw new Error(`still served ${Date.now() - from} ms later: ${answers.map((a) => a.status).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  describe('sessions end when their reason ends', () => {
    it('a tenant set inactive: its session is refused within 5 s on both replicas, a new sign-in too', async () => {
      const t = await newDashboardTenant(mesh, 'Fading');
      for (const url of gateways()) expect((await readsTags(url, t)).status).toBe(200);
      const set = await ask(mesh.gatewayUrl, admin, `mutation { updateTenant(id: ${t.id}, status: inactive) { id status } }`);
      expect(set.body?.errors).toBeUndefined();
      const { ms, answers } = await refusedOnBoth(t, Date.now());
      for (const a of answers) {
        expect(a.status).toBe(403);
        expect(a.body).toMatchObject({ success: false, error: 'ERR_TENANT_INACTIVE' });
      }
      // A create on the ended session is refused too, and nothing is written.
      const create = await ask(replica.url, t.session, `mutation { createTag(tenantId: ${t.id}, name: "late") { id } }`);
      expect(create.status).toBe(403);
      const tags = await ask(mesh.gatewayUrl, admin, `{ tags(tenantId: ${t.id}) { name } }`);
      expect(tags.body?.data).toEqual({ tags: [] });
      process.stdout.write(`[sessions] tenant inactive → refused on both replicas after ${ms} ms\n`);
    });

    it("its administrator's password changed: the old session is refused within 5 s on both replicas", async () => {
      const t = await newDashboardTenant(mesh, 'Rekeyed');
      for (const url of gateways()) expect((await readsTags(url, t)).status).toBe(200);
      // No route changes a password yet: the stored hash is replaced as a future one would.
      const another = await db.collection('users').findOne({ tenantId: { $ne: t.id }, passwordHash: { $exists: true } });
      const changed = await db
        .collection('users')
        .updateOne({ tenantId: t.id, email: t.email }, { $set: { passwordHash: another!.passwordHash } });
      expect(changed.modifiedCount).toBe(1);
      const { ms, answers } = await refusedOnBoth(t, Date.now());
      for (const a of answers) expect(a).toMatchObject({ status: 401, body: { error: 'ERR_UNAUTHORIZED' } });
      process.stdout.write(`[sessions] password changed → refused on both replicas after ${ms} ms\n`);
    });

    it('its user removed: the session is refused within 5 s on both replicas', async () => {
      const t = await newDashboardTenant(mesh, 'Vacated');
      for (const url of gateways()) expect((await readsTags(url, t)).status).toBe(200);
      expect((await db.collection('users').deleteOne({ tenantId: t.id, email: t.email })).deletedCount).toBe(1);
      const { ms, answers } = await refusedOnBoth(t, Date.now());
      for (const a of answers) expect(a).toMatchObject({ status: 401, body: { error: 'ERR_UNAUTHORIZED' } });
      process.stdout.write(`[sessions] user removed → refused on both replicas after ${ms} ms\n`);
    });

    it('another tenant’s session is untouched', async () => {
      const t = await newDashboardTenant(mesh, 'Steady');
      for (const url of gateways()) expect((await readsTags(url, t)).status).toBe(200);
    });
  });

  describe('GraphQL client mistakes answer 4xx with an ERR_ code', () => {
    const cases: [string, (url: string) => Promise<Raw>, number][] = [
      [
        'an unknown operationName',
        (u) => raw(`${u}/graphql`, { token: admin, body: JSON.stringify({ query: 'query A { plans { id } }', operationName: 'B' }) }),
        400,
      ],
      [
        'several operations without operationName',
        (u) => raw(`${u}/graphql`, { token: admin, body: JSON.stringify({ query: 'query A { plans { id } } query B { plans { id } }' }) }),
        400,
      ],
      ['an empty body', (u) => raw(`${u}/graphql`, { token: admin, contentType: 'application/json' }), 400],
      ['an empty JSON object', (u) => raw(`${u}/graphql`, { token: admin, body: '{}' }), 400],
      ['an empty query', (u) => raw(`${u}/graphql`, { token: admin, body: JSON.stringify({ query: '' }) }), 400],
      ['malformed JSON', (u) => raw(`${u}/graphql`, { token: admin, body: '{"query":' }), 400],
      ['a query that is not a string', (u) => raw(`${u}/graphql`, { token: admin, body: JSON.stringify({ query: 5 }) }), 400],
      ['a batch', (u) => raw(`${u}/graphql`, { token: admin, body: JSON.stringify([{ query: '{ plans { id } }' }]) }), 400],
      ['a syntax error', (u) => raw(`${u}/graphql`, { token: admin, body: JSON.stringify({ query: '{ plans {' }) }), 400],
      ['an unknown field', (u) => raw(`${u}/graphql`, { token: admin, body: JSON.stringify({ query: '{ nothing }' }) }), 400],
      [
        'a mutation sent by GET',
        (u) =>
          raw(`${u}/graphql?query=${encodeURIComponent('mutation { createTag(tenantId: 1, name: "x") { id } }')}`, {
            method: 'GET',
            token: admin,
            headers: { 'apollo-require-preflight': '1' },
          }),
        405,
      ],
    ];
    it.each(cases)('%s', async (_what, send, status) => {
      const res = await send(mesh.gatewayUrl);
      expect(res.status).toBe(status);
      expect(CLIENT_CODES).toContain(codeOf(res));
    });
  });

  describe('list sizes are bounded in the owning service; 0 is not "unlimited"', () => {
    let ids: { t: number; ticket: number } | undefined;
    it('every list-sizing or list argument of the supergraph has a bound in the table', () => {
      const supergraph = parse(readFileSync(join(gatewayDir, 'supergraph.graphql'), 'utf8'));
      const found: string[] = [];
      for (const d of supergraph.definitions) {
        if (d.kind !== Kind.OBJECT_TYPE_DEFINITION && d.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
        for (const f of d.fields ?? []) {
          for (const a of f.arguments ?? []) {
            const type = a.type.kind === Kind.NON_NULL_TYPE ? a.type.type : a.type;
            if (['first', 'limit', 'last'].includes(a.name.value) || type.kind === Kind.LIST_TYPE)
              found.push(`${d.name.value}.${f.name.value}.${a.name.value}`);
          }
        }
      }
      expect(found.sort()).toEqual(Object.keys(LIST_BOUNDS).sort());
    });

    it.each(Object.entries(LIST_BOUNDS))(
      '%s: refused over its maximum (a size also at 0 and below), accepted at it',
      async (_arg, bound) => {
        ids ??= await (async () => {
          const t = await newDashboardTenant(mesh, 'Bounded');
          await contactWrites(mesh, t, '5521990007001', `bound-${randomUUID()}`, 'hello');
          const listed = await ask(mesh.gatewayUrl, admin, `{ tickets(tenantId: ${t.id}, first: 1) { nodes { id } } }`);
          return { t: t.id, ticket: (listed.body?.data as { tickets: { nodes: { id: number }[] } }).tickets.nodes[0].id };
        })();
        for (const size of bound.sizes ? [0, -1, bound.max + 1] : [bound.max + 1]) {
          const res = await ask(mesh.gatewayUrl, admin, bound.probe(size, ids));
          expect(res.body?.errors?.[0]).toMatchObject({ extensions: { code: 'ERR_VALIDATION' } });
        }
        const atMax = await ask(mesh.gatewayUrl, admin, bound.probe(bound.max, ids));
        expect(atMax.body?.errors?.[0]?.extensions?.code).not.toBe('ERR_VALIDATION');
      },
    );
  });

  describe('sign-in is rate limited, across replicas', () => {
    const login = (url: string, email: string, password = ADMIN_PASSWORD) =>
      raw(`${url}/graphql/login`, { body: JSON.stringify({ email, password }) });

    it('per e-mail: the sixth attempt on one e-mail, whichever replica, answers 429 with Retry-After', async () => {
      const t = await newDashboardTenant(mesh, 'Guarded');
      // newDashboardTenant signed in once: four more, alternating replicas, then refused even with the right password.
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await login(gateways()[i % 2], t.email.toUpperCase(), 'Wr0ng!pass')).status);
      expect(statuses).toEqual([401, 401, 401, 401]);
      const refused = await login(replica.url, ` ${t.email} `);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ success: false, error: 'ERR_RATE_LIMITED' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // An unknown e-mail is counted the same way and answers as a wrong password does.
      const unknown = `nobody-${randomUUID()}@dashboard.example`;
      expect((await login(mesh.gatewayUrl, unknown)).status).toBe(401);
    });

    it('per client address: past the limit every e-mail is refused, on both replicas', async () => {
      let refused: Raw | undefined;
      for (let i = 0; i < 45 && !refused; i++) {
        const res = await login(gateways()[i % 2], `probe-${i}-${randomUUID()}@dashboard.example`, 'Wr0ng!pass');
        if (res.status === 429) refused = res;
        else expect(res.status).toBe(401);
      }
      expect(refused?.body).toMatchObject({ error: 'ERR_RATE_LIMITED' });
      expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
      for (const url of gateways()) expect((await login(url, `late-${randomUUID()}@dashboard.example`)).status).toBe(429);
    });
  });
});
