// Sharding readiness: does a recorded query carry its collection's intended shard key (the first
// field of it, by equality), or would a sharded cluster send it to every shard (scatter-gather)?
// Pure functions over the query log's shapes and the declaration in deploy/mongodb/shard-keys.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatFilter, type QueryLogLine, type QueryShape } from './index-coverage';

export interface CollectionShardKey {
  /** The intended shard key, or null: the collection stays unsharded. */
  key: Record<string, 1 | -1 | 'hashed'> | null;
  why: string;
  /** Query shapes ('<op> <filter>') accepted as scatter-gather, each with its reason. */
  scatter?: Record<string, string>;
}

/** database → collection → its declaration. */
export type ShardKeys = Record<string, Record<string, CollectionShardKey>>;

export const SHARD_KEYS_FILE = join(__dirname, '..', '..', 'deploy', 'mongodb', 'shard-keys.json');

export function readShardKeys(file = SHARD_KEYS_FILE): ShardKeys {
  const { $comment: _comment, ...keys } = JSON.parse(readFileSync(file, 'utf8')) as ShardKeys & { $comment?: string };
  return keys;
}

/** How the report and the scatter list name a query shape: `find {tenantId: eq, status: in}`. */
export const shapeName = (q: Pick<QueryShape, 'op' | 'filter'>): string => `${q.op} ${formatFilter(q.filter)}`;

type Filter = QueryShape['filter'];

/** Whether every document the filter can match has `field` pinned (equality or $in), on every $or branch. */
function pins(filter: Filter, field: string): boolean {
  if (filter.fields.some((f) => f.path === field && (f.kind === 'eq' || f.kind === 'in'))) return true;
  return !!filter.or?.length && filter.or.every((branch) => pins(branch, field));
}

export interface ShardFinding {
  collection: string;
  shape: string;
  reason: string;
  sources: string[];
}

/**
 * Every distinct query of the log against the declaration: a collection without a declaration, or a
 * query on a sharded collection that does not pin its shard key's first field and is not listed in
 * the collection's scatter list, is a finding.
 */
export function checkShardKeys(lines: QueryLogLine[], keys: ShardKeys): { shapes: number; findings: ShardFinding[] } {
  const seen = new Map<string, ShardFinding | null>();
  for (const line of lines) {
    if (line.t !== 'query') continue;
    const collection = `${line.db}.${line.collection}`;
    const shape = shapeName(line);
    const id = `${collection} ${shape}`;
    const known = seen.get(id);
    if (known !== undefined) {
      if (known && !known.sources.includes(line.source)) known.sources.push(line.source);
      continue;
    }
    const declared = keys[line.db]?.[line.collection];
    let reason: string | undefined;
    if (!declared) reason = `no shard key declared for ${collection} in deploy/mongodb/shard-keys.json (null for an unsharded one)`;
    else if (declared.key) {
      const first = Object.keys(declared.key)[0];
      if (!pins(line.filter, first) && !declared.scatter?.[shape]) {
        reason = `does not pin ${first}, the first field of the shard key ${JSON.stringify(declared.key)}: every shard would be asked (list it under "scatter" with a reason, or add ${first} to the query)`;
      }
    }
    seen.set(id, reason ? { collection, shape, reason, sources: [line.source] } : null);
  }
  const findings = [...seen.values()].filter((f): f is ShardFinding => !!f);
  return { shapes: seen.size, findings };
}

/** Declared scatter entries that the log never saw: stale reasons to review (printed, not failed). */
export function unusedScatter(lines: QueryLogLine[], keys: ShardKeys): string[] {
  const shapes = new Set(lines.filter((l) => l.t === 'query').map((l) => `${l.db}.${l.collection} ${shapeName(l as QueryShape)}`));
  return Object.entries(keys).flatMap(([db, collections]) =>
    Object.entries(collections).flatMap(([c, d]) =>
      Object.keys(d.scatter ?? {})
        .map((s) => `${db}.${c} ${s}`)
        .filter((s) => !shapes.has(s)),
    ),
  );
}

/** Collections the declaration shards, as `db.collection` → key (for the docs and the summary). */
export const shardedCollections = (keys: ShardKeys): string[] =>
  Object.entries(keys).flatMap(([db, collections]) =>
    Object.entries(collections)
      .filter(([, d]) => d.key)
      .map(([c, d]) => `${db}.${c} ${JSON.stringify(d.key)}`),
  );
