import type { Logger } from '@convo/kit';
import type { ApisRepository } from '../db/apis.repository';

export interface RevocationFeedOptions {
  /** How often the log is read for revocations written by other replicas. */
  pollMs: number;
  /** How often a watcher hears from a healthy feed even when nothing was revoked. */
  heartbeatMs: number;
  /** How far back the log is read, and what a new watcher is told about. */
  windowMs: number;
  /** Log entries older than this are deleted; a watcher that was away longer starts afresh anyway. */
  retainMs: number;
}

export const DEFAULT_FEED_OPTIONS: RevocationFeedOptions = {
  pollMs: 200,
  heartbeatMs: 1_000,
  windowMs: 30_000,
  retainMs: 10 * 60_000,
};

type Watcher = (apiIds: string[]) => void;

/**
 * Revoked integrations, for every gateway that caches token resolutions. Each replica reads the
 * recent part of the revocation log a few times a second (by time, not by a sequence: FerretDB
 * counters are not atomic across replicas, and a sequence could commit out of order) and pushes
 * what it has not seen yet to its watchers. Heartbeats flow only while reads succeed, so a watcher
 * that stops hearing from the feed knows not to trust its cache.
 */
export class RevocationFeed {
  private readonly seen = new Map<string, number>();
  /** Each watcher, and whether it has had its first message (the recent revocations). */
  private readonly watchers = new Map<Watcher, { greeted: boolean }>();
  private readonly timers: NodeJS.Timeout[] = [];
  private lastReadOk = 0;
  private reading = false;
  private lastPrune = 0;

  constructor(
    private readonly apis: ApisRepository,
    private readonly log: Logger,
    private readonly opts: RevocationFeedOptions = DEFAULT_FEED_OPTIONS,
  ) {}

  async start(): Promise<void> {
    await this.read();
    this.timers.push(setInterval(() => void this.read(), this.opts.pollMs));
    this.timers.push(setInterval(() => this.heartbeat(), this.opts.heartbeatMs));
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    this.watchers.clear();
  }

  /** Revocations made by this replica reach its own watchers without waiting for a read. */
  publish(apiIds: string[]): void {
    const now = Date.now();
    const fresh = apiIds.filter((id) => !this.seen.has(id));
    for (const id of fresh) this.seen.set(id, now);
    if (fresh.length) this.send(fresh);
  }

  /**
   * A watcher first gets the recent revocations (which also tells it the feed is live), then
   * every new one. Answers the function that ends the subscription.
   */
  watch(watcher: Watcher): () => void {
    const state = { greeted: false };
    this.watchers.set(watcher, state);
    this.greet(watcher, state);
    return () => this.watchers.delete(watcher);
  }

  healthy(): boolean {
    return Date.now() - this.lastReadOk < Math.max(this.opts.heartbeatMs, 5 * this.opts.pollMs);
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      const now = Date.now();
      const docs = await this.apis.revocationsSince(new Date(now - this.opts.windowMs));
      const fresh = docs.filter((d) => !this.seen.has(d._id));
      for (const d of fresh) this.seen.set(d._id, new Date(d.createdAt).getTime());
      for (const [id, at] of this.seen) if (at < now - this.opts.windowMs) this.seen.delete(id);
      this.lastReadOk = Date.now();
      if (fresh.length) this.send(fresh.map((d) => d._id));
      await this.prune(now);
    } catch (err) {
      this.log.warn({ err }, 'revocation log read failed');
    } finally {
      this.reading = false;
    }
  }

  private async prune(now: number): Promise<void> {
    if (now - this.lastPrune < 60_000) return;
    this.lastPrune = now;
    await this.apis.pruneRevocations(new Date(now - this.opts.retainMs));
  }

  private heartbeat(): void {
    if (this.healthy()) this.send([]);
  }

  /** A watcher is greeted only while the feed is healthy: its first message means "trust me". */
  private send(apiIds: string[]): void {
    for (const [watcher, state] of this.watchers) {
      if (state.greeted) watcher(apiIds);
      else this.greet(watcher, state);
    }
  }

  private greet(watcher: Watcher, state: { greeted: boolean }): void {
    if (state.greeted || !this.healthy()) return;
    state.greeted = true;
    watcher([...this.seen.keys()]);
  }
}
