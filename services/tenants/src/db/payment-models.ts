// The payment webhooks' records and the changes payments make (see payments.repository.ts).
import { Schema } from 'mongoose';

const claimSchema = <T>(fields: Record<string, unknown>) =>
  new Schema<T>({ _id: String, ...fields }, { versionKey: false, timestamps: false });

/**
 * `_id`: `<gateway>:<eventId>`. A gateway's event is applied once (its insert is the claim), and
 * every proven delivery is recorded here: operators read them (GraphQL `paymentWebhooks`).
 */
export interface PaymentEventDoc {
  _id: string;
  gateway: string;
  eventId: string;
  type: string;
  customerId: string;
  /** 0: no tenant has the customer. */
  tenantId: number;
  /** The status the event means; '' when it means none. */
  status: string;
  /** The event's own time. */
  eventAt: Date;
  receivedAt: Date;
  /** applied, older (a newer status stands), unknown_customer, ignored_type, other_gateway, processing. */
  outcome: string;
  /** Unused since repeats are documents of their own (payment_event_repeats); kept 0. */
  repeats: number;
  /** webhook or reconciliation. */
  source: string;
}

/** Every change of a tenant's payment status or of its status by payments, with its cause. */
export interface PaymentChangeDoc {
  _id: string;
  tenantId: number;
  field: 'paymentStatus' | 'status';
  from: string;
  to: string;
  /** e.g. `gateway_b event evt_1`, `reconciliation`, `overdue for 5 days`. */
  cause: string;
  at: Date;
}

export function paymentEventSchema() {
  const schema = claimSchema<PaymentEventDoc>({
    gateway: String,
    eventId: String,
    type: String,
    customerId: String,
    tenantId: Number,
    status: String,
    eventAt: Date,
    receivedAt: Date,
    outcome: String,
    repeats: { type: Number, default: 0 },
    source: { type: String, default: 'webhook' },
  });
  // Operators page the latest deliveries, of everyone or of one tenant.
  schema.index({ receivedAt: -1, _id: 1 });
  schema.index({ tenantId: 1, receivedAt: -1 });
  return schema;
}

export function paymentChangeSchema() {
  const schema = claimSchema<PaymentChangeDoc>({ tenantId: Number, field: String, from: String, to: String, cause: String, at: Date });
  schema.index({ tenantId: 1, at: -1 });
  return schema;
}

/** A reconciliation run: `_id` `period:<n>` for the periodic one (one per period, whatever the replicas), a uuid for an operator's. */
export interface ReconciliationRunDoc {
  _id: string;
  /** 0: every tenant with a gateway. */
  tenantId: number;
  trigger: 'period' | 'operator';
  status: 'requested' | 'running' | 'done';
  requestedAt: Date;
  startedAt?: Date;
  finishedAt?: Date;
  runner?: string;
  checked: number;
  repaired: number;
  failed: number;
}

export function reconciliationRunSchema() {
  const schema = claimSchema<ReconciliationRunDoc>({
    tenantId: Number,
    trigger: String,
    status: String,
    requestedAt: Date,
    startedAt: Date,
    finishedAt: Date,
    runner: String,
    checked: { type: Number, default: 0 },
    repaired: { type: Number, default: 0 },
    failed: { type: Number, default: 0 },
  });
  schema.index({ status: 1, requestedAt: 1 });
  return schema;
}

/**
 * One later delivery of an already received event. A document of its own, not a counter on the
 * event's record: FerretDB applies an update as read-then-write of the whole document, so an
 * increment racing the record's outcome could write the outcome back.
 */
export interface PaymentRepeatDoc {
  _id: string;
  eventKey: string;
  receivedAt: Date;
}

export function paymentRepeatSchema() {
  const schema = claimSchema<PaymentRepeatDoc>({ eventKey: String, receivedAt: Date });
  schema.index({ eventKey: 1 });
  return schema;
}
