import type { Mesh } from '@convo/dev-mesh';
import {
  asaasDelivery,
  efiDelivery,
  mercadoPagoDelivery,
  startFakePaymentGateways,
  type FakePaymentGateways,
  type PaymentDelivery,
} from '@convo/test-support';
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { call, eventually, type Reply } from '../support/http';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const SECRETS = {
  gateway_a: 'asaas-webhook-token-e2e-0123456789abcdef',
  gateway_b: 'whsec_e2e0123456789abcdef0123456789abcdef',
  gateway_c: 'mp-webhook-secret-e2e-0123456789',
  gateway_d: 'efi-hmac-e2e-0123456789',
} as const;
type Gateway = keyof typeof SECRETS;
const REAL_NAME: Record<Gateway, string> = { gateway_a: 'asaas', gateway_b: 'stripe', gateway_c: 'mercadopago', gateway_d: 'efi' };
const GATEWAYS = Object.keys(SECRETS) as Gateway[];

/** Stripe's own code signs the test events, so our verifier is checked against Stripe's, not against itself. */
const stripe = new Stripe('sk_test_e2e_not_a_real_key');

function stripeDelivery(
  event: { id: string; type: string; created: number; customer: string },
  timestamp?: number,
  secret: string = SECRETS.gateway_b,
): PaymentDelivery {
  const body = JSON.stringify(
    {
      id: event.id,
      object: 'event',
      api_version: '2024-06-20',
      created: event.created,
      livemode: false,
      type: event.type,
      data: { object: { id: `in_${randomUUID().slice(0, 14)}`, object: 'invoice', customer: event.customer, status: 'paid' } },
    },
    null,
    2,
  );
  const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, ...(timestamp ? { timestamp } : {}) });
  return { query: '', headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header }, body };
}

/** Efí and Asaas write Brazilian local time without a zone. */
const brazilLocal = (ms: number) => new Date(ms - 3 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');

describe('payment gateways as the real ones, end to end', () => {
  let mesh: Mesh;
  let fakes: FakePaymentGateways;
  let admin: string;
  let B: string;

  beforeAll(async () => {
    fakes = await startFakePaymentGateways();
    const env = {
      ...Object.fromEntries(Object.entries(SECRETS).map(([gw, s]) => [`PAYMENT_WEBHOOK_SECRET_${gw.toUpperCase()}`, s])),
      ...fakes.env,
      PAYMENT_RECONCILE_POLL_MS: '200',
      PAYMENT_RECONCILE_RATE_PER_SECOND: '50',
      PAYMENT_SUSPEND_AFTER_DAYS: '3',
    };
    mesh = await startMesh({ freePorts: true, env });
    admin = mesh.superAdminToken;
    B = mesh.gatewayUrl;
  });

  afterAll(async () => {
    await mesh?.stop();
    await fakes?.close();
  });

  const as = (path: string, body?: unknown) => call(`${B}${path}`, { token: admin, body });
  const ok = (res: Reply) => {
    expect({ status: res.status, success: res.body?.success }).toEqual({ status: 200, success: true });
    return res.body.data;
  };
  const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await call(`${B}/graphql`, { token: admin, body: { query, variables } });
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };
  const post = async (name: string, d: PaymentDelivery): Promise<Reply> => {
    const res = await fetch(`${B}/webhooks/payments/${name}${d.query ? `?${d.query}` : ''}`, {
      method: 'POST',
      headers: d.headers,
      body: d.body,
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, body: await res.json() };
  };
  const statusOf = async (id: number) => ok(await as('/tenantApiShowTenant', { id })).paymentStatus;
  const changesOf = async (tenantId: number) =>
    (await graphql('query($t: Int!) { paymentChanges(tenantId: $t) { from to cause } }', { t: tenantId })).paymentChanges as Array<{
      from: string;
      to: string;
      cause: string;
    }>;

  /** A tenant provisioned as a real client does it: the gateway's real name, its pair and (Asaas) its flag. */
  async function tenantOn(gw: Gateway) {
    const name = REAL_NAME[gw];
    const customerId = gw === 'gateway_c' ? String(Math.floor(Math.random() * 1e10)) : `cus_${randomUUID().slice(0, 12)}`;
    const data = ok(
      await as('/tenantApiStoreTenant', {
        status: 'active',
        name: `Pay ${name}`,
        maxUsers: 5,
        maxConnections: 5,
        acceptTerms: true,
        identity: `${Date.now()}${Math.floor(Math.random() * 1e6)}`.slice(-14),
        email: `admin-${randomUUID()}@pay.example`,
        password: 'S3cure!pass',
        userName: 'Ana',
        profile: 'admin',
        paymentGateway: name,
        [`${name}CustomerId`]: customerId,
        [`${name}Token`]: gw === 'gateway_b' ? 'sk_test_tenant_0000000000' : `tok-${randomUUID()}`,
        ...(gw === 'gateway_a' ? { asaas: 'enabled' } : {}),
      }),
    );
    // Answers keep the seed's names.
    expect(data.tenant).toMatchObject({ paymentGateway: gw, paymentStatus: 'pending', [`${gw}CustomerId`]: customerId });
    return { id: data.tenant.id as number, customerId };
  }

  /** An event of `gw` meaning `meaning` at `atMs`, in the gateway's own format (the fakes hold what MP and Efí read back). */
  function event(gw: Gateway, customerId: string, meaning: 'paid' | 'overdue', atMs = Date.now()): PaymentDelivery {
    switch (gw) {
      case 'gateway_a':
        return asaasDelivery(SECRETS.gateway_a, {
          id: `evt_${randomUUID()}`,
          event: meaning === 'paid' ? 'PAYMENT_RECEIVED' : 'PAYMENT_OVERDUE',
          customer: customerId,
          dateCreated: brazilLocal(atMs),
        });
      case 'gateway_b':
        return stripeDelivery({
          id: `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
          type: meaning === 'paid' ? 'invoice.paid' : 'invoice.payment_failed',
          created: Math.floor(atMs / 1000),
          customer: customerId,
        });
      case 'gateway_c': {
        const id = String(Math.floor(Math.random() * 1e12));
        fakes.setPayment('mercadoPago', {
          id,
          customerId,
          status: meaning === 'paid' ? 'approved' : 'pending',
          updatedAt: new Date(atMs).toISOString(),
        });
        return mercadoPagoDelivery(SECRETS.gateway_c, id);
      }
      case 'gateway_d': {
        const token = randomUUID();
        fakes.setEfiNotification(token, [
          { id: 1, status: 'waiting', customId: customerId, createdAt: brazilLocal(atMs - 60_000) },
          {
            id: 2,
            status: meaning === 'paid' ? 'paid' : 'unpaid',
            previous: 'waiting',
            customId: customerId,
            createdAt: brazilLocal(atMs),
          },
        ]);
        return efiDelivery(SECRETS.gateway_d, token);
      }
    }
  }

  it.each(GATEWAYS)('%s: a real-format event changes the tenant through the mesh; a repeat changes it once', async (gw) => {
    const t = await tenantOn(gw);
    const d = event(gw, t.customerId, 'paid');
    expect(ok(await post(REAL_NAME[gw], d))).toMatchObject({ received: true, applied: true, outcome: 'applied' });
    expect(await statusOf(t.id)).toBe('paid');
    // The seed's name in the path is the same gateway, and a repeat is answered 200 without a change.
    expect(ok(await post(gw, d))).toMatchObject({ applied: false, duplicate: true });
    expect(await changesOf(t.id)).toEqual([{ from: 'pending', to: 'paid', cause: expect.stringContaining(gw) }]);
  });

  it.each(GATEWAYS)('%s: forged, replayed, truncated or re-signed deliveries answer 401 and change nothing', async (gw) => {
    const t = await tenantOn(gw);
    const good = event(gw, t.customerId, 'paid');
    const bad: PaymentDelivery[] = [];
    switch (gw) {
      case 'gateway_a':
        bad.push(
          { ...good, headers: { ...good.headers, 'asaas-access-token': 'guessed-token' } },
          { ...good, headers: { 'content-type': 'application/json' } },
        );
        break;
      case 'gateway_b': {
        const ev = JSON.parse(good.body) as { id: string; type: string; created: number; data: { object: { customer: string } } };
        const base = { id: ev.id, type: ev.type, created: ev.created, customer: t.customerId };
        bad.push(
          stripeDelivery(base, undefined, 'whsec_forged_0000000000000000'),
          stripeDelivery(base, Math.floor(Date.now() / 1000) - 301),
          { ...good, body: good.body.slice(0, -2) },
          { ...good, body: good.body.replace('invoice.paid', 'invoice.payment_failed') },
        );
        break;
      }
      case 'gateway_c': {
        const id = new URLSearchParams(good.query).get('data.id')!;
        bad.push(
          mercadoPagoDelivery('forged-secret', id),
          mercadoPagoDelivery(SECRETS.gateway_c, id, { tsMs: Date.now() - 301_000 }),
          { ...good, query: `data.id=${id.slice(0, -1)}&type=payment` },
          { ...good, headers: { ...good.headers, 'x-request-id': randomUUID() } },
        );
        break;
      }
      case 'gateway_d': {
        const token = new URLSearchParams(good.body).get('notification')!;
        bad.push(efiDelivery('forged-hmac', token), efiDelivery(SECRETS.gateway_d, randomUUID()), { ...good, query: '' });
        break;
      }
    }
    for (const d of bad) {
      const res = await post(REAL_NAME[gw], d);
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 401, error: 'ERR_UNAUTHORIZED' });
    }
    expect(await statusOf(t.id)).toBe('pending');
    expect(await changesOf(t.id)).toEqual([]);
    ok(await post(REAL_NAME[gw], good));
    expect(await statusOf(t.id)).toBe('paid');
  });

  it.each(GATEWAYS)('%s: two events delivered in reverse order leave the newer status', async (gw) => {
    const t = await tenantOn(gw);
    const now = Date.now() - 5_000;
    const older = event(gw, t.customerId, 'overdue', now - 120_000);
    const newer = event(gw, t.customerId, 'paid', now);
    expect(ok(await post(REAL_NAME[gw], newer))).toMatchObject({ applied: true });
    expect(ok(await post(REAL_NAME[gw], older))).toMatchObject({ applied: false, outcome: 'older' });
    expect(await statusOf(t.id)).toBe('paid');
  });

  it('shows every proven webhook to operators in GraphQL, with why it changed nothing', async () => {
    const t = await tenantOn('gateway_a');
    const d = asaasDelivery(SECRETS.gateway_a, { id: `evt_${randomUUID()}`, event: 'PAYMENT_CREATED', customer: t.customerId });
    expect(ok(await post('asaas', d))).toMatchObject({ applied: false, outcome: 'ignored_type' });
    const nobody = asaasDelivery(SECRETS.gateway_a, { id: `evt_${randomUUID()}`, event: 'PAYMENT_RECEIVED', customer: 'cus_nobody' });
    expect(ok(await post('asaas', nobody))).toMatchObject({ applied: false, outcome: 'unknown_customer' });
    const { paymentWebhooks } = await graphql('{ paymentWebhooks(limit: 50) { gateway eventId type customerId tenantId outcome source } }');
    expect(paymentWebhooks).toEqual(
      expect.arrayContaining([
        {
          gateway: 'gateway_a',
          eventId: JSON.parse(d.body).id,
          type: 'PAYMENT_CREATED',
          customerId: t.customerId,
          tenantId: t.id,
          outcome: 'ignored_type',
          source: 'webhook',
        },
        expect.objectContaining({ eventId: JSON.parse(nobody.body).id, tenantId: null, outcome: 'unknown_customer' }),
      ]),
    );
  });

  it.each([
    ['gateway_a', 'asaas', 'OVERDUE', 'overdue'],
    ['gateway_b', 'stripe', 'uncollectible', 'overdue'],
    ['gateway_c', 'mercadoPago', 'refunded', 'refunded'],
    ['gateway_d', 'efi', 'canceled', 'canceled'],
  ] as const)(
    '%s: a webhook the gateway lost is repaired by the reconciler process on request',
    async (gw, fake, gatewayStatus, repaired) => {
      const t = await tenantOn(gw);
      ok(await post(REAL_NAME[gw], event(gw, t.customerId, 'paid', Date.now() - 60_000)));
      expect(await statusOf(t.id)).toBe('paid');
      // The gateway changes the payment and never posts.
      fakes.setPayment(fake, { id: String(Math.floor(Math.random() * 1e9)), customerId: t.customerId, status: gatewayStatus });
      const { reconcilePayments } = await graphql('mutation($t: Int) { reconcilePayments(tenantId: $t) { id status } }', { t: t.id });
      expect(reconcilePayments.status).toBe('requested');
      const run = await eventually('the reconciliation run', async () => {
        const { paymentReconciliation: r } = await graphql(
          'query($id: String!) { paymentReconciliation(id: $id) { status checked repaired failed } }',
          { id: reconcilePayments.id },
        );
        return r.status === 'done' && r;
      });
      expect(run).toEqual({ status: 'done', checked: 1, repaired: 1, failed: 0 });
      expect(await statusOf(t.id)).toBe(repaired);
      expect((await changesOf(t.id))[0]).toMatchObject({ from: 'paid', to: repaired, cause: expect.stringContaining('reconciliation') });
    },
  );

  it('takes the real names on update: one pair at a time, none clears', async () => {
    const t = await tenantOn('gateway_a');
    const identity = (ok(await as('/tenantApiShowTenant', { id: t.id })) as { identity: string }).identity;
    const bad = await as('/tenantApiUpdateTenant', { identity, paymentGateway: 'stripe', asaasCustomerId: 'cus_x', asaasToken: 'tok' });
    expect(bad.status).toBe(400);
    const moved = ok(
      await as('/tenantApiUpdateTenant', {
        identity,
        paymentGateway: 'gerencianet',
        gerencianetCustomerId: 'efi-custom-1',
        gerencianetToken: 'efi-tok-000000000',
      }),
    );
    expect(moved).toMatchObject({
      paymentGateway: 'gateway_d',
      gateway_a: 'disabled',
      gateway_dCustomerId: 'efi-custom-1',
      paymentStatus: 'pending',
    });
    const cleared = ok(await as('/tenantApiUpdateTenant', { identity, paymentGateway: 'none' }));
    expect(cleared).toMatchObject({ paymentGateway: null, paymentStatus: null });
    const back = ok(await as('/tenantApiUpdateTenant', { identity, paymentGateway: 'asaas', asaas: 'enabled' }));
    expect(back).toMatchObject({ paymentGateway: 'gateway_a', gateway_a: 'enabled', gateway_aCustomerId: t.customerId });
  });

  it('PAYMENT_SUSPEND_AFTER_DAYS: overdue that long sets the tenant inactive, a paid event active again, each change with its cause', async () => {
    const t = await tenantOn('gateway_b');
    const day = 86_400_000;
    // Overdue for two days: not yet.
    ok(await post('stripe', event('gateway_b', t.customerId, 'overdue', Date.now() - 2 * day)));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(ok(await as('/tenantApiShowTenant', { id: t.id })).status).toBe('active');
    // A later overdue event does not restart the clock; an older one (four days) is older than the stored status.
    expect(ok(await post('stripe', event('gateway_b', t.customerId, 'overdue', Date.now() - 4 * day)))).toMatchObject({ outcome: 'older' });
    const t2 = await tenantOn('gateway_b');
    ok(await post('stripe', event('gateway_b', t2.customerId, 'overdue', Date.now() - 4 * day)));
    await eventually('the suspension', async () => ok(await as('/tenantApiShowTenant', { id: t2.id })).status === 'inactive');
    expect(ok(await as('/tenantApiShowTenant', { id: t.id })).status).toBe('active');
    ok(await post('stripe', event('gateway_b', t2.customerId, 'paid')));
    expect(ok(await as('/tenantApiShowTenant', { id: t2.id }))).toMatchObject({ status: 'active', paymentStatus: 'paid' });
    const { paymentChanges } = await graphql('query($t: Int!) { paymentChanges(tenantId: $t) { field from to cause } }', { t: t2.id });
    expect(paymentChanges.map((c: { field: string; to: string }) => `${c.field}:${c.to}`)).toEqual([
      'status:active',
      'paymentStatus:paid',
      'status:inactive',
      'paymentStatus:overdue',
    ]);
    expect(paymentChanges[2].cause).toMatch(/overdue since .*more than 3 days/);
  });
});
