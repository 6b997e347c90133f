import { ensureFerretDb, type Log } from './build';
import { startFerretDb } from './ferretdb';
import { startMemoryServer } from './memory';
import { cachedFerretDbBinary, findOnPath, isExecutable } from './paths';
import type { Database, StartOptions } from './types';

export { ensureFerretDb, FERRETDB_VERSION } from './build';
export type { Database, DatabaseKind, StartOptions } from './types';

/**
 * A MongoDB-wire database for `npm start` and tests, from the first source that works:
 * MONGODB_URI, then FerretDB (built with Go if needed), then mongodb-memory-server.
 */
export async function startDatabase(opts: StartOptions = {}): Promise<Database> {
  const log = opts.log ?? (() => {});
  const external = process.env.MONGODB_URI;
  if (external) return { uri: external, kind: 'external', stop: async () => {} };

  const tried = ['MONGODB_URI: not set'];
  try {
    const binary = await findFerretDb(log);
    if (binary) return await startFerretDb(binary, opts.name ?? 'dev', log);
    tried.push('FerretDB: no binary (FERRETDB_BIN, .cache/ferretdb/bin, PATH) and no `go` on PATH to build one');
  } catch (error) {
    tried.push(`FerretDB: ${messageOf(error)}`);
    log(`FerretDB unavailable, falling back to mongodb-memory-server: ${messageOf(error)}`);
  }

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
