import { closeAllClients } from './grpc/client';
import { createLogger, type Logger } from './logger';
import { connectDatabase } from './mongo';
import { collectProcessMetrics, flushTraces, METRICS_CONTENT_TYPE, metricsText } from './observability';
import type { Connection } from 'mongoose';
import { runProcess } from './process-runner';
import { createServer, type Server } from 'node:http';
import type { Worker } from './worker-loop';

// The loop a worker runs inside this process, from the same sub-path.
export { LoopWorker, type LoopSettings, type Worker } from './worker-loop';

export interface WorkerProcessOptions {
  name: string;
  /** The database of the service the worker belongs to (convo_messaging, convo_tenants). */
  database: string;
  logLevel: string;
  healthPort: number;
  mongodbUri: string;
  serverSelectionTimeoutMs: number;
  shutdownGraceMs: number;
  /** What the log line that announces the worker carries (its id). */
  describe: Record<string, unknown>;
  /** Builds and starts the worker on its service's database. */
  start(db: Connection, log: Logger): Promise<Worker>;
}

/**
 * The process around a worker: a process of its own (any number of replicas) on its service's
 * database, serving no gRPC. /healthz (the process is alive: the loop goes round, or the database
 * is still awaited) and /readyz (database connected, loop running) answer on its health port for
 * probes and the mesh. A database that is slow to come up is waited for (retried with capped
 * backoff, /readyz 503 meanwhile), never a reason to exit. /metrics serves the process's metrics. SIGTERM/SIGINT stop the worker within
 * the grace time, then the process.
 */
export function runWorkerProcess(opts: WorkerProcessOptions): void {
  runProcess({
    name: opts.name,
    logLevel: opts.logLevel,
    async start(signal) {
      const log = createLogger(opts.name, opts.logLevel);
      let worker: Worker | undefined;
      let connected = false;
      const health = await listenHealth(opts.healthPort, (path) => {
        if (path === '/healthz') return worker ? worker.healthy : true;
        if (path === '/readyz') return connected && !!worker?.healthy;
        return undefined;
      });
      log.info({ ...opts.describe, healthPort: (health.address() as { port: number }).port }, 'starting');
      let db: Connection | undefined;
      try {
        db = await connectDatabase(opts.mongodbUri, opts.database, {
          log,
          signal,
          serverSelectionTimeoutMs: opts.serverSelectionTimeoutMs,
        });
        connected = true;
        db.on('disconnected', () => (connected = false));
        db.on('reconnected', () => (connected = true));
        worker = await opts.start(db, log);
      } catch (err) {
        health.close();
        await db?.close().catch(() => undefined);
        throw err;
      }
      log.info(opts.describe, 'running');
      const running = worker;
      const conn = db;
      return {
        async stop() {
          // A signal that came while the worker was starting: it stops at once.
          await running.stop(signal.aborted ? 0 : opts.shutdownGraceMs);
          health.close();
          closeAllClients();
          await conn.close();
          await flushTraces();
          log.info('stopped');
        },
      };
    },
  });
}

/** `check(path)` answers true (200), false (503) or undefined (404) for /healthz and /readyz; /metrics is Prometheus'. */
function listenHealth(port: number, check: (path: string) => boolean | undefined): Promise<Server> {
  collectProcessMetrics();
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/metrics') {
      metricsText().then(
        (text) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(text),
        () => res.writeHead(500).end(),
      );
      return;
    }
    const ok = check(path);
    if (ok === undefined) return res.writeHead(404).end();
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: ok ? 'ok' : 'unavailable' }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
}
