import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { MongoClient } from 'mongodb';
import mongoose from 'mongoose';
import { Client } from 'pg';
import { sleep } from '../src/exec';
import { resetDatabase, startDatabase, type Database } from '../src/index';
import { cachedFerretDbBinary, findOnPath, isExecutable, runRoot } from '../src/paths';
import { isPortOpen } from '../src/ports';
import { LOCAL_POSTGRES_URL, startMaintenance, throwawayName } from '../src/postgres';

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  Plans?: PlanNode[];
}

const savedEnv = { MONGODB_URI: process.env.MONGODB_URI, DEV_DB_BACKEND: process.env.DEV_DB_BACKEND };
const serverUrl = process.env.DEV_DB_POSTGRES_URL ?? LOCAL_POSTGRES_URL;

const ferretDbAvailable = Boolean(
  (process.env.FERRETDB_BIN && isExecutable(process.env.FERRETDB_BIN)) ||
  findOnPath('go') ||
  findOnPath('ferretdb') ||
  isExecutable(cachedFerretDbBinary()),
);

/** Checked before the tests are collected, which cannot wait for a promise: a child process does. */
function postgresAnswers(): boolean {
  const probe = `new (require('pg').Client)({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 })
    .connect().then(() => process.exit(0), () => process.exit(1))`;
  return spawnSync(process.execPath, ['-e', probe, serverUrl], { cwd: __dirname, timeout: 10_000 }).status === 0;
}

// A machine without PostgreSQL (or without FerretDB) falls back to SQLite: nothing to test here then.
const describePostgres = ferretDbAvailable && postgresAnswers() ? describe : describe.skip;

const portOf = (uri: string) => Number(new URL(uri).port);
const databaseOf = (db: Database) => decodeURIComponent(new URL(db.postgresUrl!).pathname.slice(1));

async function sql<T extends object>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  return (await sql(serverUrl, 'SELECT 1 FROM pg_database WHERE datname = $1', [name])).length === 1;
}

async function roundTrip(uri: string, value: string): Promise<unknown[]> {
  const client = await MongoClient.connect(uri);
  try {
    const things = client.db('devdb_test').collection<{ value: string }>('things');
    await things.insertOne({ value });
    return (await things.find({}, { projection: { _id: 0 } }).toArray()) as unknown[];
  } finally {
    await client.close();
  }
}

function runFolders(name: string): string[] {
  try {
    return readdirSync(runRoot()).filter((entry) => entry.startsWith(`${name}-${process.pid}-`));
  } catch {
    return [];
  }
}

describePostgres('startDatabase with FerretDB over PostgreSQL', () => {
  const started: Database[] = [];

  beforeEach(() => {
    delete process.env.MONGODB_URI;
    delete process.env.DEV_DB_BACKEND;
  });
  afterEach(() => {
    for (const [key, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
  afterAll(() => Promise.all(started.map((db) => db.stop())));

  it('is the default, on a database of its own that stop() drops', async () => {
    const db = await startDatabase({ name: 'devdb-test-pg' });
    started.push(db);

    expect(db.kind).toBe('ferretdb-postgresql');
    const database = databaseOf(db);
    expect(database).toMatch(new RegExp(`^devdb_[0-9a-f]{6}_${process.pid}_[0-9a-f]{6}_devdb_test_pg$`));
    expect(await roundTrip(db.uri, 'hello')).toEqual([{ value: 'hello' }]);
    expect(await databaseExists(database)).toBe(true);
    expect(await sql(db.postgresUrl!, 'SHOW plan_cache_mode')).toEqual([{ plan_cache_mode: 'force_custom_plan' }]);

    await db.stop();
    expect(await isPortOpen(portOf(db.uri))).toBe(false);
    expect(await databaseExists(database)).toBe(false);
    expect(runFolders('devdb-test-pg')).toEqual([]);
  }, 60_000);

  it('isolates two databases started at once', async () => {
    const [a, b] = await Promise.all([startDatabase({ name: 'devdb-test-pg-a' }), startDatabase({ name: 'devdb-test-pg-b' })]);
    started.push(a, b);

    expect(databaseOf(a)).not.toBe(databaseOf(b));
    expect(await roundTrip(a.uri, 'in a')).toEqual([{ value: 'in a' }]);
    expect(await roundTrip(b.uri, 'in b')).toEqual([{ value: 'in b' }]);

    await Promise.all([a.stop(), b.stop()]);
    expect(await databaseExists(databaseOf(a))).toBe(false);
    expect(await databaseExists(databaseOf(b))).toBe(false);
  }, 60_000);

  it('keeps a dataDir database across stop and start, until resetDatabase drops it', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'devdb-test-'));
    const dataDir = join(parent, 'data');
    const first = await startDatabase({ name: 'devdb-test-kept', dataDir });
    started.push(first);
    expect(first.kind).toBe('ferretdb-postgresql');
    expect(databaseOf(first)).toMatch(/^devdb_keep_/);
    await roundTrip(first.uri, 'kept');
    await first.stop();
    expect(await databaseExists(databaseOf(first))).toBe(true);

    const second = await startDatabase({ name: 'devdb-test-kept', dataDir });
    started.push(second);
    expect(databaseOf(second)).toBe(databaseOf(first));
    expect(await roundTrip(second.uri, 'again')).toEqual([{ value: 'kept' }, { value: 'again' }]);
    // One FerretDB per storage: a second start on the same dataDir, or a reset, must wait.
    await expect(startDatabase({ name: 'devdb-test-kept', dataDir })).rejects.toThrow(/in use/);
    await expect(resetDatabase(dataDir)).rejects.toThrow(/in use/);
    await second.stop();

    await resetDatabase(dataDir);
    expect(await databaseExists(databaseOf(first))).toBe(false);
    expect(existsSync(dataDir)).toBe(false);

    const fresh = await startDatabase({ name: 'devdb-test-kept', dataDir });
    started.push(fresh);
    expect(await roundTrip(fresh.uri, 'new')).toEqual([{ value: 'new' }]);
    await fresh.stop();
    await resetDatabase(dataDir);
    expect(await databaseExists(databaseOf(fresh))).toBe(false);
    rmSync(parent, { recursive: true, force: true });
  }, 60_000);

  it('drops the database of an owner that is gone, at the next start', async () => {
    // A database named for a process that has exited, as a SIGKILLed jest worker leaves behind.
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const leftover = throwawayName('devdb-test-leftover', Number(dead.stdout.trim()));
    await sql(serverUrl, `CREATE DATABASE "${leftover}"`);
    expect(await databaseExists(leftover)).toBe(true);

    const db = await startDatabase({ name: 'devdb-test-cleaner' });
    started.push(db);
    expect(await databaseExists(leftover)).toBe(false);
    await db.stop();
  }, 60_000);

  it("leaves FerretDB's expected errors out of the log and of errorLog: a duplicate key, a statement its client's time limit cancelled", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devdb-errors-'));
    const errorLog = join(dir, 'errors.log');
    const lines: string[] = [];
    const db = await startDatabase({ name: 'devdb-test-errors', log: (line) => lines.push(line), errorLog });
    started.push(db);
    const client = await MongoClient.connect(db.uri);
    try {
      const things = client.db('devdb_test').collection<{ _id: number; s: string }>('things');
      await things.insertMany(Array.from({ length: 5_000 }, (_, i) => ({ _id: i, s: `${'x'.repeat(100)}${i}` })));
      // A claim lost: FerretDB logs the unique index's refusal at ERROR; the client is told E11000.
      await expect(things.insertOne({ _id: 1, s: 'again' })).rejects.toMatchObject({ code: 11000 });
      // Scans cut short by their time limit: PostgreSQL's work is cancelled (context canceled), the
      // client told so; FerretDB logs it at ERROR.
      let cut = 0;
      for (let i = 0; i < 10; i++) {
        cut += await things
          .find({ s: { $regex: 'nomatch$' } })
          .maxTimeMS(1)
          .toArray()
          .then(
            () => 0,
            () => 1,
          );
      }
      expect(cut).toBeGreaterThan(0);
      await sleep(500);
      expect(lines.filter((line) => line.includes('ERROR'))).toEqual([]);
      expect(existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : '').toBe('');
    } finally {
      await client.close();
      await db.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  const dist = join(__dirname, '..', 'dist', 'index.js');
  (existsSync(dist) ? it : it.skip)(
    'takes FerretDB down with a parent killed by SIGKILL',
    async () => {
      // The built package, in a process of its own that dies without running any exit hook.
      const script = `require(${JSON.stringify(dist)}).startDatabase({ name: 'devdb-test-orphan' })
      .then((db) => { console.log(JSON.stringify(db)); setInterval(() => {}, 1000); })`;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env } });
      const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
      const orphan = JSON.parse(line) as Database;
      expect(await isPortOpen(portOf(orphan.uri))).toBe(true);

      child.kill('SIGKILL');
      const deadline = Date.now() + 5000;
      while ((await isPortOpen(portOf(orphan.uri))) && Date.now() < deadline) await sleep(100);
      expect(await isPortOpen(portOf(orphan.uri))).toBe(false);

      const next = await startDatabase({ name: 'devdb-test-cleaner' });
      started.push(next);
      expect(await databaseExists(databaseOf(orphan))).toBe(false);
      await next.stop();
    },
    60_000,
  );
});

describePostgres('GIN indexes for the indexes a service declares', () => {
  let db: Database;
  let conn: mongoose.Connection;
  let table: string;
  const schemaName = 'devdb_gin';

  const Message = new mongoose.Schema(
    { _id: String, tenantId: Number, ticketId: Number, status: String, createdAt: Date, body: String },
    { versionKey: false, autoIndex: false },
  );
  Message.index({ tenantId: 1, ticketId: 1, createdAt: 1 });

  beforeAll(async () => {
    delete process.env.MONGODB_URI;
    delete process.env.DEV_DB_BACKEND;
    db = await startDatabase({ name: 'devdb-test-gin' });
    conn = await mongoose.createConnection(db.uri, { dbName: schemaName }).asPromise();
    const messages = conn.model('Message', Message, 'messages');
    await messages.createIndexes();
    await messages.insertMany(
      Array.from({ length: 3000 }, (_, i) => ({
        _id: `m${i}`,
        tenantId: Math.floor(i / 10) % 10,
        ticketId: Math.floor(i / 10),
        status: 'sent',
        createdAt: new Date(1_700_000_000_000 + i * 1000),
        body: 'x'.repeat(100),
      })),
    );
    const [meta] = await sql<{ table: string }>(
      db.postgresUrl!,
      `SELECT _jsonb->>'table' AS table FROM "${schemaName}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = 'messages'`,
    );
    table = meta.table;
    await sql(db.postgresUrl!, `ANALYZE "${schemaName}"."${table}"`);
  }, 120_000);
  afterAll(async () => {
    await conn?.close();
    await db?.stop();
  });

  it('exists for each field of the declared index, and for _id', async () => {
    const indexes = await sql<{ indexname: string; indexdef: string }>(
      db.postgresUrl!,
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname',
      [schemaName, table],
    );
    const gin = indexes.filter((i) => i.indexdef.includes('USING gin')).map((i) => i.indexdef.replace(/^.* USING gin /, ''));
    expect(gin.sort()).toEqual(
      [
        "(((_jsonb -> '_id'::text)) jsonb_path_ops)",
        "(((_jsonb -> 'createdAt'::text)) jsonb_path_ops)",
        "(((_jsonb -> 'tenantId'::text)) jsonb_path_ops)",
        "(((_jsonb -> 'ticketId'::text)) jsonb_path_ops)",
      ].sort(),
    );
  });

  it('connects FerretDB to a PostgreSQL on this machine without TLS', async () => {
    await conn.model('Message').findOne({ _id: 'm1' }).lean();
    const name = new URL(db.postgresUrl!).pathname.slice(1);
    const rows = await sql<{ ssl: boolean; n: string }>(
      db.postgresUrl!,
      'SELECT s.ssl, count(*) AS n FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.datname = $1 AND a.pid <> pg_backend_pid() GROUP BY s.ssl',
      [name],
    );
    expect(rows.map((r) => r.ssl)).toEqual([false]);
  });

  it("leaves FerretDB's own btree index empty (no write pays for it) while unique ones still enforce uniqueness", async () => {
    const btrees = async () =>
      sql<{ indexname: string; indexdef: string }>(
        db.postgresUrl!,
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 AND indexdef LIKE '%USING btree%' ORDER BY indexname`,
        [schemaName, table],
      );
    const declared = (await btrees()).filter((i) => !/UNIQUE/.test(i.indexdef));
    expect(declared).toHaveLength(1);
    expect(declared[0].indexdef).toMatch(/WHERE false$/);
    expect((await btrees()).filter((i) => /UNIQUE/.test(i.indexdef)).map((i) => i.indexdef)).toEqual([
      expect.stringContaining("((_jsonb -> '_id'::text))"),
    ]);

    const Keyed = new mongoose.Schema({ _id: String, tenantId: Number, key: String }, { versionKey: false, autoIndex: false });
    Keyed.index({ tenantId: 1, key: 1 }, { unique: true });
    const keyed = conn.model('Keyed', Keyed, 'keyed');
    await keyed.createIndexes();
    await keyed.create({ _id: 'a', tenantId: 1, key: 'k' });
    await expect(keyed.create({ _id: 'b', tenantId: 1, key: 'k' })).rejects.toMatchObject({ code: 11000 });
    // FerretDB drops the emptied index by its name, as it would its own.
    await conn.model('Message').collection.dropIndex('tenantId_1_ticketId_1_createdAt_1');
    expect((await btrees()).filter((i) => !/UNIQUE/.test(i.indexdef))).toEqual([]);
    await conn.model('Message').createIndexes();
  });

  it("serves FerretDB's form of an equality query, with the field name bound as a parameter", async () => {
    // What FerretDB 1.24 sends for find({ tenantId, ticketId }), as a prepared statement.
    const prepared = `PREPARE q AS SELECT _jsonb FROM "${schemaName}"."${table}" WHERE _jsonb->$1 @> $2 AND _jsonb->$3 @> $4`;
    const explain = `EXPLAIN EXECUTE q('tenantId', '3', 'ticketId', '13')`;
    const client = new Client({ connectionString: db.postgresUrl });
    await client.connect();
    try {
      await client.query(prepared);
      const plan = async () => (await client.query<{ 'QUERY PLAN': string }>(explain)).rows.map((r) => r['QUERY PLAN']).join('\n');
      // The database's setting (see prepareDatabase).
      expect(await plan()).toMatch(/Bitmap Index Scan on \S+_ticketid_\S+_gin/);
      // Why it is set: a generic plan cannot match `_jsonb->$1` to an index.
      await client.query('SET plan_cache_mode = force_generic_plan');
      expect(await plan()).toMatch(/Seq Scan/);
    } finally {
      await client.end();
    }
  });

  it('is used by the queries FerretDB runs', async () => {
    const messages = conn.model('Message');
    const scans = async () => {
      const rows = await sql<{ scans: string }>(
        db.postgresUrl!,
        `SELECT coalesce(sum(idx_scan), 0) AS scans FROM pg_stat_user_indexes WHERE relname = $1 AND indexrelname LIKE '%\\_gin'`,
        [table],
      );
      return Number(rows[0].scans);
    };
    const before = await scans();
    // A backend publishes its statistics at most once a second: query until they show.
    for (let i = 0; i < 10 && (await scans()) === before; i++) {
      const found = await messages.find({ tenantId: 3, ticketId: 13 }).sort({ createdAt: -1 }).limit(20).lean();
      expect(found).toHaveLength(10);
      await sleep(1100);
    }
    expect(await scans()).toBeGreaterThan(before);
  }, 30_000);

  it('is vacuumed while in use when autovacuum is off, so a lookup no longer meets the entries of rows updated since', async () => {
    const autovacuum = (await sql<{ autovacuum: string }>(db.postgresUrl!, 'SHOW autovacuum'))[0].autovacuum;
    const jobs = conn.model('Job', new mongoose.Schema({ _id: String, status: String }, { versionKey: false, autoIndex: false }), 'jobs');
    await jobs.collection.createIndex({ status: 1 });
    // A queue: every row is queued, then done; FerretDB writes a new row for each update.
    await jobs.insertMany(Array.from({ length: 1500 }, (_, i) => ({ _id: `j${i}`, status: 'queued' })));
    await jobs.updateMany({}, { $set: { status: 'done' } });
    await jobs.create({ _id: 'last', status: 'queued' });
    const [meta] = await sql<{ table: string }>(
      db.postgresUrl!,
      `SELECT _jsonb->>'table' AS table FROM "${schemaName}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = 'jobs'`,
    );
    // What the GIN index on status hands the lookup of the queued rows: every row ever queued, until a vacuum.
    const matched = async () => {
      const query = `EXPLAIN (ANALYZE, FORMAT JSON) SELECT _jsonb FROM "${schemaName}"."${meta.table}" WHERE _jsonb->'status' @> '"queued"'`;
      const client = new Client({ connectionString: db.postgresUrl! });
      await client.connect();
      try {
        await client.query('SET enable_seqscan = off');
        const [
          {
            'QUERY PLAN': [plan],
          },
        ] = (await client.query(query)).rows as Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>;
        const entries = (n: PlanNode): number =>
          n['Node Type'] === 'Bitmap Index Scan' ? n['Actual Rows'] : Math.max(0, ...(n.Plans ?? []).map(entries));
        return entries(plan.Plan);
      } finally {
        await client.end();
      }
    };
    if (autovacuum === 'off') expect(await matched()).toBeGreaterThan(1000);
    const vacuumed = async () =>
      (
        await sql<{ at: Date | null }>(
          db.postgresUrl!,
          'SELECT coalesce(last_vacuum, last_autovacuum) AS at FROM pg_stat_user_tables WHERE relname = $1',
          [meta.table],
        )
      )[0]?.at ?? null;
    const stop = startMaintenance({ url: serverUrl, source: 'test' }, new URL(db.postgresUrl!).pathname.slice(1), () => undefined, 200);
    try {
      for (let i = 0; i < 60 && !(await vacuumed()); i++) await sleep(250);
    } finally {
      stop();
    }
    expect(await vacuumed()).not.toBeNull();
    expect(await matched()).toBe(1);
  }, 30_000);

  it('is analyzed while in use when autovacuum is off, so the planner leaves out an index that matches everything', async () => {
    const autovacuum = (await sql<{ autovacuum: string }>(db.postgresUrl!, 'SHOW autovacuum'))[0].autovacuum;
    const notes = conn.model(
      'Note',
      new mongoose.Schema({ _id: String, tenantId: Number, ticketId: Number }, { versionKey: false, autoIndex: false }),
      'notes',
    );
    await notes.collection.createIndex({ tenantId: 1, ticketId: 1 });
    await notes.insertMany(Array.from({ length: 2000 }, (_, i) => ({ _id: `n${i}`, tenantId: 1, ticketId: i })));
    const [meta] = await sql<{ table: string }>(
      db.postgresUrl!,
      `SELECT _jsonb->>'table' AS table FROM "${schemaName}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = 'notes'`,
    );
    const stats = 'SELECT coalesce(last_analyze, last_autoanalyze) AS at FROM pg_stat_user_tables WHERE relname = $1';
    const analyzed = async () => (await sql<{ at: Date | null }>(db.postgresUrl!, stats, [meta.table]))[0]?.at ?? null;
    const stop = startMaintenance({ url: serverUrl, source: 'test' }, new URL(db.postgresUrl!).pathname.slice(1), () => undefined, 200);
    try {
      // Statistics reach pg_stat_user_tables within a second or so: wait for the analyzer's pass.
      for (let i = 0; i < 60 && !(await analyzed()); i++) await sleep(250);
    } finally {
      stop();
    }
    expect(await analyzed()).not.toBeNull();
    // Without statistics of the whole document (no query compares it): only its fields' are gathered.
    const [column] = await sql<{ target: number | null }>(
      db.postgresUrl!,
      `SELECT attstattarget AS target FROM pg_attribute WHERE attrelid = $1::regclass AND attname = '_jsonb'`,
      [`"${schemaName}"."${meta.table}"`],
    );
    if (autovacuum === 'off') expect(column.target).toBe(0);
    const query = `EXPLAIN SELECT _jsonb FROM "${schemaName}"."${meta.table}" WHERE _jsonb->'tenantId' @> '1' AND _jsonb->'ticketId' @> '7'`;
    const plan = (await sql<{ 'QUERY PLAN': string }>(db.postgresUrl!, query)).map((r) => r['QUERY PLAN']).join('\n');
    if (autovacuum === 'off') expect(plan).not.toMatch(/_tenantid_\S+_gin/);
  }, 30_000);
});
