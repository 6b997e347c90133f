import { checkPageSize } from '@convo/kit';
import type { PaymentChangeDoc, PaymentEventDoc } from '../../db/models';
import type { PaymentsRepository, ReconciliationRun } from '../../db/payments.repository';
import { newRun, operatorRunId } from '../../reconciler/worker';

export type { PaymentChangeDoc, PaymentEventDoc, ReconciliationRun };

/** The most records one page of webhooks or changes answers; 0 is refused, never "no limit". */
export const MAX_PAYMENT_RECORDS = 200;

/** Operators' view of payment webhooks, status changes and reconciliation runs (super-admin only). */
export class PaymentRecords {
  constructor(private readonly payments: PaymentsRepository) {}

  /** The latest proven payment webhooks, newest first, each with how often it was repeated; tenantId 0: every tenant. */
  async webhooks(tenantId: number, limit: number): Promise<Array<PaymentEventDoc & { repeats: number }>> {
    checkPageSize(limit, MAX_PAYMENT_RECORDS, 'limit');
    const events = await this.payments.listEvents(tenantId, limit);
    const repeats = await this.payments.repeatCounts(events.map((e) => e._id));
    return events.map((e) => ({ ...e, repeats: repeats.get(e._id) ?? 0 }));
  }

  /** A tenant's payment status changes with their causes, newest first. */
  changes(tenantId: number, limit: number): Promise<PaymentChangeDoc[]> {
    checkPageSize(limit, MAX_PAYMENT_RECORDS, 'limit');
    return this.payments.listChanges(tenantId, limit);
  }

  /** Asks the reconciler to read every tenant's (tenantId 0) or one tenant's latest payment now. */
  async requestReconciliation(tenantId: number): Promise<ReconciliationRun> {
    const run = newRun(operatorRunId(), tenantId, 'operator', Date.now());
    await this.payments.requestRun(run);
    return run;
  }

  findRun(id: string): Promise<ReconciliationRun | null> {
    return this.payments.findRun(id.slice(0, 64));
  }
}
