// The query recorder behind the index-coverage test (test/index-coverage): with QUERY_LOG naming a
// file, every query a process sends to MongoDB is appended there as one JSON line giving its shape
// (collection, operation, filter field names with their operator kind, sort), and every index it
// declares (createIndexes) likewise. Test tooling, not production code: the dev mesh preloads
// query-log-preload.ts into its processes (`node --require`) only when QUERY_LOG is set, and that
// attaches `recordQueries` to each connection through the kit's `onDatabaseConnected` hook.
//
// Nothing here loads mongoose or the kit at start-up (types only; recordServerIndexes loads
// mongoose when called): the preload runs before the process's entry file starts tracing.
//
// It listens to the driver's command monitoring (`commandStarted`) rather than mongoose's debug
// hook, so raw `conn.collection(...)` calls and `collection.createIndex` are seen too.
import { closeSync, openSync, writeSync } from 'node:fs';
import { relative, sep } from 'node:path';
import type { Connection } from 'mongoose';

// The test tooling's own setting (QUERY_LOG), read here rather than through a config module: this
// module must load nothing else before the process's entry file does.
// eslint-disable-next-line no-restricted-properties
const processEnv: NodeJS.ProcessEnv = process.env;

/**
 * How a filter constrains a field, as far as an index is concerned: `eq` (a value, `$eq`), `in`
 * (`$in`), `range` (`$gt`/`$gte`/`$lt`/`$lte`, or a case-sensitive `^prefix` regex), and the
 * predicates an index can only filter on, not seek: `regex`, `ne` (`$ne`/`$nin`/`$not`),
 * `exists`, `other` (`$elemMatch`, `$size`, `$type`, `$expr`, `$where`, `$nor`...).
 */
export type FieldKind = 'eq' | 'in' | 'range' | 'regex' | 'ne' | 'exists' | 'other';

export interface FieldShape {
  path: string;
  kind: FieldKind;
}

export interface FilterShape {
  /** The fields ANDed at the top level (`$and` flattened). */
  fields: FieldShape[];
  /** A top-level `$or`: one shape per branch, each ANDed with `fields`. */
  or?: FilterShape[];
}

export type QueryOp = 'find' | 'count' | 'distinct' | 'aggregate' | 'update' | 'delete' | 'findAndModify';

export interface QueryShape {
  db: string;
  collection: string;
  op: QueryOp;
  filter: FilterShape;
  /** Sort fields in order, 1 or -1 (`$meta` sorts are left out). */
  sort: Array<[string, 1 | -1]>;
  limit?: number;
  /** update/delete: all matching documents rather than one. */
  multi?: boolean;
  upsert?: boolean;
  /** aggregate: the stage names, in order. */
  stages?: string[];
}

export interface IndexShape {
  db: string;
  collection: string;
  name: string;
  key: Array<[string, number | string]>;
  unique?: boolean;
  sparse?: boolean;
  /** The top-level fields of a partialFilterExpression: the index serves only queries that name them. */
  partial?: string[];
}

/** One line of the log. `source` is the process (e.g. `messaging/dispatcher`); `site` the calling frames. */
export type QueryLogLine =
  | ({ t: 'query'; source: string; site?: string[] } & QueryShape)
  | ({ t: 'index'; source: string; via: 'createIndexes' | 'listIndexes' } & IndexShape);

type Doc = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Doc => {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Date || v instanceof RegExp) return false;
  if ('_bsontype' in v) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

const entriesOf = (v: unknown): Array<[string, unknown]> =>
  v instanceof Map ? [...(v as Map<string, unknown>).entries()] : isPlainObject(v) ? Object.entries(v) : [];

const RANGE_OPS = ['$gt', '$gte', '$lt', '$lte'];

function regexKind(source: string, flags: string): FieldKind {
  // A case-sensitive anchored prefix (`^abc`, not `^.*`) is an index range scan on MongoDB.
  return /^\^[^.*+?()[\]{}|\\^$]/.test(source) && !flags.includes('i') ? 'range' : 'regex';
}

function kindOf(value: unknown): FieldKind {
  if (value instanceof RegExp) return regexKind(value.source, value.flags);
  if (typeof value === 'object' && value !== null && (value as { _bsontype?: string })._bsontype === 'BSONRegExp') {
    const re = value as unknown as { pattern: string; options: string };
    return regexKind(re.pattern, re.options);
  }
  if (!isPlainObject(value)) return 'eq';
  const ops = Object.keys(value);
  if (ops.length === 0 || !ops.every((op) => op.startsWith('$'))) return 'eq'; // a sub-document compared whole
  if (ops.includes('$eq')) return 'eq';
  if (ops.includes('$in')) return 'in';
  if (ops.some((op) => RANGE_OPS.includes(op))) return 'range';
  if (ops.includes('$regex')) {
    const re = value.$regex;
    const options = typeof value.$options === 'string' ? value.$options : '';
    if (re instanceof RegExp) return regexKind(re.source, re.flags + options);
    return typeof re === 'string' ? regexKind(re, options) : 'regex';
  }
  if (ops.some((op) => op === '$ne' || op === '$nin' || op === '$not')) return 'ne';
  if (ops.includes('$exists')) return 'exists';
  return 'other';
}

/** The index-relevant shape of a query filter: field names and operator kinds, no values. */
export function filterShape(filter: unknown): FilterShape {
  const fields: FieldShape[] = [];
  let or: FilterShape[] | undefined;
  const add = (shape: FilterShape) => {
    fields.push(...shape.fields);
    if (shape.or) {
      if (or)
        fields.push({ path: '$or', kind: 'other' }); // a second $or only filters
      else or = shape.or;
    }
  };
  for (const [key, value] of entriesOf(filter)) {
    if (key === '$and' && Array.isArray(value)) for (const part of value) add(filterShape(part));
    else if (key === '$or' && Array.isArray(value)) add({ fields: [], or: value.map(filterShape) });
    else if (key === '$comment') continue;
    else if (key.startsWith('$')) fields.push({ path: key, kind: 'other' });
    else fields.push({ path: key, kind: kindOf(value) });
  }
  return or ? { fields, or } : { fields };
}

function sortShape(sort: unknown): Array<[string, 1 | -1]> {
  const out: Array<[string, 1 | -1]> = [];
  for (const [field, dir] of entriesOf(sort)) {
    if (dir === 1 || dir === -1) out.push([field, dir]);
    else if (dir === 'asc' || dir === 'ascending') out.push([field, 1]);
    else if (dir === 'desc' || dir === 'descending') out.push([field, -1]);
  }
  return out;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined);

/**
 * The query shapes of one driver command (find, count, distinct, aggregate, update, delete,
 * findAndModify); none for inserts, cursors and administrative commands.
 */
export function shapesOfCommand(db: string, command: Doc): QueryShape[] {
  const name = Object.keys(command)[0];
  const collection = command[name];
  if (typeof collection !== 'string') return [];
  const base = { db, collection };
  switch (name) {
    case 'find': {
      const limit = num(command.limit);
      return [
        { ...base, op: 'find', filter: filterShape(command.filter ?? {}), sort: sortShape(command.sort), ...(limit ? { limit } : {}) },
      ];
    }
    case 'count': {
      const limit = num(command.limit);
      return [{ ...base, op: 'count', filter: filterShape(command.query ?? {}), sort: [], ...(limit ? { limit } : {}) }];
    }
    case 'distinct':
      return [{ ...base, op: 'distinct', filter: filterShape(command.query ?? {}), sort: [] }];
    case 'aggregate': {
      const pipeline = Array.isArray(command.pipeline) ? (command.pipeline as Doc[]) : [];
      const stages = pipeline.map((stage) => Object.keys(stage)[0] ?? '?');
      let i = 0;
      let filter: FilterShape = { fields: [] };
      let sort: Array<[string, 1 | -1]> = [];
      let limit: number | undefined;
      if (stages[i] === '$match') filter = filterShape(pipeline[i++].$match);
      if (stages[i] === '$sort') sort = sortShape(pipeline[i++].$sort);
      if (stages[i] === '$limit') limit = num(pipeline[i++].$limit);
      return [{ ...base, op: 'aggregate', filter, sort, stages, ...(limit ? { limit } : {}) }];
    }
    case 'update':
      return (Array.isArray(command.updates) ? (command.updates as Doc[]) : []).map((u) => ({
        ...base,
        op: 'update',
        filter: filterShape(u.q ?? {}),
        sort: sortShape(u.sort),
        multi: u.multi === true,
        upsert: u.upsert === true,
      }));
    case 'delete':
      return (Array.isArray(command.deletes) ? (command.deletes as Doc[]) : []).map((d) => ({
        ...base,
        op: 'delete',
        filter: filterShape(d.q ?? {}),
        sort: [],
        multi: num(d.limit) !== 1,
      }));
    case 'findAndModify':
    case 'findandmodify':
      return [
        {
          ...base,
          op: 'findAndModify',
          filter: filterShape(command.query ?? {}),
          sort: sortShape(command.sort),
          upsert: command.upsert === true,
        },
      ];
    default:
      return [];
  }
}

function indexShape(db: string, collection: string, spec: Doc): IndexShape {
  const partial = entriesOf(spec.partialFilterExpression).map(([field]) => field);
  return {
    db,
    collection,
    name: String(spec.name ?? ''),
    key: entriesOf(spec.key).map(([field, dir]) => [field, typeof dir === 'number' || typeof dir === 'string' ? dir : Number(dir)]),
    ...(spec.unique === true ? { unique: true } : {}),
    ...(spec.sparse === true ? { sparse: true } : {}),
    ...(partial.length ? { partial } : {}),
  };
}

/** The process, for the report: `messaging/dispatcher` for services/messaging/dist/dispatcher/main.js. */
function processName(): string {
  const main = process.argv[1] ?? '';
  const m = /services[\\/]([^\\/]+)[\\/]dist[\\/](.*)\.js$/.exec(main) ?? /([^\\/]+)[\\/]dist[\\/](.*)\.js$/.exec(main);
  if (!m) return main || 'node';
  const rest = m[2].split(/[\\/]/);
  if (rest[rest.length - 1] === 'main') rest.pop();
  return [m[1], ...rest].join('/');
}

/** services/… or gateway/… when the file is in the monorepo; else relative to the working folder. */
function projectPath(root: string, path: string): string {
  const inRepo = /[\\/]((?:services|gateway|test)[\\/].*)$/.exec(path);
  return (inRepo ? inRepo[1] : relative(root, path)).split(sep).join('/');
}

/** The project's frames of the current stack (not the driver's, mongoose's or this file's). */
function callSite(): string[] {
  const root = process.cwd();
  // The driver awaits all the way down, so the async frames reach the repository that asked.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames = stack.split('\n').slice(1);
  return frames
    .map((f) => f.trim().replace(/^at (async )?/, ''))
    .filter((f) => !f.includes('node_modules') && !f.includes('node:') && !/query-log\.(ts|js)/.test(f) && /[\\/](src|dist)[\\/]/.test(f))
    .slice(0, 4)
    .map((f) => f.replace(/\(?(\/[^():]+)(:\d+:\d+)\)?$/, (_, path: string, pos: string) => projectPath(root, path) + pos));
}

class QueryLog {
  private fd: number | undefined;
  private readonly seen = new Set<string>();
  readonly source = processName();

  constructor(private readonly file: string) {}

  /** Appends one line (once per distinct shape and process). O_APPEND: safe across processes. */
  write(line: QueryLogLine, key: string): void {
    if (this.seen.has(key)) return;
    this.seen.add(key);
    try {
      this.fd ??= openSync(this.file, 'a');
      writeSync(this.fd, JSON.stringify(line) + '\n');
    } catch {
      // The log is a test aid: a failure to write must never fail a query.
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

const logs = new Map<string, QueryLog>();

/**
 * Records every query of this connection to the file QUERY_LOG names (the connection must have
 * been created with `monitorCommands: true`, as the kit's connectDatabase does); does nothing
 * without QUERY_LOG.
 */
export function recordQueries(conn: Connection, env: NodeJS.ProcessEnv = processEnv): void {
  const file = env.QUERY_LOG;
  if (!file) return;
  let log = logs.get(file);
  if (!log) logs.set(file, (log = new QueryLog(file)));
  const sink = log;
  conn.getClient().on('commandStarted', (event: { databaseName: string; commandName: string; command: Doc }) => {
    try {
      if (event.commandName === 'createIndexes') {
        const collection = String(event.command.createIndexes);
        for (const spec of (event.command.indexes as Doc[] | undefined) ?? []) {
          const index = indexShape(event.databaseName, collection, spec);
          sink.write({ t: 'index', source: sink.source, via: 'createIndexes', ...index }, `i ${JSON.stringify(index)}`);
        }
        return;
      }
      for (const shape of shapesOfCommand(event.databaseName, event.command)) {
        // One line per shape and calling code: the report names every place that sends a shape.
        const site = callSite();
        sink.write({ t: 'query', source: sink.source, site, ...shape }, `q ${JSON.stringify(shape)} ${site.slice(0, 2).join(' ')}`);
      }
    } catch {
      // never in the way of a query
    }
  });
}

/**
 * Appends the indexes that exist on the server (listIndexes of every collection of every
 * database but admin/local/config) to the file QUERY_LOG names. The e2e mesh calls it before it
 * stops its database, so the check sees what the services actually declared.
 */
export async function recordServerIndexes(uri: string, env: NodeJS.ProcessEnv = processEnv): Promise<void> {
  const file = env.QUERY_LOG;
  if (!file) return;
  const { default: mongoose } = await import('mongoose');
  const conn = await mongoose.createConnection(uri, { serverSelectionTimeoutMS: 5_000 }).asPromise();
  const log = new QueryLog(file);
  try {
    const client = conn.getClient();
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) {
      if (['admin', 'local', 'config'].includes(name)) continue;
      const db = client.db(name);
      for (const { name: collection } of await db.listCollections({}, { nameOnly: true }).toArray()) {
        for (const spec of await db.collection(collection).listIndexes().toArray()) {
          const index = indexShape(name, collection, spec as Doc);
          log.write({ t: 'index', source: 'mesh', via: 'listIndexes', ...index }, JSON.stringify(index));
        }
      }
    }
  } finally {
    log.close();
    await conn.close();
  }
}
