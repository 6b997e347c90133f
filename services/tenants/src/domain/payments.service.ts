import { DomainError, notFound, unauthenticated, validation, type proto } from '@convo/kit';
import type { TenantsRepository } from '../db/tenants.repository';
import { isOneOf, PAYMENT_GATEWAYS } from './catalog';
import { parsePaymentEvent, VERIFIERS, type WebhookSecrets } from './payment-webhooks';
import { customerKey } from './tenant-update';

/** Payment-gateway webhooks: authenticated per gateway, applied once per event id. */
export class PaymentsService {
  constructor(
    private readonly repo: TenantsRepository,
    private readonly secrets: WebhookSecrets,
    private readonly now: () => number = Date.now,
  ) {}

  async applyWebhook(req: proto.tenants.PaymentWebhookRequest__Output): Promise<proto.tenants.PaymentWebhookResponse> {
    const gw = req.gateway;
    if (!isOneOf(PAYMENT_GATEWAYS, gw)) throw notFound('payment gateway', `No payment gateway "${gw}"`);
    const secret = this.secrets[gw];
    // Unavailable (503), not 401: the gateway retries, so no event is lost while the operator sets the secret.
    if (!secret) throw new DomainError('unavailable', 'ERR_WEBHOOK_NOT_CONFIGURED', `No webhook secret is configured for ${gw}`);
    if (!VERIFIERS[gw](secret, req.rawBody, req.headers, this.now())) throw unauthenticated('Invalid webhook signature or token');

    const { event, issues } = parsePaymentEvent(req.rawBody);
    if (!event) throw validation('Invalid payment event', issues.list);
    const tenantId = await this.repo.tenantIdByCustomer(customerKey(gw, event.customerId));
    const tenant = tenantId === undefined ? null : await this.repo.findTenant(tenantId);
    if (!tenant) throw notFound('customer', `No tenant has the ${gw} customer ${event.customerId}`);

    const eventKey = customerKey(gw, event.eventId);
    if (!(await this.repo.claimPaymentEvent(eventKey, tenant._id, event.status))) {
      return { applied: false, duplicate: true, paymentStatus: tenant.paymentStatus };
    }
    // A gateway the tenant has left may still send events; they are recorded but change nothing.
    if (tenant.paymentGateway !== gw) return { applied: false, duplicate: false, paymentStatus: tenant.paymentStatus };
    try {
      await this.repo.setPaymentStatus(tenant._id, event.status);
    } catch (err) {
      // The gateway retries a failed delivery; the retry must not be taken for a duplicate.
      await this.repo.releasePaymentEvent(eventKey);
      throw err;
    }
    return { applied: true, duplicate: false, paymentStatus: event.status };
  }
}
