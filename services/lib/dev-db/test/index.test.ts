import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { resetDatabase, startDatabase, type Database } from '../src/index';
import { cachedFerretDbBinary, findOnPath, isExecutable, runRoot } from '../src/paths';
import { isPortOpen } from '../src/ports';

const savedEnv = {
  MONGODB_URI: process.env.MONGODB_URI,
  FERRETDB_BIN: process.env.FERRETDB_BIN,
  DEV_DB_BACKEND: process.env.DEV_DB_BACKEND,
};

function restoreEnv(): void {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

// A machine with neither Go nor a FerretDB binary (CI that only provides MONGODB_URI) cannot run these.
const ferretDbAvailable = Boolean(
  (process.env.FERRETDB_BIN && isExecutable(process.env.FERRETDB_BIN)) ||
  findOnPath('go') ||
  findOnPath('ferretdb') ||
  isExecutable(cachedFerretDbBinary()),
);
const describeFerretDb = ferretDbAvailable ? describe : describe.skip;

const portOf = (uri: string) => Number(new URL(uri).port);

function runFolders(name: string): string[] {
  const prefix = `${name}-${process.pid}-`;
  try {
    return readdirSync(runRoot()).filter((entry) => entry.startsWith(prefix));
  } catch {
    return [];
  }
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

describeFerretDb('startDatabase with FerretDB over SQLite (DEV_DB_BACKEND=sqlite)', () => {
  const started: Database[] = [];

  beforeEach(() => {
    delete process.env.MONGODB_URI;
    process.env.DEV_DB_BACKEND = 'sqlite';
  });
  afterEach(restoreEnv);
  afterAll(() => Promise.all(started.map((db) => db.stop())));

  it('stores and reads a document, then stops and cleans up', async () => {
    // The first start may build FerretDB from source.
    const db = await startDatabase({ name: 'devdb-test-single' });
    started.push(db);

    expect(db.kind).toBe('ferretdb-sqlite');
    expect(db.uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await roundTrip(db.uri, 'hello')).toEqual([{ value: 'hello' }]);
    expect(runFolders('devdb-test-single')).toHaveLength(1);

    await db.stop();
    expect(await isPortOpen(portOf(db.uri))).toBe(false);
    expect(runFolders('devdb-test-single')).toEqual([]);
  }, 120_000);

  it('runs two independent databases at once', async () => {
    // Each instance needs its own debug port too; the fixed default made the second one exit.
    const [a, b] = await Promise.all([startDatabase({ name: 'devdb-test-a' }), startDatabase({ name: 'devdb-test-b' })]);
    started.push(a, b);

    expect(a.kind).toBe('ferretdb-sqlite');
    expect(b.kind).toBe('ferretdb-sqlite');
    expect(portOf(a.uri)).not.toBe(portOf(b.uri));
    expect(await roundTrip(a.uri, 'in a')).toEqual([{ value: 'in a' }]);
    expect(await roundTrip(b.uri, 'in b')).toEqual([{ value: 'in b' }]);

    await Promise.all([a.stop(), b.stop()]);
    expect(await isPortOpen(portOf(a.uri))).toBe(false);
    expect(await isPortOpen(portOf(b.uri))).toBe(false);
    expect([...runFolders('devdb-test-a'), ...runFolders('devdb-test-b')]).toEqual([]);
  }, 60_000);

  it('tolerates stop() being called twice', async () => {
    const db = await startDatabase({ name: 'devdb-test-twice' });
    started.push(db);
    await Promise.all([db.stop(), db.stop()]);
    await db.stop();
    expect(await isPortOpen(portOf(db.uri))).toBe(false);
  }, 60_000);

  it('keeps its files in a dataDir across stop and start, until resetDatabase', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'devdb-test-'));
    const dataDir = join(parent, 'data');
    const first = await startDatabase({ name: 'devdb-test-kept', dataDir });
    started.push(first);
    expect(first.kind).toBe('ferretdb-sqlite');
    await roundTrip(first.uri, 'kept');
    await first.stop();
    expect(existsSync(join(dataDir, 'sqlite'))).toBe(true);

    const second = await startDatabase({ name: 'devdb-test-kept', dataDir });
    started.push(second);
    expect(await roundTrip(second.uri, 'again')).toEqual([{ value: 'kept' }, { value: 'again' }]);
    await expect(resetDatabase(dataDir)).rejects.toThrow(/in use/);
    await second.stop();

    await resetDatabase(dataDir);
    expect(existsSync(dataDir)).toBe(false);
    rmSync(parent, { recursive: true, force: true });
  }, 60_000);
});

describe('DEV_DB_BACKEND', () => {
  afterEach(restoreEnv);

  it('rejects an unknown backend instead of guessing', async () => {
    delete process.env.MONGODB_URI;
    process.env.DEV_DB_BACKEND = 'mysql';
    await expect(startDatabase()).rejects.toThrow(/DEV_DB_BACKEND=mysql: expected postgresql or sqlite/);
  });
});

describe('startDatabase with MONGODB_URI', () => {
  afterEach(restoreEnv);

  it('returns the configured URI as is and never stops it', async () => {
    process.env.MONGODB_URI = 'mongodb://db.example.invalid:27017/convo?replicaSet=rs0';
    const db = await startDatabase();
    expect(db).toMatchObject({ uri: 'mongodb://db.example.invalid:27017/convo?replicaSet=rs0', kind: 'external' });
    await expect(db.stop()).resolves.toBeUndefined();
  });
});
