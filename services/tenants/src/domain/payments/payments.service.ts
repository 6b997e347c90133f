import { DomainError, notFound, TtlCache, unauthenticated, type proto } from '@convo/kit';
import type { PaymentEventDoc } from '../../db/models';
import type { PaymentState, PaymentsRepository } from '../../db/payments.repository';
import type { TenantsRepository } from '../../db/tenants.repository';
import { canonicalGateway, type PaymentGateway } from '../catalog';
import { customerKey } from '../tenant-update';
import type { GatewayApis } from './gateway-apis';
import {
  asaasEvent,
  efiNotificationEvent,
  efiNotificationToken,
  mercadoPagoNotice,
  mercadoPagoPaymentEvent,
  stripeEvent,
  type Delivery,
  type GatewayEvent,
} from './webhooks';

export type WebhookSecrets = Partial<Record<PaymentGateway, string>>;

export type Outcome = 'applied' | 'older' | 'unknown_customer' | 'ignored_type' | 'other_gateway';

export interface ApplyResult {
  outcome: Outcome | 'duplicate';
  tenantId: number;
  paymentStatus: string;
}

const notConfigured = (gw: string, what: string) =>
  new DomainError('unavailable', 'ERR_WEBHOOK_NOT_CONFIGURED', `The ${gw} webhook is not configured (${what})`);
const unproven = () => unauthenticated('The webhook did not prove itself');
const busy = () => new DomainError('unavailable', 'ERR_WEBHOOK_BUSY', 'Too many payment events are waiting; the delivery will be retried');

const REMAP = Symbol('remap');

/** A Map that forgets its oldest entry beyond `max` entries. */
class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }
  override set(key: K, value: V): this {
    super.delete(key);
    if (this.size >= this.max) super.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}

/**
 * Payment-gateway webhooks: each proven the gateway's own way, recorded, and applied once per
 * (gateway, event id) in the order of the events' own times.
 */
export class PaymentsService {
  /** One status change per tenant at a time in this process (FerretDB's conditional updates are not atomic). */
  private readonly tenantQueues = new Map<number, Promise<unknown>>();
  /** Status changes waiting for their tenant's turn, all tenants together: bounded (503 beyond). */
  private waiting = 0;
  /**
   * Each tenant's payment fields as this process last read or wrote them: a decision made on them
   * is written only while the tenant still matches them (setPaymentIfUnchanged), so a stale entry
   * costs one more read, never a wrong status.
   */
  private readonly states = new BoundedMap<number, PaymentState>(10_000);
  /** Customer id → tenant, a minute: the write also checks that the tenant still holds the customer. */
  private readonly customers = new TtlCache<string, number>(60_000, 10_000, 'payment_customers');

  constructor(
    private readonly tenants: TenantsRepository,
    private readonly payments: PaymentsRepository,
    private readonly secrets: WebhookSecrets,
    private readonly apis: GatewayApis,
    private readonly now: () => number = Date.now,
    /** Status changes allowed to wait for their tenant's turn in this process. */
    private readonly maxWaiting = 2_000,
  ) {}

  async applyWebhook(req: proto.tenants.PaymentWebhookRequest__Output): Promise<proto.tenants.PaymentWebhookResponse> {
    const gw = canonicalGateway(req.gateway);
    if (!gw) throw notFound('payment gateway', `No payment gateway "${req.gateway}"`);
    const event = await this.prove(gw, { rawBody: req.rawBody, headers: req.headers, query: req.query });
    const res = await this.apply(gw, event, 'webhook');
    return {
      applied: res.outcome === 'applied',
      duplicate: res.outcome === 'duplicate',
      paymentStatus: res.paymentStatus,
      outcome: res.outcome,
    };
  }

  /** The event a delivery proves, or 401; 503 when the gateway's setting is missing. */
  private async prove(gw: PaymentGateway, d: Delivery): Promise<GatewayEvent> {
    const secret = this.secrets[gw];
    // Unavailable (503), not 401: the gateway retries, so no event is lost while the operator sets it.
    if (!secret) throw notConfigured(gw, `PAYMENT_WEBHOOK_SECRET_${gw.toUpperCase()}`);
    const now = new Date(this.now());
    switch (gw) {
      case 'gateway_a':
        return asaasEvent(secret, d, now) ?? Promise.reject(unproven());
      case 'gateway_b':
        return stripeEvent(secret, d, now.getTime()) ?? Promise.reject(unproven());
      case 'gateway_c': {
        if (!this.apis.configured(gw)) throw notConfigured(gw, 'PAYMENT_API_TOKEN_GATEWAY_C');
        const notice = mercadoPagoNotice(secret, d, now.getTime());
        if (!notice) throw unproven();
        // A signed notice of another topic, or of a payment the platform's account cannot read,
        // changes nothing; it is recorded all the same.
        const nothing = (type: string): GatewayEvent => ({
          eventId: `${type}:${notice.dataId}:${notice.requestId}`,
          type,
          customerId: '',
          at: now,
        });
        if (notice.topic && notice.topic !== 'payment') return nothing(notice.topic);
        const payment = await this.apis.mercadoPagoPayment(notice.dataId);
        if (!payment) return nothing('payment.not_found');
        const ev = mercadoPagoPaymentEvent(payment, now);
        // The payer finds the tenant; the external reference when no tenant has the payer.
        if (ev.externalReference && !(await this.tenantOf(gw, ev.customerId))) {
          ev.customerId = ev.externalReference;
        }
        return ev;
      }
      case 'gateway_d': {
        if (!this.apis.configured(gw)) throw notConfigured(gw, 'PAYMENT_CLIENT_ID_GATEWAY_D / PAYMENT_CLIENT_SECRET_GATEWAY_D');
        const token = efiNotificationToken(secret, d);
        if (!token) throw unproven();
        const history = await this.apis.efiNotification(token);
        const ev = history && efiNotificationEvent(token, history, now);
        // A token Efí does not know proves nothing.
        if (!ev) throw unproven();
        return ev;
      }
    }
  }

  /** Records a proven event and applies it once. Also the path of reconciliation's readings. */
  async apply(gw: PaymentGateway, event: GatewayEvent, source: 'webhook' | 'reconciliation', remapped = false): Promise<ApplyResult> {
    const key = customerKey(gw, event.eventId);
    const tenantId = event.customerId ? ((await this.tenantOf(gw, event.customerId)) ?? 0) : 0;
    const record = (outcome: string, forTenant = tenantId): PaymentEventDoc => ({
      _id: key,
      gateway: gw,
      eventId: event.eventId,
      type: event.type,
      customerId: event.customerId,
      tenantId: forTenant,
      status: event.status ?? '',
      eventAt: event.at,
      receivedAt: new Date(this.now()),
      outcome,
      repeats: 0,
      source,
    });
    if (!event.status || !tenantId) {
      // Nothing to change: the record, inserted once with its outcome, is all there is to do.
      const outcome: Outcome = !event.status ? 'ignored_type' : 'unknown_customer';
      if (!(await this.payments.claimEvent(record(outcome)))) return this.duplicate(key, tenantId);
      return { outcome, tenantId: event.status ? 0 : tenantId, paymentStatus: '' };
    }
    if (this.waiting >= this.maxWaiting) throw busy();
    this.waiting++;
    let res: ApplyResult | typeof REMAP;
    try {
      res = await this.serialized(tenantId, () => this.applyStatus(gw, event, key, tenantId, record, remapped));
    } finally {
      this.waiting--;
    }
    // The customer has moved to another tenant since it was looked up: once more, looked up afresh.
    return res === REMAP ? this.apply(gw, event, source, true) : res;
  }

  /**
   * One status event of one tenant, decided on the tenant as this process last saw it (no read on
   * the usual path) and written with a filter that holds only while the tenant is still as seen:
   * the record's unique insert (the claim, with its outcome) and one conditional update. A stale
   * view (another replica, an operator, the reconciler) writes nothing and is read again; an
   * outcome that changes nothing (older, other gateway) is only ever decided on a fresh read.
   */
  private async applyStatus(
    gw: PaymentGateway,
    event: GatewayEvent,
    key: string,
    tenantId: number,
    record: (outcome: string, forTenant?: number) => PaymentEventDoc,
    remapped: boolean,
  ): Promise<ApplyResult | typeof REMAP> {
    const status = event.status!;
    let claimed = false;
    const settle = async (outcome: Outcome, forTenant: number): Promise<ApplyResult | undefined> => {
      if (!claimed) {
        if (!(await this.payments.claimEvent(record(outcome, forTenant)))) return this.duplicate(key, tenantId);
      } else {
        await this.payments.finishEvent(key, { outcome, tenantId: forTenant });
      }
      return undefined;
    };
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const cached = this.states.get(tenantId);
        const state = cached ?? (await this.loadState(tenantId));
        const holds = state?.gatewayCredentials?.[gw]?.customerId === event.customerId;
        const newer = !!state?.paymentStatusAt && new Date(state.paymentStatusAt).getTime() > event.at.getTime();
        if (!state || (state.paymentGateway === gw && !holds) || state.paymentGateway !== gw || newer) {
          if (cached) {
            // Decided only on a fresh read: the cached view may be behind.
            this.states.delete(tenantId);
            continue;
          }
          if (!state || (state.paymentGateway === gw && !holds)) {
            // The customer is no longer this tenant's: its mapping is read again.
            const k = customerKey(gw, event.customerId);
            this.customers.delete(k);
            const holder = await this.tenants.tenantIdByCustomer(k);
            if (!claimed && !remapped && holder && holder !== tenantId) return REMAP;
            return (await settle('unknown_customer', 0)) ?? { outcome: 'unknown_customer', tenantId: 0, paymentStatus: '' };
          }
          // A gateway the tenant has left may still send events; they are recorded but change nothing.
          const outcome: Outcome = state.paymentGateway !== gw ? 'other_gateway' : 'older';
          return (await settle(outcome, tenantId)) ?? { outcome, tenantId, paymentStatus: state.paymentStatus };
        }
        if (!claimed) {
          if (!(await this.payments.claimEvent(record('applied')))) return this.duplicate(key, tenantId);
          claimed = true;
        }
        const set = this.statusChange(state, status, event.at);
        if (!(await this.payments.setPaymentIfUnchanged(tenantId, gw, event.customerId, state, set))) {
          this.states.delete(tenantId);
          continue;
        }
        this.states.set(tenantId, { ...state, ...(set as Partial<PaymentState>) });
        await this.recordChanges(tenantId, state, status, `${gw} event ${event.eventId} (${event.type})`);
        return { outcome: 'applied', tenantId, paymentStatus: status };
      }
      // The tenant kept changing under us (other writers): the gateway retries.
      throw busy();
    } catch (err) {
      this.states.delete(tenantId);
      // The gateway retries a failed delivery; the retry must not be taken for a repeat.
      if (claimed) await this.payments.releaseEvent(key).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The fields an applied status sets: the status and its time, the overdue clock of
   * PAYMENT_SUSPEND_AFTER_DAYS (from the event's own time), and a tenant it suspended set active
   * again by a paid event. One write with the status.
   */
  private statusChange(before: PaymentState, status: string, at: Date): Record<string, unknown> {
    const set: Record<string, unknown> = { paymentStatus: status, paymentStatusAt: at, updatedAt: new Date(this.now()) };
    if (status === 'overdue' && before.paymentStatus !== 'overdue') set.paymentOverdueSince = at;
    if (status !== 'overdue' && before.paymentOverdueSince) set.paymentOverdueSince = null;
    if (status === 'paid' && before.suspendedByPayment && before.status === 'inactive')
      Object.assign(set, { status: 'active', suspendedByPayment: false });
    return set;
  }

  /** Every change of paymentStatus, and of status by a payment, recorded with its cause. */
  private async recordChanges(tenantId: number, before: PaymentState, status: string, cause: string): Promise<void> {
    const at = new Date(this.now());
    if (before.paymentStatus !== status) {
      await this.payments.recordChange({ tenantId, field: 'paymentStatus', from: before.paymentStatus, to: status, cause, at });
    }
    if (status === 'paid' && before.suspendedByPayment && before.status === 'inactive') {
      // Recorded as following the payment's change (1 ms on), so the log lists them in that order.
      await this.payments.recordChange({
        tenantId,
        field: 'status',
        from: 'inactive',
        to: 'active',
        cause: `paid: ${cause}`,
        at: new Date(at.getTime() + 1),
      });
    }
  }

  /** A repeat: recorded beside the first delivery's record, answered from what is known of the tenant. */
  private async duplicate(key: string, tenantId: number): Promise<ApplyResult> {
    await this.payments.recordRepeat(key);
    const paymentStatus = tenantId ? (this.states.get(tenantId) ?? (await this.loadState(tenantId)))?.paymentStatus : '';
    return { outcome: 'duplicate', tenantId, paymentStatus: paymentStatus ?? '' };
  }

  private async loadState(tenantId: number): Promise<PaymentState | undefined> {
    const t = await this.tenants.findTenant(tenantId);
    if (!t) return undefined;
    const state: PaymentState = {
      paymentGateway: t.paymentGateway,
      paymentStatus: t.paymentStatus ?? '',
      paymentStatusAt: t.paymentStatusAt ?? null,
      paymentOverdueSince: t.paymentOverdueSince ?? null,
      status: t.status,
      suspendedByPayment: !!t.suspendedByPayment,
      gatewayCredentials: t.gatewayCredentials ?? {},
    };
    this.states.set(tenantId, state);
    return state;
  }

  /** The tenant holding a gateway's customer id (its claim, read by `_id`), kept a minute. */
  private async tenantOf(gw: PaymentGateway, customerId: string): Promise<number | undefined> {
    const k = customerKey(gw, customerId);
    const hit = this.customers.get(k);
    if (hit !== undefined) return hit;
    const id = await this.tenants.tenantIdByCustomer(k);
    if (id) this.customers.set(k, id);
    return id;
  }

  /** Runs `fn` after every earlier change of the same tenant in this process. */
  private serialized<T>(tenantId: number, fn: () => Promise<T>): Promise<T> {
    const previous = this.tenantQueues.get(tenantId) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.tenantQueues.set(tenantId, tail);
    void tail.then(() => {
      if (this.tenantQueues.get(tenantId) === tail) this.tenantQueues.delete(tenantId);
    });
    return run;
  }
}
