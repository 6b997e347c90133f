// Reconciliation: each tenant's latest payment read from its gateway's API, so that a webhook the
// gateway lost is repaired. Run by the reconciler process (reconciler/main.ts) once a period and
// whenever an operator asks (GraphQL reconcilePayments), at a bounded rate per gateway.
import type { Logger } from '@convo/kit';
import type { TenantDoc } from '../../db/models';
import type { PaymentsRepository, ReconciliationRun } from '../../db/payments.repository';
import type { TenantsRepository } from '../../db/tenants.repository';
import { isOneOf, PAYMENT_GATEWAYS, type PaymentGateway } from '../catalog';
import type { GatewayApis } from './gateway-apis';
import type { PaymentsService } from './payments.service';

export interface ReconcilerOptions {
  /** PAYMENT_RECONCILE_RATE_PER_SECOND: gateway API reads per second, per gateway (applied by the GatewayApis it is given). */
  ratePerSecond: number;
}

export type TenantOutcome = 'unchanged' | 'repaired' | 'older' | 'no_payment' | 'failed';

export class Reconciler {
  constructor(
    private readonly tenants: TenantsRepository,
    private readonly payments: PaymentsRepository,
    private readonly service: PaymentsService,
    private readonly apis: GatewayApis,
    private readonly options: ReconcilerOptions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** One tenant: its gateway's latest payment, applied as a reading of now when it differs. */
  async reconcileTenant(tenant: TenantDoc): Promise<TenantOutcome> {
    const gw = tenant.paymentGateway;
    const account = isOneOf(PAYMENT_GATEWAYS, gw) ? tenant.gatewayCredentials?.[gw] : undefined;
    if (!isOneOf(PAYMENT_GATEWAYS, gw) || !account) return 'no_payment';
    let latest;
    try {
      latest = await this.apis.latestPayment(gw, account.customerId, account.token);
    } catch (err) {
      this.log.warn({ err, tenantId: tenant._id, gateway: gw }, 'reconciliation read failed');
      return 'failed';
    }
    if (!latest?.status) return 'no_payment';
    if (latest.status === tenant.paymentStatus) return 'unchanged';
    const res = await this.service.apply(
      gw,
      {
        // One reading of one payment in one state is applied once.
        eventId: `reconciliation:${latest.paymentId}:${latest.gatewayStatus}`,
        type: `reconciliation.${latest.gatewayStatus}`,
        customerId: account.customerId,
        status: latest.status,
        at: new Date(this.now()),
      },
      'reconciliation',
    );
    return res.outcome === 'applied' ? 'repaired' : res.outcome === 'older' ? 'older' : 'unchanged';
  }

  /**
   * Every tenant with a gateway (or one), the four gateways in parallel, each gateway's tenants in
   * turn; the reads are paced per gateway by GatewayApis (readsPerSecond). The run's counts kept.
   */
  async run(run: ReconciliationRun): Promise<void> {
    const counts = { checked: 0, repaired: 0, failed: 0 };
    const byGateway = new Map<PaymentGateway, TenantDoc[]>();
    for await (const t of this.tenants.tenantsWithGateway(run.tenantId)) {
      if (!isOneOf(PAYMENT_GATEWAYS, t.paymentGateway)) continue;
      byGateway.set(t.paymentGateway, [...(byGateway.get(t.paymentGateway) ?? []), t]);
    }
    await Promise.all(
      [...byGateway.values()].map(async (list) => {
        for (const t of list) {
          const outcome = await this.reconcileTenant(t);
          counts.checked++;
          if (outcome === 'repaired') counts.repaired++;
          if (outcome === 'failed') counts.failed++;
        }
      }),
    );
    await this.payments.finishRun(run._id, counts);
    this.log.info({ run: run._id, ...counts, readsPerSecondPerGateway: this.options.ratePerSecond }, 'payment reconciliation done');
  }
}
