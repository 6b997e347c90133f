// The index-coverage rule: is a recorded query shape served by the primary key or by a declared
// index, by MongoDB's equality-sort-range (ESR) rule? Pure functions over the shapes that the
// kit's query recorder writes (QUERY_LOG) — no database involved, so the verdict is the one real
// MongoDB would reach for these indexes, whatever the test database (FerretDB) does.
import type { FieldKind, IndexShape, QueryLogLine, QueryShape } from '@convo/test-support/query-log';

export type { FieldKind, IndexShape, QueryLogLine, QueryShape };

export type Verdict =
  | { served: true; by: string }
  | { served: false; reason: string; /** how much of the index matched: the report names the nearest */ near?: number };

/**
 * Collections that stay small whatever the traffic: any query may scan them, an empty filter
 * included. Keyed `database.collection`; the value says why, for the report and for review.
 */
export const SMALL_COLLECTIONS: Record<string, string> = {
  'convo_messaging.dispatch_leases': 'one document per dispatch partition: a fixed, configured count',
  'convo_messaging.dispatch_workers': 'one document per live dispatcher process, pruned when it stops beating',
  'convo_tenants.plans': 'the catalogue of subscription plans, written by the super-admin: a handful of documents',
};

/**
 * Query shapes that no index can serve and that are accepted as scans, each with its reason.
 * Keyed `database.collection filter` as formatFilter prints it (any sort, limit and operation).
 * Keep this list short: a new entry needs a reason a reviewer would accept.
 */
export const ACCEPTED_SCANS: Record<string, string> = {
  'convo_tenants.tenants {name: regex}':
    'super-admin tenant search by a case-insensitive substring of the name (ListTenants): no B-tree index serves a substring match; it scans the tenant registry, one document per customer organisation, which grows with sales, not with traffic',
  'convo_tenants.tenants {}':
    'the total of the super-admin tenant listing without a filter (ListTenants, countDocuments): it counts the tenant registry, one document per customer organisation, which grows with sales, not with traffic',
};

const BOUNDING: FieldKind[] = ['eq', 'in', 'range'];
const RANK: Record<FieldKind, number> = { eq: 0, in: 1, range: 2, regex: 3, ne: 4, exists: 5, other: 6 };

const ID_INDEX = (q: { db: string; collection: string }): IndexShape => ({
  db: q.db,
  collection: q.collection,
  name: '_id_',
  key: [['_id', 1]],
  unique: true,
});

/** One kind per field: a field constrained twice (`$and`) counts by its most selective predicate. */
function fieldKinds(fields: QueryShape['filter']['fields']): Map<string, FieldKind> {
  const kinds = new Map<string, FieldKind>();
  for (const { path, kind } of fields) {
    const had = kinds.get(path);
    if (!had || RANK[kind] < RANK[had]) kinds.set(path, kind);
  }
  return kinds;
}

const FULL_SCAN = '(a full scan)';

const formatKey = (key: IndexShape['key']) => `{${key.map(([f, d]) => `${f}: ${d}`).join(', ')}}`;

/**
 * Whether one index serves a query (no `$or`) by ESR: the index's leading keys are the query's
 * equality fields (all of them, any order; `$in` counts as equality only without a sort), then
 * the sort fields in order with one consistent direction (all as declared or all reversed), then
 * range fields. Range and filter-only predicates ($regex, $ne, $exists...) on fields outside that
 * prefix are fine as long as the scan is bounded by the index's first key. A unique index matched
 * on all its keys by equality is a point lookup whatever else the filter says.
 */
export function indexServes(q: Pick<QueryShape, 'filter' | 'sort'>, index: IndexShape): Verdict {
  const kinds = fieldKinds(q.filter.fields);
  const name = `${index.name} ${formatKey(index.key)}`;
  if (index.partial && !index.partial.every((f) => kinds.has(f))) {
    return { served: false, reason: `${name} is partial on ${index.partial.join(', ')}, which the filter does not name` };
  }
  // Sorting on a field the filter pins to one value is free.
  const sort = q.sort.filter(([field]) => kinds.get(field) !== 'eq');
  const equality = new Set([...kinds].filter(([, k]) => k === 'eq' || (k === 'in' && sort.length === 0)).map(([f]) => f));
  const key = index.key;
  const numeric = (d: number | string) => d === 1 || d === -1;

  let i = 0;
  const matched = new Set<string>();
  while (i < key.length && equality.has(key[i][0]) && (numeric(key[i][1]) || key[i][1] === 'hashed')) matched.add(key[i++][0]);

  if (index.unique && matched.size === key.length && key.length > 0) return { served: true, by: `${name} (unique, point lookup)` };

  const first = key[0]?.[0];
  const firstKind = first === undefined ? undefined : kinds.get(first);
  if (firstKind === undefined || !BOUNDING.includes(firstKind)) {
    return { served: false, reason: `${name}: its first key ${first} is not an equality or range field of the filter ${FULL_SCAN}` };
  }
  const missing = [...equality].filter((f) => !matched.has(f));
  if (missing.length) {
    return {
      served: false,
      near: matched.size,
      reason: `${name}: equality on ${missing.join(', ')} is not in its equality prefix${matched.size ? ` (${[...matched].join(', ')})` : ''}`,
    };
  }
  let sign = 0;
  for (const [field, dir] of sort) {
    const k = key[i];
    if (!k || k[0] !== field || !numeric(k[1])) {
      return {
        served: false,
        near: matched.size + 0.5,
        reason: `${name}: the sort {${sort.map(([f, d]) => `${f}: ${d}`).join(', ')}} does not follow the equality prefix (an in-memory sort)`,
      };
    }
    const s = (k[1] as number) * dir;
    if (sign !== 0 && s !== sign)
      return { served: false, near: matched.size + 0.5, reason: `${name}: the sort's directions mix the index's order and its reverse` };
    sign = s;
    i++;
  }
  return { served: true, by: name };
}

/** The verdict on one recorded query against the indexes of its collection (`_id_` is implied). */
export function judgeQuery(
  q: QueryShape,
  indexes: IndexShape[],
  small: Record<string, string> = SMALL_COLLECTIONS,
  accepted: Record<string, string> = ACCEPTED_SCANS,
): Verdict {
  const all = indexes.some((ix) => ix.name === '_id_') ? indexes : [ID_INDEX(q), ...indexes];
  const { fields, or } = q.filter;
  const whitelisted = small[`${q.db}.${q.collection}`];
  if (whitelisted) return { served: true, by: `small collection (${whitelisted})` };
  const acceptedScan = accepted[`${q.db}.${q.collection} ${formatFilter(q.filter)}`];
  if (acceptedScan) return { served: true, by: `accepted scan (${acceptedScan})` };

  if (fields.length === 0 && !or) {
    if (q.op === 'count') return { served: true, by: 'collection metadata (count without a filter)' };
    // The first document(s) in natural order: an existence check (`findOne({})`), bounded by the limit.
    if (!q.sort.length && (q.limit !== undefined || ((q.op === 'update' || q.op === 'delete' || q.op === 'findAndModify') && !q.multi))) {
      return { served: true, by: `bounded read (at most ${q.limit ?? 1} document(s), no sort)` };
    }
    if (q.sort.length && q.limit !== undefined) {
      for (const ix of all) {
        const v = indexServes(
          { filter: { fields: q.sort.slice(0, 1).map(([path]) => ({ path, kind: 'range' as const })) }, sort: q.sort },
          ix,
        );
        if (v.served) return { served: true, by: `${v.by} (the first ${q.limit} in index order)` };
      }
    }
    return { served: false, reason: `empty filter on ${q.collection}, which grows with use: reads every document` };
  }

  if (fields.some((f) => f.path === '_id' && (f.kind === 'eq' || f.kind === 'in'))) return { served: true, by: 'primary key (_id)' };

  if (or) {
    // Either the ANDed part alone is served (the $or filters what it finds), or each branch is.
    const and = fields.length ? judgeQuery({ ...q, filter: { fields } }, all, {}, {}) : undefined;
    if (and?.served) return and;
    const branches = or.map((b) =>
      judgeQuery({ ...q, filter: { fields: [...fields, ...b.fields], ...(b.or ? { or: b.or } : {}) } }, all, {}, {}),
    );
    const bad = branches.find((v): v is Extract<Verdict, { served: false }> => !v.served);
    if (!bad) return { served: true, by: `each $or branch: ${branches.map((v) => (v as { by: string }).by).join('; ')}` };
    return { served: false, reason: `an $or branch is not served: ${bad.reason}` };
  }

  const near: Array<{ reason: string; near: number }> = [];
  for (const ix of all) {
    const v = indexServes(q, ix);
    if (v.served) return v;
    if (!v.reason.includes(FULL_SCAN)) near.push({ reason: v.reason, near: v.near ?? 0 });
  }
  if (near.length) {
    // The indexes that came closest: the ones to extend, or to learn from.
    const best = Math.max(...near.map((n) => n.near));
    return {
      served: false,
      reason: near
        .filter((n) => n.near === best)
        .map((n) => n.reason)
        .join('; '),
    };
  }
  return {
    served: false,
    reason: `no index starts with a field the filter bounds: a collection scan (indexes: ${all.map((ix) => formatKey(ix.key)).join(', ')})`,
  };
}

/** `{tenantId: eq, status: in}` */
export function formatFilter(filter: QueryShape['filter']): string {
  const parts = filter.fields.map((f) => `${f.path}: ${f.kind}`);
  if (filter.or) parts.push(`$or: [${filter.or.map(formatFilter).join(', ')}]`);
  return `{${parts.join(', ')}}`;
}

export interface Finding {
  shape: QueryShape;
  reason: string;
  sources: string[];
  sites: string[];
}

export interface Coverage {
  queries: number;
  findings: Finding[];
  /** database.collection → the indexes found for it. */
  indexes: Map<string, IndexShape[]>;
}

const shapeKey = (q: QueryShape) =>
  JSON.stringify([q.db, q.collection, q.op, q.filter, q.sort, q.limit ?? null, q.multi ?? null, q.stages ?? null]);

/**
 * The verdict over a whole log: every distinct query shape judged against the indexes of its
 * collection (those the services created, as listIndexes found them and as their createIndexes
 * commands declared them), unserved ones grouped with every process and call site that sent them.
 */
export function checkCoverage(
  lines: QueryLogLine[],
  small: Record<string, string> = SMALL_COLLECTIONS,
  accepted: Record<string, string> = ACCEPTED_SCANS,
): Coverage {
  const indexes = new Map<string, IndexShape[]>();
  const seenIndex = new Set<string>();
  for (const line of lines) {
    if (line.t !== 'index') continue;
    const k = `${line.db}.${line.collection}`;
    const id = JSON.stringify([k, line.key, line.unique ?? false, line.partial ?? null]);
    if (seenIndex.has(id)) continue;
    seenIndex.add(id);
    const { t: _t, source: _s, via: _v, ...index } = line;
    indexes.set(k, [...(indexes.get(k) ?? []), index]);
  }
  const shapes = new Map<string, { shape: QueryShape; sources: Set<string>; sites: Set<string> }>();
  for (const line of lines) {
    if (line.t !== 'query') continue;
    const { t: _t, source, site, ...shape } = line;
    const k = shapeKey(shape);
    let entry = shapes.get(k);
    if (!entry) shapes.set(k, (entry = { shape, sources: new Set(), sites: new Set() }));
    entry.sources.add(source);
    if (site?.length) entry.sites.add(site.join(' < '));
  }
  const findings: Finding[] = [];
  for (const { shape, sources, sites } of shapes.values()) {
    const verdict = judgeQuery(shape, indexes.get(`${shape.db}.${shape.collection}`) ?? [], small, accepted);
    if (!verdict.served) findings.push({ shape, reason: verdict.reason, sources: [...sources], sites: [...sites] });
  }
  findings.sort((a, b) => `${a.shape.db}.${a.shape.collection}`.localeCompare(`${b.shape.db}.${b.shape.collection}`));
  return { queries: shapes.size, findings, indexes };
}

/** A readable report of the unserved shapes, for the failing test. */
export function formatFindings(findings: Finding[]): string {
  return findings
    .map((f, n) => {
      const q = f.shape;
      const head = `${n + 1}. ${q.db}.${q.collection} ${q.op} filter ${formatFilter(q.filter)}${q.sort.length ? ` sort {${q.sort.map(([s, d]) => `${s}: ${d}`).join(', ')}}` : ''}${q.limit ? ` limit ${q.limit}` : ''}${q.multi ? ' (multi)' : ''}${q.stages ? ` pipeline ${q.stages.join(' → ')}` : ''}`;
      return [head, `   from ${f.sources.join(', ')}`, ...f.sites.map((s) => `   site: ${s}`), `   why: ${f.reason}`].join('\n');
    })
    .join('\n\n');
}
