import { counter } from './observability/metrics';

const lookups = () =>
  counter({ name: 'convo_cache_lookups_total', help: 'Lookups in a named in-process cache, by result (hit or miss).', labelNames: ['cache', 'result'] as const });

/** A bounded map whose entries expire: for lookups that may be a few seconds stale. */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  /** `name` labels the cache's hits and misses in convo_cache_lookups_total; unnamed caches are not counted. */
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly name?: string,
  ) {}

  get(key: K): V | undefined {
    const value = this.lookup(key);
    if (this.name) lookups().inc({ cache: this.name, result: value === undefined ? 'miss' : 'hit' });
    return value;
  }

  private lookup(key: K): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.until <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: K, value: V): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    // Maps iterate in insertion order: the first key is the oldest.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, until: Date.now() + this.ttlMs });
  }

  /** Returns the cached value, or loads, caches and returns it. Failures are not cached. */
  async getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = await load();
    this.set(key, value);
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
