// What the embedded database (FerretDB over PostgreSQL) spends per command of each kind the send
// and inbound paths use: CPU ms of FerretDB and of PostgreSQL per operation, measured from /proc
// while a closed loop of CONNECTIONS clients runs OPS operations of one kind. The documents are
// shaped like a queued text message; the collection has the messages collection's kind of
// secondary indexes (three, each one GIN index per field underneath, docs/storage.md) or none.
import { startDatabase } from '@convo/dev-db';
import { mongo } from 'mongoose';
import { cpuSince, cpuSnapshot, databasePids, isFerretDb } from './proc-cpu';

const OPS = Number(process.env.BENCH_OPS ?? 3000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const REPS = Number(process.env.BENCH_REPS ?? 3);
// Documents per insertMany. Updates are not measured in bulk: FerretDB 1.24 keeps each statement's
// read (and its PostgreSQL connection) open until the whole command ends, so an update command of
// more statements than it has connections never ends (docs/storage.md).
const BULK = 16;

interface Figures {
  perS: number;
  ferretMs: number;
  postgresMs: number;
}

const message = (id: string, i: number, padding: number) => ({
  _id: id,
  tenantId: 1 + (i % 4),
  ticketId: 1000 + (i % 64),
  channelId: 7,
  status: 'queued',
  kind: 'text',
  body: `hello ${i} ${'x'.repeat(padding)}`,
  externalKey: `ext-${i}`,
  fromMe: true,
  createdAt: new Date(),
  updatedAt: new Date(),
});

async function main(): Promise<void> {
  const database = await startDatabase({ name: 'bench-db-commands', backend: 'postgresql' });
  const client = await mongo.MongoClient.connect(database.uri, { maxPoolSize: CONNECTIONS });
  const pids = () => databasePids(database.uri, database.postgresUrl);
  try {
    const db = client.db('bench_db_commands');
    const indexed = db.collection('indexed');
    await indexed.createIndex({ tenantId: 1, ticketId: 1, createdAt: -1 });
    await indexed.createIndex({ tenantId: 1, externalKey: 1 });
    await indexed.createIndex({ status: 1, channelId: 1 });
    const bare = db.collection('bare');
    await bare.insertOne({ _id: 'created' } as mongo.Document);

    /** `fn(i)` for i in 0…n-1 over CONNECTIONS clients; the database's CPU per operation. */
    const measure = async (n: number, fn: (i: number) => Promise<unknown>, perCall = 1): Promise<Figures> => {
      const before = cpuSnapshot(pids());
      const t0 = process.hrtime.bigint();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (next < n) await fn(next++);
        }),
      );
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const now = pids();
      const ferret = cpuSince(before, now.filter(isFerretDb));
      const postgres = cpuSince(
        before,
        now.filter((p) => !isFerretDb(p)),
      );
      const ops = n * perCall;
      return { perS: ops / seconds, ferretMs: ferret / ops, postgresMs: postgres / ops };
    };

    const rows = new Map<string, Figures[]>();
    const add = (name: string, f: Figures) => rows.set(name, [...(rows.get(name) ?? []), f]);
    const ids = (prefix: string) => (i: number) => `${prefix}-${i}`;
    for (let rep = 0; rep < REPS; rep++) {
      for (const [name, coll, padding] of [
        ['3 indexes', indexed, 0],
        ['no index', bare, 0],
        ['3 indexes, 2 KB', indexed, 2048],
      ] as Array<[string, mongo.Collection, number]>) {
        const id = ids(`${rep}-${name}`);
        add(`insertOne (${name})`, await measure(OPS, (i) => coll.insertOne(message(id(i), i, padding) as mongo.Document)));
        add(
          `find by _id, limit 1 (${name})`,
          await measure(OPS, (i) =>
            coll
              .find({ _id: id(i) } as mongo.Document)
              .limit(1)
              .batchSize(2)
              .toArray(),
          ),
        );
        add(
          `find by _id and tenantId (${name})`,
          await measure(OPS, (i) =>
            coll
              .find({ _id: id(i), tenantId: 1 + (i % 4) } as mongo.Document)
              .limit(1)
              .batchSize(2)
              .toArray(),
          ),
        );
        add(
          `updateOne by _id, $set (${name})`,
          await measure(OPS, (i) => coll.updateOne({ _id: id(i) } as mongo.Document, { $set: { status: 'sent', sentAt: new Date() } })),
        );
        const bulk = ids(`${rep}-${name}-bulk`);
        add(
          `insertMany of ${BULK}, per document (${name})`,
          await measure(
            OPS / BULK,
            (i) =>
              coll.insertMany(
                Array.from({ length: BULK }, (_, j) => message(bulk(i * BULK + j), j, padding) as mongo.Document),
                { ordered: false },
              ),
            BULK,
          ),
        );
        add(`deleteOne by _id (${name})`, await measure(OPS, (i) => coll.deleteOne({ _id: id(i) } as mongo.Document)));
      }
    }

    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`\n${REPS} repetitions of ${OPS} operations at ${CONNECTIONS} connections; medians (CPU ms per operation)`);
    console.log('| operation | per s | FerretDB | PostgreSQL | database |');
    console.log('|---|---|---|---|---|');
    for (const [name, figures] of rows) {
      const f = median(figures.map((x) => x.ferretMs));
      const p = median(figures.map((x) => x.postgresMs));
      console.log(
        `| ${name} | ${median(figures.map((x) => x.perS)).toFixed(0)} | ${f.toFixed(2)} | ${p.toFixed(2)} | ${median(figures.map((x) => x.ferretMs + x.postgresMs)).toFixed(2)} |`,
      );
    }
  } finally {
    await client.close();
    await database.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
