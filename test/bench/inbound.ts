// npm run bench:inbound: the inbound path (provider webhook → stored message → customer webhook)
// through the whole mesh, next to an inbound floor (inbound-floor.ts: one Fastify process that
// checks the signature, inserts the message and POSTs the customer's webhook). Not a test: it
// prints figures. The load generator (this process), the customer's receiver
// (inbound-receiver.ts), the floor and the mesh run in separate processes; mesh and floor
// alternate, BENCH_REPS times, and each repetition's ratios are taken in that repetition.
//
// Each event is one provider message with an id of its own, half of them Meta's (WhatsApp Cloud
// API, signed with X-Hub-Signature-256 over the exact bytes) to /webhooks/meta, half an engine's
// (engine_a: Baileys' messages.upsert, bearer token) to /webhooks/engine/{channel}, spread over
// BENCH_CONTACTS numbers per channel. Figures: accepted/s (2xx answers: stored) at the peak (closed
// loop: autocannon), delivered/s (until the receiver had every accepted event), CPU ms per event
// by process (from /proc), and at half of the peak (a steady rate: paced.ts) the time from each
// event's due time at the provider to its arrival at the customer's receiver. Every accepted
// event must arrive, once: lost and duplicated events are counted by provider message id and
// webhook-id.
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { call } from '../support/http';
import { asker, databaseCommands, diff, median, startProvider, startScript, total } from './harness';
import type { Arrival } from './inbound-receiver';
import { pacedLoad, quantile } from './paced';
import { cpuMs, cpuSince, cpuSnapshot, databasePids, isFerretDb, sumCpu } from './proc-cpu';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const REPS = Number(process.env.BENCH_REPS ?? 3);
/** Contacts per channel: each sends to its own ticket. */
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 64);
// `both`: every event names its contact by two identities, as the providers do now: Meta's with the
// BSUID beside the phone (contacts[].user_id, messages[].from_user_id), the engine's by LID with the
// phone in key.remoteJidAlt (Baileys 7). `phone` (the default): the phone alone.
const IDENTITIES = process.env.BENCH_IDENTITIES === 'both' ? 'both' : 'phone';
/** Unmeasured load on mesh and floor first (tickets opened, code warmed; see run.ts). */
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 15);
const PACED_S = Number(process.env.BENCH_PACED_SECONDS ?? 20);
/** A fixed steady rate instead of half of each repetition's peak (for comparing two builds). */
const HALF_RATE = Number(process.env.BENCH_HALF_RATE ?? 0);
/** How long the customer's receiver may go without a new arrival before the rest counts as lost. */
const DRAIN_IDLE_MS = Number(process.env.BENCH_DRAIN_IDLE_MS ?? 30_000);

const META_APP_SECRET = 'bench-meta-app-secret';
const ENGINE_TOKEN = 'bench-engine-token';
const PHONE_NUMBER_ID = '15550009999';
const prefix = randomUUID().slice(0, 8).toUpperCase();

interface Target {
  name: 'mesh' | 'floor';
  origin: string;
  engineChannelId: number;
}
interface Event {
  path: string;
  headers: Record<string, string>;
  body: string;
  pmid: string;
}

/** The engine's key of a contact's message: its phone's JID, or (`both`) its LID with the phone beside it. */
const engineAddress = (contact: string) =>
  IDENTITIES === 'both'
    ? { remoteJid: `27637599${contact}0001@lid`, remoteJidAlt: `551196660${contact}@s.whatsapp.net`, addressingMode: 'lid' }
    : { remoteJid: `551196660${contact}@s.whatsapp.net` };

let seq = 0;
/** The next provider event: Meta's and the engine's in turn, over CONTACTS numbers each. */
function nextEvent(target: Target): Event {
  const n = seq++;
  const contact = String(Math.floor(n / 2) % CONTACTS).padStart(4, '0');
  if (n % 2 === 0) {
    const pmid = `wamid.BENCH${prefix}${n}`;
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA-BENCH',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550009999', phone_number_id: PHONE_NUMBER_ID },
                contacts: [
                  {
                    profile: { name: `Meta ${contact}` },
                    wa_id: `551195550${contact}`,
                    ...(IDENTITIES === 'both' && { user_id: `BR.90000${prefix}${contact}` }),
                  },
                ],
                messages: [
                  {
                    from: `551195550${contact}`,
                    ...(IDENTITIES === 'both' && { from_user_id: `BR.90000${prefix}${contact}` }),
                    id: pmid,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: 'text',
                    text: { body: `Hello #${n}` },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const signature = `sha256=${createHmac('sha256', META_APP_SECRET).update(body).digest('hex')}`;
    return { path: '/webhooks/meta', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body, pmid };
  }
  const pmid = `3EB0${prefix}${n}`;
  const body = JSON.stringify({
    event: 'messages.upsert',
    data: {
      type: 'notify',
      messages: [
        {
          key: { ...engineAddress(contact), fromMe: false, id: pmid },
          messageTimestamp: Math.floor(Date.now() / 1000),
          pushName: `Engine ${contact}`,
          message: { conversation: `Hello #${n}` },
        },
      ],
    },
  });
  return {
    path: `/webhooks/engine/${target.engineChannelId}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ENGINE_TOKEN}` },
    body,
    pmid,
  };
}

/** One run's events: when each was sent (wall-clock ms; for paced runs its due time) and which were accepted. */
interface Ledger {
  sentAt: Map<string, number>;
  accepted: Set<string>;
  /** Answers other than 2xx, by status (0: none). */
  refused: Map<number, number>;
}
const newLedger = (): Ledger => ({ sentAt: new Map(), accepted: new Set(), refused: new Map() });
function answered(ledger: Ledger, pmid: string, status: number) {
  if (status >= 200 && status < 300) ledger.accepted.add(pmid);
  else ledger.refused.set(status, (ledger.refused.get(status) ?? 0) + 1);
}
const refusals = (l: Ledger) => (l.refused.size ? ` (refused: ${[...l.refused].map(([s, n]) => `${n}× ${s}`).join(', ')})` : '');

async function peak(target: Target, ledger: Ledger, durationS = DURATION_S) {
  const r = await autocannon({
    url: target.origin,
    method: 'POST',
    connections: CONNECTIONS,
    duration: durationS,
    requests: [
      {
        setupRequest: (req, context) => {
          const e = nextEvent(target);
          (context as { pmid?: string }).pmid = e.pmid;
          ledger.sentAt.set(e.pmid, Date.now());
          return { ...req, path: e.path, headers: { ...req.headers, ...e.headers }, body: e.body };
        },
        onResponse: (status, _body, context) => answered(ledger, (context as { pmid: string }).pmid, status),
      },
    ],
  });
  return { p50: r.latency.p50, p99: r.latency.p99, failures: r.non2xx + r.errors + r.timeouts };
}

async function paced(target: Target, ledger: Ledger, rate: number, durationS = PACED_S) {
  const pmids: string[] = [];
  return pacedLoad(
    target.origin,
    {},
    (i, due) => {
      const e = nextEvent(target);
      pmids[i] = e.pmid;
      ledger.sentAt.set(e.pmid, performance.timeOrigin + due);
      return e;
    },
    { rate, durationS, connections: CONNECTIONS, onAnswer: (i, status) => answered(ledger, pmids[i], status) },
  );
}

/** Every event sent in any run, and every one answered 2xx: what must arrive, once. */
const everSent = new Set<string>();
const everAccepted = new Set<string>();
/** Every webhook-id the receiver saw, with how often: a second arrival is a duplicate. */
const seenIds = new Map<string, number>();
/** Provider message id → when it first arrived, and the webhook-id it arrived under. */
const arrived = new Map<string, { at: number; webhookId: string }>();
let duplicated = 0;
/** Arrivals naming no event the bench sent. */
let unknown = 0;

interface Outcome {
  /** This run's events that arrived (provider message id → arrival). */
  arrivedAt: Map<string, number>;
  /** This run's accepted events that had not arrived when the drain gave up. */
  missing: number;
  doneAt: number;
}

/** Takes in the receiver's arrivals (of any run: an event answered late arrives late). */
async function collect(drainAsk: () => Promise<Arrival[]>): Promise<number> {
  const got = await drainAsk();
  for (const [, webhookId, pmid, at] of got) {
    const times = (seenIds.get(webhookId) ?? 0) + 1;
    seenIds.set(webhookId, times);
    const earlier = arrived.get(pmid);
    if (times > 1 || (earlier && earlier.webhookId !== webhookId)) duplicated++;
    if (!everSent.has(pmid)) unknown++;
    else if (!earlier) arrived.set(pmid, { at, webhookId });
  }
  return got.length;
}

/** Collects arrivals until every accepted event of the ledger arrived (or nothing came for DRAIN_IDLE_MS). */
async function drain(drainAsk: () => Promise<Arrival[]>, ledger: Ledger): Promise<Outcome> {
  for (const p of ledger.sentAt.keys()) everSent.add(p);
  for (const p of ledger.accepted) everAccepted.add(p);
  let lastProgress = Date.now();
  let doneAt = Date.now();
  for (;;) {
    if (await collect(drainAsk)) lastProgress = doneAt = Date.now();
    const missing = [...ledger.accepted].filter((p) => !arrived.has(p)).length;
    if (!missing || Date.now() - lastProgress > DRAIN_IDLE_MS) {
      const arrivedAt = new Map([...ledger.sentAt.keys()].filter((p) => arrived.has(p)).map((p) => [p, arrived.get(p)!.at] as const));
      return { arrivedAt, missing, doneAt };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function latencies(ledger: Ledger, outcome: Outcome) {
  const ms = [...outcome.arrivedAt].map(([pmid, at]) => at - ledger.sentAt.get(pmid)!).sort((a, b) => a - b);
  const r = (v: number) => Math.round(v);
  return { p50: r(quantile(ms, 0.5)), p90: r(quantile(ms, 0.9)), p99: r(quantile(ms, 0.99)), max: r(ms[ms.length - 1] ?? NaN) };
}

interface PeakRun {
  acceptedPerS: number;
  deliveredPerS: number;
  p99: number;
  failures: number;
  cpuMsPerEvent: number;
  missing: number;
}
interface PacedRun {
  rate: number;
  answeredPerS: number;
  answerP99: number;
  failures: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  missing: number;
}

async function main() {
  const engine = await startProvider();
  const receiverProc = await startScript<{ url: string }>('inbound-receiver.js', {}, true);
  const ask = asker<{ arrivals: Arrival[] }>(receiverProc.child);
  const drainAsk = () => ask({ drain: true }).then((a) => a.arrivals);
  const start = () =>
    startMesh({
      freePorts: true,
      startDeadlineMs: 120_000,
      onLine: process.env.BENCH_VERBOSE ? (part, line) => console.error(`[${part}] ${line}`) : () => undefined,
      env: {
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
        RATE_LIMIT_PER_TOKEN: '100000000',
        RATE_LIMIT_PER_TENANT: '100000000',
        META_APP_SECRET,
        META_VERIFY_TOKEN: 'bench-verify-token',
        META_GRAPH_URL: engine.url,
        // The customer's endpoint is on loopback: the operator's allow-list lets webhooks reach it.
        WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1',
      },
    });
  // On a shared two-core machine a part may miss its start-up deadline: the bench tries again.
  let mesh: Awaited<ReturnType<typeof startMesh>> | undefined;
  for (let attempt = 1; !mesh; attempt++) {
    mesh = await start().catch((err: Error) => {
      if (attempt >= 5) throw err;
      console.error(`mesh start-up failed (${err.message}); trying again`);
      return undefined;
    });
  }
  const peaks: Record<'mesh' | 'floor', PeakRun[]> = { mesh: [], floor: [] };
  const steady: Record<'mesh' | 'floor', PacedRun[]> = { mesh: [], floor: [] };
  const perProcess = new Map<string, number>();
  const meshCommands = new Map<string, number>();
  let meshEvents = 0;
  let floorCommands = 0;
  let floorEvents = 0;
  let floor: { child: ChildProcess; port: number } | undefined;
  try {
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Bench inbound',
        maxUsers: 1,
        maxConnections: 0,
        acceptTerms: true,
        email: `bench-${randomUUID()}@example.com`,
        password: 'B3nch!mark',
        userName: 'Bench',
        profile: 'admin',
      },
    });
    const tenantId = tenant.body.data.tenant.id;
    const hook = { webhookEnabled: true, webhookIncoming: true, webhookUrl: `${receiverProc.ready.url}/mesh` };
    const waba = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: {
        tenant: tenantId,
        name: 'bench-waba',
        type: 'waba',
        tokenAPI: PHONE_NUMBER_ID,
        wabaId: 'WABA-BENCH',
        bmToken: 'bench-bm-token',
        ...hook,
      },
    });
    const engineA = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenantId, name: 'bench-engine', type: 'engine_a', engineUrl: engine.url, engineToken: ENGINE_TOKEN, ...hook },
    });
    if (waba.status !== 200 || engineA.status !== 200)
      throw new Error(`channels not created: ${JSON.stringify([waba.body, engineA.body])}`);
    const meshTarget: Target = { name: 'mesh', origin: mesh.gatewayUrl, engineChannelId: engineA.body.data.whatsapp.id };
    const { child, ready } = await startScript<{ port: number }>('inbound-floor.js', {
      MONGODB_URI: mesh.database.uri,
      META_APP_SECRET,
      ENGINE_TOKEN,
      WEBHOOK_SECRET: waba.body.data.whatsapp.webhookSecret,
      RECEIVER_URL: receiverProc.ready.url,
    });
    floor = { child, port: ready.port };
    const floorTarget: Target = { name: 'floor', origin: `http://127.0.0.1:${floor.port}`, engineChannelId: 2 };
    const named = [...mesh.processes.entries()].map(([name, p]) => ({ name, pid: p.pid! }));
    const meshPids = named.map((p) => p.pid);
    const dbPids = () => databasePids(mesh.database.uri, mesh.database.postgresUrl);

    // Warm-up: every contact's ticket opened, code warmed, the outbox drained.
    for (const target of [meshTarget, floorTarget]) {
      const ledger = newLedger();
      await peak(target, ledger, WARMUP_S);
      const o = await drain(drainAsk, ledger);
      console.log(
        `warm-up ${target.name}: ${ledger.accepted.size} accepted, ${o.arrivedAt.size} arrived, ${o.missing} missing${refusals(ledger)}`,
      );
    }

    for (let rep = 0; rep < REPS; rep++) {
      for (const target of [meshTarget, floorTarget]) {
        const pids = target.name === 'mesh' ? meshPids : [floor.child.pid!];
        const cpu0 = sumCpu(pids);
        const db0 = cpuSnapshot(dbPids());
        const each0 = named.map(({ pid }) => cpuMs(pid));
        const cmd0 = await databaseCommands(mesh.database.metricsUrl);
        const ledger = newLedger();
        const t0 = Date.now();
        const r = await peak(target, ledger);
        const o = await drain(drainAsk, ledger);
        if (ledger.refused.size) console.log(`rep ${rep + 1} ${target.name} peak${refusals(ledger)}`);
        const dbNow = dbPids();
        const dbCpu = cpuSince(db0, dbNow);
        const events = Math.max(1, o.arrivedAt.size);
        const commands = total(diff(await databaseCommands(mesh.database.metricsUrl), cmd0));
        if (target.name === 'mesh') {
          const ferretCpu = cpuSince(db0, dbNow.filter(isFerretDb));
          named.forEach(({ name, pid }, i) => perProcess.set(name, (perProcess.get(name) ?? 0) + cpuMs(pid) - each0[i]));
          perProcess.set('database: FerretDB', (perProcess.get('database: FerretDB') ?? 0) + ferretCpu);
          perProcess.set('database: PostgreSQL', (perProcess.get('database: PostgreSQL') ?? 0) + dbCpu - ferretCpu);
          for (const [k, v] of diff(await databaseCommands(mesh.database.metricsUrl), cmd0))
            meshCommands.set(k, (meshCommands.get(k) ?? 0) + v);
          meshEvents += o.arrivedAt.size;
        } else {
          floorCommands += commands;
          floorEvents += o.arrivedAt.size;
        }
        peaks[target.name].push({
          acceptedPerS: ledger.accepted.size / DURATION_S,
          deliveredPerS: o.arrivedAt.size / ((o.doneAt - t0) / 1000),
          p99: r.p99,
          failures: r.failures,
          cpuMsPerEvent: (sumCpu(pids) - cpu0 + dbCpu) / events,
          missing: o.missing,
        });
      }
      // Half of this repetition's mesh peak, at a steady rate, on both.
      const rate = HALF_RATE || Math.max(1, Math.round(peaks.mesh[rep].acceptedPerS / 2));
      for (const target of [meshTarget, floorTarget]) {
        const ledger = newLedger();
        const r = await paced(target, ledger, rate);
        const o = await drain(drainAsk, ledger);
        if (ledger.refused.size) console.log(`rep ${rep + 1} ${target.name} at ${rate}/s${refusals(ledger)}`);
        steady[target.name].push({
          rate,
          answeredPerS: r.rps,
          answerP99: r.p99,
          failures: r.failures,
          ...latencies(ledger, o),
          missing: o.missing,
        });
      }
      const m = peaks.mesh[rep];
      console.log(
        `rep ${rep + 1}: mesh ${m.acceptedPerS.toFixed(0)} accepted/s, floor ${peaks.floor[rep].acceptedPerS.toFixed(0)}; at ${rate}/s mesh p99 ${steady.mesh[rep].p99} ms to the customer`,
      );
    }
    for (const [name, ms] of perProcess) perProcess.set(name, ms / Math.max(1, meshEvents));
    // Anything still on its way (an event answered after its run's drain) before counting what is lost.
    const sweep = newLedger();
    everAccepted.forEach((p) => sweep.accepted.add(p));
    await drain(drainAsk, sweep);
  } finally {
    floor?.child.kill('SIGTERM');
    await mesh.stop();
    engine.close();
    receiverProc.child.disconnect();
  }

  console.log(
    `\nInbound: provider webhook → stored → customer webhook; ${CONNECTIONS} connections, ${CONTACTS} contacts on each of 2 channels (waba, engine_a) named by ${IDENTITIES === 'both' ? 'two identities (phone and BSUID, LID and phone)' : 'their phone'}, ${DURATION_S} s peak and ${PACED_S} s at half of it per repetition after ${WARMUP_S} s of warm-up, ${REPS} repetitions, LOG_LEVEL=${process.env.LOG_LEVEL ?? 'info'}, database: ${mesh.database.kind}\n`,
  );
  console.log(
    [
      'rep',
      'mesh acc/s',
      'mesh dlv/s',
      'ans p99',
      'fail',
      'cpu ms/ev',
      'floor acc/s',
      'floor cpu ms/ev',
      'acc ratio',
      'cpu ratio',
      'missing after drain (mesh/floor)',
    ].join(' | '),
  );
  const ratios: Array<{ acc: number; cpu: number }> = [];
  peaks.mesh.forEach((m, i) => {
    const f = peaks.floor[i];
    const r = { acc: m.acceptedPerS / f.acceptedPerS, cpu: m.cpuMsPerEvent / f.cpuMsPerEvent };
    ratios.push(r);
    console.log(
      [
        i + 1,
        m.acceptedPerS.toFixed(0),
        m.deliveredPerS.toFixed(0),
        m.p99,
        m.failures,
        m.cpuMsPerEvent.toFixed(2),
        f.acceptedPerS.toFixed(0),
        f.cpuMsPerEvent.toFixed(2),
        `${(r.acc * 100).toFixed(0)} %`,
        `${r.cpu.toFixed(1)}×`,
        `${m.missing}/${f.missing}`,
      ].join(' | '),
    );
  });
  console.log(`\nAt half of the peak (a steady rate, ${PACED_S} s): provider's post (due time) → customer's receipt, ms`);
  for (const name of ['mesh', 'floor'] as const) {
    steady[name].forEach((p, i) =>
      console.log(
        `  ${name.padEnd(5)} rep ${i + 1}: ${p.rate}/s asked, ${p.answeredPerS.toFixed(0)} answered/s (answer p99 ${p.answerP99} ms, ${p.failures} failed); to the customer p50 ${p.p50}, p90 ${p.p90}, p99 ${p.p99}, max ${p.max}; missing after drain ${p.missing}`,
      ),
    );
  }
  const per = (n: number, d: number) => (n / Math.max(1, d)).toFixed(2);
  if (meshCommands.size)
    console.log(
      `\nDatabase commands per event at the peak: mesh ${per(total(meshCommands), meshEvents)} (${[...meshCommands].map(([k, v]) => `${k} ${per(v, meshEvents)}`).join(', ')}), floor ${per(floorCommands, floorEvents)}`,
    );
  console.log('\nCPU ms per event at the peak, by process:');
  for (const [name, ms] of [...perProcess].sort((a, b) => b[1] - a[1])) console.log(`  ${name.padEnd(36)} ${ms.toFixed(2)}`);
  const lost = [...everAccepted].filter((p) => !arrived.has(p)).length;
  const late = [...everSent].filter((p) => arrived.has(p) && !everAccepted.has(p)).length;
  console.log(
    `\nEvents: ${everSent.size} sent, ${everAccepted.size} accepted (2xx), ${arrived.size} arrived at the customer; accepted and never arrived ${lost}; duplicated (a webhook-id twice, or one message under two ids) ${duplicated}; arrived without a 2xx seen (answered after the load stopped) ${late}; unknown ${unknown}`,
  );
  console.log(
    `\nmedian: accepted/s = ${(median(ratios.map((r) => r.acc)) * 100).toFixed(0)} % of the floor's; CPU per event = ${median(ratios.map((r) => r.cpu)).toFixed(1)}× the floor's; provider → customer p99 at half peak = ${median(steady.mesh.map((p) => p.p99))} ms (p50 ${median(steady.mesh.map((p) => p.p50))}); events lost ${lost}, duplicated ${duplicated}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
