import type { Logger } from '@convo/kit';
import type { ApisRepository } from '../../db/apis.repository';
import type { PaymentsRepository } from '../../db/payments.repository';

const DAY_MS = 86_400_000;

/**
 * PAYMENT_SUSPEND_AFTER_DAYS (unset or 0: never): a tenant whose payment has been overdue that many
 * days (from the overdue event's own time) is set inactive, its integrations refused at once as
 * when an operator does it; a paid event sets it active again (payments.service.ts). Every change
 * is recorded with its cause.
 */
export class Suspensions {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly apis: ApisRepository,
    private readonly afterDays: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async run(): Promise<number> {
    if (!(this.afterDays > 0)) return 0;
    const cutoff = new Date(this.now() - this.afterDays * DAY_MS);
    let suspended = 0;
    for (const t of await this.payments.overdueSince(cutoff, 100)) {
      if (!(await this.payments.suspend(t._id))) continue;
      // The same revocation entry an operator's deactivation writes: every gateway drops the tenant's tokens.
      await this.apis.recordRevocation(`tenant:${t._id}:${this.now()}`, t._id);
      const since = t.paymentOverdueSince ? new Date(t.paymentOverdueSince).toISOString() : '?';
      await this.payments.recordChange({
        tenantId: t._id,
        field: 'status',
        from: 'active',
        to: 'inactive',
        cause: `payment overdue since ${since}, more than ${this.afterDays} days (PAYMENT_SUSPEND_AFTER_DAYS)`,
        at: new Date(this.now()),
      });
      this.log.info({ tenantId: t._id, overdueSince: since }, 'tenant suspended for an overdue payment');
      suspended++;
    }
    return suspended;
  }
}
