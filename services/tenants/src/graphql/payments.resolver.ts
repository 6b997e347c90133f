import { Arg, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { PaymentRecords, ReconciliationRun } from '../domain/payments/payment-records';
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

/** Operators' view of payment webhooks (super-admin only: these root fields are not tenant-scoped). */
@Resolver()
export class PaymentsResolver {
  constructor(private readonly payments: PaymentRecords) {}

  @Query(() => [PaymentWebhookRecord], { description: 'The latest proven payment webhooks, newest first (at most 200).' })
  async paymentWebhooks(
    @Arg('tenantId', () => Int, { nullable: true }) tenantId: number | null,
    @Arg('limit', () => Int, { defaultValue: 50 }) limit: number,
  ): Promise<PaymentWebhookRecord[]> {
    return (await this.payments.webhooks(tenantId ?? 0, limit)).map((e) => ({
      gateway: e.gateway,
      eventId: e.eventId,
      type: e.type,
      customerId: e.customerId,
      tenantId: e.tenantId || null,
      status: e.status,
      outcome: e.outcome,
      repeats: e.repeats,
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
    return (await this.payments.changes(tenantId, limit)).map((c) => ({ ...c, at: iso(c.at) }));
  }

  @Mutation(() => PaymentReconciliation, {
    description:
      "Asks the reconciler to read every tenant's (or one tenant's) latest payment from its gateway now; follow it with paymentReconciliation(id).",
  })
  async reconcilePayments(@Arg('tenantId', () => Int, { nullable: true }) tenantId: number | null): Promise<PaymentReconciliation> {
    return toRun(await this.payments.requestReconciliation(tenantId ?? 0));
  }

  @Query(() => PaymentReconciliation, { nullable: true })
  async paymentReconciliation(@Arg('id') id: string): Promise<PaymentReconciliation | null> {
    const run = await this.payments.findRun(id);
    return run ? toRun(run) : null;
  }
}
