// npm run bench:reads: the read side of the tickets API on a big tenant, through the REST facade.
// Seeds BENCH_TICKETS tickets (default 10 000) and BENCH_MESSAGES messages (default 100 000)
// straight into the services' databases, in the repositories' document shapes, then measures
// listTickets (a page), showTicketById, searchMessages and getMessageByMessageId with autocannon. Not a test: it prints
// figures. Bounded in time (BENCH_SECONDS per endpoint); all traffic stays on loopback.
//
// The database is the mesh's: MONGODB_URI when set, else the embedded default (FerretDB over
// PostgreSQL with GIN indexes; over SQLite, DEV_DB_BACKEND=sqlite, every query but a lone string
// _id is a full collection scan: scale it down there with BENCH_TICKETS / BENCH_MESSAGES).
import autocannon from 'autocannon';
import { mongo } from 'mongoose';
import { randomUUID } from 'node:crypto';
import { call } from '../support/http';
import { startNetworkEngine } from '../support/network-engine';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const TICKETS = Number(process.env.BENCH_TICKETS ?? 10_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 100_000);
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 30);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 2);
const BATCH = 5_000;
/** Slow databases must be measured, not cut off by the ordinary deadlines (5 s, and 15 s for calls to messaging). */
const DEADLINE_MS = 120_000;

const WORDS = ['order', 'invoice', 'delivery', 'refund', 'thanks', 'hello', 'payment', 'tracking', 'address', 'coupon'];
/** The search term: one message in ten has it, so a search has a few hits per ticket. */
const NEEDLE = 'Shipped';

interface Figures {
  name: string;
  /** One request alone, before the load: the latency even when the load completes none. */
  aloneMs: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failures: number;
}

/** One request with the bench's long deadline (the test helper gives up after 30 s). */
const once = (url: string, token: string, body?: unknown) =>
  fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(DEADLINE_MS),
  }).then(async (res) => ({ status: res.status, body: await res.text() }));

const elapsed = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

async function insertInBatches(
  label: string,
  total: number,
  make: (i: number) => mongo.Document,
  insert: (docs: mongo.Document[]) => Promise<unknown>,
) {
  const started = Date.now();
  let lastReport = 0;
  for (let from = 0; from < total; from += BATCH) {
    const docs: mongo.Document[] = [];
    for (let i = from; i < Math.min(total, from + BATCH); i++) docs.push(make(i));
    await insert(docs);
    if (Date.now() - lastReport > 5_000 || from + BATCH >= total) {
      lastReport = Date.now();
      const done = Math.min(total, from + BATCH);
      console.log(`  ${label}: ${done.toLocaleString('en')} / ${total.toLocaleString('en')} (${elapsed(started)})`);
    }
  }
}

async function load(name: string, alone: () => Promise<{ status: number }>, opts: autocannon.Options): Promise<Figures> {
  const started = Date.now();
  const single = await alone();
  const aloneMs = Date.now() - started;
  if (single.status !== 200) throw new Error(`${name} answered ${single.status}`);
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, timeout: DEADLINE_MS / 1000, ...opts });
  return {
    name,
    aloneMs,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

async function main() {
  const engine = await startNetworkEngine();
  // The abuse limits (per token and tenant) would turn fast reads into 429s, which are no measure of a read.
  const unlimited = { RATE_LIMIT_PER_TOKEN: '100000000', RATE_LIMIT_PER_TENANT: '100000000' };
  const mesh = await startMesh({
    freePorts: true,
    onLine: () => undefined,
    env: { RPC_DEADLINE_MS: String(DEADLINE_MS), PROVIDER_TIMEOUT_MS: String(DEADLINE_MS - 5_000), LOG_LEVEL: 'warn', ...unlimited },
  });
  const client = new mongo.MongoClient(mesh.database.uri);
  const results: Figures[] = [];
  try {
    await client.connect();
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Bench',
        maxUsers: 1,
        maxConnections: 1,
        acceptTerms: true,
        email: `bench-${randomUUID()}@example.com`,
        password: 'B3nch!mark',
        userName: 'Bench',
        profile: 'admin',
      },
    });
    const tenantId = tenant.body.data.tenant.id as number;
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenantId, name: 'bench', type: 'engine_a', engineUrl: engine.url },
    });
    const channelId = session.body.data.whatsapp.id as number;
    const { apiId, authToken } = session.body.data.api;
    const root = `${mesh.gatewayUrl}/v2/api/external/${apiId}`;
    // One ticket through the API, so the services' collections, indexes and counters exist.
    const first = await call(`${root}/createTicket`, { token: authToken, body: { number: '5511900000000', body: 'warm-up' } });
    const firstId = first.body.data.ticketId as number;

    const ticketsDb = client.db('convo_tickets');
    const messagingDb = client.db('convo_messaging');
    // Seeded ids follow the counters, and the counters then move past them, so later creates never collide.
    const counters = ticketsDb.collection<{ _id: string; seq: number }>('counters');
    const base = ((await counters.findOne({ _id: 'ticket' }))?.seq ?? firstId) + 1;
    const contactBase = ((await counters.findOne({ _id: 'contact' }))?.seq ?? 0) + 1;
    const epoch = Date.now() - 90 * 24 * 3600 * 1000;
    const numberOf = (i: number) => `55119${String(10_000_000 + i)}`;

    const messageIds: string[] = [];
    console.log(
      `Seeding tenant ${tenantId}: ${TICKETS.toLocaleString('en')} tickets, ${MESSAGES.toLocaleString('en')} messages (database: ${mesh.database.kind})`,
    );
    const seedStarted = Date.now();
    await insertInBatches(
      'contacts',
      TICKETS,
      (i) => ({
        _id: contactBase + i,
        tenantId,
        channelId,
        number: numberOf(i),
        email: '',
        name: `Contact ${i}`,
        createdAt: new Date(epoch),
      }),
      (docs) => ticketsDb.collection('contacts').insertMany(docs, { ordered: false }),
    );
    await insertInBatches(
      'tickets',
      TICKETS,
      (i) => {
        const at = new Date(epoch + i * 60_000);
        return {
          _id: base + i,
          tenantId,
          channelId,
          contactId: contactBase + i,
          contact: { number: numberOf(i), name: `Contact ${i}`, email: '' },
          status: i % 3 === 0 ? 'closed' : i % 3 === 1 ? 'open' : 'pending',
          userId: null,
          queueId: null,
          chatFlowId: null,
          kanbanId: null,
          reasonId: null,
          value: null,
          externalKey: '',
          botBuilderStatus: false,
          llmAssistantStatus: false,
          workflowStatus: false,
          tagIds: [],
          paused: false,
          pauseReason: null,
          pausedAt: null,
          evaluation: null,
          createdAt: at,
          updatedAt: at,
          closedAt: i % 3 === 0 ? at : null,
        };
      },
      (docs) => ticketsDb.collection('tickets').insertMany(docs, { ordered: false }),
    );
    await counters.updateOne({ _id: 'ticket' }, { $set: { seq: base + TICKETS } }, { upsert: true });
    await counters.updateOne({ _id: 'contact' }, { $set: { seq: contactBase + TICKETS } }, { upsert: true });
    // The tickets service builds its listing rows and counts for tickets it finds without them
    // when it starts: restarting it over the seeded tickets measures that backfill too.
    const backfillStarted = Date.now();
    await mesh.kill('tickets');
    await mesh.restart('tickets');
    console.log(`  tickets service restarted, listing rebuilt (${elapsed(backfillStarted)})`);
    await insertInBatches(
      'messages',
      MESSAGES,
      (i) => {
        const at = new Date(epoch + i * 1_000);
        const _id = randomUUID();
        if (i % 97 === 0) messageIds.push(_id);
        return {
          _id,
          tenantId,
          ticketId: base + (i % TICKETS),
          channelId,
          direction: i % 2 ? 'in' : 'out',
          body: `${WORDS[i % WORDS.length]} #${i}${i % 10 === 3 ? ` ${NEEDLE} today` : ''}`,
          status: 'sent',
          providerMessageId: `P-${i}`,
          error: '',
          mediaUrl: '',
          mediaId: '',
          mimeType: '',
          fileName: '',
          externalKey: '',
          createdAt: at,
          updatedAt: at,
        };
      },
      (docs) => messagingDb.collection('messages').insertMany(docs, { ordered: false }),
    );
    console.log(`Seeded in ${elapsed(seedStarted)}\n`);

    const headers = { 'content-type': 'application/json', authorization: `Bearer ${authToken}` };
    const randomTicket = () => base + Math.floor(Math.random() * TICKETS);
    const check = await once(`${root}/listTickets?pageNumber=1`, authToken);
    if (check.status !== 200 || JSON.parse(check.body).data.count !== TICKETS + 1)
      throw new Error(`listTickets answered ${check.status}: ${check.body.slice(0, 300)}`);

    const pathOf = (op: string) => `${new URL(root).pathname}/${op}`;
    const page1 = `${root}/listTickets?pageNumber=1`;
    const page50 = `${root}/listTickets?pageNumber=50&status=open`;
    const searchPath = (ticketId: number) => `${pathOf('searchMessages')}?ticketId=${ticketId}&searchParam=${NEEDLE.toLowerCase()}`;
    results.push(await load('listTickets (page 1 of the tenant)', () => once(page1, authToken), { url: page1, headers }));
    results.push(await load('listTickets (page 50, status=open)', () => once(page50, authToken), { url: page50, headers }));
    results.push(
      await load('showTicketById (random ticket)', () => once(`${root}/showTicketById`, authToken, { ticketId: randomTicket() }), {
        url: root,
        headers,
        requests: [
          {
            method: 'POST',
            path: pathOf('showTicketById'),
            setupRequest: (req) => ({ ...req, body: JSON.stringify({ ticketId: randomTicket() }) }),
          },
        ],
      }),
    );
    results.push(
      await load(
        `searchMessages (random ticket, "${NEEDLE.toLowerCase()}")`,
        () => once(`${mesh.gatewayUrl}${searchPath(randomTicket())}`, authToken),
        {
          url: root,
          headers,
          requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: searchPath(randomTicket()) }) }],
        },
      ),
    );
    const messagePath = () => `${pathOf('getMessageByMessageId')}?messageId=${messageIds[Math.floor(Math.random() * messageIds.length)]}`;
    results.push(
      await load('getMessageByMessageId (random message)', () => once(`${mesh.gatewayUrl}${messagePath()}`, authToken), {
        url: root,
        headers,
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: messagePath() }) }],
      }),
    );
  } finally {
    await client.close();
    await mesh.stop();
    await engine.close();
  }

  console.log(
    `\n${TICKETS.toLocaleString('en')} tickets, ${MESSAGES.toLocaleString('en')} messages in one tenant; ${CONNECTIONS} connections, ${DURATION_S} s each; database: ${mesh.database.kind}\n`,
  );
  console.log(
    'endpoint'.padEnd(44),
    'alone ms'.padStart(9),
    'req/s'.padStart(8),
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    'requests'.padStart(9),
    'failed'.padStart(7),
  );
  for (const f of results) {
    console.log(
      f.name.padEnd(44),
      String(f.aloneMs).padStart(9),
      f.rps.toFixed(1).padStart(8),
      String(f.p50).padStart(8),
      String(f.p99).padStart(8),
      String(f.requests).padStart(9),
      String(f.failures).padStart(7),
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
