import mongoose, { type Connection } from 'mongoose';

/** One connection per service, to the service's own database on the given server. */
export async function connectDatabase(uri: string, dbName: string): Promise<Connection> {
  const conn = mongoose.createConnection(uri, {
    dbName,
    serverSelectionTimeoutMS: 10_000,
    connectTimeoutMS: 10_000,
    socketTimeoutMS: 30_000,
    maxPoolSize: 20,
  });
  await conn.asPromise();
  return conn;
}

interface CounterDoc {
  _id: string;
  seq: number;
}

/**
 * Installation-wide integer ids. `$inc` with upsert is atomic on MongoDB and FerretDB, so two
 * replicas never hand out the same id.
 */
export async function nextSequence(conn: Connection, key: string): Promise<number> {
  const doc = await conn
    .collection<CounterDoc>('counters')
    .findOneAndUpdate({ _id: key }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
  if (!doc) throw new Error(`counter ${key} did not return a value`);
  return doc.seq;
}

export const isDuplicateKey = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { code?: number }).code === 11000;
