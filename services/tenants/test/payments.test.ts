import * as grpc from '@grpc/grpc-js';
import { createClient } from '@convo/kit';
import {
  asaasDelivery,
  efiDelivery,
  errCode,
  mercadoPagoDelivery,
  rpcError,
  startFakePaymentGateways,
  type FakePaymentGateways,
  type PaymentDelivery,
} from '@convo/test-support';
import { createHmac, randomUUID } from 'node:crypto';
import { startHarness, tenantRequest, uniqueIdentity, type Harness } from './support/harness';

const SECRETS = {
  gateway_a: 'asaas-webhook-token-0123456789abcdef',
  gateway_b: 'whsec_0123456789abcdef0123456789abcdef',
  gateway_c: 'mp-webhook-secret-0123456789',
  gateway_d: 'efi-hmac-0123456789',
} as const;
type Gateway = keyof typeof SECRETS;

let h: Harness;
let fakes: FakePaymentGateways;

beforeAll(async () => {
  fakes = await startFakePaymentGateways();
  h = await startHarness('tenants-payments-test', {
    PAYMENT_WEBHOOK_SECRET_GATEWAY_A: SECRETS.gateway_a,
    PAYMENT_WEBHOOK_SECRET_GATEWAY_B: SECRETS.gateway_b,
    PAYMENT_WEBHOOK_SECRET_GATEWAY_C: SECRETS.gateway_c,
    PAYMENT_WEBHOOK_SECRET_GATEWAY_D: SECRETS.gateway_d,
    PAYMENT_API_TIMEOUT_MS: '1500',
    ...fakes.env,
  });
});

afterAll(async () => {
  await h?.stop();
  await fakes?.close();
});

/** Stripe-Signature as Stripe makes it (the e2e tests check this against the stripe package itself). */
function stripeDelivery(
  secret: string,
  event: Record<string, unknown>,
  t = Math.floor(Date.now() / 1000),
  extraV1: string[] = [],
): PaymentDelivery {
  const body = JSON.stringify({ object: 'event', api_version: '2024-06-20', livemode: false, ...event });
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return { query: '', headers: { 'stripe-signature': [`t=${t}`, ...extraV1.map((s) => `v1=${s}`), `v1=${v1}`].join(',') }, body };
}

const stripeEvent = (customer: string, type: string, id = `evt_${randomUUID()}`, created = Math.floor(Date.now() / 1000)) => ({
  id,
  type,
  created,
  data: { object: { object: 'invoice', id: `in_${randomUUID()}`, customer } },
});

async function tenantOn(gateway: Gateway) {
  const customerId = gateway === 'gateway_c' ? String(Math.floor(Math.random() * 1e9)) : `cus-${randomUUID()}`;
  const { tenant } = await h.client.StoreTenant(
    tenantRequest({
      identity: uniqueIdentity(),
      paymentGateway: gateway,
      gatewayCredentials: { customerId, token: `tok-${randomUUID()}` },
      gatewayAEnabled: gateway === 'gateway_a',
    }),
  );
  return { id: tenant!.id, identity: tenant!.identity, customerId };
}

const deliver = (gateway: string, d: PaymentDelivery, client = h.client) =>
  client.ApplyPaymentWebhook({ gateway, rawBody: Buffer.from(d.body), headers: d.headers, query: d.query });

const paymentStatus = async (id: number) => (await h.client.ShowTenant({ id })).paymentStatus;

/** A paid event of each gateway, in its own format, for a tenant of that gateway. */
async function paidEvent(gateway: Gateway, customerId: string): Promise<PaymentDelivery> {
  switch (gateway) {
    case 'gateway_a':
      return asaasDelivery(SECRETS.gateway_a, { id: `evt_${randomUUID()}`, event: 'PAYMENT_RECEIVED', customer: customerId });
    case 'gateway_b':
      return stripeDelivery(SECRETS.gateway_b, stripeEvent(customerId, 'invoice.paid'));
    case 'gateway_c': {
      const id = String(Math.floor(Math.random() * 1e12));
      fakes.setPayment('mercadoPago', { id, status: 'approved', customerId });
      return mercadoPagoDelivery(SECRETS.gateway_c, id);
    }
    case 'gateway_d': {
      const token = randomUUID();
      fakes.setEfiNotification(token, [
        { id: 1, status: 'new', customId: customerId, createdAt: '2026-01-01 10:00:00' },
        { id: 2, status: 'waiting', previous: 'new', customId: customerId, createdAt: '2026-01-01 10:00:05' },
        { id: 3, status: 'paid', previous: 'waiting', customId: customerId, createdAt: '2026-01-02 09:00:00' },
      ]);
      return efiDelivery(SECRETS.gateway_d, token);
    }
  }
}

const GATEWAYS = Object.keys(SECRETS) as Gateway[];

describe('ApplyPaymentWebhook: each gateway as the real one', () => {
  it.each(GATEWAYS)('applies a %s event in its real format', async (gateway) => {
    const t = await tenantOn(gateway);
    expect(await paymentStatus(t.id)).toBe('pending');
    await expect(deliver(gateway, await paidEvent(gateway, t.customerId))).resolves.toMatchObject({
      applied: true,
      outcome: 'applied',
      paymentStatus: 'paid',
    });
    expect(await paymentStatus(t.id)).toBe('paid');
  });

  it.each([['asaas'], ['stripe'], ['mercadopago'], ['efi'], ['gerencianet']])('takes the real name %s in the path', async (name) => {
    const gateway = (
      { asaas: 'gateway_a', stripe: 'gateway_b', mercadopago: 'gateway_c', efi: 'gateway_d', gerencianet: 'gateway_d' } as const
    )[name]!;
    const t = await tenantOn(gateway);
    await expect(deliver(name, await paidEvent(gateway, t.customerId))).resolves.toMatchObject({ applied: true });
  });

  it.each(GATEWAYS)('refuses a %s delivery proven with another secret (401), changing and recording nothing', async (gateway) => {
    const t = await tenantOn(gateway);
    const d = await paidEvent(gateway, t.customerId);
    const forged: PaymentDelivery =
      gateway === 'gateway_a'
        ? { ...d, headers: { ...d.headers, 'asaas-access-token': 'not-the-token' } }
        : gateway === 'gateway_b'
          ? stripeDelivery('whsec_other', JSON.parse(d.body) as Record<string, unknown>)
          : gateway === 'gateway_c'
            ? mercadoPagoDelivery('other-secret', new URLSearchParams(d.query).get('data.id')!)
            : efiDelivery('other-hmac', new URLSearchParams(d.body).get('notification')!);
    const events = await h.count('payment_events');
    const err = await rpcError(deliver(gateway, forged));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(await paymentStatus(t.id)).toBe('pending');
    expect(await h.count('payment_events')).toBe(events);
  });

  it('Asaas: refuses a delivery without its access token, or with an empty one (401), changing and recording nothing', async () => {
    const t = await tenantOn('gateway_a');
    const d = await paidEvent('gateway_a', t.customerId);
    const { 'asaas-access-token': token, ...others } = d.headers;
    expect(token).toBe(SECRETS.gateway_a);
    const events = await h.count('payment_events');
    for (const headers of [others, { ...others, 'asaas-access-token': '' }]) {
      expect((await rpcError(deliver('gateway_a', { ...d, headers }))).code).toBe(grpc.status.UNAUTHENTICATED);
    }
    expect(await paymentStatus(t.id)).toBe('pending');
    expect(await h.count('payment_events')).toBe(events);
    await expect(deliver('gateway_a', d)).resolves.toMatchObject({ applied: true });
  });

  it('Stripe: refuses other bytes than those signed, a signature older than 300 s, and takes any matching v1', async () => {
    const t = await tenantOn('gateway_b');
    const ev = stripeEvent(t.customerId, 'invoice.paid');
    const d = stripeDelivery(SECRETS.gateway_b, ev);
    const truncated = { ...d, body: d.body.slice(0, -1) };
    expect((await rpcError(deliver('gateway_b', truncated))).code).toBe(grpc.status.UNAUTHENTICATED);
    const resigned = { ...d, body: d.body.replace('invoice.paid', 'invoice.payment_failed') };
    expect((await rpcError(deliver('gateway_b', resigned))).code).toBe(grpc.status.UNAUTHENTICATED);
    const replay = stripeDelivery(SECRETS.gateway_b, ev, Math.floor(Date.now() / 1000) - 301);
    expect((await rpcError(deliver('gateway_b', replay))).code).toBe(grpc.status.UNAUTHENTICATED);
    expect(await paymentStatus(t.id)).toBe('pending');
    // A rolled secret: Stripe signs with both; one v1 that matches is enough.
    await expect(deliver('gateway_b', stripeDelivery(SECRETS.gateway_b, ev, undefined, ['00'.repeat(32)]))).resolves.toMatchObject({
      applied: true,
    });
  });

  it('Mercado Pago: refuses a notice older than 300 s or for another data.id, and reads the payment with the platform token', async () => {
    const t = await tenantOn('gateway_c');
    const d = await paidEvent('gateway_c', t.customerId);
    const id = new URLSearchParams(d.query).get('data.id')!;
    const old = mercadoPagoDelivery(SECRETS.gateway_c, id, { tsMs: Date.now() - 301_000 });
    expect((await rpcError(deliver('gateway_c', old))).code).toBe(grpc.status.UNAUTHENTICATED);
    const otherId = { ...d, query: `data.id=${id}1&type=payment` };
    expect((await rpcError(deliver('gateway_c', otherId))).code).toBe(grpc.status.UNAUTHENTICATED);
    expect(await paymentStatus(t.id)).toBe('pending');
    fakes.mercadoPago.reset();
    await expect(deliver('gateway_c', d)).resolves.toMatchObject({ applied: true });
    expect(fakes.mercadoPago.requests.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([
      ['GET', `/v1/payments/${id}`, `Bearer ${fakes.mercadoPagoToken}`],
    ]);
  });

  it('Efí: a token Efí does not know is refused; the OAuth2 token is kept across notifications', async () => {
    const t = await tenantOn('gateway_d');
    expect((await rpcError(deliver('gateway_d', efiDelivery(SECRETS.gateway_d, randomUUID())))).code).toBe(grpc.status.UNAUTHENTICATED);
    const issued = fakes.efiTokensIssued();
    await deliver('gateway_d', await paidEvent('gateway_d', t.customerId));
    await deliver('gateway_d', await paidEvent('gateway_d', t.customerId));
    expect(fakes.efiTokensIssued()).toBe(issued);
    expect(await paymentStatus(t.id)).toBe('paid');
  });

  it('answers 503 when the gateway API does not answer in time, so the gateway retries; the retry applies', async () => {
    const t = await tenantOn('gateway_c');
    const d = await paidEvent('gateway_c', t.customerId);
    fakes.mercadoPago.answer(() => 'hang');
    try {
      const err = await rpcError(deliver('gateway_c', d));
      expect(errCode(err)).toBe('ERR_GATEWAY_API_FAILED');
    } finally {
      fakes.mercadoPago.reset();
    }
    await expect(deliver('gateway_c', d)).resolves.toMatchObject({ applied: true });
  });
});

describe('ApplyPaymentWebhook: once, in order, recorded', () => {
  it('applies an event id once; a repeat answers duplicate and is counted', async () => {
    const t = await tenantOn('gateway_a');
    const d = asaasDelivery(SECRETS.gateway_a, { id: 'evt-once', event: 'PAYMENT_OVERDUE', customer: t.customerId });
    await expect(deliver('gateway_a', d)).resolves.toMatchObject({ applied: true, paymentStatus: 'overdue' });
    await expect(deliver('gateway_a', d)).resolves.toMatchObject({ applied: false, duplicate: true, paymentStatus: 'overdue' });
    const record = await h.svc.db.collection('payment_events').findOne({ _id: 'gateway_a:evt-once' as never });
    expect(record).toMatchObject({ tenantId: t.id, outcome: 'applied', type: 'PAYMENT_OVERDUE', status: 'overdue' });
    expect(await h.count('payment_event_repeats', { eventKey: 'gateway_a:evt-once' })).toBe(1);
  });

  it('applies one of many concurrent deliveries of one event', async () => {
    const t = await tenantOn('gateway_b');
    const d = stripeDelivery(SECRETS.gateway_b, stripeEvent(t.customerId, 'invoice.paid'));
    const results = await Promise.all(Array.from({ length: 8 }, () => deliver('gateway_b', d)));
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(results.filter((r) => r.duplicate)).toHaveLength(7);
    expect(await h.count('payment_changes', { tenantId: t.id })).toBe(1);
    // Repeats racing the first delivery never write its outcome back.
    const key = `gateway_b:${JSON.parse(d.body).id}`;
    expect(await h.svc.db.collection('payment_events').findOne({ _id: key as never })).toMatchObject({ outcome: 'applied' });
    expect(await h.count('payment_event_repeats', { eventKey: key })).toBe(7);
  });

  it('lets the newer event stand when two arrive in reverse order', async () => {
    const t = await tenantOn('gateway_b');
    const now = Math.floor(Date.now() / 1000);
    const newer = stripeDelivery(SECRETS.gateway_b, stripeEvent(t.customerId, 'invoice.paid', undefined, now));
    const older = stripeDelivery(SECRETS.gateway_b, stripeEvent(t.customerId, 'invoice.payment_failed', undefined, now - 60));
    await expect(deliver('gateway_b', newer)).resolves.toMatchObject({ applied: true, paymentStatus: 'paid' });
    await expect(deliver('gateway_b', older)).resolves.toMatchObject({ applied: false, outcome: 'older', paymentStatus: 'paid' });
    expect(await paymentStatus(t.id)).toBe('paid');
  });

  it('answers every proven event, recording why nothing changed: unknown customer, ignored type, another gateway', async () => {
    const nobody = asaasDelivery(SECRETS.gateway_a, { id: `evt_${randomUUID()}`, event: 'PAYMENT_RECEIVED', customer: 'cus-nobody' });
    await expect(deliver('gateway_a', nobody)).resolves.toMatchObject({ applied: false, outcome: 'unknown_customer' });
    const t = await tenantOn('gateway_a');
    const created = asaasDelivery(SECRETS.gateway_a, { id: `evt_${randomUUID()}`, event: 'PAYMENT_CREATED', customer: t.customerId });
    await expect(deliver('gateway_a', created)).resolves.toMatchObject({ applied: false, outcome: 'ignored_type' });
    // An applied event first: the service now holds its view of the tenant, which the switch below makes stale.
    const overdue = asaasDelivery(SECRETS.gateway_a, { id: `evt_${randomUUID()}`, event: 'PAYMENT_OVERDUE', customer: t.customerId });
    await expect(deliver('gateway_a', overdue)).resolves.toMatchObject({ applied: true });
    await h.client.UpdateTenant({
      identity: t.identity,
      paymentGateway: 'gateway_b',
      gatewayPairs: [{ gateway: 'gateway_b', customerId: `cus-${randomUUID()}`, token: 'sk_test_x' }],
    });
    // Mercado Pago: a signed notice of another topic, or of a payment the platform cannot read.
    const order = mercadoPagoDelivery(SECRETS.gateway_c, '4242');
    await expect(
      deliver('gateway_c', { ...order, query: order.query.replace('type=payment', 'type=merchant_order') }),
    ).resolves.toMatchObject({ outcome: 'ignored_type' });
    await expect(deliver('gateway_c', mercadoPagoDelivery(SECRETS.gateway_c, '999000999'))).resolves.toMatchObject({
      outcome: 'ignored_type',
    });
    expect(await h.count('payment_events', { gateway: 'gateway_c', type: { $in: ['merchant_order', 'payment.not_found'] } })).toBe(2);
    const afterSwitch = await paymentStatus(t.id);
    const left = asaasDelivery(SECRETS.gateway_a, { id: `evt_${randomUUID()}`, event: 'PAYMENT_RECEIVED', customer: t.customerId });
    await expect(deliver('gateway_a', left)).resolves.toMatchObject({ applied: false, outcome: 'other_gateway' });
    expect(await paymentStatus(t.id)).toBe(afterSwitch);
    expect(afterSwitch).not.toBe('paid');
  });

  it('answers 503 ERR_WEBHOOK_NOT_CONFIGURED without the secret, and 404 for an unknown gateway', async () => {
    const replica = await h.replica({ PAYMENT_WEBHOOK_SECRET_GATEWAY_B: '' });
    const d = stripeDelivery('', stripeEvent('cus-x', 'invoice.paid'));
    const err = await rpcError(deliver('gateway_b', d, createClient('tenants', `127.0.0.1:${replica.grpcPort}`)));
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    expect(errCode(err)).toBe('ERR_WEBHOOK_NOT_CONFIGURED');
    expect(errCode(await rpcError(deliver('gateway_z', d)))).toBe('ERR_PAYMENT_GATEWAY_NOT_FOUND');
  });
});
