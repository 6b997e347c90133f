/**
 * Reading the rows of many keys at once (a page of tenants' users, a page of tickets' notes): what
 * a request's DataLoader (docs/api/graphql.md) hands a repository, so that a page costs one
 * query, not one per row.
 */

/**
 * The filter value matching any of `keys`: the key itself when there is one. FerretDB 1.24 pushes
 * a top-level equality down to its indexes but reads the whole collection for `$in`
 * (docs/storage.md), so a batch of one key, and the per-key reads below, stay equalities there.
 */
export const anyOf = <K>(keys: readonly K[]): K | { $in: K[] } => (keys.length === 1 ? keys[0] : { $in: [...keys] });

/** The documents of each key in the order read; every key is present, with `[]` when it has none. */
export function groupByKey<K, D>(keys: readonly K[], docs: readonly D[], keyOf: (doc: D) => K): Map<K, D[]> {
  const grouped = new Map<K, D[]>(keys.map((k) => [k, []]));
  for (const doc of docs) grouped.get(keyOf(doc))?.push(doc);
  return grouped;
}

/**
 * The first `limit` documents of each key. `read(keys, max)` answers at most `max` documents of
 * those keys sorted by key first, then in the list's order (an index on (key, order…) serves it).
 *
 * One query reads up to `limit` per key for all of them. When it comes back full, a key with more
 * than `limit` may have crowded others out: the keys after it in the key order (not seen) and the
 * last key seen (perhaps cut) are read again one by one, each with its own limit. So a page costs
 * one query unless a key has more than its list shows, and no read takes more than the keys ×
 * `limit` documents a page can show.
 */
export async function firstOfEach<K, D>(
  keys: readonly K[],
  limit: number,
  keyOf: (doc: D) => K,
  read: (keys: readonly K[], max: number) => Promise<D[]>,
): Promise<Map<K, D[]>> {
  const max = keys.length * limit;
  const docs = await read(keys, max);
  const grouped = groupByKey(keys, docs, keyOf);
  for (const list of grouped.values()) list.splice(limit);
  if (docs.length < max || docs.length === 0) return grouped;
  const last = keyOf(docs[docs.length - 1]);
  const seen = new Set(docs.map(keyOf));
  const again = keys.filter((k) => !seen.has(k) || (k === last && grouped.get(k)!.length < limit));
  const reread = await Promise.all(again.map((k) => read([k], limit)));
  again.forEach((k, i) => grouped.set(k, reread[i]));
  return grouped;
}
