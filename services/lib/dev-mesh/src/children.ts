import type { ChildProcess } from 'node:child_process';

/** Delay before restart number `n` of a process: 0.5 s doubling, at most 30 s. */
export const restartDelayMs = (n: number) => Math.min(30_000, 500 * 2 ** Math.min(n - 1, 10));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `ready` until it holds; fails when the process exits first or the deadline passes. */
export async function waitUntil(what: string, deadlineMs: number, ready: () => Promise<boolean>, alive: () => boolean) {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (!alive()) throw new Error(`${what} exited during start-up`);
    if (await ready()) return;
    await sleep(150);
  }
  throw new Error(`${what} was not ready within ${deadlineMs / 1000} s`);
}

const running = (child: ChildProcess | undefined): child is ChildProcess => !!child && child.exitCode === null && child.signalCode === null;

/** SIGTERM, as Kubernetes stops a pod; SIGKILL after `graceMs` if it has not exited by then. */
export async function terminateChild(child: ChildProcess | undefined, graceMs = 15_000): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** SIGKILL at once (a crash, an evicted pod). */
export async function killChild(child: ChildProcess | undefined): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}
