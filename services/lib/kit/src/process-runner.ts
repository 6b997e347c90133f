import { createLogger } from './logger';

/** What a started process hands back: how to stop it. */
export interface RunningProcess {
  /** Stops serving and releases what the process holds (servers, clients, traces). */
  stop(): Promise<void>;
  /** When set, the process exits this long after a signal whatever still holds it. */
  graceMs?: number;
}

export interface ProcessOptions {
  /** Names the process in its logs. */
  name: string;
  /** The level of the runner's own log lines (the logger's default otherwise). */
  logLevel?: string;
  /** Starts the process; `signal` aborts when SIGTERM/SIGINT comes during start-up. */
  start(signal: AbortSignal): Promise<RunningProcess>;
}

/**
 * The one way a process of the platform runs (services through runService, workers through
 * runWorkerProcess, the gateway directly):
 * SIGTERM or SIGINT stops it once (exit 0, or 1 when stopping fails); a signal during start-up
 * aborts the start-up, and a start-up that fails otherwise is logged as fatal (exit 1). Loads
 * neither mongoose nor gRPC, so the gateway can use it.
 */
export function runProcess(opts: ProcessOptions): void {
  const log = createLogger(opts.name, opts.logLevel);
  const starting = new AbortController();
  let running: RunningProcess | undefined;
  const stop = (p: RunningProcess) => {
    if (p.graceMs !== undefined) setTimeout(() => process.exit(0), p.graceMs).unref();
    return p.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: string) => {
    log.info({ signal }, 'shutting down');
    if (running) void stop(running);
    else starting.abort(new Error(`${signal} during start-up`));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  opts.start(starting.signal).then(
    (p) => {
      running = p;
      // The signal came while the process was starting, after the part that watches it.
      if (starting.signal.aborted) void stop(p);
    },
    (err: unknown) => {
      if (starting.signal.aborted) {
        log.info('stopped before start-up completed');
        process.exit(0);
      }
      log.fatal({ err }, 'failed to start');
      process.exit(1);
    },
  );
}
