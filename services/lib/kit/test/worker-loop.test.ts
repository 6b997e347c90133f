import type { Logger } from '../src/logger';
import { LoopWorker, type LoopSettings } from '../src/worker-loop';

// The loop every worker runs (the dispatcher, the relay, the reconciler), with a worker whose
// rounds, failures and work under way the test sets.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise and its resolver. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

class TestWorker extends LoopWorker {
  readonly roundStarts: number[] = [];
  readonly handedBack: Array<{ graceMs: number; settled: boolean }> = [];
  /** Work the rounds "started": settled or not at hand-back. */
  readonly work: Array<{ promise: Promise<void>; settled: boolean }> = [];

  constructor(
    log: Logger,
    settings: LoopSettings,
    private readonly behaviour: { round?: (n: number) => Promise<number>; waitMs?: number; failureWaitMs?: number },
  ) {
    super(log, settings);
  }

  protected override round(): Promise<number> {
    this.roundStarts.push(Date.now());
    return this.behaviour.round ? this.behaviour.round(this.roundStarts.length) : Promise.resolve(this.behaviour.waitMs ?? 60_000);
  }

  protected override waitAfterFailure(): number {
    return this.behaviour.failureWaitMs ?? 60_000;
  }

  protected override underWay(): Iterable<Promise<unknown>> {
    return this.work.map((w) => w.promise);
  }

  protected override async handBack(graceMs: number): Promise<void> {
    this.handedBack.push({ graceMs, settled: this.work.every((w) => w.settled) });
  }

  /** Work started beside the loop, settled after `ms` (never when undefined). */
  begin(ms?: number): void {
    const entry = { promise: Promise.resolve(), settled: false };
    entry.promise = new Promise<void>((resolve) => {
      if (ms !== undefined) setTimeout(resolve, ms);
    }).then(() => void (entry.settled = true));
    this.work.push(entry);
  }

  wake(): void {
    this.wakeUp();
  }

  get isRunning(): boolean {
    return this.running;
  }
}

function logger() {
  const errors: Array<{ fields: unknown; message: string }> = [];
  const log = { error: (fields: unknown, message: string) => void errors.push({ fields, message }) } as unknown as Logger;
  return { log, errors };
}

const until = async (check: () => boolean, ms = 2_000) => {
  for (const end = Date.now() + ms; !check() && Date.now() < end;) await sleep(2);
};

describe('LoopWorker', () => {
  const running: TestWorker[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((w) => w.stop(0)));
  });
  const make = (settings: LoopSettings, behaviour: ConstructorParameters<typeof TestWorker>[2] = {}) => {
    const { log, errors } = logger();
    const worker = new TestWorker(log, settings, behaviour);
    running.push(worker);
    return { worker, errors };
  };

  it('goes round at once on start, then again when woken up instead of after its wait', async () => {
    const { worker } = make({ roundFailed: 'round failed' }, { waitMs: 60_000 });
    worker.start();
    await until(() => worker.roundStarts.length === 1);
    await sleep(20);
    expect(worker.roundStarts).toHaveLength(1);
    const woken = Date.now();
    worker.wake();
    await until(() => worker.roundStarts.length === 2, 500);
    expect(worker.roundStarts).toHaveLength(2);
    expect(worker.roundStarts[1] - woken).toBeLessThan(100);
  });

  it('keeps the minimum gap between round starts after a wake-up', async () => {
    const { worker } = make({ roundFailed: 'round failed', minGapMs: 80 }, { waitMs: 60_000 });
    worker.start();
    await until(() => worker.roundStarts.length === 1);
    worker.wake();
    await until(() => worker.roundStarts.length === 2, 1_000);
    expect(worker.roundStarts[1] - worker.roundStarts[0]).toBeGreaterThanOrEqual(75);
  });

  it('logs a round that throws and goes on after the wait a failure asks', async () => {
    const failure = new Error('database down');
    const { worker, errors } = make(
      { roundFailed: 'test round failed' },
      { round: async (n) => (n === 1 ? Promise.reject(failure) : 60_000), failureWaitMs: 10 },
    );
    worker.start();
    await until(() => worker.roundStarts.length === 2);
    expect(worker.roundStarts).toHaveLength(2);
    expect(errors).toEqual([{ fields: { err: failure }, message: 'test round failed' }]);
    expect(worker.isRunning).toBe(true);
  });

  it('is healthy while rounds end within the stall bound, and not once stopped', async () => {
    const { worker } = make({ roundFailed: 'round failed', stallMs: 1_000 }, { waitMs: 5 });
    expect(worker.healthy).toBe(false);
    worker.start();
    await until(() => worker.roundStarts.length >= 2);
    expect(worker.healthy).toBe(true);
    await worker.stop(0);
    expect(worker.healthy).toBe(false);
    const { worker: slow } = make({ roundFailed: 'round failed', roundIsWork: true }, { round: () => new Promise(() => undefined) });
    slow.start();
    // No stall bound: rounds that take long by nature do not make the worker unhealthy.
    expect(slow.healthy).toBe(true);
  });

  it('waits at stop for the work under way to finish, then hands back', async () => {
    const { worker } = make({ roundFailed: 'round failed' });
    worker.start();
    await until(() => worker.roundStarts.length === 1);
    worker.begin(60);
    const started = Date.now();
    await worker.stop(5_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(worker.handedBack).toEqual([{ graceMs: 5_000, settled: true }]);
  });

  it('stops waiting for work under way at the end of the grace, and hands back what it holds', async () => {
    const { worker } = make({ roundFailed: 'round failed' });
    worker.start();
    await until(() => worker.roundStarts.length === 1);
    worker.begin(undefined);
    const started = Date.now();
    await worker.stop(80);
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(worker.handedBack).toEqual([{ graceMs: 80, settled: false }]);
  });

  it('starts no round once stopped', async () => {
    const { worker } = make({ roundFailed: 'round failed' }, { waitMs: 5 });
    worker.start();
    await until(() => worker.roundStarts.length >= 2);
    await worker.stop(0);
    const rounds = worker.roundStarts.length;
    await sleep(40);
    expect(worker.roundStarts).toHaveLength(rounds);
    expect(worker.isRunning).toBe(false);
  });

  it('waits whole for a round that only starts work, but bounds a round that is the work by the grace', async () => {
    const gate = deferred();
    const { worker: starter } = make(
      { roundFailed: 'round failed' },
      { round: (n) => (n === 1 ? gate.promise.then(() => 60_000) : Promise.resolve(60_000)) },
    );
    starter.start();
    const stopped = starter.stop(10);
    await sleep(60);
    expect(starter.handedBack).toEqual([]);
    gate.resolve();
    await stopped;
    expect(starter.handedBack).toHaveLength(1);

    const { worker: doer } = make({ roundFailed: 'round failed', roundIsWork: true }, { round: () => new Promise(() => undefined) });
    doer.start();
    const started = Date.now();
    await doer.stop(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(doer.handedBack).toHaveLength(1);
  });
});
