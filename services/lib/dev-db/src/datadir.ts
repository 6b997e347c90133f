import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive } from './exec';

/**
 * A dataDir (startDatabase({ dataDir })) holds what persists between starts:
 * - `dev-db.json`: the name of its PostgreSQL database, when FerretDB ran over PostgreSQL;
 * - `sqlite/`: FerretDB's SQLite files, when it ran over SQLite;
 * - `owner.pid`: the process whose database runs on it now, so two never share it.
 */
export const RECORD_FILE = 'dev-db.json';
export const OWNER_FILE = 'owner.pid';

export interface DataDirRecord {
  postgresql?: { database: string };
}

/** The record, or null when there is none; throws when it cannot be read. */
export function readRecord(dataDir: string): DataDirRecord | null {
  const file = join(dataDir, RECORD_FILE);
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8')) as DataDirRecord;
}

export async function writeRecord(dataDir: string, record: DataDirRecord): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  // Whole or absent: another process's cleanup may read it at any moment.
  const partial = join(dataDir, `${RECORD_FILE}.${process.pid}`);
  await writeFile(partial, `${JSON.stringify(record, null, 2)}\n`);
  await rename(partial, join(dataDir, RECORD_FILE));
}

export function sqliteDir(dataDir: string): string {
  return join(dataDir, 'sqlite');
}

function notExists(error: NodeJS.ErrnoException): false {
  if (error.code === 'EEXIST') return false;
  throw error;
}

/** The dataDirs this process holds (a pid file cannot tell them from the leftovers of a crash). */
const held = new Set<string>();

/** The live process whose database runs on the dataDir, if any. */
export async function liveOwner(dataDir: string): Promise<number | null> {
  if (held.has(dataDir)) return process.pid;
  const pid = Number(await readFile(join(dataDir, OWNER_FILE), 'utf8').catch(() => ''));
  return pid && pid !== process.pid && isProcessAlive(pid) ? pid : null;
}

/**
 * Marks the dataDir as this process's until release() or the process's exit. Fails while another
 * live process holds it: two FerretDB servers must never share one storage.
 */
export async function claimDataDir(dataDir: string): Promise<{ release: () => Promise<void> }> {
  const inUse = (pid: number) => new Error(`${dataDir} is in use by the database of process ${pid}; stop that one first`);
  // Checked and taken before any await, so that two starts in this process cannot both pass.
  if (held.has(dataDir)) throw inUse(process.pid);
  held.add(dataDir);
  let released = false;
  const file = join(dataDir, OWNER_FILE);
  const releaseSync = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', releaseSync);
    held.delete(dataDir);
    try {
      if (readFileSync(file, 'utf8') === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // Already gone.
    }
  };
  process.on('exit', releaseSync);
  try {
    await mkdir(dataDir, { recursive: true });
    // 'wx' fails if the file exists: of two processes starting at once, one wins.
    while (!(await writeFile(file, String(process.pid), { flag: 'wx' }).then(() => true, notExists))) {
      const pid = Number(await readFile(file, 'utf8').catch(() => ''));
      if (pid && pid !== process.pid && isProcessAlive(pid)) throw inUse(pid);
      // A crashed owner's file (or an empty one being written: the retry settles who wins).
      await rm(file, { force: true });
    }
  } catch (error) {
    releaseSync();
    throw error;
  }
  return { release: async () => releaseSync() };
}
