import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { MongoClient } from 'mongodb';
import type { Log } from './build';
import { isProcessAlive, sleep } from './exec';
import { readLogLine } from './ferretdb-log';
import { findOnPath, runRoot } from './paths';
import { freePorts, isPortOpen, releasePorts } from './ports';
import type { Database, DatabaseKind } from './types';

const READY_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;
const START_ATTEMPTS = 3;
const STDERR_LINES_KEPT = 20;

/** Where FerretDB keeps the data, and what becomes of it once FerretDB has stopped. */
export interface Storage {
  kind: DatabaseKind;
  /** See Database.postgresUrl. */
  postgresUrl?: string;
  /**
   * Settles once the storage can be used (the PostgreSQL database is being created meanwhile):
   * FerretDB starts alongside, and is pinged only after.
   */
  ready?: Promise<void>;
  /** FerretDB's flags that choose and locate the storage; runDir is the run's own folder. */
  args(runDir: string): string[];
  /** After FerretDB has exited (stop(), or a start that failed): deletes throwaway data. */
  release(): Promise<void>;
  /** The same for the process-exit hook, which cannot wait for promises; best effort. */
  releaseSync(): void;
}

class PortInUseError extends Error {}

// A parent that exits without calling stop() must not leave FerretDB servers and their data behind.
const liveRuns = new Map<ChildProcess, { runDir: string; storage: Storage }>();
process.on('exit', () => {
  for (const [child, { runDir, storage }] of liveRuns) {
    child.kill('SIGKILL');
    try {
      rmSync(runDir, { recursive: true, force: true });
    } catch {
      // The dying server may still be writing; removeAbandonedRuns() deletes the rest next time.
    }
    storage.releaseSync();
  }
});

/** Starts FerretDB on the storage in a fresh run folder, retrying if its ports were taken meanwhile. */
export async function startFerretDb(binary: string, name: string, log: Log, storage: Storage): Promise<Database> {
  await removeAbandonedRuns();
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(binary, name, log, storage);
    } catch (error) {
      if (!(error instanceof PortInUseError) || attempt === START_ATTEMPTS) {
        await storage.release().catch(() => {});
        throw error;
      }
      log(`FerretDB lost a port race, retrying: ${error.message}`);
    }
  }
}

async function launch(binary: string, name: string, log: Log, storage: Storage): Promise<Database> {
  const runDir = join(runRoot(), `${safeName(name)}-${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(join(runDir, 'data'), { recursive: true });
  await mkdir(join(runDir, 'state'), { recursive: true });
  const ports = await freePorts(2);
  const [port, debugPort] = ports;

  const server = new FerretDbProcess(binary, runDir, port, debugPort, storage, log);
  const uri = `mongodb://127.0.0.1:${port}/`;
  try {
    await server.waitUntilReady(uri, storage.ready);
  } catch (error) {
    await server.stop();
    releasePorts(ports);
    throw error;
  }
  // Nothing but stop() should keep the database alive: a forgotten handle must not hang the parent.
  server.unref();
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= server.stop().finally(() => {
      releasePorts(ports);
      return storage.release();
    });
    return stopping;
  };
  return {
    uri,
    kind: storage.kind,
    ...(storage.postgresUrl && { postgresUrl: storage.postgresUrl }),
    metricsUrl: `http://127.0.0.1:${debugPort}/debug/metrics`,
    stop,
  };
}

/** FerretDB over SQLite files: the run folder's (deleted with it), or a dataDir's folder (kept). */
export function sqliteStorage(keptDir?: string): Storage {
  return {
    kind: 'ferretdb-sqlite',
    // FerretDB requires the trailing slash: the URI names a directory holding one file per database.
    args: (runDir) => [`--handler=sqlite`, `--sqlite-url=file:${keptDir ?? join(runDir, 'data')}/`],
    release: async () => {},
    releaseSync: () => {},
  };
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, '_') || 'db';
}

/** Run folders whose owning process is gone, e.g. after a crash or a SIGKILL. */
async function removeAbandonedRuns(): Promise<void> {
  const entries = await readdir(runRoot()).catch(() => [] as string[]);
  await Promise.all(
    entries.map(async (entry) => {
      const pid = Number(/-(\d+)-[0-9a-f]+$/.exec(entry)?.[1]);
      if (pid && pid !== process.pid && !isProcessAlive(pid)) {
        await rm(join(runRoot(), entry), { recursive: true, force: true });
      }
    }),
  );
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

class FerretDbProcess {
  private readonly child: ChildProcess;
  private readonly output: string[] = [];
  private exit: Exit | undefined;
  private readonly exited: Promise<Exit>;
  /** Settles once stdout and stderr are drained too, which 'exit' does not wait for. */
  private readonly closed: Promise<void>;

  constructor(
    binary: string,
    private readonly runDir: string,
    private readonly port: number,
    debugPort: number,
    storage: Storage,
    private readonly log: Log,
  ) {
    const args = ferretDbArgs(runDir, port, debugPort, storage);
    // setpriv (util-linux) makes the kernel kill FerretDB when its parent dies, even by SIGKILL.
    const setpriv = findOnPath('setpriv');
    this.child = setpriv
      ? spawn(setpriv, ['--pdeathsig', 'KILL', '--', binary, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => {
      const settle = (exit: Exit) => {
        this.exit ??= exit;
        resolve(this.exit);
      };
      this.child.once('exit', (code, signal) => settle({ code, signal }));
      // Spawn failures (ENOENT, EACCES) emit 'error' and no 'exit'; `on` because an unhandled
      // second 'error' (e.g. a failed kill) would crash the parent.
      this.child.on('error', (error) => settle({ code: null, signal: null, error }));
    });
    this.closed = new Promise((resolve) => {
      this.child.once('close', () => resolve());
      this.child.once('error', () => resolve());
    });
    this.collect(this.child.stdout);
    this.collect(this.child.stderr);
    liveRuns.set(this.child, { runDir, storage });
  }

  async waitUntilReady(uri: string, storageReady?: Promise<void>): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    // A ping before the storage exists would only fill the log with FerretDB's connection errors.
    await storageReady;
    while (Date.now() < deadline) {
      if (this.exit) {
        // Let the last output lines arrive: they usually say why it exited.
        await settlesWithin(this.closed, 1000);
        throw this.failure(`exited (${describeExit(this.exit)}) before accepting connections`);
      }
      if ((await isPortOpen(this.port, 500)) && (await answersPing(uri))) return;
      await Promise.race([sleep(100), this.exited]);
    }
    throw this.failure(`did not answer a ping on port ${this.port} within ${READY_TIMEOUT_MS / 1000}s`);
  }

  unref(): void {
    this.child.unref();
    for (const stream of [this.child.stdout, this.child.stderr]) {
      (stream as (Readable & { unref?: () => void }) | null)?.unref?.();
    }
  }

  /** SIGTERM, then SIGKILL if FerretDB has not exited after a grace period; then delete its data. */
  async stop(): Promise<void> {
    if (!this.exit) {
      this.child.kill('SIGTERM');
      if (!(await settlesWithin(this.exited, STOP_GRACE_MS))) {
        this.child.kill('SIGKILL');
        await this.exited;
      }
    }
    liveRuns.delete(this.child);
    await rm(this.runDir, { recursive: true, force: true });
  }

  private collect(stream: Readable | null): void {
    if (!stream) return;
    createInterface({ input: stream }).on('line', (line) => {
      const entry = readLogLine(line);
      this.output.push(entry.text);
      if (this.output.length > STDERR_LINES_KEPT) this.output.shift();
      // Warnings are routine and expected conflicts no fault (ferretdb-log.ts): only the rest is the caller's.
      if (entry.kind === 'unexpected') this.log(`[ferretdb] ${entry.text}`, true);
    });
  }

  private failure(what: string): Error {
    const output = this.output.join('\n');
    const message = `FerretDB ${what}.${output ? `\nLast output:\n${output}` : ''}`;
    return /address already in use/.test(output) ? new PortInUseError(message) : new Error(message);
  }
}

function ferretDbArgs(runDir: string, port: number, debugPort: number, storage: Storage): string[] {
  return [
    ...storage.args(runDir),
    `--state-dir=${join(runDir, 'state')}`,
    `--listen-addr=127.0.0.1:${port}`,
    // The default debug address is a fixed port, so a second instance would fail to start.
    `--debug-addr=127.0.0.1:${debugPort}`,
    '--telemetry=disable',
    '--log-level=warn',
    '--log-format=json',
  ];
}

async function answersPing(uri: string): Promise<boolean> {
  const client = new MongoClient(uri, { directConnection: true, serverSelectionTimeoutMS: 2000, connectTimeoutMS: 2000 });
  try {
    await client.db('admin').command({ ping: 1 });
    return true;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => {});
  }
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describeExit(exit: Exit): string {
  if (exit.error) return exit.error.message;
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}
