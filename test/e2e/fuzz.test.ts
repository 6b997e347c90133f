import type { Mesh } from '@convo/dev-mesh';
import fc from 'fast-check';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, UNPACED } from '../support/http';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * Fuzzes every REST route that takes a body, and the GET routes that take a query, through the
 * real mesh with fast-check. The routes and their fields come from the gateway's own OpenAPI
 * document (`/docs/json`), so a new route is fuzzed without being listed here. Bodies are random
 * over the fields the route's schema knows (and some it does not), with values of every JSON type,
 * huge and tiny, numbers beyond a double (`1e400`), sent as JSON, as multipart where the route
 * takes it, or as text that is no JSON at all; with the right token, another kind, or none.
 * Every answer must be below 500 and small, and a refused write on the external API must leave
 * nothing behind. Each route is sent at least one request.
 * CI runs FUZZ_RUNS (default 300) requests; `npm run fuzz` in test/ runs 10,000.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const MAX_ANSWER_BYTES = 64 * 1024;
const EXTERNAL = '/v2/api/external/{apiId}';

interface Route {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'GET';
  path: string;
  /** Body fields (or query parameters of a GET) the document names. */
  fields: string[];
  multipart: boolean;
}

/** Fields besides the document's, for every route: common ones and unknown ones. */
const EXTRA_FIELDS = ['ticketId', 'number', 'body', 'tenant', 'value', 'extra', '__proto__', 'constructor', 'x'];
/** Literals JSON.stringify cannot write, put in the text after it. */
const RAW = { '"__1e400__"': '1e400', '"__-1e400__"': '-1e400', '"__1e-400__"': '1e-400', '"__big__"': '123456789012345678901234567890' };

type Doc = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, any> } };

/** The routes of the document that take a body (or a query), with their fields. */
function routesOf(doc: Doc): Route[] {
  const resolve = (s: any): any => (s?.$ref ? doc.components?.schemas?.[String(s.$ref).split('/').pop()!] : s);
  const propsOf = (s: any): string[] => {
    const schema = resolve(s);
    if (!schema || typeof schema !== 'object') return [];
    const own = Object.keys(schema.properties ?? {});
    const alts = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap(propsOf);
    return [...new Set([...own, ...alts])];
  };
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const m = method.toUpperCase() as Route['method'];
      const content = op?.requestBody?.content ?? {};
      if (Object.keys(content).length) {
        routes.push({
          method: m,
          path,
          fields: propsOf(content['application/json']?.schema ?? content['multipart/form-data']?.schema),
          multipart: 'multipart/form-data' in content,
        });
      } else if (m === 'GET') {
        const query = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name as string);
        if (query.length) routes.push({ method: m, path, fields: query, multipart: false });
      }
    }
  }
  return routes;
}

describe('fuzzed REST API', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let root: string;
  let token: string;
  let admin: string;
  let apiId: string;
  let ticketId: number;
  /** Another tenant and channel: the tenant API's fuzz aims at them (and at random ids). */
  let victim: { tenant: number; channel: number };
  let routes: Route[];

  beforeAll(async () => {
    engine = await startFakeEngine();
    // No rate limit here: the fuzz is one client sending as fast as it can.
    const off = [
      'RATE_LIMIT_PER_TOKEN',
      'RATE_LIMIT_PER_TENANT',
      'WEBCHAT_VISITORS_PER_ADDRESS',
      'WEBCHAT_VISITORS_PER_CHANNEL',
      'WEBCHAT_POLLS_PER_ADDRESS',
      'WEBCHAT_POLLS_PER_CHANNEL',
    ];
    mesh = await startMesh({
      freePorts: true,
      env: { ...UNPACED, ...Object.fromEntries(off.map((k) => [k, '0'])) },
      onLine: () => undefined,
    });
    admin = mesh.superAdminToken;
    const integration = async (name: string) => {
      const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
        token: admin,
        body: {
          status: 'active',
          name,
          maxUsers: 10,
          maxConnections: 10,
          acceptTerms: true,
          email: `owner@${name.toLowerCase()}.example`,
          password: 'S3cure!pass',
          userName: 'Owner',
          profile: 'admin',
        },
      });
      const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
        token: admin,
        body: {
          tenant: tenant.body.data.tenant.id,
          name: 'engine_a',
          type: 'engine_a',
          engineUrl: engine.url,
          engineToken: 'engine-secret',
        },
      });
      return {
        tenant: tenant.body.data.tenant.id as number,
        api: session.body.data.api,
        channel: session.body.data.whatsapp?.id as number,
      };
    };
    const mine = await integration('Fuzz');
    const other = await integration('Victim');
    victim = { tenant: other.tenant, channel: other.channel ?? other.tenant };
    apiId = mine.api.apiId;
    token = mine.api.authToken;
    root = `${mesh.gatewayUrl}/v2/api/external/${apiId}`;
    const created = await call(`${root}/createTicket`, { token, body: { number: '5521990009999', body: 'seed' } });
    ticketId = created.body.data.ticketId;
    routes = routesOf((await call(`${mesh.gatewayUrl}/docs/json`)).body);
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  /** What a refused write must not change: the tickets, the seed ticket, its notes and messages. */
  async function fingerprint(): Promise<string> {
    const [list, one, notes, messages] = await Promise.all([
      call(`${root}/listTickets?pageNumber=1`, { token }),
      call(`${root}/showTicketById`, { token, body: { ticketId } }),
      call(`${root}/listNotes?ticketId=${ticketId}`, { token }),
      call(`${root}/showAllMessages`, { token, body: { ticket: String(ticketId) } }),
    ]);
    const { updatedAt: _u, lastMessage: _l, ...ticket } = one.body.data ?? {};
    return JSON.stringify([list.body.data?.count, ticket, notes.body.data?.count, messages.body.data?.count ?? messages.body.data?.length]);
  }

  const value = fc.oneof(
    fc.integer(),
    fc.constantFrom(0, -1, 2147483647, 2147483648, 4294967297, 1e21, 1.5, Number.MAX_SAFE_INTEGER, -0.0001),
    fc.constantFrom(...Object.keys(RAW).map((k) => k.slice(1, -1))),
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '',
      '5521990009999',
      'true',
      '1',
      '1e400',
      'Infinity',
      'NaN',
      '-1',
      'http://127.0.0.1/x',
      'http://169.254.169.254/latest',
      'http://nothing.invalid/a.png',
      'x'.repeat(5000),
      'open',
      'typing',
      'QUJD',
      'data:image/png;base64,QUJD',
      'asaas',
      'engine_a',
      'waba',
      'active',
      'inactive',
    ),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('__ticket__', '__tenant__', '__channel__'),
    fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.boolean()), { maxLength: 8 }),
    fc.constantFrom([1], new Array(300).fill(1), [{ id: 'a', title: 'b' }], [{ title: 'S', rows: [{ id: 'r', title: 'R' }] }]),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxKeys: 3 }),
  );
  const encodings = ['json', 'json', 'json', 'json', 'multipart', 'text'] as const;
  const tokens = ['right', 'right', 'right', 'right', 'right', 'none', 'other'] as const;

  const request = () =>
    fc.integer({ min: 0, max: routes.length - 1 }).chain((i) =>
      fc.record({
        route: fc.constant(routes[i]),
        body: fc.dictionary(fc.constantFrom(...routes[i].fields, ...EXTRA_FIELDS), value, { maxKeys: 8 }),
        encoding: fc.constantFrom(...encodings),
        tokenKind: fc.constantFrom(...tokens),
        param: value,
        junk: fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.constantFrom('{', '{"ticketId":', '[1,2', 'null', '"x"', '{"a":1e400}', '{"__proto__":{"x":1}}', '\u0000'),
        ),
      }),
    );
  type Request = {
    route: Route;
    body: Record<string, unknown>;
    encoding: (typeof encodings)[number];
    tokenKind: (typeof tokens)[number];
    param: unknown;
    junk: string;
  };

  const substitute = (v: unknown): unknown =>
    v === '__ticket__' ? ticketId : v === '__tenant__' ? victim.tenant : v === '__channel__' ? victim.channel : v;

  function urlOf(route: Route, param: unknown, query?: Record<string, unknown>): string {
    const p = substitute(param);
    const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (name === 'apiId') return apiId;
      if (name === 'ticketId') return String(typeof p === 'number' ? p : ticketId);
      if (/whatsapp|channel/i.test(name)) return String(typeof p === 'number' ? p : victim.channel);
      // JSON for anything but a string: String() throws on an object without a prototype.
      return encodeURIComponent(typeof p === 'string' ? p.slice(0, 100) : (JSON.stringify(p) ?? String(p)));
    });
    const qs = query
      ? `?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]))}`
      : '';
    return `${mesh.gatewayUrl}${path}${qs}`;
  }

  async function send({ route, body: raw, encoding, tokenKind, param, junk }: Request) {
    const b = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, substitute(v)]));
    const external = route.path.startsWith(EXTERNAL);
    const right = external ? token : admin;
    const bearer = tokenKind === 'none' ? undefined : tokenKind === 'other' ? (external ? admin : token) : right;
    const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
    let payload: string | FormData | undefined;
    if (route.method === 'GET') return fetch(urlOf(route, param, b), { headers, signal: AbortSignal.timeout(30_000) });
    if (encoding === 'text') {
      payload = junk;
      headers['content-type'] = 'application/json';
    } else if (encoding === 'multipart' && route.multipart) {
      const form = new FormData();
      for (const [k, v] of Object.entries(b)) form.append(k, typeof v === 'string' ? v : JSON.stringify(v));
      if ('media' in b || Object.keys(b).length % 2)
        form.set('media', new Blob([Buffer.from('%PDF-1.4 fuzz')], { type: 'application/pdf' }), 'f.pdf');
      payload = form;
    } else {
      payload = Object.entries(RAW).reduce((text, [from, to]) => text.split(from).join(to), JSON.stringify(b));
      headers['content-type'] = 'application/json';
    }
    return fetch(urlOf(route, param), { method: route.method, headers, body: payload, signal: AbortSignal.timeout(30_000) });
  }

  it(
    `answers ${RUNS} fuzzed requests on every route with a body without a 5xx, small, and without half-writes`,
    async () => {
      expect(routes.filter((r) => r.method !== 'GET').length).toBeGreaterThan(40);
      const statuses = new Map<number, number>();
      const perRoute = new Map<string, number>();
      const check = async (req: Request) => {
        const external = req.route.path.startsWith(EXTERNAL) && req.route.method !== 'GET';
        const before = external ? await fingerprint() : '';
        const res = await send(req);
        const text = await res.text();
        const label = `${req.route.method} ${req.route.path}`;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        perRoute.set(label, (perRoute.get(label) ?? 0) + 1);
        expect({ label, status: res.status < 500 ? 'below 500' : res.status, text: res.status < 500 ? '' : text }).toEqual({
          label,
          status: 'below 500',
          text: '',
        });
        expect(text.length).toBeLessThan(MAX_ANSWER_BYTES);
        if (external && res.status >= 400)
          expect({ label, body: req.body, state: await fingerprint() }).toEqual({ label, body: req.body, state: before });
      };
      // Every route once with an empty body and the right token, then the random ones.
      for (const route of routes) await check({ route, body: {}, encoding: 'json', tokenKind: 'right', param: '__ticket__', junk: '' });
      await fc.assert(fc.asyncProperty(request(), check), {
        numRuns: RUNS,
        seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31),
        endOnFailure: true,
      });
      // Not only refusals: some fuzzed requests are accepted too.
      expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
      process.stdout.write(
        `fuzz: ${RUNS + routes.length} requests on ${routes.length} routes (${routes.filter((r) => r.method !== 'GET').length} with a body); statuses ${JSON.stringify(Object.fromEntries(statuses))}\n`,
      );
      // Each request costs a few round trips (the fingerprints around a refused write).
    },
    Math.max(180_000, RUNS * 150),
  );
});
