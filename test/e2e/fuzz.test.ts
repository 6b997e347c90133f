import type { Mesh } from '@convo/dev-mesh';
import fc from 'fast-check';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, UNPACED } from '../support/http';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * Fuzzes the external API through the real mesh with fast-check: random bodies over the fields the
 * route schemas know (and some they do not), with values of every JSON type, huge and tiny.
 * Every answer must be below 500 and small, and a refused write must leave nothing behind.
 * CI runs FUZZ_RUNS (default 300) requests; `npm run fuzz` in test/ runs 4,000.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const MAX_ANSWER_BYTES = 64 * 1024;

const POSTS = [
  'createTicket', 'showTicketById', 'updateticketinfo', 'updatequeue', 'addTag', 'removeTag', 'createNotes',
  'sendMessageByTicket', 'showticket', 'showallticket', 'sendEvaluation', 'showAllMessages', 'sendButtonWABA',
  'sendListWABA', 'sendInteractive/engine_a/quickReply', '', 'url', 'base64', 'voice', 'sendPresence',
  'createContact', 'updateContact', 'showcontact', 'updateNote', 'ticket/pause/start/1',
];
const GETS = ['listTickets', 'searchMessages', 'listContacts', 'listNotes', 'listTags', 'listUsers'];
const FIELDS = [
  'ticketId', 'ticket', 'number', 'body', 'userId', 'queueId', 'tagId', 'tagIds', 'status', 'notes', 'idFront', 'mediaUrl',
  'base64Data', 'mimeType', 'fileName', 'audio', 'externalKey', 'isClosed', 'reopen', 'validateNumber', 'kanbanId', 'value',
  'state', 'noteId', 'name', 'email', 'searchParam', 'pageNumber', 'buttons', 'sections', 'title', 'pauseReason', 'extra',
];

describe('fuzzed external API', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let root: string;
  let token: string;
  let ticketId: number;

  beforeAll(async () => {
    engine = await startFakeEngine();
    // No rate limit here: the fuzz is one client sending as fast as it can.
    mesh = await startMesh({ freePorts: true, env: { ...UNPACED, RATE_LIMIT_PER_TOKEN: '0', RATE_LIMIT_PER_TENANT: '0' }, onLine: () => undefined });
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: { status: 'active', name: 'Fuzz', maxUsers: 10, maxConnections: 10, acceptTerms: true, email: 'owner@fuzz.example', password: 'S3cure!pass', userName: 'Owner', profile: 'admin' },
    });
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenant.body.data.tenant.id, name: 'engine_a', type: 'engine_a', engineUrl: engine.url, engineToken: 'engine-secret' },
    });
    root = `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`;
    token = session.body.data.api.authToken;
    const created = await call(`${root}/createTicket`, { token, body: { number: '5521990009999', body: 'seed' } });
    ticketId = created.body.data.ticketId;
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
    const { updatedAt: _u, lastMessage: _l, ...ticket } = one.body.data;
    return JSON.stringify([list.body.data.count, ticket, notes.body.data?.count, messages.body.data?.count ?? messages.body.data?.length]);
  }

  const value = fc.oneof(
    fc.integer(),
    fc.constantFrom(0, -1, 2147483647, 2147483648, 4294967297, 1e21, 1.5, Number.MAX_SAFE_INTEGER),
    fc.string({ maxLength: 40 }),
    fc.constantFrom('', '5521990009999', 'true', '1', 'http://127.0.0.1/x', 'http://nothing.invalid/a.png', 'x'.repeat(5000), 'open', 'typing'),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.boolean()), { maxLength: 8 }),
    fc.constantFrom([1], new Array(300).fill(1), [{ id: 'a', title: 'b' }]),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxKeys: 3 }),
  );
  const body = fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(value, fc.constant('__ticket__')), { maxKeys: 6 });
  const request = fc.oneof(
    fc.record({ method: fc.constant('POST'), op: fc.constantFrom(...POSTS), body }),
    fc.record({ method: fc.constant('GET'), op: fc.constantFrom(...GETS), body }),
  );

  it(`answers ${RUNS} fuzzed requests on ${POSTS.length + GETS.length} routes without a 5xx, small, and without half-writes`, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async ({ method, op, body: raw }) => {
        const b = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, v === '__ticket__' ? ticketId : v]));
        const url = op ? `${root}/${op}` : root;
        const before = method === 'POST' ? await fingerprint() : '';
        const res = await fetch(method === 'GET' ? `${url}?${new URLSearchParams(Object.entries(b).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]))}` : url, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
          body: method === 'POST' ? JSON.stringify(b) : undefined,
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect({ op, status: res.status < 500 ? 'below 500' : res.status, text: res.status < 500 ? '' : text }).toEqual({ op, status: 'below 500', text: '' });
        expect(text.length).toBeLessThan(MAX_ANSWER_BYTES);
        if (method === 'POST' && res.status >= 400) expect({ op, body: b, state: await fingerprint() }).toEqual({ op, body: b, state: before });
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
    );
    // Not only refusals: some fuzzed requests are accepted too.
    expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
    process.stdout.write(`fuzz statuses: ${JSON.stringify(Object.fromEntries(statuses))}\n`);
    // Each request costs a few round trips (the fingerprints around a refused write).
  }, Math.max(120_000, RUNS * 150));
});
