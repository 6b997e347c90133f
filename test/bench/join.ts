// npm run bench:join: a process that joins a mesh under load. The mesh runs with two replicas of
// the process measured (JOIN_PROCESS: gateway, or a service such as tickets or messaging) and
// sendMessageByTicket load over JOIN_TICKETS tickets; the second replica is stopped and started
// again, and what it serves in its first JOIN_FIRST_S seconds after it reported ready is set
// against what it serves JOIN_AFTER_S seconds later, warmed.
// - gateway: the load (closed loop, JOIN_CONNECTIONS) goes straight to the new replica from the
//   moment its /readyz answers 200, while the first replica keeps a steady JOIN_BACKGROUND_RATE;
//   its figure is answered sends per second.
// - a service: the load goes through the first gateway (whose round_robin clients spread calls over
//   both replicas); its figure is the gRPC calls the new replica completed per second (its metrics).
// Each repetition starts the replica once per variant (JOIN_VARIANTS: `WARMUP_MS=0` against the
// default), alternating their order, so that before and after meet the same machine. Not a test.
import { execSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { closedLoop, rateIn } from './closed-loop';
import { prepareSends, startProvider, UNLIMITED } from './harness';
import { pacedLoad } from './paced';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const PROCESS = process.env.JOIN_PROCESS ?? 'gateway';
const REPS = Number(process.env.JOIN_REPS ?? 3);
const TICKETS = Number(process.env.JOIN_TICKETS ?? 64);
const CONNECTIONS = Number(process.env.JOIN_CONNECTIONS ?? 16);
const FIRST_S = Number(process.env.JOIN_FIRST_S ?? 5);
const AFTER_S = Number(process.env.JOIN_AFTER_S ?? 60);
const WARMUP_S = Number(process.env.JOIN_MESH_WARMUP_S ?? 15);
const BACKGROUND_RATE = Number(process.env.JOIN_BACKGROUND_RATE ?? 20);
/** `;`-separated variants, each `KEY=value,KEY=value` (empty: the defaults) given to the new replica only. */
const VARIANTS = (process.env.JOIN_VARIANTS ?? 'WARMUP_MS=0;').split(';').map((v) =>
  Object.fromEntries(
    v
      .split(',')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  ),
);
const label = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(',') || 'default';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadAverage = () =>
  execSync('uptime')
    .toString()
    .trim()
    .replace(/^.*load average: /, '');

/** gRPC calls a service replica has completed, all methods (its /metrics). */
async function served(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let n = 0;
  for (const m of text.matchAll(/^grpc_server_handled_total\{[^}]*\} (\d+)/gm)) n += Number(m[1]);
  return n;
}

interface Figure {
  variant: string;
  startMs: number;
  first: number;
  warmed: number;
  load: string;
}

async function main() {
  const engine = await startProvider();
  const replicas = { [PROCESS]: 2 };
  // The new replica's own account of its warm-up (requests, ms, statuses), printed as it comes.
  const onLine = (part: string, line: string) => {
    if (part === `${PROCESS}-2` && line.includes('warm-up done')) console.log(`  ${part}: ${line}`);
  };
  const mesh = await startMesh({ freePorts: true, onLine, replicas, startDeadlineMs: 120_000, env: { LOG_LEVEL: 'info', ...UNLIMITED } });
  const figures: Figure[] = [];
  const newcomer = mesh.replicas[PROCESS]?.[1];
  if (!newcomer) throw new Error(`${PROCESS} is not a deployment of the mesh`);
  try {
    const target = await prepareSends(mesh, engine, TICKETS);
    console.log(`${TICKETS} tickets open; ${WARMUP_S} s of load on the first ${PROCESS} before the first measured start`);
    const { headers, bodies } = target;
    const path = `/v2/api/external/${target.apiId}/sendMessageByTicket`;
    const first = `${mesh.gatewayUrls[0]}${path}`;
    // Every other process warm before the first measured start.
    await closedLoop(first, headers, bodies, { connections: CONNECTIONS, durationS: WARMUP_S });
    const runS = AFTER_S + FIRST_S;
    for (let rep = 0; rep < REPS; rep++) {
      const order = rep % 2 ? [...VARIANTS].reverse() : VARIANTS;
      for (const env of order) {
        await mesh.terminate(newcomer);
        const t0 = performance.now();
        await mesh.restart(newcomer, env);
        const ready = performance.now();
        let first5: number;
        let warmed: number;
        if (PROCESS === 'gateway') {
          const url = `${mesh.endpoints.get(newcomer)!.http}${path}`;
          const [r] = await Promise.all([
            closedLoop(url, headers, bodies, { connections: CONNECTIONS, durationS: runS }),
            pacedLoad(first, headers, bodies, { rate: BACKGROUND_RATE, durationS: runS, connections: 4 }),
          ]);
          first5 = rateIn(r.answeredAt, ready, 0, FIRST_S);
          warmed = rateIn(r.answeredAt, ready, AFTER_S, runS);
          // Second by second after ready: how the new replica's rate climbs (JIT, caches, streams).
          const climb = Array.from({ length: 2 * FIRST_S }, (_, s) => rateIn(r.answeredAt, ready, s, s + 1).toFixed(0));
          console.log(`  answered per second from ready: ${climb.join(' ')}`);
        } else {
          const metrics = `${mesh.endpoints.get(newcomer)!.http}/metrics`;
          const marks: number[] = [];
          const at = async (s: number) => {
            await new Promise((r) => setTimeout(r, Math.max(0, ready + s * 1000 - performance.now())));
            marks.push(await served(metrics));
          };
          const load = closedLoop(first, headers, bodies, { connections: CONNECTIONS, durationS: runS + 1 });
          for (const s of [0, FIRST_S, AFTER_S, runS]) await at(s);
          await load;
          first5 = (marks[1] - marks[0]) / FIRST_S;
          warmed = (marks[3] - marks[2]) / FIRST_S;
        }
        const f = { variant: label(env), startMs: Math.round(ready - t0), first: first5, warmed, load: loadAverage() };
        figures.push(f);
        console.log(
          `rep ${rep + 1} ${f.variant}: ready after ${f.startMs} ms; first ${FIRST_S} s ${first5.toFixed(0)}/s, after ${AFTER_S} s ${warmed.toFixed(0)}/s (${((first5 / Math.max(1, warmed)) * 100).toFixed(0)} %); load ${f.load}`,
        );
      }
    }
  } finally {
    await mesh.stop();
    engine.close();
  }
  const unit = PROCESS === 'gateway' ? 'sends answered/s' : 'gRPC calls served/s';
  console.log(
    `\n${PROCESS}: a new replica under sendMessageByTicket load (${CONNECTIONS} connections over ${TICKETS} tickets, LOG_LEVEL=info), ${unit}, first ${FIRST_S} s after ready vs ${AFTER_S}-${AFTER_S + FIRST_S} s, ${REPS} repetitions`,
  );
  for (const v of VARIANTS.map(label)) {
    const runs = figures.filter((f) => f.variant === v);
    const ratios = runs.map((f) => f.first / Math.max(1, f.warmed));
    console.log(
      `  ${v.padEnd(12)} first/warmed ${ratios.map((r) => `${(r * 100).toFixed(0)} %`).join(', ')} (median ${(median(ratios) * 100).toFixed(0)} %); first ${runs.map((f) => f.first.toFixed(0)).join('/')}, warmed ${runs.map((f) => f.warmed.toFixed(0)).join('/')}; ready after ${runs.map((f) => f.startMs).join('/')} ms`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
