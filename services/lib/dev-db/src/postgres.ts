import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Client } from 'pg';
import { isProcessAlive } from './exec';
import { GIN_TRIGGER_SQL } from './gin';
import { findOnPath } from './paths';
import { isPortOpen } from './ports';
import { readRecord } from './datadir';
import type { Storage } from './ferretdb';

type Log = (line: string) => void;

/** The machine's own server: every machine of this project's kind (developers' and CI's) runs one. */
export const LOCAL_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const CONNECT_TIMEOUT_MS = 3000;
const MAINTENANCE_INTERVAL_MS = 5_000;

/**
 * Names carry the host, so a server shared by several machines (DEV_DB_POSTGRES_URL) is only ever
 * cleaned of this machine's leftovers, and the owner's pid, so those are recognisable:
 * `devdb_<host>_<pid>_<random>_<name>` for a throwaway run, `devdb_keep_<host>_<random>_<name>`
 * for a dataDir, whose COMMENT holds the dataDir's path.
 */
const HOST_TAG = createHash('sha1').update(hostname()).digest('hex').slice(0, 6);
const THROWAWAY = new RegExp(`^devdb_${HOST_TAG}_(\\d+)_[0-9a-f]{6}(_|$)`);
const KEPT = new RegExp(`^devdb_keep_${HOST_TAG}_`);

export interface PostgresServer {
  /** A URL of the server's maintenance database (its path is replaced for each database). */
  url: string;
  /** Says where it came from, for messages. */
  source: string;
}

/** DEV_DB_POSTGRES_URL when set, else the local server when it answers; else why not. */
export async function findPostgres(): Promise<PostgresServer | string> {
  const configured = process.env.DEV_DB_POSTGRES_URL;
  if (configured) {
    const problem = await answers(configured);
    return problem ? `DEV_DB_POSTGRES_URL does not answer: ${problem}` : { url: configured, source: 'DEV_DB_POSTGRES_URL' };
  }
  // A closed port answers at once; only then is a connection (and its timeout) worth trying.
  if (!(await isPortOpen(5432, 500))) return 'nothing listens on 127.0.0.1:5432 and DEV_DB_POSTGRES_URL is not set';
  const problem = await answers(LOCAL_POSTGRES_URL);
  return problem ? `${LOCAL_POSTGRES_URL} does not answer: ${problem}` : { url: LOCAL_POSTGRES_URL, source: '127.0.0.1:5432' };
}

async function answers(url: string): Promise<string | null> {
  try {
    await withClient(url, (client) => client.query('SELECT 1'));
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An error after connect (the server restarting) must not crash the process: queries report it.
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The URL of one database of the server. */
export function databaseUrl(server: PostgresServer, database: string): string {
  const url = new URL(server.url);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/** `pid` is the owner's: the database is dropped once that process is gone. */
export function throwawayName(name: string, pid = process.pid): string {
  return `devdb_${HOST_TAG}_${pid}_${randomBytes(3).toString('hex')}_${label(name)}`;
}

export function keptName(name: string): string {
  return `devdb_keep_${HOST_TAG}_${randomBytes(3).toString('hex')}_${label(name)}`;
}

/** PostgreSQL folds and truncates identifiers (63 bytes); keep names plain and short enough. */
function label(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 24) || 'db'
  );
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

export interface PrepareOptions {
  /** The dataDir a kept database belongs to, written as its COMMENT. */
  dataDir?: string;
  log: Log;
}

/**
 * Creates the database unless it exists (a kept one), and (re)installs what every dev-db database
 * has: the GIN trigger, custom plans, asynchronous commits. Removes abandoned databases first.
 */
export async function prepareDatabase(server: PostgresServer, database: string, opts: PrepareOptions): Promise<void> {
  await withClient(server.url, async (admin) => {
    await removeAbandonedDatabases(admin, opts.log);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) {
      // template0 and the C locale: FerretDB accepts only a few locales, whatever the server's default.
      await admin.query(`CREATE DATABASE ${ident(database)} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
    }
    if (opts.dataDir) await admin.query(`COMMENT ON DATABASE ${ident(database)} IS ${literal(opts.dataDir)}`);
    // FerretDB sends a field name as a bind parameter (`_jsonb->$1 @> $2`) through prepared
    // statements; a generic plan cannot match `_jsonb->$1` to an index on `_jsonb->'field'` and scans
    // the table. Custom plans see the constant and use the GIN index.
    await admin.query(`ALTER DATABASE ${ident(database)} SET plan_cache_mode = force_custom_plan`);
    // Development data: a crash may lose the last moments of writes, never consistency.
    await admin.query(`ALTER DATABASE ${ident(database)} SET synchronous_commit = off`);
  });
  await installGinTrigger(server, database, opts.log);
}

async function installGinTrigger(server: PostgresServer, database: string, log: Log): Promise<void> {
  try {
    await withClient(databaseUrl(server, database), (client) => client.query(GIN_TRIGGER_SQL));
  } catch (error) {
    // Event triggers need a superuser, which a DEV_DB_POSTGRES_URL may not be.
    log(`dev-db: no GIN indexes for FerretDB's queries (they will scan whole tables): ${(error as Error).message}`);
  }
}

/**
 * Autovacuum may be off (this project's CI machines turn it off); then three things nobody else does
 * make every equality lookup slower as data grows:
 * - A GIN index gathers new entries in a pending list that each query reads in full until a VACUUM
 *   merges it (or an insert finds it over 4 MB).
 * - No table is ever analyzed: without statistics the planner ANDs the GIN indexes of all of a
 *   query's equalities, the tenant's too, which on a big tenant matches every document. Measured on
 *   100k messages, a lookup by tenant and ticket: 32 ms; 3.3 ms once analyzed; 0.24 ms with the
 *   pending list merged as well.
 * - Nothing is ever vacuumed: FerretDB writes a whole new row for every update, and the old row's
 *   entries stay in every index. A message is queued, then updated to sent, so the dispatcher's
 *   lookup of `status: "queued"` matched every message ever queued, dead rows included, and read
 *   their pages to drop them (4,400 entries and 766 pages for 11 queued messages after 40 s of
 *   `npm run bench`): a read that grew with every message sent.
 * This does autovacuum's part for one database while it is in use, with autovacuum's thresholds
 * and its throttle (vacuum_cost_delay 2 ms, so that the work is spread out rather than taken from
 * the requests of the moment): every interval, it merges the GIN indexes' pending lists, VACUUMs
 * the tables with more than 50 + 20 % dead rows or 1000 + 20 % rows inserted since their last
 * vacuum, and ANALYZEs the tables changed by more than 50 + 10 %. It stops by itself when
 * autovacuum is on.
 */
export function startMaintenance(server: PostgresServer, database: string, log: Log, intervalMs = MAINTENANCE_INTERVAL_MS): () => void {
  let stopped = false;
  let running = false;
  let reported = false;
  const tick = async () => {
    if (running || stopped) return;
    running = true;
    try {
      await withClient(databaseUrl(server, database), async (client) => {
        const { rows: settings } = await client.query<{ autovacuum: string }>('SHOW autovacuum');
        if (settings[0]?.autovacuum === 'on') return stop();
        await client.query('SET vacuum_cost_delay = 2');
        // Cheap when a list is empty (one page read): no need to know which indexes grew.
        await client.query(
          `SELECT gin_clean_pending_list(c.oid::regclass) FROM pg_class c JOIN pg_am am ON am.oid = c.relam
            WHERE c.relkind = 'i' AND am.amname = 'gin' AND c.relname LIKE '%\\_gin'`,
        );
        const { rows } = await client.query<{
          schemaname: string;
          relname: string;
          vacuum: boolean;
          analyze: boolean;
          documentStats: boolean;
        }>(
          `SELECT s.schemaname, s.relname,
                  s.n_dead_tup > 50 + 0.2 * s.n_live_tup OR s.n_ins_since_vacuum > 1000 + 0.2 * s.n_live_tup AS vacuum,
                  s.n_mod_since_analyze > 50 + 0.1 * s.n_live_tup AS analyze,
                  a.attstattarget IS DISTINCT FROM 0 AS "documentStats"
             FROM pg_stat_user_tables s JOIN pg_attribute a ON a.attrelid = s.relid AND a.attname = '_jsonb'`,
        );
        for (const t of rows) {
          if (stopped) break;
          const table = `${ident(t.schemaname)}.${ident(t.relname)}`;
          // No statistics of the whole document, which no query compares: sorting a sample of whole
          // documents was most of an ANALYZE (a third of a second for 5,000 messages). The fields'
          // statistics, which the planner does use, come with the indexes on them.
          if (t.documentStats && (t.vacuum || t.analyze)) await client.query(`ALTER TABLE ${table} ALTER COLUMN _jsonb SET STATISTICS 0`);
          if (t.vacuum) await client.query(`VACUUM ${t.analyze ? '(ANALYZE) ' : ''}${table}`);
          else if (t.analyze) await client.query(`ANALYZE ${table}`);
        }
      });
    } catch (error) {
      // The database may not exist yet, or be going away; say it once, and keep trying.
      if (!stopped && !reported) log(`dev-db: maintenance of ${database} failed (will retry): ${(error as Error).message}`);
      reported = true;
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  return stop;
}

export async function dropDatabase(server: PostgresServer, database: string): Promise<void> {
  // FORCE: a FerretDB killed a moment ago may still hold connections.
  await withClient(server.url, (admin) => admin.query(`DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`));
}

/** For the process-exit hook, which cannot wait for promises: psql, when there is one. */
export function dropDatabasesSync(server: PostgresServer, databases: string[]): void {
  const psql = findOnPath('psql');
  if (!psql || databases.length === 0) return;
  const args = databases.flatMap((db) => ['-c', `DROP DATABASE IF EXISTS ${ident(db)} WITH (FORCE)`]);
  spawnSync(psql, ['-X', '-q', '-d', server.url, ...args], { stdio: 'ignore', timeout: 10_000 });
}

/**
 * Throwaway databases whose owning process is gone (a crash, a SIGKILL, a jest worker killed), and
 * kept databases whose dataDir no longer names them (deleted by hand).
 */
async function removeAbandonedDatabases(admin: Client, log: Log): Promise<void> {
  const { rows } = await admin.query<{ datname: string; comment: string | null }>(
    `SELECT datname, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname LIKE 'devdb\\_%'`,
  );
  for (const { datname, comment } of rows) {
    if (!isAbandoned(datname, comment)) continue;
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${ident(datname)} WITH (FORCE)`);
      log(`dev-db: dropped the abandoned database ${datname}`);
    } catch {
      // Another process is dropping it at the same moment.
    }
  }
}

function isAbandoned(database: string, comment: string | null): boolean {
  const pid = Number(THROWAWAY.exec(database)?.[1]);
  if (pid) return pid !== process.pid && !isProcessAlive(pid);
  if (!KEPT.test(database) || !comment) return false;
  try {
    return readRecord(comment)?.postgresql?.database !== database;
  } catch {
    // Unreadable for the moment (being written): not a reason to drop anything.
    return false;
  }
}

const isLoopback = (host: string) => host === 'localhost' || host === '[::1]' || host === '::1' || /^127\./.test(host);

/**
 * FerretDB's PostgreSQL connections. Its default (50) would let a few parallel test runs exhaust a
 * default server's 100. An update holds one connection (its read's rows) while it takes a second
 * (the write): as many updates at once as there are connections each hold one and wait for
 * another, for ever. So its clients together keep fewer connections to it than it has (one
 * process of the kit's keeps 20; the dev mesh gives each process 2 and FerretDB 4 more than all).
 */
export const FERRETDB_POOL_SIZE = 24;

/**
 * FerretDB over one database of the server. A throwaway database is dropped once FerretDB has
 * stopped (or at the parent's exit, or by the next start after a crash); a kept one stays.
 */
export function postgresStorage(server: PostgresServer, database: string, kept: boolean, poolSize = FERRETDB_POOL_SIZE): Storage {
  const url = new URL(databaseUrl(server, database));
  if (!url.searchParams.has('pool_max_conns')) url.searchParams.set('pool_max_conns', String(poolSize));
  // A server on this machine: no TLS (pgx's default, sslmode=prefer, encrypted every row on loopback,
  // a measurable share of the database's CPU per send). A URL that says otherwise is kept.
  if (!url.searchParams.has('sslmode') && isLoopback(url.hostname)) url.searchParams.set('sslmode', 'disable');
  return {
    kind: 'ferretdb-postgresql',
    postgresUrl: databaseUrl(server, database),
    args: () => ['--handler=postgresql', `--postgresql-url=${url.toString()}`],
    release: kept ? async () => {} : () => dropDatabase(server, database),
    releaseSync: kept ? () => {} : () => dropDatabasesSync(server, [database]),
  };
}
