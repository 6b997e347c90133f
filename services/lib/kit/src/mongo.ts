import mongoose, { type Connection, type Schema } from 'mongoose';
import type { Logger } from './logger';
import { observeDatabase } from './observability/db-metrics';
import { databaseConnected } from './database-hooks';
import { processEnv } from './config';

export { anyOf, firstOfEach, groupByKey } from './batch-reads';

/** Delays between connection attempts: `initialMs`, doubling, never more than `maxMs`. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** 0.5 s, 1 s, 2 s, 4 s, 8 s, then every 10 s. */
export const DATABASE_RETRY: Backoff = { initialMs: 500, maxMs: 10_000 };

/** The delay after failed attempt number `attempt` (1-based). */
export const backoffDelay = (attempt: number, { initialMs, maxMs }: Backoff = DATABASE_RETRY): number =>
  Math.min(maxMs, initialMs * 2 ** Math.min(attempt - 1, 30));

export interface ConnectOptions {
  /** Each failed attempt is logged as a warning (the first success after one, as info). */
  log?: Pick<Logger, 'warn' | 'info'>;
  /** Stops retrying (SIGTERM during start-up): the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** How long one attempt waits for a server (and later, each operation); MONGODB_SERVER_SELECTION_TIMEOUT_MS. */
  serverSelectionTimeoutMs?: number;
  retry?: Backoff;
}

/**
 * One connection per service, to the service's own database on the given server. A database that
 * is slow to come up (or down for a while) is waited for: attempts are retried with capped backoff
 * for as long as it takes, or until `signal` aborts. Only a URI the driver cannot use at all (a
 * configuration error, which no retry can fix) rejects at once. Each connection is handed to the
 * hooks registered with `onDatabaseConnected` (@convo/kit/database-hooks), if any.
 */
export async function connectDatabase(uri: string, dbName: string, opts: ConnectOptions = {}): Promise<Connection> {
  const { log, signal } = opts;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    let conn: Connection | undefined;
    try {
      conn = mongoose.createConnection(uri, {
        dbName,
        serverSelectionTimeoutMS: opts.serverSelectionTimeoutMs ?? 10_000,
        connectTimeoutMS: 10_000,
        socketTimeoutMS: 30_000,
        // MONGODB_MAX_POOL_SIZE: the dev mesh divides the embedded database's connections among its processes.
        maxPoolSize: Number(processEnv.MONGODB_MAX_POOL_SIZE) || 20,
        // Command monitoring times every operation (convo_db_command_duration_seconds).
        monitorCommands: true,
      });
      conn.plugin(oneBatchFinds);
      await untilAborted(conn.asPromise(), signal);
      databaseConnected(conn);
      observeDatabase(conn);
      if (attempt > 1) log?.info({ database: dbName, attempt }, 'database connected');
      return conn;
    } catch (err) {
      if (signal?.aborted) {
        // Closing a connection that is still selecting a server waits for the selection to time
        // out: the caller is exiting, so it is not awaited.
        void conn?.close(true).catch(() => undefined);
        throw signal.reason;
      }
      await conn?.close(true).catch(() => undefined);
      if (isConfigurationError(err)) throw err;
      const retryInMs = backoffDelay(attempt, opts.retry);
      log?.warn({ database: dbName, attempt, retryInMs, reason: (err as Error).message }, 'database not reachable; retrying');
      await sleep(retryInMs, signal);
    }
  }
}

/** The first batch of a find without a limit (and without a batch size of its own). */
const FIND_BATCH = 10_000;

/**
 * Finds answer in one batch: a find with a limit asks for one more than it (the server then knows
 * there is no second batch), one without asks for FIND_BATCH. FerretDB keeps a find's PostgreSQL
 * connection until its cursor's last batch has been fetched; with its default first batch (101),
 * every larger answer held a connection across a getMore round trip, and a process whose driver
 * connections all waited for a database connection could not send the getMore that would free one
 * (the embedded database's stall under load, docs/storage.md). MongoDB caps a batch at 16 MB
 * whatever is asked. A query that sets its own batch size (a cursor walked a batch at a time) keeps it.
 */
export function oneBatchFinds(schema: Schema): void {
  schema.pre('find', function () {
    const { batchSize, limit } = this.getOptions();
    if (batchSize !== undefined) return;
    this.batchSize(typeof limit === 'number' && limit > 0 ? limit + 1 : FIND_BATCH);
  });
}

/** Errors of the URI or options themselves: retrying cannot help. */
const isConfigurationError = (err: unknown): boolean =>
  err instanceof Error && ['MongoParseError', 'MongoInvalidArgumentError', 'MongoMissingDependencyError'].includes(err.name);

function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface CounterDoc {
  _id: string;
  seq: number;
}

/**
 * Installation-wide integer ids. `$inc` with upsert is atomic on MongoDB, so two replicas never
 * hand out the same id. FerretDB (the dev and test database) applies updates as read-then-write:
 * concurrent increments lose updates and return one value twice, within a process and across
 * replicas. There an id is taken by inserting `<key>#<id>` into `counter_claims` (a unique `_id`:
 * the one write FerretDB applies atomically), the next free one after the counter's value, which
 * is then moved up to it (a hint: a stale one costs a refused insert per id taken since); this
 * process's increments of a key run one at a time.
 */
export async function nextSequence(conn: Connection, key: string): Promise<number> {
  let state = sequenceState.get(conn);
  if (!state) sequenceState.set(conn, (state = { ferretDb: isFerretDb(conn), tails: new Map(), last: new Map() }));
  if (!(await state.ferretDb)) return incrementCounter(conn, key);
  const { tails } = state;
  const increment = () => claimNext(conn, key, state!.last);
  const turn = (tails.get(key) ?? Promise.resolve(0)).then(increment, increment);
  tails.set(key, turn);
  try {
    return await turn;
  } finally {
    if (tails.get(key) === turn) tails.delete(key);
  }
}

const sequenceState = new WeakMap<
  Connection,
  { ferretDb: Promise<boolean>; tails: Map<string, Promise<number>>; last: Map<string, number> }
>();

const isFerretDb = async (conn: Connection): Promise<boolean> => {
  try {
    const info = await conn.db!.admin().command({ buildInfo: 1 });
    return 'ferretdbVersion' in info;
  } catch {
    return false;
  }
};

async function incrementCounter(conn: Connection, key: string): Promise<number> {
  const doc = await conn
    .collection<CounterDoc>('counters')
    .findOneAndUpdate({ _id: key }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
  if (!doc) throw new Error(`counter ${key} did not return a value`);
  return doc.seq;
}

/** Ids one claim round tries before reading the counter again. */
const CLAIM_PROBES = 1_000;

/** FerretDB: the next id of `key` no other caller (in any process) holds, claimed by a unique insert. */
async function claimNext(conn: Connection, key: string, last: Map<string, number>): Promise<number> {
  const counters = conn.collection<CounterDoc>('counters');
  const claims = conn.collection<{ _id: string }>('counter_claims');
  for (;;) {
    const stored = (await counters.findOne({ _id: key }))?.seq ?? 0;
    let next = Math.max(stored, last.get(key) ?? 0) + 1;
    for (let probe = 0; probe < CLAIM_PROBES; probe++, next++) {
      try {
        await claims.insertOne({ _id: `${key}#${next}` });
      } catch (err) {
        if (isDuplicateKey(err)) continue;
        throw err;
      }
      last.set(key, next);
      await counters.updateOne({ _id: key }, { $max: { seq: next } }, { upsert: true }).catch((err: unknown) => {
        // Two first upserts at once: the other one created the counter; it is only a hint.
        if (!isDuplicateKey(err)) throw err;
      });
      return next;
    }
  }
}

/** User text becomes a literal pattern for `$regex`: `a.b*` matches "a.b*", never "axbbb". */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A unique index refused the write: MongoDB's code 11000, or, from FerretDB's findAndModify,
 * PostgreSQL's own unique violation (SQLSTATE 23505) in the message.
 */
export const isDuplicateKey = (err: unknown): boolean =>
  typeof err === 'object' &&
  err !== null &&
  ((err as { code?: number }).code === 11000 || /E11000|duplicate key|23505/.test(String((err as { message?: unknown }).message ?? '')));

/**
 * An unordered bulk insert's failure that is only duplicate keys: documents written already (by
 * another replica, or by an earlier try of the same work), so nothing is missing. Any other error
 * in the batch, or one of the whole command, is a real failure.
 */
export const onlyDuplicateKeys = (err: unknown): boolean => {
  const writeErrors = (err as { writeErrors?: unknown } | null)?.writeErrors;
  if (Array.isArray(writeErrors) && writeErrors.length > 0)
    return writeErrors.every((e) => isDuplicateKey((e as { err?: unknown }).err ?? e));
  return isDuplicateKey(err);
};
