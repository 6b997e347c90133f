// npm run bench: sendMessageByTicket through the whole mesh under load, next to a floor pipeline
// (one Fastify process doing one database insert and one outbound HTTP call). Not a test: it
// prints figures. The load generator (this process), the fake provider, the floor and the mesh run
// in separate processes; floor and mesh alternate, BENCH_REPS times, and each repetition's ratio is
// taken in that repetition. Bounded in time; all traffic stays on loopback.
//
// Mesh figures: accepted/s (answers), delivered/s (messages the provider received, from the first
// answer until the queue drained), CPU ms per delivered send (every mesh process and the database
// server, from /proc) and the answers' latency at the peak (closed loop: autocannon) and at half of
// it (a steady rate: paced.ts), next to the floor's.
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mongo } from 'mongoose';
import { hubSignature, postMeta, wabaEnvelope, wabaText } from '../support/meta-webhooks';
import { databaseCommands, diff, median, prepareSends, startProvider, startScript, total, UNLIMITED, untilDelivered } from './harness';
import { pacedLoad } from './paced';
import { cpuMs, cpuSince, cpuSnapshot, databasePids, isFerretDb, sumCpu } from './proc-cpu';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const REPS = Number(process.env.BENCH_REPS ?? 3);
/** Sends spread over many tickets, as a real installation's are (not a few hot ones). */
const TICKETS = Number(process.env.BENCH_TICKETS ?? 64);
/** Long-run mode: messages stored before the measurement (e.g. 100000), as a busy installation has. */
const STORED = Number(process.env.BENCH_STORED ?? 0);
/**
 * Unmeasured load on the mesh and the floor before the first repetition, so that the repetitions
 * measure processes in their steady state. A fresh Node process runs cold code (and small heaps)
 * for its first few thousand requests: without a warm-up the first repetition cost 1.6-2.1x the CPU
 * per send of the last one, and after 10 s of warm-up still 1.4x.
 */
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 15);
/** Length of each half-peak run: at about 75 req/s, 20 s makes the p99 the 15th slowest of 1,500 answers. */
const PACED_S = Number(process.env.BENCH_PACED_SECONDS ?? 20);
const PACED_WARMUP_S = Number(process.env.BENCH_PACED_WARMUP_S ?? 10);

/** The channel kind the sends go through: engine_a, or waba (the Cloud API's shape from the same fake provider). */
const CHANNEL = process.env.BENCH_CHANNEL ?? 'engine_a';
const META_APP_SECRET = 'bench-meta-secret';
const WABA_PHONE_ID = '1099000001';

/**
 * waba: the channel's settings, and each contact's incoming message (a signed Meta webhook)
 * before its ticket, so that every send is inside the 24-hour window as in real use.
 */
const wabaSession = () => (CHANNEL === 'waba' ? { tokenAPI: WABA_PHONE_ID, wabaId: 'WABA-BENCH', bmToken: 'bench-token' } : {});
async function contactWrites(gatewayUrl: string, number: string): Promise<void> {
  if (CHANNEL !== 'waba') return;
  const now = String(Math.floor(Date.now() / 1000));
  const raw = JSON.stringify(
    wabaEnvelope(WABA_PHONE_ID, {
      contacts: [{ profile: { name: 'Bench' }, wa_id: number }],
      messages: [wabaText(number, `wamid.BENCH-${number}`, 'Oi', now)],
    }),
  );
  const res = await postMeta(gatewayUrl, raw, hubSignature(raw, META_APP_SECRET));
  if (res.status !== 200) throw new Error(`waba webhook answered ${res.status}`);
}

const paced: Array<{
  target: 'mesh' | 'floor';
  of: 'accepted' | 'delivered';
  providerMs: number;
  rate: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  failures: number;
}> = [];

/** CPU ms per delivered send of each mesh process and of the database, over all repetitions. */
const perProcess = new Map<string, number>();

const meshCommands = new Map<string, number>();

/** gRPC calls the mesh's processes made, by caller and method (their own client counters). */
async function grpcCalls(endpoints: Map<string, { http: string }>): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const [name, { http }] of endpoints) {
    const text = await (await fetch(`${http}/metrics`)).text().catch(() => '');
    for (const m of text.matchAll(/^grpc_client_handled_total\{([^}]*)\} (\d+)/gm)) {
      const method = /grpc_method="([^"]+)"/.exec(m[1])?.[1] ?? '?';
      const key = `${name} → ${method}`;
      counts.set(key, (counts.get(key) ?? 0) + Number(m[2]));
    }
  }
  return counts;
}
const meshCalls = new Map<string, number>();
let deliveredSum = 0;
let floorCommands = 0;
let floorSends = 0;

interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failures: number;
  deliveredPerS: number;
  cpuMsPerSend: number;
}

async function load(url: string, headers: Record<string, string>, bodies: string[], durationS = DURATION_S) {
  let i = 0;
  const r = await autocannon({
    url,
    method: 'POST',
    headers,
    connections: CONNECTIONS,
    duration: durationS,
    requests: [{ setupRequest: (req) => ({ ...req, body: bodies[i++ % bodies.length] }) }],
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

async function startFloor(mongodbUri: string, engineUrl: string): Promise<{ child: ChildProcess; port: number }> {
  const { child, ready } = await startScript<{ port: number }>('floor.js', { MONGODB_URI: mongodbUri, ENGINE_URL: engineUrl });
  return { child, port: ready.port };
}

/** BENCH_STORED delivered messages spread over the bench's tickets, straight into messaging's database. */
async function storeMessages(uri: string, tenantId: number, ticketIds: number[], channelId: number) {
  const client = new mongo.MongoClient(uri);
  const started = Date.now();
  try {
    const messages = client.db('convo_messaging').collection('messages');
    for (let from = 0; from < STORED; from += 5_000) {
      const docs = [];
      for (let i = from; i < Math.min(STORED, from + 5_000); i++) {
        const at = new Date(Date.now() - (STORED - i) * 1_000);
        docs.push({
          _id: randomUUID() as never,
          tenantId,
          ticketId: ticketIds[i % ticketIds.length],
          channelId,
          direction: i % 2 ? 'in' : 'out',
          body: `stored #${i}`,
          status: i % 2 ? 'delivered' : 'read',
          providerMessageId: `S-${i}`,
          error: '',
          mediaUrl: '',
          mediaId: '',
          mimeType: '',
          fileName: '',
          externalKey: '',
          to: '',
          attempts: 1,
          nextAttemptAt: null,
          createdAt: at,
          updatedAt: at,
        });
      }
      await messages.insertMany(docs, { ordered: false });
    }
  } finally {
    await client.close();
  }
  console.log(`stored ${STORED} messages first (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

async function main() {
  const engine = await startProvider();
  const mesh = await startMesh({
    freePorts: true,
    onLine: () => undefined,
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ...UNLIMITED, META_APP_SECRET, META_GRAPH_URL: engine.url },
  });
  const meshRuns: Run[] = [];
  const floorRuns: Run[] = [];
  try {
    const target = await prepareSends(mesh, engine, TICKETS, {
      type: CHANNEL,
      session: wabaSession(),
      beforeTicket: (number) => contactWrites(mesh.gatewayUrl, number),
    });
    const { root, headers, bodies, ticketIds } = target;
    if (STORED) await storeMessages(mesh.database.uri, target.tenantId, ticketIds, target.channelId);
    const floor = await startFloor(mesh.database.uri, engine.url);
    const meshPids = [...mesh.processes.values()].map((p) => p.pid!);
    const named = [...mesh.processes.entries()].map(([name, p]) => ({ name, pid: p.pid! }));
    let deliveredTotal = 0;
    if (WARMUP_S > 0) {
      const before = await engine.count();
      const warm = await load(`${root}/sendMessageByTicket`, headers, bodies, WARMUP_S);
      await untilDelivered(engine, before + warm.requests - warm.failures, 120_000);
      await load(`http://127.0.0.1:${floor.port}/send`, headers, bodies, WARMUP_S);
    }

    for (let rep = 0; rep < REPS; rep++) {
      // The mesh: answers, then whatever the dispatcher still had to deliver.
      const before = await engine.count();
      const dbPids = () => databasePids(mesh.database.uri, mesh.database.postgresUrl);
      const cpu0 = sumCpu(meshPids);
      const db0 = cpuSnapshot(dbPids());
      const each0 = named.map(({ pid }) => cpuMs(pid));
      const cmd0 = await databaseCommands(mesh.database.metricsUrl);
      const calls0 = await grpcCalls(mesh.endpoints);
      const t0 = Date.now();
      const m = await load(`${root}/sendMessageByTicket`, headers, bodies);
      const accepted = m.requests - m.failures;
      const done = await untilDelivered(engine, before + accepted, 120_000);
      const delivered = (await engine.count()) - before;
      const dbNow = dbPids();
      const dbCpu = cpuSince(db0, dbNow);
      const ferretCpu = cpuSince(db0, dbNow.filter(isFerretDb));
      const cpu = sumCpu(meshPids) - cpu0 + dbCpu;
      named.forEach(({ name, pid }, i) => perProcess.set(name, (perProcess.get(name) ?? 0) + cpuMs(pid) - each0[i]));
      perProcess.set('database: FerretDB', (perProcess.get('database: FerretDB') ?? 0) + ferretCpu);
      perProcess.set('database: PostgreSQL', (perProcess.get('database: PostgreSQL') ?? 0) + dbCpu - ferretCpu);
      deliveredTotal += delivered;
      for (const [k, v] of diff(await databaseCommands(mesh.database.metricsUrl), cmd0))
        meshCommands.set(k, (meshCommands.get(k) ?? 0) + v);
      for (const [k, v] of diff(await grpcCalls(mesh.endpoints), calls0)) meshCalls.set(k, (meshCalls.get(k) ?? 0) + v);
      meshRuns.push({ ...m, deliveredPerS: delivered / ((done - t0) / 1000), cpuMsPerSend: cpu / Math.max(1, delivered) });

      // The floor, right after, on the same database and provider.
      const fBefore = await engine.count();
      const fCpu0 = cpuMs(floor.child.pid!);
      const fDb0 = cpuSnapshot(dbPids());
      const fCmd0 = await databaseCommands(mesh.database.metricsUrl);
      const f = await load(`http://127.0.0.1:${floor.port}/send`, headers, bodies);
      const fDelivered = (await engine.count()) - fBefore;
      const fCpu = cpuMs(floor.child.pid!) - fCpu0 + cpuSince(fDb0, dbPids());
      floorCommands += total(diff(await databaseCommands(mesh.database.metricsUrl), fCmd0));
      floorSends += fDelivered;
      floorRuns.push({ ...f, deliveredPerS: fDelivered / DURATION_S, cpuMsPerSend: fCpu / Math.max(1, fDelivered) });
      console.log(`rep ${rep + 1}: mesh ${meshRuns[rep].deliveredPerS.toFixed(0)} delivered/s, floor ${f.rps.toFixed(0)} req/s`);
    }

    // The accepted answer's latency at half of the mesh's peak, sent at a steady rate (paced.ts),
    // with a provider that answers at once and with one that takes 4 s per call: sends do not wait
    // for providers. The floor at the same rate shows what this machine gives a one-process pipeline.
    // BENCH_PACED_SECONDS=0: the peak only (a quicker run, for profiles).
    if (PACED_S > 0) {
      const half = Math.max(1, Math.round(median(meshRuns.map((m) => m.rps)) / 2));
      const steady = { rate: half, durationS: PACED_S, connections: CONNECTIONS };
      // Unmeasured first: the peak runs (the floor's 5,000-odd inserts a repetition above all) leave
      // the database vacuum and analysis to do, which it did during the first measured seconds.
      const pacedFrom = await engine.count();
      const warm = await pacedLoad(`${root}/sendMessageByTicket`, headers, bodies, { ...steady, durationS: PACED_WARMUP_S });
      let pacedAccepted = warm.requests - warm.failures;
      for (const providerMs of [0, 4_000]) {
        await engine.delay(providerMs);
        const r = await pacedLoad(`${root}/sendMessageByTicket`, headers, bodies, steady);
        pacedAccepted += r.requests - r.failures;
        paced.push({ target: 'mesh', of: 'accepted', providerMs, rate: half, ...r });
      }
      await engine.delay(0);
      // And at half of the peak it sustains (the delivered rate): sends beyond it only grow the
      // queue, so half of the accepted peak, with deliveries at once, is the delivered peak nearly.
      const halfDelivered = Math.max(1, Math.round(median(meshRuns.map((m) => m.deliveredPerS)) / 2));
      const r = await pacedLoad(`${root}/sendMessageByTicket`, headers, bodies, { ...steady, rate: halfDelivered });
      pacedAccepted += r.requests - r.failures;
      paced.push({ target: 'mesh', of: 'delivered', providerMs: 0, rate: halfDelivered, ...r });
      // The floor once the mesh has delivered what it accepted (the slow provider's last 4 s of it).
      await untilDelivered(engine, pacedFrom + pacedAccepted, 120_000);
      paced.push({
        target: 'floor',
        of: 'accepted',
        providerMs: 0,
        rate: half,
        ...(await pacedLoad(`http://127.0.0.1:${floor.port}/send`, headers, bodies, steady)),
      });
    }
    floor.child.kill('SIGTERM');
    for (const [name, ms] of perProcess) perProcess.set(name, ms / Math.max(1, deliveredTotal));
    deliveredSum = deliveredTotal;
  } finally {
    await mesh.stop();
    engine.close();
  }

  console.log(
    `\nsendMessageByTicket on ${CHANNEL}, ${CONNECTIONS} connections over ${TICKETS} tickets, ${DURATION_S} s each after ${WARMUP_S} s of warm-up, ${REPS} repetitions, ${STORED} messages stored first, database: ${mesh.database.kind}\n`,
  );
  console.log(
    [
      'rep',
      'mesh acc/s',
      'mesh dlv/s',
      'p50',
      'p99',
      'fail',
      'cpu ms/send',
      'floor req/s',
      'floor p99',
      'floor cpu ms',
      'dlv ratio',
      'cpu ratio',
    ].join(' | '),
  );
  const ratios: Array<{ dlv: number; cpu: number }> = [];
  meshRuns.forEach((m, i) => {
    const f = floorRuns[i];
    const dlv = m.deliveredPerS / f.rps;
    const cpu = m.cpuMsPerSend / f.cpuMsPerSend;
    ratios.push({ dlv, cpu });
    console.log(
      [
        i + 1,
        m.rps.toFixed(0),
        m.deliveredPerS.toFixed(0),
        m.p50,
        m.p99,
        m.failures,
        m.cpuMsPerSend.toFixed(2),
        f.rps.toFixed(0),
        f.p99,
        f.cpuMsPerSend.toFixed(2),
        `${(dlv * 100).toFixed(0)} %`,
        `${cpu.toFixed(1)}×`,
      ].join(' | '),
    );
  });
  console.log(
    `\nAccepted answers at half of the mesh's accepted (or delivered) peak (a steady rate, ${PACED_S} s, latency from each request's due time), by provider latency:`,
  );
  for (const p of paced)
    console.log(
      `  ${p.target.padEnd(5)} provider ${String(p.providerMs).padStart(4)} ms, half ${p.of.padEnd(9)}: ${p.rate} req/s asked, ${p.rps.toFixed(0)} answered/s, p50 ${p.p50}, p90 ${p.p90}, p99 ${p.p99}, max ${p.max} ms, ${p.failures} failed`,
    );
  if (meshCommands.size) {
    const per = (n: number) => (n / Math.max(1, deliveredSum)).toFixed(2);
    console.log(
      `\nDatabase commands per delivered send: mesh ${per(total(meshCommands))} (${[...meshCommands].map(([k, v]) => `${k} ${per(v)}`).join(', ')}), floor ${(floorCommands / Math.max(1, floorSends)).toFixed(2)}`,
    );
  }
  console.log('\ngRPC calls per delivered send, by caller and method (0.01 or more):');
  for (const [key, n] of [...meshCalls].sort((a, b) => b[1] - a[1])) {
    if (n / Math.max(1, deliveredSum) >= 0.01) console.log(`  ${key.padEnd(48)} ${(n / Math.max(1, deliveredSum)).toFixed(2)}`);
  }
  console.log('\nCPU ms per delivered send, by process:');
  for (const [name, ms] of [...perProcess].sort((a, b) => b[1] - a[1])) console.log(`  ${name.padEnd(36)} ${ms.toFixed(2)}`);
  console.log(
    `\nmedian: delivered/s = ${(median(ratios.map((r) => r.dlv)) * 100).toFixed(0)} % of the floor's req/s; CPU per send = ${median(ratios.map((r) => r.cpu)).toFixed(1)}× the floor's`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
