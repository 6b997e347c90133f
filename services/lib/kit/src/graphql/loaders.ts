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
