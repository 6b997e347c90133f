import { createHmac, randomUUID } from 'node:crypto';
import { startFakeProvider, type FakeProvider, type ProviderReply, type ProviderRequest } from './fake-provider';

/** A payment as a fake gateway keeps it: enough for each gateway's own answer shape. */
export interface FakePayment {
  id: string;
  /** The gateway's own status word (Asaas `RECEIVED`, Stripe invoice `paid`, Mercado Pago `approved`, Efí `paid`). */
  status: string;
  /** Asaas customer, Stripe customer, Mercado Pago payer.id, Efí custom_id. */
  customerId: string;
  /** ISO time of the payment's last change. */
  updatedAt?: string;
  externalReference?: string;
  /** Stripe: unix due date of an open invoice. */
  dueDate?: number;
  /** Efí: the charge's type as `GET /v1/charges` filters it (default `billet`). */
  chargeType?: 'billet' | 'card' | 'carnet' | 'subscription';
}

/** The four gateways' APIs on loopback, answering in each one's own shape and recording every request. */
export interface FakePaymentGateways {
  asaas: FakeProvider;
  stripe: FakeProvider;
  mercadoPago: FakeProvider;
  efi: FakeProvider;
  /** PAYMENT_API_URL_GATEWAY_A … _D, the platform's Mercado Pago token and Efí OAuth client. */
  env: Record<string, string>;
  mercadoPagoToken: string;
  efiClient: { id: string; secret: string };
  /** Sets (or changes) a payment; it becomes the customer's latest. No webhook is posted. */
  setPayment(gateway: 'asaas' | 'stripe' | 'mercadoPago' | 'efi', payment: FakePayment): void;
  /** Efí: a notification token and the charge history it answers (oldest first). */
  setEfiNotification(
    token: string,
    history: Array<{ id: number; status: string; previous?: string; customId: string; createdAt: string; chargeId?: number }>,
  ): void;
  /** Access tokens Efí's /v1/authorize has issued so far. */
  efiTokensIssued(): number;
  /** Efí refuses every token issued so far (as when they are revoked before they expire). */
  revokeEfiTokens(): void;
  close(): Promise<void>;
}

const json = (status: number, body: unknown): ProviderReply => ({ status, body });
/** Efí writes times as Brazilian local time without a zone: "2026-11-26 10:05:00" (UTC−3). */
const efiLocalTime = (iso?: string) =>
  iso ? new Date(new Date(iso).getTime() - 3 * 3600_000).toISOString().slice(0, 19).replace('T', ' ') : null;
const pathOf = (req: ProviderRequest) => new URL(req.url, 'http://x').pathname;
const queryOf = (req: ProviderRequest) => new URL(req.url, 'http://x').searchParams;

export async function startFakePaymentGateways(): Promise<FakePaymentGateways> {
  const payments = {
    asaas: new Map<string, FakePayment>(),
    stripe: new Map<string, FakePayment>(),
    mercadoPago: new Map<string, FakePayment>(),
    efi: new Map<string, FakePayment>(),
  };
  const latest = (map: Map<string, FakePayment>, customerId: string) => [...map.values()].filter((p) => p.customerId === customerId).at(-1);
  const notifications = new Map<string, unknown[]>();
  const mercadoPagoToken = `APP_USR-${randomUUID()}`;
  const efiClient = { id: `Client_Id_${randomUUID()}`, secret: `Client_Secret_${randomUUID()}` };
  const efiTokens = new Set<string>();
  let issued = 0;

  const asaas = await startFakeProvider((req) => {
    if (req.method !== 'GET' || pathOf(req) !== '/v3/payments' || !req.headers.access_token)
      return json(401, { errors: [{ code: 'invalid_access_token' }] });
    const p = latest(payments.asaas, queryOf(req).get('customer') ?? '');
    const data = p
      ? [{ object: 'payment', id: p.id, customer: p.customerId, status: p.status, deleted: false, dateCreated: p.updatedAt }]
      : [];
    return json(200, { object: 'list', hasMore: false, totalCount: data.length, limit: 1, offset: 0, data });
  });

  const stripe = await startFakeProvider((req) => {
    if (!/^Bearer sk_/.test(String(req.headers.authorization ?? ''))) return json(401, { error: { type: 'invalid_request_error' } });
    if (req.method !== 'GET' || pathOf(req) !== '/v1/invoices') return json(404, { error: { type: 'invalid_request_error' } });
    const p = latest(payments.stripe, queryOf(req).get('customer') ?? '');
    const data = p ? [{ object: 'invoice', id: p.id, customer: p.customerId, status: p.status, due_date: p.dueDate ?? null }] : [];
    return json(200, { object: 'list', url: '/v1/invoices', has_more: false, data });
  });

  const mercadoPagoPayment = (p: FakePayment) => ({
    id: Number(p.id),
    status: p.status,
    status_detail: p.status === 'approved' ? 'accredited' : p.status,
    date_created: p.updatedAt,
    date_last_updated: p.updatedAt,
    external_reference: p.externalReference ?? null,
    payer: { id: p.customerId, type: 'customer' },
  });
  const mercadoPago = await startFakeProvider((req) => {
    if (!String(req.headers.authorization ?? '').startsWith('Bearer ')) return json(401, { message: 'unauthorized' });
    const path = pathOf(req);
    if (path === '/v1/payments/search') {
      const p = latest(payments.mercadoPago, queryOf(req).get('payer.id') ?? '');
      return json(200, { paging: { total: p ? 1 : 0, limit: 1, offset: 0 }, results: p ? [mercadoPagoPayment(p)] : [] });
    }
    const one = /^\/v1\/payments\/([^/]+)$/.exec(path);
    if (one && req.headers.authorization === `Bearer ${mercadoPagoToken}`) {
      const p = payments.mercadoPago.get(decodeURIComponent(one[1]));
      return p ? json(200, mercadoPagoPayment(p)) : json(404, { message: 'Payment not found', error: 'not_found', status: 404 });
    }
    return json(401, { message: 'invalid access token' });
  });

  const efi = await startFakeProvider((req) => {
    const path = pathOf(req);
    if (path === '/v1/authorize' && req.method === 'POST') {
      const basic = `Basic ${Buffer.from(`${efiClient.id}:${efiClient.secret}`).toString('base64')}`;
      if (req.headers.authorization !== basic || req.body?.grant_type !== 'client_credentials')
        return json(401, { error: 'invalid_client' });
      const token = `efi-${randomUUID()}`;
      efiTokens.add(token);
      issued++;
      return json(200, {
        access_token: token,
        refresh_token: `r-${token}`,
        expires_in: 600,
        expire_at: String(Date.now() + 600_000),
        token_type: 'Bearer',
      });
    }
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!efiTokens.has(bearer)) return json(401, { error: 'invalid_token', error_description: 'Token inválido' });
    const notice = /^\/v1\/notification\/([^/]+)$/.exec(path);
    if (notice) {
      const history = notifications.get(decodeURIComponent(notice[1]));
      return history ? json(200, { code: 200, data: history }) : json(404, { code: 3500034, error: 'notification_not_found' });
    }
    if (path === '/v1/charges') {
      // As Efí's "Retornar lista de cobranças": begin_date, end_date (YYYY-MM-DD) and charge_type are
      // required; custom_id, status, limit, page narrow it. created_at is local time without a zone.
      const q = queryOf(req);
      const day = /^\d{4}-\d{2}-\d{2}$/;
      const type = q.get('charge_type') ?? '';
      if (
        !day.test(q.get('begin_date') ?? '') ||
        !day.test(q.get('end_date') ?? '') ||
        !['billet', 'card', 'carnet', 'subscription'].includes(type)
      ) {
        return json(400, {
          code: 3500010,
          error: 'validation_error',
          error_description: 'begin_date, end_date e charge_type são obrigatórios',
        });
      }
      const customId = q.get('custom_id');
      const data = [...payments.efi.values()]
        .filter((p) => (p.chargeType ?? 'billet') === type && (customId === null || p.customerId === customId))
        .map((p) => ({
          id: Number(p.id),
          total: 9990,
          status: p.status,
          custom_id: p.customerId,
          created_at: efiLocalTime(p.updatedAt),
          customer: { phone_number: null },
        }));
      return json(200, { code: 200, data });
    }
    return json(404, { code: 404, error: 'not_found' });
  });

  return {
    asaas,
    stripe,
    mercadoPago,
    efi,
    env: {
      PAYMENT_API_URL_GATEWAY_A: asaas.url,
      PAYMENT_API_URL_GATEWAY_B: stripe.url,
      PAYMENT_API_URL_GATEWAY_C: mercadoPago.url,
      PAYMENT_API_URL_GATEWAY_D: efi.url,
      PAYMENT_API_TOKEN_GATEWAY_C: mercadoPagoToken,
      PAYMENT_CLIENT_ID_GATEWAY_D: efiClient.id,
      PAYMENT_CLIENT_SECRET_GATEWAY_D: efiClient.secret,
    },
    mercadoPagoToken,
    efiClient,
    setPayment(gateway, payment) {
      payments[gateway].delete(payment.id);
      payments[gateway].set(payment.id, { updatedAt: new Date().toISOString(), ...payment });
    },
    setEfiNotification(token, history) {
      notifications.set(
        token,
        history.map((h) => ({
          id: h.id,
          type: 'charge',
          custom_id: h.customId,
          status: { current: h.status, previous: h.previous ?? null },
          identifiers: { charge_id: h.chargeId ?? 1000 },
          created_at: h.createdAt,
        })),
      );
    },
    efiTokensIssued: () => issued,
    revokeEfiTokens: () => efiTokens.clear(),
    close: async () => {
      await Promise.all([asaas.close(), stripe.close(), mercadoPago.close(), efi.close()]);
    },
  };
}

/** A webhook delivery as a gateway makes it: path suffix (query), headers and body bytes. */
export interface PaymentDelivery {
  query: string;
  headers: Record<string, string>;
  body: string;
}

/** Asaas: the event JSON with the webhook's access token in `asaas-access-token`. */
export function asaasDelivery(
  token: string,
  event: { id: string; event: string; customer: string; dateCreated?: string; paymentId?: string },
): PaymentDelivery {
  const body = JSON.stringify({
    id: event.id,
    event: event.event,
    dateCreated: event.dateCreated ?? '2026-01-01 10:00:00',
    payment: {
      object: 'payment',
      id: event.paymentId ?? `pay_${randomUUID().slice(0, 12)}`,
      customer: event.customer,
      subscription: null,
      value: 99.9,
      status: 'RECEIVED',
      externalReference: null,
    },
  });
  return { query: '', headers: { 'content-type': 'application/json', 'asaas-access-token': token }, body };
}

/** Mercado Pago: `{id, type, action, data: {id}}`, `?data.id=&type=payment`, x-signature over the manifest. */
export function mercadoPagoDelivery(secret: string, paymentId: string, opts: { tsMs?: number; requestId?: string } = {}): PaymentDelivery {
  const ts = String(opts.tsMs ?? Date.now());
  const requestId = opts.requestId ?? randomUUID();
  const manifest = `id:${paymentId.toLowerCase()};request-id:${requestId};ts:${ts};`;
  const v1 = createHmac('sha256', secret).update(manifest).digest('hex');
  const body = JSON.stringify({
    id: Math.floor(Math.random() * 1e12),
    live_mode: true,
    type: 'payment',
    date_created: new Date().toISOString(),
    user_id: 44444,
    api_version: 'v1',
    action: 'payment.updated',
    data: { id: paymentId },
  });
  return {
    query: `data.id=${encodeURIComponent(paymentId)}&type=payment`,
    headers: { 'content-type': 'application/json', 'x-signature': `ts=${ts},v1=${v1}`, 'x-request-id': requestId },
    body,
  };
}

/** Efí: the form field `notification=<token>` to the URL the platform registered with `?hmac=<secret>`. */
export function efiDelivery(hmac: string, token: string): PaymentDelivery {
  return {
    query: `hmac=${encodeURIComponent(hmac)}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `notification=${encodeURIComponent(token)}`,
  };
}
