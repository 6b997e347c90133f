// The shared mesh's life over one jest run of the e2e suite (support/shared-mesh.ts): its folder,
// made by the globalSetup before any test file, and its stop in the globalTeardown after the last.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alive } from './shared-mesh';

/** How long the shared mesh may take to stop (its processes' SIGTERM grace, then the database). */
const STOP_WITHIN_MS = 60_000;

/** A fresh folder for this run's shared mesh, in SHARED_MESH_DIR (inherited by the test files). */
export function prepareSharedMesh(): void {
  process.env.SHARED_MESH_DIR = mkdtempSync(join(tmpdir(), 'convo-e2e-mesh-'));
  process.env.SHARED_MESH_OWNER = String(process.pid);
  // One mesh secret for the run (the preset's setupFiles keep it): a file's gRPC clients and the
  // shared mesh, started from another file's process, then agree.
  process.env.MESH_SECRET ??= randomBytes(24).toString('hex');
}

/**
 * Stops the shared mesh if a test file started it, and waits until it is gone: it records the
 * indexes of its databases for the index-coverage check as it stops (QUERY_LOG).
 */
export async function stopSharedMesh(): Promise<void> {
  const dir = process.env.SHARED_MESH_DIR;
  if (!dir) return;
  let pid = 0;
  try {
    pid = Number(readFileSync(join(dir, 'server.pid'), 'utf8'));
  } catch {
    // No file asked for the shared mesh.
  }
  if (pid && alive(pid)) {
    process.kill(pid, 'SIGTERM');
    const until = Date.now() + STOP_WITHIN_MS;
    while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) {
      process.stderr.write(`the shared mesh did not stop within ${STOP_WITHIN_MS / 1000} s: killed\n`);
      process.kill(-pid, 'SIGKILL');
    }
  }
  // The mesh's lines are kept when SHARED_MESH_KEEP is set (a failure to look into).
  if (process.env.SHARED_MESH_KEEP) process.stdout.write(`shared mesh logs kept in ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
}
