// The e2e suite's shared mesh: one mesh for every test file of a jest run that needs no mesh of its
// own, each file keeping to tenants of its own (docs/development.md "The e2e suite's shared mesh").
// A file takes it by requiring startMesh from here instead of from @convo/dev-mesh:
//
//   const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');
//
// The first file that asks starts it (services/lib/dev-mesh/src/shared-server.ts, a process of its
// own that outlives the file); the others wait for its addresses in SHARED_MESH_DIR, which the
// suite's globalSetup made (index-coverage/e2e-global-setup.ts); its globalTeardown stops it.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Mesh, MeshOptions } from '@convo/dev-mesh';
import { UNPACED } from './http';

/**
 * The shared mesh's environment: no pacing, customer webhooks to loopback allowed and given up at
 * once (the dashboards' dead deliveries), the relay polling every 100 ms. A file whose startMesh
 * options ask anything else (another value, a key not here) needs a mesh of its own: startMesh
 * below refuses it.
 */
export const SHARED_MESH_ENV: Record<string, string> = {
  ...UNPACED,
  WEBHOOK_ALLOWED_PRIVATE: '127.0.0.1',
  RELAY_POLL_MS: '100',
  WEBHOOK_RETRY_WINDOW_MS: '1',
};

/** How long a file waits for the shared mesh to be ready (another file may be starting it). */
const READY_WITHIN_MS = 300_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Options a shared mesh cannot honour: the process layout and the data are the run's. */
const OWN_MESH_OPTIONS = [
  'replicas',
  'dataDir',
  'restartOnCrash',
  'startTogether',
  'gatewayPort',
  'superAdminToken',
  'startDeadlineMs',
] as const;

function refuseWhatIsNotShared(opts: MeshOptions): void {
  for (const key of OWN_MESH_OPTIONS) {
    if (opts[key] !== undefined)
      throw new Error(`the shared mesh takes no ${key}: this file needs a mesh of its own (@convo/dev-mesh's startMesh)`);
  }
  for (const [key, value] of Object.entries(opts.env ?? {})) {
    if (SHARED_MESH_ENV[key] !== value) {
      throw new Error(`the shared mesh runs without ${key}=${value}: this file needs a mesh of its own (@convo/dev-mesh's startMesh)`);
    }
  }
}

function runDir(): string {
  const dir = process.env.SHARED_MESH_DIR;
  if (!dir || !existsSync(dir)) throw new Error('SHARED_MESH_DIR is not set: run the e2e suite with test/jest.config.js (its globalSetup)');
  return dir;
}

/** Starts the shared mesh's process unless another file already did (an exclusive lock file). */
function startServerOnce(dir: string): void {
  let lock: number;
  try {
    lock = openSync(join(dir, 'server.lock'), 'wx');
  } catch {
    return;
  }
  closeSync(lock);
  const out = openSync(join(dir, 'server.out'), 'a');
  const server = spawn(process.execPath, ['--enable-source-maps', join(dirname(require.resolve('@convo/dev-mesh')), 'shared-server.js')], {
    env: { ...process.env, SHARED_MESH_ENV: JSON.stringify(SHARED_MESH_ENV) },
    stdio: ['ignore', out, out],
    detached: true,
  });
  closeSync(out);
  writeFileSync(join(dir, 'server.pid'), String(server.pid));
  server.unref();
}

/** Whether a process of this id still runs. */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitUntilReady(dir: string): Promise<Record<string, unknown>> {
  const until = Date.now() + READY_WITHIN_MS;
  for (;;) {
    if (existsSync(join(dir, 'mesh.json'))) return JSON.parse(readFileSync(join(dir, 'mesh.json'), 'utf8'));
    if (existsSync(join(dir, 'error.txt')))
      throw new Error(`the shared mesh failed to start: ${readFileSync(join(dir, 'error.txt'), 'utf8')}`);
    const pid = existsSync(join(dir, 'server.pid')) ? Number(readFileSync(join(dir, 'server.pid'), 'utf8')) : 0;
    if (pid && !alive(pid)) throw new Error(`the shared mesh's process exited during start-up (see ${dir}/server.out)`);
    if (Date.now() > until) throw new Error(`the shared mesh was not ready within ${READY_WITHIN_MS / 1000} s`);
    await sleep(100);
  }
}

/** Reports each process exit of the shared mesh after this point to `onCrash`, until stopped. */
function watchCrashes(dir: string, onCrash: MeshOptions['onCrash']): () => void {
  const file = join(dir, 'crashes.log');
  const size = () => (existsSync(file) ? statSync(file).size : 0);
  let seen = size();
  const check = () => {
    if (size() <= seen) return;
    const text = readFileSync(file).subarray(seen).toString('utf8');
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    seen += Buffer.byteLength(complete);
    for (const line of complete.split('\n').filter(Boolean)) {
      const at = line.lastIndexOf(':');
      const code = line.slice(at + 1);
      onCrash?.(line.slice(0, at), code === 'null' ? null : Number(code));
    }
  };
  const timer = setInterval(check, 250);
  timer.unref();
  return () => {
    check();
    clearInterval(timer);
  };
}

const notYours = (what: string) => () => {
  throw new Error(`the shared mesh is not this file's to ${what}: a file that needs it keeps a mesh of its own`);
};

/**
 * The shared mesh, as @convo/dev-mesh's startMesh answers (for the options it takes: `freePorts`,
 * `env` within SHARED_MESH_ENV, `onCrash`; `onLine` is not called, the lines are in
 * SHARED_MESH_DIR/mesh.log). Its `stop` stops watching for crashes; the mesh runs on.
 */
export async function startMesh(opts: MeshOptions = {}): Promise<Mesh> {
  refuseWhatIsNotShared(opts);
  const dir = runDir();
  startServerOnce(dir);
  const ready = await waitUntilReady(dir);
  const stopWatching = watchCrashes(dir, opts.onCrash);
  const database = ready.database as { uri: string; kind: Mesh['database']['kind'] };
  const pids = ready.pids as [string, number][];
  return {
    ...(ready as Pick<Mesh, 'gatewayUrl' | 'gatewayUrls' | 'replicas' | 'graphqlUrl' | 'superAdminToken' | 'grpcAddresses' | 'env'>),
    database: { ...database, stop: async () => undefined },
    endpoints: new Map(ready.endpoints as [string, { http: string; grpc?: string }][]),
    processes: new Map(pids.map(([name, pid]) => [name, { pid, exitCode: null, signalCode: null } as ChildProcess])),
    startRelay: notYours('start a relay in'),
    startDispatcher: notYours('start a dispatcher in'),
    kill: notYours('kill a process of'),
    restart: notYours('restart a process of'),
    terminate: notYours('terminate a process of'),
    stop: async () => stopWatching(),
  };
}
