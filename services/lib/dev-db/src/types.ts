/**
 * Where the database came from: MONGODB_URI as is, FerretDB over a PostgreSQL database, FerretDB
 * over SQLite files, or a mongod of mongodb-memory-server.
 */
export type DatabaseKind = 'external' | 'ferretdb-postgresql' | 'ferretdb-sqlite' | 'memory-server';

/** The embedded FerretDB storages, in the order they are tried. */
export type Backend = 'postgresql' | 'sqlite';

export interface Database {
  /** A MongoDB connection string; the embedded ones carry no database name. */
  uri: string;
  kind: DatabaseKind;
  /** For ferretdb-postgresql: the PostgreSQL database under it (psql, EXPLAIN), e.g. postgres://postgres@127.0.0.1:5432/devdb_… */
  postgresUrl?: string;
  /** FerretDB's Prometheus metrics (its requests by command among them), for benchmarks. */
  metricsUrl?: string;
  /** Stops the server; deletes its data unless it was started with a dataDir. Safe to call more than once. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Labels the run folder and the PostgreSQL database, so leftovers can be traced to whoever started them. */
  name?: string;
  log?: (line: string) => void;
  /**
   * Also appends FerretDB's unexpected errors (not its expected conflicts: ferretdb-log.ts) to this
   * file, one line each, so that a test run can fail on them: DEV_DB_ERROR_LOG, which it overrides.
   */
  errorLog?: string;
  /**
   * Keeps the data across stop() and later starts with the same folder (`npm start`); wipe it with
   * resetDatabase(dataDir). Without it every start gets an empty database that stop() deletes.
   */
  dataDir?: string;
  /** Forces one FerretDB storage, like DEV_DB_BACKEND (which it overrides); no fallback then. */
  backend?: Backend;
  /** FerretDB's PostgreSQL connections (`pool_max_conns`): FERRETDB_POOL_SIZE (24). */
  postgresPoolSize?: number;
}
