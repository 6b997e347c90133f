import { ClaimStore, insertOnce } from '@convo/kit/claims';
import { randomUUID } from 'node:crypto';
import type { Models, PaymentChangeDoc, PaymentEventDoc, SeedClaimDoc, TenantDoc } from './models';
import type { ReconciliationRunDoc } from './payment-models';

export type ReconciliationRun = ReconciliationRunDoc;

/** The fields of a tenant a payment event is decided on. */
export type PaymentState = Pick<
  TenantDoc,
  'paymentGateway' | 'paymentStatus' | 'paymentStatusAt' | 'paymentOverdueSince' | 'status' | 'suspendedByPayment' | 'gatewayCredentials'
>;

/** The record of proven payment webhooks and the log of the status changes payments cause. */
export class PaymentsRepository {
  /** Runs taken by a reconciler, `reconciliation-run:<id>` beside the seed claims. */
  private readonly runClaims: ClaimStore<SeedClaimDoc>;

  constructor(private readonly models: Models) {
    this.runClaims = new ClaimStore(models.SeedClaim);
  }

  /** Inserts the event's record; false when the event was already received (a repeat). */
  claimEvent(doc: PaymentEventDoc): Promise<boolean> {
    return insertOnce(() => this.models.PaymentEvent.create(doc));
  }

  async finishEvent(key: string, set: Partial<PaymentEventDoc>): Promise<void> {
    await this.models.PaymentEvent.updateOne({ _id: key }, { $set: set }).exec();
  }

  /** A repeat is recorded beside the first delivery's record (one insert). */
  async recordRepeat(key: string): Promise<void> {
    await this.models.PaymentRepeat.create({ _id: randomUUID(), eventKey: key, receivedAt: new Date() });
  }

  /** How many repeats each of these events had. */
  async repeatCounts(keys: string[]): Promise<Map<string, number>> {
    if (!keys.length) return new Map();
    const rows = await this.models.PaymentRepeat.aggregate<{ _id: string; n: number }>([
      { $match: { eventKey: { $in: keys } } },
      { $group: { _id: '$eventKey', n: { $sum: 1 } } },
    ]).exec();
    return new Map(rows.map((r) => [r._id, r.n]));
  }

  async releaseEvent(key: string): Promise<void> {
    await this.models.PaymentEvent.deleteOne({ _id: key }).exec();
  }

  /**
   * Sets `set` on the tenant only while its payment fields are still exactly `expected` (what the
   * decision was made on) and it still holds `customerId` on `gateway`: one write, and a stale
   * view of the tenant (another replica, an operator's change) writes nothing (false) instead of
   * a wrong status. FerretDB applies it as read-then-write, so the service also runs one change
   * per tenant at a time.
   */
  async setPaymentIfUnchanged(
    tenantId: number,
    gateway: string,
    customerId: string,
    expected: PaymentState,
    set: Record<string, unknown>,
  ): Promise<boolean> {
    const res = await this.models.Tenant.updateOne(
      {
        _id: tenantId,
        paymentGateway: gateway,
        [`gatewayCredentials.${gateway}.customerId`]: customerId,
        paymentStatus: expected.paymentStatus,
        paymentStatusAt: expected.paymentStatusAt ?? null,
        paymentOverdueSince: expected.paymentOverdueSince ?? null,
        status: expected.status,
        suspendedByPayment: expected.suspendedByPayment ? true : { $ne: true },
      },
      { $set: set },
    ).exec();
    return res.matchedCount > 0;
  }

  /** Active tenants overdue since before `cutoff`: suspension's candidates. */
  overdueSince(cutoff: Date, limit: number) {
    return this.models.Tenant.find({ paymentStatus: 'overdue', status: 'active', paymentOverdueSince: { $lte: cutoff } })
      .limit(limit)
      .lean<TenantDoc[]>()
      .exec();
  }

  /** Sets a still active, still overdue tenant inactive; false when it changed meanwhile. */
  async suspend(tenantId: number): Promise<boolean> {
    const res = await this.models.Tenant.updateOne(
      { _id: tenantId, status: 'active', paymentStatus: 'overdue' },
      { $set: { status: 'inactive', suspendedByPayment: true, updatedAt: new Date() } },
    ).exec();
    return res.modifiedCount > 0;
  }

  async recordChange(change: Omit<PaymentChangeDoc, '_id'>): Promise<void> {
    await this.models.PaymentChange.create({ _id: randomUUID(), ...change });
  }

  /** The latest records, newest first; `tenantId` 0 for every tenant. */
  listEvents(tenantId: number, limit: number) {
    return this.models.PaymentEvent.find(tenantId ? { tenantId } : {})
      .sort({ receivedAt: -1, _id: 1 })
      .limit(limit)
      .lean<PaymentEventDoc[]>()
      .exec();
  }

  listChanges(tenantId: number, limit: number) {
    return this.models.PaymentChange.find({ tenantId }).sort({ at: -1 }).limit(limit).lean<PaymentChangeDoc[]>().exec();
  }

  // ---- reconciliation runs: requested by an operator or by the period, taken by one reconciler

  /** Inserts a run; false when it exists (the period's run already made by another replica). */
  requestRun(run: ReconciliationRunDoc): Promise<boolean> {
    return insertOnce(() => this.models.ReconciliationRun.create(run));
  }

  findRun(id: string) {
    return this.models.ReconciliationRun.findById(id).lean<ReconciliationRunDoc>().exec();
  }

  /** The oldest requested runs (an index on status, requestedAt). */
  requestedRuns(limit: number) {
    return this.models.ReconciliationRun.find({ status: 'requested' })
      .sort({ requestedAt: 1 })
      .limit(limit)
      .lean<ReconciliationRunDoc[]>()
      .exec();
  }

  /** Takes a run for one reconciler: a claim document, since FerretDB's conditional updates are not atomic. */
  async takeRun(id: string, runner: string): Promise<boolean> {
    if (!(await this.runClaims.claim({ _id: `reconciliation-run:${id}`, createdAt: new Date() }))) return false;
    await this.models.ReconciliationRun.updateOne({ _id: id }, { $set: { status: 'running', runner, startedAt: new Date() } }).exec();
    return true;
  }

  async finishRun(id: string, counts: { checked: number; repaired: number; failed: number }): Promise<void> {
    await this.models.ReconciliationRun.updateOne({ _id: id }, { $set: { status: 'done', finishedAt: new Date(), ...counts } }).exec();
  }
}
