import type { Logger } from './logger';

/** A background worker (messaging's webhook relay and dispatcher, tenants' payment reconciler) once it runs. */
export interface Worker {
  /** The loop goes round. */
  readonly healthy: boolean;
  /** Stops taking work and finishes or hands back what it holds, within `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

export interface LoopSettings {
  /** What the log says when a round throws ('dispatch round failed'); the loop goes on. */
  roundFailed: string;
  /**
   * Healthy while a round ended within this long (a stuck loop fails the liveness probe). Unset:
   * always healthy, for a worker whose rounds take long by nature (a reconciliation of every tenant).
   */
  stallMs?: number;
  /** After a wake-up, the next round starts no sooner than this long after the last one started. */
  minGapMs?: number;
  /**
   * The round does the work itself (it starts none to run beside the loop): stop waits for it
   * within the grace. Otherwise a round only claims and starts work: stop waits for it whole, then
   * for the work under way within the grace.
   */
  roundIsWork?: boolean;
}

/**
 * The loop every worker runs: `start` goes round at once; each round answers how long to wait
 * before the next, and `wakeUp` ends a wait early (work finished, a slot is free). A round that
 * throws is logged and waits `waitAfterFailure()`: the loop never dies of it. `stop` stops the
 * rounds, lets the work under way finish within the grace, then `handBack` gives back what is
 * still held (leases) so that another replica continues at once. A worker keeps only its work:
 * the round, what it has under way, and what it hands back.
 */
export abstract class LoopWorker implements Worker {
  /** Rounds go on; false once stopping (work under way checks it between its steps). */
  protected running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wake: () => void = () => {};
  private lastLoopAt = 0;

  protected constructor(
    protected readonly log: Logger,
    private readonly loopSettings: LoopSettings,
  ) {}

  /** One round of work; answers how long to wait (ms) before the next. */
  protected abstract round(): Promise<number>;

  /** The wait after a round that threw. */
  protected abstract waitAfterFailure(): number;

  /** Work the rounds started that is still under way: stop lets it finish within the grace. */
  protected underWay(): Iterable<Promise<unknown>> {
    return [];
  }

  /** After the grace: what must be recorded or given back before the process exits. */
  protected async handBack(_graceMs: number): Promise<void> {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  get healthy(): boolean {
    const { stallMs } = this.loopSettings;
    if (stallMs === undefined) return true;
    return this.running && Date.now() - this.lastLoopAt < stallMs;
  }

  /** Ends the wait under way, if any: the next round starts now (after the minimum gap). */
  protected wakeUp(): void {
    this.wake();
  }

  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.wake();
    if (this.loopSettings.roundIsWork) {
      await withinGrace([this.loopDone], graceMs);
    } else {
      await this.loopDone;
      await withinGrace([...this.underWay()], graceMs);
    }
    await this.handBack(graceMs);
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const started = Date.now();
      let waitMs: number;
      try {
        waitMs = await this.round();
      } catch (err) {
        this.log.error({ err }, this.loopSettings.roundFailed);
        waitMs = this.waitAfterFailure();
      }
      this.lastLoopAt = Date.now();
      if (!this.running) break;
      const minGapMs = this.loopSettings.minGapMs ?? 0;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.wake = () => {
          clearTimeout(timer);
          if (minGapMs > 0) setTimeout(resolve, Math.max(0, started + minGapMs - Date.now()));
          else resolve();
        };
      });
    }
  }
}

/** Waits for `work` to settle, at most `graceMs`. */
async function withinGrace(work: Array<Promise<unknown>>, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
  await Promise.race([Promise.allSettled(work), grace]);
  clearTimeout(timer);
}
