// npm run bench:idle: what the mesh spends when nothing happens. Not a test: it prints figures.
// Starts the mesh as the send bench does (production log level, the Deployments' node flags), lets
// it settle, then reads each process's CPU time (/proc) and the database's commands (FerretDB's
// counters) over IDLE_SECONDS, IDLE_REPS times: the polls, leases, heartbeats and timers every
// installation pays for whether or not anyone writes, and that the send and inbound benches count
// into each event's CPU.
import { databaseCommands, diff, median } from './harness';
import { cpuMs, cpuSince, cpuSnapshot, databasePids, isFerretDb } from './proc-cpu';
import { runScript } from './script';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/** Seconds after ready before the first measurement: start-up work (compilation, first reads) is over by then. */
const SETTLE_S = Number(process.env.IDLE_SETTLE_S ?? 60);
const SECONDS = Number(process.env.IDLE_SECONDS ?? 30);
const REPS = Number(process.env.IDLE_REPS ?? 3);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const mesh = await startMesh({ freePorts: true, onLine: () => undefined, env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' } });
  try {
    await sleep(SETTLE_S * 1000);
    const named = [...mesh.processes.entries()].map(([name, p]) => ({ name, pid: p.pid! }));
    const dbPids = () => databasePids(mesh.database.uri, mesh.database.postgresUrl);
    // CPU ms a second per process, and database commands a second per kind: one value per repetition.
    const cpu = new Map<string, number[]>();
    const commands = new Map<string, number[]>();
    const add = (into: Map<string, number[]>, rep: number, name: string, perS: number) => {
      const values = into.get(name) ?? Array.from({ length: REPS }, () => 0);
      values[rep] = perS;
      into.set(name, values);
    };
    for (let rep = 0; rep < REPS; rep++) {
      const each0 = named.map(({ pid }) => cpuMs(pid));
      const db0 = cpuSnapshot(dbPids());
      const cmd0 = await databaseCommands(mesh.database.metricsUrl);
      const t0 = Date.now();
      await sleep(SECONDS * 1000);
      const s = (Date.now() - t0) / 1000;
      const dbNow = dbPids();
      const ferret = cpuSince(db0, dbNow.filter(isFerretDb));
      named.forEach(({ name, pid }, i) => add(cpu, rep, name, (cpuMs(pid) - each0[i]) / s));
      add(cpu, rep, 'database: FerretDB', ferret / s);
      add(cpu, rep, 'database: PostgreSQL', (cpuSince(db0, dbNow) - ferret) / s);
      for (const [kind, n] of diff(await databaseCommands(mesh.database.metricsUrl), cmd0)) add(commands, rep, kind, n / s);
      console.log(`rep ${rep + 1}: ${[...cpu.values()].reduce((sum, v) => sum + v[rep], 0).toFixed(0)} CPU ms/s in all`);
    }
    console.log(`\nThe idle mesh, ${REPS} × ${SECONDS} s after ${SETTLE_S} s settled (median over the repetitions):`);
    const medians = [...cpu].map(([k, v]) => [k, median(v)] as const).sort((a, b) => b[1] - a[1]);
    for (const [name, v] of medians) console.log(`  ${name.padEnd(28)} ${v.toFixed(1)} CPU ms/s`);
    console.log(`  ${'in all'.padEnd(28)} ${medians.reduce((sum, [, v]) => sum + v, 0).toFixed(1)} CPU ms/s`);
    for (const [kind, v] of commands) console.log(`  ${`commands/s: ${kind}`.padEnd(28)} ${median(v).toFixed(1)}`);
  } finally {
    await mesh.stop();
  }
}

runScript(main);
