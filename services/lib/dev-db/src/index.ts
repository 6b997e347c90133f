import { mkdir, rm, rmdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ensureFerretDb, type Log } from './build';
import { claimDataDir, liveOwner, OWNER_FILE, readRecord, RECORD_FILE, sqliteDir, writeRecord } from './datadir';
import { sqliteStorage, startFerretDb, type Storage } from './ferretdb';
import { recordingUnexpected } from './ferretdb-log';
import { startMemoryServer } from './memory';
import { cachedFerretDbBinary, findOnPath, isExecutable } from './paths';
import { dropDatabase, findPostgres, keptName, postgresStorage, prepareDatabase, startMaintenance, throwawayName } from './postgres';
import type { Backend, Database, StartOptions } from './types';

export { ensureFerretDb, FERRETDB_VERSION } from './build';
export { FERRETDB_POOL_SIZE } from './postgres';
export type { Backend, Database, DatabaseKind, StartOptions } from './types';

const BACKENDS: Backend[] = ['postgresql', 'sqlite'];

/**
 * A MongoDB-wire database for `npm start` and tests, from the first source that works:
 * MONGODB_URI; FerretDB (built with Go if needed) over PostgreSQL (DEV_DB_POSTGRES_URL, else the
 * local server at 127.0.0.1:5432), then over SQLite; then mongodb-memory-server.
 * DEV_DB_BACKEND=postgresql|sqlite (or opts.backend) forces one FerretDB storage, without fallback.
 */
export async function startDatabase(opts: StartOptions = {}): Promise<Database> {
  const log = recordingUnexpected(opts.log ?? (() => {}), opts.errorLog ?? process.env.DEV_DB_ERROR_LOG, opts.name ?? 'dev');
  const external = process.env.MONGODB_URI;
  if (external) return { uri: external, kind: 'external', stop: async () => {} };

  const forced = forcedBackend(opts);
  const dataDir = opts.dataDir ? resolve(opts.dataDir) : undefined;
  // Taken first: a dataDir in use is an error, not a reason to try another storage.
  const claim = dataDir ? await claimDataDir(dataDir) : undefined;
  try {
    const db = await startEmbedded(opts.name ?? 'dev', dataDir, forced, log, opts.postgresPoolSize);
    if (!claim) return db;
    return { ...db, stop: () => db.stop().finally(claim.release) };
  } catch (error) {
    await claim?.release();
    throw error;
  }
}

async function startEmbedded(
  name: string,
  dataDir: string | undefined,
  forced: Backend | undefined,
  log: Log,
  poolSize?: number,
): Promise<Database> {
  const tried = ['MONGODB_URI: not set'];
  let binary: string | null = null;
  try {
    binary = await findFerretDb(log);
    if (!binary) tried.push('FerretDB: no binary (FERRETDB_BIN, .cache/ferretdb/bin, PATH) and no `go` on PATH to build one');
  } catch (error) {
    tried.push(`FerretDB: ${messageOf(error)}`);
  }

  if (binary) {
    for (const backend of forced ? [forced] : BACKENDS) {
      try {
        const storage = backend === 'postgresql' ? await postgresqlStorage(name, dataDir, log, poolSize) : await sqliteKept(dataDir);
        return await startFerretDb(binary, name, log, storage);
      } catch (error) {
        if (forced) throw new Error(`FerretDB over ${backend} (DEV_DB_BACKEND) did not start: ${messageOf(error)}`);
        tried.push(`FerretDB/${backend}: ${messageOf(error)}`);
        log(`FerretDB over ${backend} unavailable: ${messageOf(error)}`);
      }
    }
  } else if (forced) {
    throw new Error(`DEV_DB_BACKEND=${forced} needs FerretDB: ${tried[tried.length - 1]}`);
  }

  log('Falling back to mongodb-memory-server');
  if (dataDir) log(`mongodb-memory-server keeps nothing: ${dataDir} is not used`);
  try {
    return await startMemoryServer();
  } catch (error) {
    tried.push(`mongodb-memory-server: ${messageOf(error)}`);
  }
  throw new Error(
    [
      'No MongoDB-compatible database could be started. Tried:',
      ...tried.map((line) => `  - ${line.replace(/\n/g, '\n    ')}`),
      'Fix: set MONGODB_URI to a running MongoDB, or install Go (https://go.dev/dl/) and run',
      '`npm run ferretdb -w @convo/dev-db` to build FerretDB.',
    ].join('\n'),
  );
}

/**
 * Deletes what startDatabase({ dataDir }) kept there: its PostgreSQL database and its SQLite files
 * (`npm run reset`). Refuses while a database runs on it.
 */
export async function resetDatabase(dataDir: string, opts: { log?: Log } = {}): Promise<void> {
  const log = opts.log ?? (() => {});
  const dir = resolve(dataDir);
  const owner = await liveOwner(dir);
  if (owner) throw new Error(`${dir} is in use by the database of process ${owner}; stop it before resetting`);
  const database = readRecord(dir)?.postgresql?.database;
  if (database) {
    const server = await findPostgres();
    if (typeof server === 'string') throw new Error(`Cannot drop the PostgreSQL database ${database}: ${server}`);
    await dropDatabase(server, database);
    log(`Dropped the PostgreSQL database ${database} (${server.source})`);
  }
  // Only what dev-db put there: a mistaken dataDir must not cost anything else.
  await rm(sqliteDir(dir), { recursive: true, force: true });
  await rm(join(dir, RECORD_FILE), { force: true });
  await rm(join(dir, OWNER_FILE), { force: true });
  await rmdir(dir).catch(() => {});
}

function forcedBackend(opts: StartOptions): Backend | undefined {
  const value = opts.backend ?? process.env.DEV_DB_BACKEND;
  if (!value) return undefined;
  if (value === 'postgresql' || value === 'sqlite') return value;
  throw new Error(`DEV_DB_BACKEND=${value}: expected postgresql or sqlite`);
}

async function postgresqlStorage(name: string, dataDir: string | undefined, log: Log, poolSize?: number): Promise<Storage> {
  const server = await findPostgres();
  if (typeof server === 'string') throw new Error(server);
  let database = throwawayName(name);
  if (dataDir) {
    const record = readRecord(dataDir);
    database = record?.postgresql?.database ?? keptName(name);
    // Recorded before the database exists, so no other process's cleanup takes it for abandoned.
    if (!record?.postgresql) await writeRecord(dataDir, { ...record, postgresql: { database } });
  }
  // Created while FerretDB starts (CREATE DATABASE is most of a start's time); a failure drops a
  // throwaway database through the storage's release, like any failed start.
  const ready = prepareDatabase(server, database, { dataDir, log });
  ready.catch(() => {}); // awaited by the start, which reports it
  const storage = postgresStorage(server, database, Boolean(dataDir), poolSize);
  const stopMaintenance = startMaintenance(server, database, log);
  return {
    ...storage,
    ready,
    release: () => {
      stopMaintenance();
      return storage.release();
    },
    releaseSync: () => {
      stopMaintenance();
      storage.releaseSync();
    },
  };
}

async function sqliteKept(dataDir: string | undefined): Promise<Storage> {
  if (!dataDir) return sqliteStorage();
  await mkdir(sqliteDir(dataDir), { recursive: true });
  return sqliteStorage(sqliteDir(dataDir));
}

/** An explicit FERRETDB_BIN wins; otherwise a cached build, one on PATH, or a fresh build. */
async function findFerretDb(log: Log): Promise<string | null> {
  const configured = process.env.FERRETDB_BIN;
  if (configured) {
    if (!isExecutable(configured)) throw new Error(`FERRETDB_BIN=${configured} is not an executable file`);
    return configured;
  }
  const cached = cachedFerretDbBinary();
  if (isExecutable(cached)) return cached;
  return findOnPath('ferretdb') ?? (await ensureFerretDb(log));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
