import { checkPageSize } from '@convo/kit';
import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { ReconciliationRun } from '../db/payments.repository';
import { newRun, operatorRunId } from '../reconciler/worker';
import type { PaymentsRepository } from '../db/payments.repository';
import { PaymentChange, PaymentReconciliation, PaymentWebhookRecord } from './payments.type';

const iso = (d: Date) => new Date(d).toISOString();
const toRun = (r: ReconciliationRun): PaymentReconciliation => ({
  id: r._id,
  tenantId: r.tenantId || null,
  trigger: r.trigger,
  status: r.status,
  checked: r.checked ?? 0,
  repaired: r.repaired ?? 0,
  failed: r.failed ?? 0,
  requestedAt: iso(r.requestedAt),
  finishedAt: r.finishedAt ? iso(r.finishedAt) : null,
});
/** The most records one page of webhooks or changes answers; 0 is refused, never "no limit". */
const MAX_RECORDS = 200;
const bounded = (limit: number) => {
  checkPageSize(limit, MAX_RECORDS, 'limit');
  return limit;
};

/** Operators' view of payment webhooks (super-admin only: these root fields are not tenant-scoped). */
@Resolver()
export class PaymentsResolver {
  constructor(private readonly payments: PaymentsRepository) {}

  @Query(() => [PaymentWebhookRecord], { description: 'The latest proven payment webhooks, newest first (at most 200).' })
  async paymentWebhooks(
    @Arg('tenantId', () => Int, { nullable: true }) tenantId: number | null,
    @Arg('limit', () => Int, { defaultValue: 50 }) limit: number,
  ): Promise<PaymentWebhookRecord[]> {
    const events = await this.payments.listEvents(tenantId ?? 0, bounded(limit));
    const repeats = await this.payments.repeatCounts(events.map((e) => e._id));
    return events.map((e) => ({
      gateway: e.gateway,
      eventId: e.eventId,
      type: e.type,
      customerId: e.customerId,
      tenantId: e.tenantId || null,
      status: e.status,
      outcome: e.outcome,
      repeats: repeats.get(e._id) ?? 0,
      source: e.source ?? 'webhook',
      eventAt: iso(e.eventAt),
      receivedAt: iso(e.receivedAt),
    }));
  }

  @Query(() => [PaymentChange], { description: "A tenant's payment status changes with their causes, newest first." })
  async paymentChanges(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('limit', () => Int, { defaultValue: 50 }) limit: number,
  ): Promise<PaymentChange[]> {
    return (await this.payments.listChanges(tenantId, bounded(limit))).map((c) => ({ ...c, at: iso(c.at) }));
  }

  @Mutation(() => PaymentReconciliation, {
    description: "Asks the reconciler to read every tenant's (or one tenant's) latest payment from its gateway now; follow it with paymentReconciliation(id).",
  })
  async reconcilePayments(@Arg('tenantId', () => Int, { nullable: true }) tenantId: number | null): Promise<PaymentReconciliation> {
    const run = newRun(operatorRunId(), tenantId ?? 0, 'operator', Date.now());
    await this.payments.requestRun(run);
    return toRun(run);
  }

  @Query(() => PaymentReconciliation, { nullable: true })
  async paymentReconciliation(@Arg('id') id: string): Promise<PaymentReconciliation | null> {
    const run = await this.payments.findRun(id.slice(0, 64));
    return run ? toRun(run) : null;
  }
}
