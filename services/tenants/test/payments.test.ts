import * as grpc from '@grpc/grpc-js';
import { createClient } from '@convo/kit';
import { errCode, errFields, rpcError } from '@convo/test-support';
import { createHmac, randomUUID } from 'node:crypto';
import { startHarness, tenantRequest, uniqueIdentity, type Harness } from './support/harness';

const SECRETS = {
  gateway_a: 'secret-a-0123456789',
  gateway_b: 'secret-b-0123456789',
  gateway_c: 'secret-c-0123456789',
  gateway_d: 'secret-d-0123456789',
} as const;
type Gateway = keyof typeof SECRETS;

let h: Harness;

beforeAll(async () => {
  h = await startHarness('tenants-payments-test', {
    PAYMENT_WEBHOOK_SECRET_GATEWAY_A: SECRETS.gateway_a,
    PAYMENT_WEBHOOK_SECRET_GATEWAY_B: SECRETS.gateway_b,
    PAYMENT_WEBHOOK_SECRET_GATEWAY_C: SECRETS.gateway_c,
    PAYMENT_WEBHOOK_SECRET_GATEWAY_D: SECRETS.gateway_d,
  });
});

afterAll(async () => {
  await h?.stop();
});

const hmac = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('hex');

/** Headers as each gateway's real deliveries carry them (docs/api/payments.md). */
function signed(gateway: Gateway, body: string, secret: string = SECRETS[gateway], at = Math.floor(Date.now() / 1000)): Record<string, string> {
  switch (gateway) {
    case 'gateway_a':
      return { 'x-webhook-token': secret };
    case 'gateway_b':
      return { 'x-webhook-signature': `sha256=${hmac(secret, body)}` };
    case 'gateway_c':
      return { authorization: `Bearer ${secret}` };
    case 'gateway_d':
      return { 'x-webhook-signature': `t=${at},v1=${hmac(secret, `${at}.${body}`)}` };
  }
}

async function tenantOn(gateway: Gateway) {
  const customerId = `cus-${randomUUID()}`;
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

const event = (customerId: string, status: string, eventId = `evt-${randomUUID()}`) => JSON.stringify({ eventId, customerId, status });

const deliver = (gateway: string, body: string, headers: Record<string, string>, client = h.client) =>
  client.ApplyPaymentWebhook({ gateway, rawBody: Buffer.from(body), headers });

const paymentStatus = async (id: number) => (await h.client.ShowTenant({ id })).paymentStatus;

describe('ApplyPaymentWebhook', () => {
  it.each(Object.keys(SECRETS) as Gateway[])('applies a %s delivery authenticated as that gateway signs it', async (gateway) => {
    const t = await tenantOn(gateway);
    expect(await paymentStatus(t.id)).toBe('pending');
    const body = event(t.customerId, 'paid');
    await expect(deliver(gateway, body, signed(gateway, body))).resolves.toMatchObject({ applied: true, duplicate: false, paymentStatus: 'paid' });
    expect(await paymentStatus(t.id)).toBe('paid');
  });

  it.each(Object.keys(SECRETS) as Gateway[])('refuses a %s delivery with a wrong secret with 401, changing nothing', async (gateway) => {
    const t = await tenantOn(gateway);
    const body = event(t.customerId, 'overdue');
    const events = await h.count('payment_events');
    const err = await rpcError(deliver(gateway, body, signed(gateway, body, 'wrong-secret-0000000')));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(await paymentStatus(t.id)).toBe('pending');
    expect(await h.count('payment_events')).toBe(events);
  });

  it('refuses a signature over other bytes than the body received', async () => {
    const t = await tenantOn('gateway_b');
    const headers = signed('gateway_b', event(t.customerId, 'paid'));
    expect((await rpcError(deliver('gateway_b', event(t.customerId, 'canceled'), headers))).code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('refuses a gateway_d delivery signed too long ago (a replay)', async () => {
    const t = await tenantOn('gateway_d');
    const body = event(t.customerId, 'paid');
    const old = Math.floor(Date.now() / 1000) - 600;
    expect((await rpcError(deliver('gateway_d', body, signed('gateway_d', body, SECRETS.gateway_d, old)))).code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('applies an event id once', async () => {
    const t = await tenantOn('gateway_c');
    const first = event(t.customerId, 'paid', 'evt-once');
    await deliver('gateway_c', first, signed('gateway_c', first));
    const again = event(t.customerId, 'canceled', 'evt-once');
    await expect(deliver('gateway_c', again, signed('gateway_c', again))).resolves.toMatchObject({ applied: false, duplicate: true, paymentStatus: 'paid' });
    expect(await paymentStatus(t.id)).toBe('paid');
    // The same id from another gateway is another event.
    const other = await tenantOn('gateway_a');
    const fromA = event(other.customerId, 'overdue', 'evt-once');
    await expect(deliver('gateway_a', fromA, signed('gateway_a', fromA))).resolves.toMatchObject({ applied: true });
  });

  it('applies one of many concurrent deliveries of one event', async () => {
    const t = await tenantOn('gateway_b');
    const body = event(t.customerId, 'paid', `evt-${randomUUID()}`);
    const results = await Promise.all(Array.from({ length: 8 }, () => deliver('gateway_b', body, signed('gateway_b', body))));
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(results.filter((r) => r.duplicate)).toHaveLength(7);
  });

  it("changes nothing when the tenant's payment gateway is another one", async () => {
    const t = await tenantOn('gateway_b');
    await h.client.UpdateTenant({
      identity: t.identity,
      paymentGateway: 'gateway_c',
      gatewayPairs: [{ gateway: 'gateway_c', customerId: `cus-${randomUUID()}`, token: 'tok' }],
    });
    const body = event(t.customerId, 'canceled');
    await expect(deliver('gateway_b', body, signed('gateway_b', body))).resolves.toMatchObject({ applied: false, duplicate: false, paymentStatus: 'pending' });
    expect(await paymentStatus(t.id)).toBe('pending');
  });

  it('answers 404 for a customer no tenant has, and for an unknown gateway', async () => {
    const body = event('cus-nobody', 'paid');
    const err = await rpcError(deliver('gateway_a', body, signed('gateway_a', body)));
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(errCode(err)).toBe('ERR_CUSTOMER_NOT_FOUND');
    expect(errCode(await rpcError(deliver('gateway_z', body, {})))).toBe('ERR_PAYMENT_GATEWAY_NOT_FOUND');
  });

  it('refuses a malformed event with every field at fault', async () => {
    const body = JSON.stringify({ eventId: '', status: 'refunded' });
    const err = await rpcError(deliver('gateway_a', body, signed('gateway_a', body)));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err)).toEqual(['eventId', 'customerId', 'status']);
    expect(errFields(await rpcError(deliver('gateway_a', 'not json', signed('gateway_a', 'not json'))))).toEqual(['(body)']);
  });

  it('answers UNAVAILABLE when the gateway has no secret configured, so the gateway retries', async () => {
    const replica = await h.replica({ PAYMENT_WEBHOOK_SECRET_GATEWAY_B: '' });
    const body = event('cus-x', 'paid');
    const err = await rpcError(deliver('gateway_b', body, signed('gateway_b', body, ''), createClient('tenants', `127.0.0.1:${replica.grpcPort}`)));
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    expect(errCode(err)).toBe('ERR_WEBHOOK_NOT_CONFIGURED');
  });
});
