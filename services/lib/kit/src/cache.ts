import { counter } from './observability/metrics';

const lookups = () =>
  counter({
    name: 'convo_cache_lookups_total',
    help: 'Lookups in a named in-process cache, by result (hit or miss).',
    labelNames: ['cache', 'result'] as const,
  });

/** Counts one lookup of a named cache in convo_cache_lookups_total: TtlCache's, and caches of other kinds. */
export function countLookup(cache: string, hit: boolean): void {
  lookups().inc({ cache, result: hit ? 'hit' : 'miss' });
}

/** A bounded map whose entries expire: for lookups that may be a few seconds stale. */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();
  /** Loads under way, so that the callers missing one key at the same moment share one load. */
  private readonly loading = new Map<K, Promise<V>>();
  /** Moves on each clear(): a load begun before it does not store what it read. */
  private generation = 0;

  /** `name` labels the cache's hits and misses in convo_cache_lookups_total; unnamed caches are not counted. */
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly name?: string,
  ) {}

  get(key: K): V | undefined {
    const value = this.lookup(key);
    if (this.name) countLookup(this.name, value !== undefined);
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

  /**
   * Returns the cached value, or loads, caches and returns it. Callers that miss the same key while
   * it loads wait for that one load (an entry expiring under load is read once, not once per
   * caller in flight). Failures are not cached: each waiting caller gets the failure, the next loads again.
   */
  getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.generation;
    let started: Promise<V>;
    try {
      started = load();
    } catch (err) {
      return Promise.reject(err);
    }
    const loaded: Promise<V> = started.then(
      (value) => {
        if (generation === this.generation) this.set(key, value);
        this.forget(key, loaded);
        return value;
      },
      (err: unknown) => {
        this.forget(key, loaded);
        throw err;
      },
    );
    this.loading.set(key, loaded);
    return loaded;
  }

  private forget(key: K, load: Promise<V>): void {
    if (this.loading.get(key) === load) this.loading.delete(key);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
    this.generation++;
  }
}
