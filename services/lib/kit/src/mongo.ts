import mongoose, { type Connection } from 'mongoose';
import { queryLogOptions, recordQueries } from './query-log';

/**
 * One connection per service, to the service's own database on the given server. With QUERY_LOG
 * set (the e2e suite's index-coverage check), every query it sends is recorded there.
 */
export async function connectDatabase(uri: string, dbName: string): Promise<Connection> {
  const conn = mongoose.createConnection(uri, {
    dbName,
    serverSelectionTimeoutMS: 10_000,
    connectTimeoutMS: 10_000,
    socketTimeoutMS: 30_000,
    maxPoolSize: 20,
    ...queryLogOptions(),
  });
  await conn.asPromise();
  recordQueries(conn);
  return conn;
}

interface CounterDoc {
  _id: string;
  seq: number;
}

/**
 * Installation-wide integer ids. `$inc` with upsert is atomic on MongoDB, so two replicas never
 * hand out the same id. FerretDB (the dev and test database, SQLite backend) applies updates as
 * read-then-write: concurrent increments lose updates and return one value twice. There, the
 * increments of this process are run one at a time per key (one process per service in dev).
 */
export async function nextSequence(conn: Connection, key: string): Promise<number> {
  let state = sequenceState.get(conn);
  if (!state) sequenceState.set(conn, (state = { ferretDb: isFerretDb(conn), tails: new Map() }));
  if (!(await state.ferretDb)) return incrementCounter(conn, key);
  const { tails } = state;
  const increment = () => incrementCounter(conn, key);
  const turn = (tails.get(key) ?? Promise.resolve(0)).then(increment, increment);
  tails.set(key, turn);
  try {
    return await turn;
  } finally {
    if (tails.get(key) === turn) tails.delete(key);
  }
}

const sequenceState = new WeakMap<Connection, { ferretDb: Promise<boolean>; tails: Map<string, Promise<number>> }>();

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

export const isDuplicateKey = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { code?: number }).code === 11000;
