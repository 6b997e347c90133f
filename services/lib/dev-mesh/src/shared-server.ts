// The e2e suite's shared mesh (test/support/shared-mesh.ts starts this file as its own process):
// one mesh for every test file of a jest run that does not need one of its own. It outlives the
// test file that started it and is stopped by the suite's globalTeardown (SIGTERM), or when the
// jest process that ran the suite is gone.
//
// SHARED_MESH_DIR: where it writes `mesh.json` once the mesh is ready (or `error.txt`), appends
// each process's exit to `crashes.log` and every line of the mesh to `mesh.log`.
// SHARED_MESH_ENV: the mesh's extra environment, as JSON. SHARED_MESH_OWNER: the jest process's pid.
import { appendFileSync, createWriteStream, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startMesh } from './mesh';
import type { Mesh } from './types';

const dir = process.env.SHARED_MESH_DIR;
if (!dir) throw new Error('SHARED_MESH_DIR is not set');
const owner = Number(process.env.SHARED_MESH_OWNER) || 0;
const log = createWriteStream(join(dir, 'mesh.log'), { flags: 'a' });

let mesh: Mesh | undefined;
let stopping: Promise<void> | undefined;
const shutdown = () => {
  stopping ??= (mesh?.stop() ?? Promise.resolve())
    .catch((err: Error) => void log.write(`[shared-mesh] stop failed: ${err.message}\n`))
    .finally(() => log.end(() => process.exit(0)));
  return stopping;
};
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());

// The jest run that owns this mesh ended without its teardown (killed, crashed): stop too.
if (owner)
  setInterval(() => {
    try {
      process.kill(owner, 0);
    } catch {
      void shutdown();
    }
  }, 2_000).unref();

startMesh({
  freePorts: true,
  // Started once for the whole run, and every file on it fails if it does not come up: it may take
  // longer than a file's own mesh on a machine busy with other work (MESH_START_TIMEOUT_MS sets it).
  startDeadlineMs: Number(process.env.MESH_START_TIMEOUT_MS) || 120_000,
  env: JSON.parse(process.env.SHARED_MESH_ENV || '{}') as Record<string, string>,
  onLine: (part, line) => log.write(`[${part}] ${line}\n`),
  onCrash: (part, code) => appendFileSync(join(dir, 'crashes.log'), `${part}:${code}\n`),
}).then(
  (m) => {
    mesh = m;
    const ready = {
      gatewayUrl: m.gatewayUrl,
      gatewayUrls: m.gatewayUrls,
      replicas: m.replicas,
      graphqlUrl: m.graphqlUrl,
      superAdminToken: m.superAdminToken,
      grpcAddresses: m.grpcAddresses,
      database: { uri: m.database.uri, kind: m.database.kind },
      endpoints: [...m.endpoints],
      pids: [...m.processes].map(([name, child]) => [name, child.pid]),
      env: m.env,
    };
    // Written whole, then renamed: a reader never sees half of it.
    writeFileSync(join(dir, 'mesh.json.tmp'), JSON.stringify(ready));
    renameSync(join(dir, 'mesh.json.tmp'), join(dir, 'mesh.json'));
  },
  (err: Error) => {
    writeFileSync(join(dir, 'error.txt'), err.stack ?? err.message);
    log.end(() => process.exit(1));
  },
);
