import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive, sleep } from './exec';

const POLL_MS = 500;
// A lock without a pid file is a holder that died between mkdir and writeFile; give it time to finish.
const PID_GRACE_MS = 30_000;

/**
 * Runs `fn` while holding a directory lock. mkdir is atomic, so it works across processes (several
 * jest workers may want FerretDB at once); a lock whose holder died is taken over.
 */
export async function withLock<T>(lockDir: string, timeoutMs: number, onWait: () => void, fn: () => Promise<T>): Promise<T> {
  await acquire(lockDir, timeoutMs, onWait);
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

async function acquire(lockDir: string, timeoutMs: number, onWait: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let waited = false;
  for (;;) {
    if (await tryCreate(lockDir)) return;
    if (await isStale(lockDir)) {
      await rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs / 1000}s waiting for the lock ${lockDir}; delete it if no build is running.`);
    }
    if (!waited) onWait();
    waited = true;
    await sleep(POLL_MS);
  }
}

async function tryCreate(lockDir: string): Promise<boolean> {
  try {
    await mkdir(lockDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  await writeFile(join(lockDir, 'pid'), String(process.pid));
  return true;
}

async function isStale(lockDir: string): Promise<boolean> {
  try {
    const pid = Number(await readFile(join(lockDir, 'pid'), 'utf8'));
    return pid > 0 && !isProcessAlive(pid);
  } catch {
    return lockAgeMs(lockDir).then((age) => age > PID_GRACE_MS);
  }
}

async function lockAgeMs(lockDir: string): Promise<number> {
  try {
    return Date.now() - (await stat(lockDir)).mtimeMs;
  } catch {
    // Vanished meanwhile: not stale, just retry mkdir.
    return 0;
  }
}
