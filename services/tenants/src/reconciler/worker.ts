import type { Logger } from '@convo/kit';
import { LoopWorker } from '@convo/kit/worker-process';
import { randomUUID } from 'node:crypto';
import type { PaymentsRepository } from '../db/payments.repository';
import type { Reconciler } from '../domain/payments/reconciler';
import type { Suspensions } from '../domain/payments/suspension';

export interface ReconcilerLoopOptions {
  /** PAYMENT_RECONCILE_INTERVAL_MS: one run of every tenant per period (default a day); 0: only on request. */
  intervalMs: number;
  /** PAYMENT_RECONCILE_POLL_MS: how often requested runs are looked for. */
  pollMs: number;
  runnerId: string;
}

/**
 * The reconciler's loop: the period's run is requested by whichever replica comes first (its id
 * is the period, a claim), and requested runs (the period's, an operator's) are taken one by one.
 * A round is a whole reconciliation, so the loop is healthy however long one takes, and stopping
 * waits for the run under way within the grace.
 */
export class ReconcilerLoop extends LoopWorker {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly reconciler: Reconciler,
    private readonly suspensions: Suspensions,
    private readonly options: ReconcilerLoopOptions,
    log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    super(log, { roundFailed: 'reconciliation tick failed', roundIsWork: true });
  }

  protected override async round(): Promise<number> {
    await this.suspensions.run();
    if (this.options.intervalMs > 0) {
      const period = Math.floor(this.now() / this.options.intervalMs);
      await this.payments.requestRun(newRun(`period:${period}`, 0, 'period', this.now()));
    }
    for (const run of await this.payments.requestedRuns(5)) {
      if (!this.running) break;
      if (!(await this.payments.takeRun(run._id, this.options.runnerId))) continue;
      await this.reconciler.run(run);
    }
    return this.options.pollMs;
  }

  protected override waitAfterFailure(): number {
    return this.options.pollMs;
  }
}

export const newRun = (id: string, tenantId: number, trigger: 'period' | 'operator', nowMs: number) => ({
  _id: id,
  tenantId,
  trigger,
  status: 'requested' as const,
  requestedAt: new Date(nowMs),
  checked: 0,
  repaired: 0,
  failed: 0,
});

export const operatorRunId = () => randomUUID();
