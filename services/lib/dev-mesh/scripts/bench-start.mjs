// Warm start of `npm start`, timed: `npm run bench:start` (after a build). Starts the mesh of a
// checkout as `npm start` does (`node services/lib/dev-mesh/dist/mesh.js`, its data kept in that
// checkout's `.data/`), waits for its "ready in" line, stops it as Ctrl-C does (SIGINT to the
// whole process group) and starts it again. Variants (each checkout × each Node binary) are run in
// turn, one start of each per round, so that a change in the machine's load falls on all alike.
// Settings (environment):
//   BENCH_STARTS (5): timed starts of each variant, after one untimed start that fills `.data/`
//     (and Node ≥ 22's compile cache) where a checkout has none;
//   BENCH_NODES (this node): Node binaries, comma-separated (e.g. /usr/bin/node,/opt/node22/bin/node);
//   BENCH_CHECKOUTS (this checkout): checkout roots, comma-separated, each built (e.g. another
//     worktree at the commit to compare with). Their meshes use the same fixed ports: run no other
//     `npm start` meanwhile.
// Prints, per variant, the seconds from spawning the supervisor to its "ready in" line, the figure
// the line itself prints, the CPU-seconds the mesh's processes had used by then, the median of each,
// and the machine's 1-minute load average per start.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..', '..');
const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const NODES = (process.env.BENCH_NODES || process.execPath).split(',').filter(Boolean);
const CHECKOUTS = (process.env.BENCH_CHECKOUTS || here)
  .split(',')
  .filter(Boolean)
  .map((c) => resolve(c));
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
const version = (node) => spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
const TICKS_PER_S = 100; // USER_HZ on Linux

/**
 * CPU-seconds used so far by the live processes of a process group (the supervisor, the database
 * and every Node process it started): less swayed than the wall time by what else the machine runs.
 */
function groupCpuSeconds(pgid) {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      // Fields after the command's closing bracket: state, ppid, pgrp, … utime (12th), stime (13th).
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(f[2]) === pgid) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / TICKS_PER_S;
}

/** One start of a checkout's mesh: seconds to "ready in" (measured here and as printed), then a Ctrl-C stop. */
async function startOnce(checkout, node) {
  const started = performance.now();
  const child = spawn(node, [join(checkout, 'services/lib/dev-mesh/dist/mesh.js')], {
    cwd: join(checkout, 'services/lib/dev-mesh'),
    // Its own process group, as a terminal's foreground job: Ctrl-C reaches every process of it.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = [];
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const ready = new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "ready in" within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        output.push(line);
        if (output.length > 40) output.shift();
        const m = /ready in ([\d.]+) s/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolveReady({ wall: (performance.now() - started) / 1000, printed: Number(m[1]), cpu: groupCpuSeconds(child.pid) });
        }
      });
    }
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the mesh exited (${signal ?? `code ${code}`}) before it was ready`));
    });
  });
  try {
    return await ready;
  } catch (err) {
    throw new Error(`${err.message}; its last lines:\n${output.join('\n')}`);
  } finally {
    const stopping = performance.now();
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGINT');
    const timeout = new Promise((r) => setTimeout(() => r('timeout'), STOP_TIMEOUT_MS).unref());
    if ((await Promise.race([exited, timeout])) === 'timeout') {
      process.kill(-child.pid, 'SIGKILL');
      console.error(`  (the mesh did not stop within ${STOP_TIMEOUT_MS / 1000} s of Ctrl-C: killed)`);
    } else {
      console.error(`  stopped in ${((performance.now() - stopping) / 1000).toFixed(1)} s`);
    }
  }
}

/**
 * A start that fails (e.g. a fixed port of the mesh held by another process for a moment) is
 * reported, counted and made again; three in a row end the bench.
 */
async function start(v) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(v.checkout, v.node);
    } catch (err) {
      v.failed += 1;
      console.error(`  start failed (${v.label}): ${err.message}`);
      if (attempt === 3) throw err;
    }
  }
}

const variants = CHECKOUTS.flatMap((checkout) =>
  NODES.map((node) => ({ checkout, node, label: `${checkout} · Node ${version(node)}`, runs: [], failed: 0 })),
);
for (const v of variants) {
  console.error(`untimed start: ${v.label}`);
  await start(v);
}
for (let round = 1; round <= STARTS; round++) {
  for (const v of variants) {
    const before = load();
    const r = await start(v);
    v.runs.push({ ...r, load: before });
    console.error(
      `round ${round}: ${v.label}: ready in ${r.wall.toFixed(2)} s (printed ${r.printed.toFixed(1)} s), ${r.cpu.toFixed(1)} CPU-s, load ${before}`,
    );
  }
}
console.log(
  `\nWarm starts to ready, ${STARTS} per variant, alternating (seconds from spawning the supervisor; the "ready in" figure it printed in brackets):`,
);
for (const v of variants) {
  const walls = v.runs.map((r) => r.wall);
  console.log(`${v.label}\n  ${v.runs.map((r) => `${r.wall.toFixed(2)} (${r.printed.toFixed(1)})`).join(', ')}`);
  console.log(
    `  median ${median(walls).toFixed(2)} s (printed ${median(v.runs.map((r) => r.printed)).toFixed(1)} s), CPU until ready: median ${median(v.runs.map((r) => r.cpu)).toFixed(1)} CPU-s${v.failed ? `; ${v.failed} failed start(s) made again` : ''}`,
  );
}
const loads = variants.flatMap((v) => v.runs.map((r) => r.load));
console.log(`Load average (1 min) at the starts: ${Math.min(...loads)}–${Math.max(...loads)}, median ${median(loads)}`);
