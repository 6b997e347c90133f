import DataLoader from 'dataloader';

/**
 * Per-request batching of federation entity references (docs/api/graphql.md). The gateway asks a
 * subgraph for every entity of a page in one `_entities` call; without a loader each representation
 * is its own database read (a 50-ticket page joined with its channel: 50 reads of the same channel). One
 * DataLoader per entity kind per request collects the keys of that call, asks the repository once
 * with the distinct keys, and answers repeats from its cache.
 *
 * The loaders hang off the request's context object, which Apollo makes anew for every request:
 * nothing is cached across requests, so neither a stale entity nor another caller's is answered.
 */
const requestLoaders = new WeakMap<object, Map<string, DataLoader<unknown, unknown>>>();

/** Loads the entities of the given distinct keys; a key without an entity maps to nothing. */
export type BatchLoad<K, V> = (keys: readonly K[]) => Promise<Map<K, V>>;

/** The request's loader named `kind` (made on first use), batching through `load`. */
export function requestLoader<K, V>(context: unknown, kind: string, load: BatchLoad<K, V>): DataLoader<K, V | null> {
  const make = () =>
    new DataLoader<K, V | null>(async (keys) => {
      const found = await load(keys);
      return keys.map((k) => found.get(k) ?? null);
    });
  // Outside a request (a resolver called directly) there is nothing to share the loader with.
  if (typeof context !== 'object' || context === null) return make();
  let byKind = requestLoaders.get(context);
  if (!byKind) requestLoaders.set(context, (byKind = new Map()));
  let loader = byKind.get(kind) as DataLoader<K, V | null> | undefined;
  if (!loader) byKind.set(kind, (loader = make()) as DataLoader<unknown, unknown>);
  return loader;
}

/**
 * Reads documents by primary key, in parallel: one `_id` equality per distinct id. Chosen over one
 * `{_id: {$in}}` because the embedded database (FerretDB 1.24) pushes down only equalities, so
 * `$in` would read the whole collection there, while `_id` lookups are index-served on FerretDB
 * and MongoDB alike; the loader has already removed repeated ids.
 */
export async function findByIds<Id, D>(ids: readonly Id[], findOne: (id: Id) => Promise<D | null>): Promise<Map<Id, D>> {
  const docs = await Promise.all(ids.map(findOne));
  const found = new Map<Id, D>();
  ids.forEach((id, i) => {
    const doc = docs[i];
    if (doc) found.set(id, doc);
  });
  return found;
}

/** Loads rows of one tenant by id: the rows of the given distinct ids, each with this tenant's id in its filter. */
export type TenantBatchLoad<Id, V> = (tenantId: number, ids: readonly Id[]) => Promise<Map<Id, V>>;

/**
 * The request's loader named `kind` for tenant-owned rows named by (tenant, id): a ticket's notes,
 * a webhook event's attempts. The tenant is part of every key, so a batch asks each tenant's rows
 * with that tenant in the filter (one call per tenant of the batch, a dashboard page has one) and
 * a row is never answered for another tenant than the one its parent names.
 */
export function tenantRowsLoader<Id extends number | string, V>(context: unknown, kind: string, load: TenantBatchLoad<Id, V>) {
  const loader = requestLoader(context, kind, async (keys: readonly string[]) => {
    const byTenant = new Map<number, Id[]>();
    for (const key of keys) {
      const [tenantId, id] = JSON.parse(key) as [number, Id];
      byTenant.set(tenantId, [...(byTenant.get(tenantId) ?? []), id]);
    }
    const found = new Map<string, V>();
    await Promise.all(
      [...byTenant].map(async ([tenantId, ids]) => {
        for (const [id, value] of await load(tenantId, ids)) found.set(JSON.stringify([tenantId, id]), value);
      }),
    );
    return found;
  });
  return { load: (tenantId: number, id: Id): Promise<V | null> => loader.load(JSON.stringify([tenantId, id])) };
}
