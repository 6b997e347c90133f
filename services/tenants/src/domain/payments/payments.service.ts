import { DomainError, notFound, unauthenticated, type proto } from '@convo/kit';
import type { PaymentEventDoc, TenantDoc } from '../../db/models';
import type { PaymentsRepository } from '../../db/payments.repository';
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

/**
 * Payment-gateway webhooks: each proven the gateway's own way, recorded, and applied once per
 * (gateway, event id) in the order of the events' own times.
 */
export class PaymentsService {
  /** One status change per tenant at a time in this process (FerretDB's conditional updates are not atomic). */
  private readonly tenantQueues = new Map<number, Promise<unknown>>();

  constructor(
    private readonly tenants: TenantsRepository,
    private readonly payments: PaymentsRepository,
    private readonly secrets: WebhookSecrets,
    private readonly apis: GatewayApis,
    private readonly now: () => number = Date.now,
  ) {}

  async applyWebhook(req: proto.tenants.PaymentWebhookRequest__Output): Promise<proto.tenants.PaymentWebhookResponse> {
    const gw = canonicalGateway(req.gateway);
    if (!gw) throw notFound('payment gateway', `No payment gateway "${req.gateway}"`);
    const event = await this.prove(gw, { rawBody: req.rawBody, headers: req.headers, query: req.query });
    const res = await this.apply(gw, event, 'webhook');
    return { applied: res.outcome === 'applied', duplicate: res.outcome === 'duplicate', paymentStatus: res.paymentStatus, outcome: res.outcome };
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
        const nothing = (type: string): GatewayEvent => ({ eventId: `${type}:${notice.dataId}:${notice.requestId}`, type, customerId: '', at: now });
        if (notice.topic && notice.topic !== 'payment') return nothing(notice.topic);
        const payment = await this.apis.mercadoPagoPayment(notice.dataId);
        if (!payment) return nothing('payment.not_found');
        const ev = mercadoPagoPaymentEvent(payment, now);
        // The payer finds the tenant; the external reference when no tenant has the payer.
        if (ev.externalReference && !(await this.tenants.tenantIdByCustomer(customerKey(gw, ev.customerId)))) {
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
  async apply(gw: PaymentGateway, event: GatewayEvent, source: 'webhook' | 'reconciliation'): Promise<ApplyResult> {
    const key = customerKey(gw, event.eventId);
    const tenantId = event.customerId ? ((await this.tenants.tenantIdByCustomer(customerKey(gw, event.customerId))) ?? 0) : 0;
    const record: PaymentEventDoc = {
      _id: key,
      gateway: gw,
      eventId: event.eventId,
      type: event.type,
      customerId: event.customerId,
      tenantId,
      status: event.status ?? '',
      eventAt: event.at,
      receivedAt: new Date(this.now()),
      outcome: 'processing',
      repeats: 0,
      source,
    };
    if (!(await this.payments.claimEvent(record))) {
      const first = await this.payments.countRepeat(key);
      const tenant = first?.tenantId ? await this.tenants.findTenant(first.tenantId) : null;
      return { outcome: 'duplicate', tenantId: first?.tenantId ?? 0, paymentStatus: tenant?.paymentStatus ?? '' };
    }
    try {
      const res = await this.decide(gw, event, tenantId);
      await this.payments.finishEvent(key, { outcome: res.outcome });
      return res;
    } catch (err) {
      // The gateway retries a failed delivery; the retry must not be taken for a repeat.
      await this.payments.releaseEvent(key).catch(() => undefined);
      throw err;
    }
  }

  private async decide(gw: PaymentGateway, event: GatewayEvent, tenantId: number): Promise<ApplyResult> {
    const status = event.status;
    if (!status) return { outcome: 'ignored_type', tenantId, paymentStatus: '' };
    if (!tenantId) return { outcome: 'unknown_customer', tenantId: 0, paymentStatus: '' };
    const result = async (outcome: Outcome, paymentStatus?: string): Promise<ApplyResult> => ({
      outcome,
      tenantId,
      paymentStatus: paymentStatus ?? (await this.tenants.findTenant(tenantId))?.paymentStatus ?? '',
    });
    return this.serialized(tenantId, async () => {
      // One write on the usual path; why nothing was written is read only when it was not.
      const before = await this.payments.setStatusIfNotNewer(tenantId, gw, status, event.at);
      if (!before) {
        const tenant = await this.tenants.findTenant(tenantId);
        if (!tenant) return { outcome: 'unknown_customer', tenantId: 0, paymentStatus: '' };
        // A gateway the tenant has left may still send events; they are recorded but change nothing.
        return result(tenant.paymentGateway !== gw ? 'other_gateway' : 'older', tenant.paymentStatus);
      }
      const cause = `${gw} event ${event.eventId} (${event.type})`;
      if (before.paymentStatus !== status) {
        await this.payments.recordChange({ tenantId, field: 'paymentStatus', from: before.paymentStatus, to: status, cause, at: new Date(this.now()) });
      }
      await this.afterStatus(before, status, event.at, cause);
      return result('applied', status);
    });
  }

  /**
   * The overdue clock of PAYMENT_SUSPEND_AFTER_DAYS (from the event's own time), and a tenant it
   * suspended set active again by a paid event.
   */
  private async afterStatus(before: TenantDoc, status: string, at: Date, cause: string): Promise<void> {
    const set: Record<string, unknown> = {};
    if (status === 'overdue' && before.paymentStatus !== 'overdue') set.paymentOverdueSince = at;
    if (status !== 'overdue' && before.paymentOverdueSince) set.paymentOverdueSince = null;
    const reactivate = status === 'paid' && before.suspendedByPayment && before.status === 'inactive';
    if (reactivate) Object.assign(set, { status: 'active', suspendedByPayment: false });
    if (!Object.keys(set).length) return;
    await this.payments.setPaymentSide(before._id, set);
    if (reactivate) {
      await this.payments.recordChange({ tenantId: before._id, field: 'status', from: 'inactive', to: 'active', cause: `paid: ${cause}`, at: new Date(this.now()) });
    }
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
