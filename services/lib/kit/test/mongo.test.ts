import { startDatabase } from '@convo/dev-db';
import mongoose, { Schema } from 'mongoose';
import { createServer, type AddressInfo } from 'node:net';
import { backoffDelay, connectDatabase, DATABASE_RETRY, escapeRegex, oneBatchFinds, onlyDuplicateKeys } from '../src/mongo';

describe('connectDatabase', () => {
  it('backs off 0.5 s, doubling, capped at 10 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffDelay(n))).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
    expect(DATABASE_RETRY).toEqual({ initialMs: 500, maxMs: 10_000 });
  });

  it('keeps retrying an unreachable server until told to stop', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));

    const warnings: unknown[] = [];
    const log = { warn: (o: unknown) => warnings.push(o), info: () => undefined } as never;
    const stop = new AbortController();
    const attempt = connectDatabase(`mongodb://127.0.0.1:${port}/`, 'x', {
      log,
      signal: stop.signal,
      serverSelectionTimeoutMs: 200,
      retry: { initialMs: 50, maxMs: 100 },
    });
    let settled = false;
    attempt.catch(() => undefined).finally(() => (settled = true));
    while (warnings.length < 3) await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    expect(warnings[0]).toMatchObject({ database: 'x', attempt: 1, retryInMs: 50 });
    expect(warnings[2]).toMatchObject({ attempt: 3, retryInMs: 100 });

    stop.abort(new Error('SIGTERM during start-up'));
    await expect(attempt).rejects.toThrow('SIGTERM during start-up');
  });

  it('refuses a URI it cannot use at once: no retry fixes a configuration error', async () => {
    await expect(connectDatabase('not-a-mongodb-uri', 'x')).rejects.toMatchObject({ name: 'MongoParseError' });
  });
});

describe('finds on a connection of connectDatabase', () => {
  it('answer in one batch: no getMore, so no cursor holds a database connection between round trips', async () => {
    const database = await startDatabase({ name: 'kit-one-batch-test' });
    const conn = await connectDatabase(database.uri, 'kit_one_batch');
    try {
      const Item = conn.model('Item', new Schema({ _id: Number, n: Number }));
      await Item.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: i, n: i % 5 })));
      const commands: string[] = [];
      conn.getClient().on('commandStarted', (e) => commands.push(e.commandName));
      expect(await Item.find({}).lean()).toHaveLength(250);
      expect(
        await Item.find({ n: { $gte: 0 } })
          .sort({ _id: 1 })
          .limit(200)
          .lean(),
      ).toHaveLength(200);
      expect(await Item.find({}).limit(101).lean()).toHaveLength(101);
      expect(commands.filter((c) => c === 'find')).toHaveLength(3);
      expect(commands.filter((c) => c === 'getMore')).toEqual([]);
      // A query's own batch size stands (a cursor walked a batch at a time).
      expect(await Item.find({}).batchSize(100).lean()).toHaveLength(250);
      expect(commands.filter((c) => c === 'getMore')).toHaveLength(2);
    } finally {
      await conn.close();
      await database.stop();
    }
  });
});

describe('onlyDuplicateKeys', () => {
  it('tells an unordered insert that met only documents written already from one that failed otherwise', async () => {
    const database = await startDatabase({ name: 'kit-duplicates-test' });
    const conn = await connectDatabase(database.uri, 'kit_duplicates');
    try {
      const items = conn.db!.collection<{ _id: number; n?: number }>('items');
      await items.insertMany([{ _id: 1 }, { _id: 3 }]);
      const failureOf = (p: Promise<unknown>) =>
        p.then(
          () => null,
          (err: unknown) => err,
        );

      const duplicates = await failureOf(items.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: 4 }], { ordered: false }));
      expect(duplicates).not.toBeNull();
      expect(onlyDuplicateKeys(duplicates)).toBe(true);
      // The rest of the batch went in.
      expect(await items.countDocuments()).toBe(4);
      expect(onlyDuplicateKeys(await failureOf(items.insertOne({ _id: 4 })))).toBe(true);

      // A duplicate beside a document the server refuses for another reason (an array `_id`), and a whole command refused.
      const mixed = await failureOf(items.insertMany([{ _id: 1 }, { _id: [5] } as never], { ordered: false }));
      expect(mixed).not.toBeNull();
      expect(onlyDuplicateKeys(mixed)).toBe(false);
      expect(onlyDuplicateKeys(await failureOf(conn.db!.command({ noSuchCommand: 1 })))).toBe(false);
      expect(onlyDuplicateKeys(null)).toBe(false);
    } finally {
      await conn.close();
      await database.stop();
    }
  });
});

describe('the embedded database with few connections', () => {
  // FerretDB over PostgreSQL with 2 connections, a client with 2: eight finds of 150 documents at
  // once. With the default first batch (101), finds whose cursors keep a PostgreSQL connection
  // hand their client connection to the next waiting find, which waits for a PostgreSQL one, and
  // the getMores that would free them wait for a client connection: nothing moves until timeouts.
  // Answered in one batch, every find frees its connection with its answer.
  it('stalls on finds that need a getMore, and answers them all when each comes in one batch', async () => {
    const database = await startDatabase({ name: 'kit-stall-test', backend: 'postgresql', postgresPoolSize: 2 });
    const connect = async (oneBatch: boolean) => {
      const conn = mongoose.createConnection(database.uri, { dbName: 'kit_stall', maxPoolSize: 2, socketTimeoutMS: 3_000 });
      if (oneBatch) conn.plugin(oneBatchFinds);
      await conn.asPromise();
      return conn.model('Row', new Schema({ _id: Number, n: Number }));
    };
    const eightFinds = (Row: Awaited<ReturnType<typeof connect>>) =>
      Promise.allSettled(
        Array.from({ length: 8 }, () =>
          Row.find({ n: { $gte: 0 } })
            .lean()
            .then((rows) => rows.length),
        ),
      );
    try {
      const seed = await connect(true);
      await seed.insertMany(Array.from({ length: 150 }, (_, i) => ({ _id: i, n: i })));

      // The interleaving decides: up to ten rounds for one that stalls (a round that does not
      // stall takes milliseconds).
      const unbatched = await connect(false);
      let timedOut = 0;
      for (let round = 0; round < 10 && !timedOut; round++)
        timedOut = (await eightFinds(unbatched)).filter((r) => r.status === 'rejected').length;
      expect(timedOut).toBeGreaterThan(0);

      const answered = await eightFinds(await connect(true));
      expect(answered).toEqual(Array.from({ length: 8 }, () => ({ status: 'fulfilled', value: 150 })));
    } finally {
      await Promise.all(mongoose.connections.map((c) => c.close(true)));
      await database.stop();
    }
  }, 60_000);
});

describe('the embedded database under concurrent updates', () => {
  // FerretDB's update reads the document (its rows keep a PostgreSQL connection) and then writes it
  // on a second connection: as many updates at once as it has connections each hold one and wait
  // for another, and it does not recover. Its clients together keep fewer connections than it has
  // (the dev mesh divides them among its processes).
  const run = async (clientConnections: number) => {
    const database = await startDatabase({ name: 'kit-update-stall-test', backend: 'postgresql', postgresPoolSize: 4 });
    const conn = mongoose.createConnection(database.uri, {
      dbName: 'kit_update_stall',
      maxPoolSize: clientConnections,
      socketTimeoutMS: 3_000,
      serverSelectionTimeoutMS: 3_000,
    });
    try {
      const Counter = conn.model('Counter', new Schema({ _id: Number, n: Number }));
      await Counter.insertMany(Array.from({ length: 8 }, (_, i) => ({ _id: i, n: 0 })));
      let failed = 0;
      // The interleaving decides: up to ten rounds of 40 updates, until one fails (a CI run saw
      // three rounds pass without a stall; a round that does not stall takes milliseconds).
      for (let round = 0; round < 10 && !failed; round++) {
        const results = await Promise.allSettled(
          Array.from({ length: 40 }, (_, i) => Counter.updateOne({ _id: i % 8 }, { $inc: { n: 1 } }).exec()),
        );
        failed = results.filter((r) => r.status === 'rejected').length;
      }
      return failed;
    } finally {
      await conn.close(true);
      await database.stop();
    }
  };

  it('stalls when its clients keep as many connections as it has', async () => {
    expect(await run(4)).toBeGreaterThan(0);
  }, 60_000);

  it('answers every update when they keep one fewer', async () => {
    expect(await run(3)).toBe(0);
  }, 60_000);
});

describe('escapeRegex', () => {
  it('makes user text a literal pattern', () => {
    const text = 'a.b* (c+d)? [e] {2} ^f$ g|h \\i';
    const pattern = new RegExp(`^${escapeRegex(text)}$`);
    expect(pattern.test(text)).toBe(true);
    expect(new RegExp(escapeRegex('a.b*')).test('axbbb')).toBe(false);
  });
});
