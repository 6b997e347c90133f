import { startFakePaymentGateways, type FakePaymentGateways } from '@convo/test-support';
import { GatewayApis } from '../src/domain/payments/gateway-apis';
import { readReconcilerConfig, reconcilerGatewayApis } from '../src/reconciler/config';

let fakes: FakePaymentGateways;
let clock = Date.now();

beforeAll(async () => {
  fakes = await startFakePaymentGateways();
});
afterAll(async () => fakes?.close());

const apis = (timeoutMs = 2_000) =>
  new GatewayApis(
    {
      urls: { gateway_a: fakes.asaas.url, gateway_b: fakes.stripe.url, gateway_c: fakes.mercadoPago.url, gateway_d: fakes.efi.url },
      mercadoPagoToken: fakes.mercadoPagoToken,
      efiClientId: fakes.efiClient.id,
      efiClientSecret: fakes.efiClient.secret,
      timeoutMs,
    },
    () => clock,
  );

describe('the gateways’ APIs', () => {
  it('Efí: one OAuth2 token until shortly before it expires, a new one after; a revoked token renewed once', async () => {
    const api = apis();
    fakes.setEfiNotification('tok-1', [{ id: 1, status: 'paid', customId: 'c1', createdAt: '2026-01-01 10:00:00' }]);
    const before = fakes.efiTokensIssued();
    await api.efiNotification('tok-1');
    await api.efiNotification('tok-1');
    expect(fakes.efiTokensIssued()).toBe(before + 1);
    clock += 571_000; // expires_in 600 s, renewed 30 s early
    await api.efiNotification('tok-1');
    expect(fakes.efiTokensIssued()).toBe(before + 2);
    fakes.revokeEfiTokens();
    await expect(api.efiNotification('tok-1')).resolves.toHaveLength(1);
    expect(fakes.efiTokensIssued()).toBe(before + 3);
    await expect(api.efiNotification('unknown')).resolves.toBeNull();
    const authorize = fakes.efi.requests.filter((r) => r.url === '/v1/authorize');
    expect(authorize.at(-1)).toMatchObject({ method: 'POST', body: { grant_type: 'client_credentials' } });
    expect(authorize.at(-1)!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${fakes.efiClient.id}:${fakes.efiClient.secret}`).toString('base64')}`,
    );
  });

  it('a gateway that does not answer in time is a failure (ERR_GATEWAY_API_FAILED), not a wait', async () => {
    fakes.mercadoPago.answer(() => 'hang');
    try {
      const t0 = Date.now();
      await expect(apis(300).mercadoPagoPayment('1')).rejects.toMatchObject({ code: 'ERR_GATEWAY_API_FAILED' });
      expect(Date.now() - t0).toBeLessThan(2_000);
    } finally {
      fakes.mercadoPago.reset();
    }
  });

  it('reconciliation reads each customer’s latest payment with the tenant’s own credential', async () => {
    const api = apis();
    fakes.setPayment('asaas', { id: 'pay_1', customerId: 'cus_a', status: 'OVERDUE' });
    fakes.setPayment('stripe', { id: 'in_1', customerId: 'cus_b', status: 'open', dueDate: Math.floor(clock / 1000) - 60 });
    fakes.setPayment('mercadoPago', { id: '77', customerId: '555', status: 'charged_back' });
    fakes.setPayment('efi', { id: '88', customerId: 'custom-d', status: 'settled' });
    await expect(api.latestPayment('gateway_a', 'cus_a', 'asaas-tenant-key')).resolves.toMatchObject({ status: 'overdue' });
    expect(fakes.asaas.requests.at(-1)!.headers.access_token).toBe('asaas-tenant-key');
    await expect(api.latestPayment('gateway_b', 'cus_b', 'sk_test_tenant')).resolves.toMatchObject({ status: 'overdue' });
    expect(fakes.stripe.requests.at(-1)!.headers.authorization).toBe('Bearer sk_test_tenant');
    await expect(api.latestPayment('gateway_c', '555', 'APP_USR-tenant')).resolves.toMatchObject({ status: 'refunded' });
    expect(fakes.mercadoPago.requests.at(-1)!.headers.authorization).toBe('Bearer APP_USR-tenant');
    await expect(api.latestPayment('gateway_d', 'custom-d', '')).resolves.toMatchObject({ status: 'paid' });
    await expect(api.latestPayment('gateway_a', 'cus_nobody', 'k')).resolves.toBeNull();
  });
});

describe('the reconciliation’s rate limit per gateway', () => {
  /** When each gateway's fake received its requests since `t0`, in order. */
  const arrivals = (requests: Array<{ receivedAt: number; url: string }>, t0: number, path: string) =>
    requests
      .filter((r) => r.receivedAt >= t0 && r.url.startsWith(path))
      .map((r) => r.receivedAt)
      .sort((a, b) => a - b);

  it('spaces each gateway’s reads by 1/PAYMENT_RECONCILE_RATE_PER_SECOND, each gateway at its own pace', async () => {
    // The reconciler's own wiring: its config, read from the environment as the process reads it.
    const { tenants } = readReconcilerConfig({ MONGODB_URI: 'mongodb://db/', ...fakes.env, PAYMENT_RECONCILE_RATE_PER_SECOND: '10' });
    const api = reconcilerGatewayApis(tenants);
    const t0 = Date.now();
    // Five customers of Asaas and five of Stripe asked at once, as a run's two gateways are.
    await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => api.latestPayment('gateway_a', `cus_rate_a${i}`, 'asaas-key')),
      ...Array.from({ length: 5 }, (_, i) => api.latestPayment('gateway_b', `cus_rate_b${i}`, 'sk_test_rate')),
      // Efí: one customer is four reads (one per charge_type), paced as well.
      api.latestPayment('gateway_d', 'custom-rate', ''),
    ]);
    const elapsed = Date.now() - t0;
    const asaas = arrivals(fakes.asaas.requests, t0, '/v3/payments');
    const stripe = arrivals(fakes.stripe.requests, t0, '/v1/invoices');
    const efi = arrivals(fakes.efi.requests, t0, '/v1/charges');
    expect([asaas.length, stripe.length, efi.length]).toEqual([5, 5, 4]);
    // 10 per second: the k-th read of a gateway leaves no earlier than k × 100 ms after the start
    // (a busy machine can only make it later), whatever the other gateways do.
    for (const times of [asaas, stripe, efi]) {
      times.forEach((t, k) => expect(t - t0).toBeGreaterThanOrEqual(k * 100 - 2));
    }
    expect(elapsed).toBeGreaterThanOrEqual(400);
  });

  it('bounds the webhooks’ read-backs per gateway API: in flight, then waiting, then 503 at once', async () => {
    const api = new GatewayApis({
      urls: { gateway_a: fakes.asaas.url, gateway_b: fakes.stripe.url, gateway_c: fakes.mercadoPago.url, gateway_d: fakes.efi.url },
      mercadoPagoToken: fakes.mercadoPagoToken,
      efiClientId: fakes.efiClient.id,
      efiClientSecret: fakes.efiClient.secret,
      timeoutMs: 600,
      maxConcurrent: 2,
      maxWaiting: 2,
    });
    fakes.mercadoPago.answer(() => 'hang');
    try {
      const t0 = Date.now();
      const calls = Array.from({ length: 5 }, () =>
        api.mercadoPagoPayment('1').then(
          () => 'ok',
          (e: { code?: string }) => `${e.code}@${Date.now() - t0}`,
        ),
      );
      const [first, , , , fifth] = await Promise.all(calls);
      // Two in flight, two waiting behind them: all four time out (no read is unbounded)...
      expect(first).toMatch(/^ERR_GATEWAY_API_FAILED@/);
      // ...and the fifth is refused at once rather than queued past the gateway's own timeout.
      expect(Number(fifth.split('@')[1])).toBeLessThan(300);
      expect(fakes.mercadoPago.requests.length).toBeLessThanOrEqual(4);
    } finally {
      fakes.mercadoPago.reset();
    }
  });
});
