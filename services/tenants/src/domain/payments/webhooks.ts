// How each gateway's webhook proves itself, and what its event means (CONVENTIONS, "Payment
// gateways as the real ones"). Everything here works on the bytes received: a delivery is proven
// before any of it is parsed, and only what the proof covers is trusted.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { PaymentGateway, PaymentStatus } from '../catalog';

export type Headers = Record<string, string>;

/** Stripe's and Mercado Pago's signed timestamps older (or newer) than this are replays. */
export const SIGNATURE_TOLERANCE_S = 300;

/** A proven event whose meaning is in the delivery itself (Asaas, Stripe). */
export interface GatewayEvent {
  /** Unique per gateway: a repeat of one id is applied once. */
  eventId: string;
  /** The gateway's own event type or status, as recorded. */
  type: string;
  /** The gateway's customer (or Efí's custom_id); '' when the event names none. */
  customerId: string;
  /** undefined: an event that changes no status (recorded as ignored). */
  status?: PaymentStatus;
  /** The event's own time: an older event never overwrites a newer status. */
  at: Date;
}

/** A delivery as the gateway sent it: the raw body, lower-case headers, the raw query string. */
export interface Delivery {
  rawBody: Buffer;
  headers: Headers;
  query: string;
}

/** Constant time over equal-length digests, so neither the content nor the length of a secret leaks. */
export function secretEquals(received: string, expected: string): boolean {
  const a = createHash('sha256').update(received).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && received.length === expected.length;
}

/** Two hex signatures compared in constant time (different lengths never match). */
function hexEquals(received: string, expected: string): boolean {
  if (!/^[0-9a-f]+$/i.test(received) || received.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(received.toLowerCase(), 'hex'), Buffer.from(expected, 'hex'));
}

const hmacHex = (secret: string, ...parts: Array<string | Buffer>): string => {
  const mac = createHmac('sha256', secret);
  for (const p of parts) mac.update(p);
  return mac.digest('hex');
};

/** `k=v,k=v` header items; a key may repeat (Stripe sends several `v1`). */
function headerItems(value: string | undefined): Array<[string, string]> {
  if (!value || value.length > 4096) return [];
  return value.split(',').flatMap((item) => {
    const i = item.indexOf('=');
    return i > 0 ? [[item.slice(0, i).trim(), item.slice(i + 1).trim()] as [string, string]] : [];
  });
}

const fresh = (tSeconds: number, nowMs: number) => Number.isFinite(tSeconds) && Math.abs(nowMs / 1000 - tSeconds) <= SIGNATURE_TOLERANCE_S;

function jsonObject(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(raw.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
/** Text of at most 200 characters (ids, types); anything else is absent. */
export const text = (v: unknown): string =>
  typeof v === 'string' && v.length <= 200 ? v : typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : '';

/**
 * Asaas and Efí write local Brazilian time without a zone ("2024-06-12 16:45:03"): read as
 * America/Sao_Paulo (UTC−3, no daylight saving since 2019). Zoned ISO text is read as it is.
 */
export function brazilTime(value: unknown, fallback: Date): Date {
  const s = text(value);
  const local = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})$/.exec(s);
  const d = local ? new Date(`${local[1]}T${local[2]}-03:00`) : s ? new Date(s) : fallback;
  return Number.isNaN(d.getTime()) ? fallback : d;
}

// ---- Asaas (gateway_a) ------------------------------------------------------------------------

const ASAAS_STATUS: Record<string, PaymentStatus> = {
  PAYMENT_CONFIRMED: 'paid',
  PAYMENT_RECEIVED: 'paid',
  PAYMENT_OVERDUE: 'overdue',
  PAYMENT_REFUNDED: 'refunded',
  PAYMENT_PARTIALLY_REFUNDED: 'refunded',
  PAYMENT_CHARGEBACK_REQUESTED: 'refunded',
  PAYMENT_DELETED: 'canceled',
  SUBSCRIPTION_DELETED: 'canceled',
  SUBSCRIPTION_INACTIVATED: 'canceled',
};

/** `asaas-access-token` equals the webhook's token; the whole body is then Asaas's. */
export function asaasEvent(secret: string, d: Delivery, now: Date): GatewayEvent | undefined {
  if (!secretEquals(d.headers['asaas-access-token'] ?? '', secret)) return undefined;
  const body = jsonObject(d.rawBody);
  const eventId = text(body?.id);
  if (!body || !eventId) return undefined;
  const type = text(body.event);
  const entity = obj(body.payment ?? body.subscription);
  return { eventId, type, customerId: text(entity.customer), status: ASAAS_STATUS[type], at: brazilTime(body.dateCreated, now) };
}

// ---- Stripe (gateway_b) -----------------------------------------------------------------------

const STRIPE_STATUS: Record<string, PaymentStatus> = {
  'invoice.paid': 'paid',
  'invoice.payment_succeeded': 'paid',
  'invoice.payment_failed': 'overdue',
  'charge.refunded': 'refunded',
  'customer.subscription.deleted': 'canceled',
};

/**
 * `Stripe-Signature: t=<unix>,v1=<hex>[,v1=…]`: HMAC-SHA256 of `<t>.<raw body>` with the
 * endpoint's `whsec_` secret (used as given), any `v1` matching, `t` within 300 s.
 */
export function stripeSignatureValid(secret: string, d: Delivery, nowMs: number): boolean {
  const items = headerItems(d.headers['stripe-signature']);
  const t = items.find(([k]) => k === 't')?.[1] ?? '';
  const signatures = items.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!/^\d{1,12}$/.test(t) || !fresh(Number(t), nowMs) || signatures.length === 0) return false;
  const expected = hmacHex(secret, `${t}.`, d.rawBody);
  // Every candidate is compared, so the time taken does not tell which one matched.
  return signatures.map((s) => hexEquals(s, expected)).includes(true);
}

export function stripeEvent(secret: string, d: Delivery, nowMs: number): GatewayEvent | undefined {
  if (!stripeSignatureValid(secret, d, nowMs)) return undefined;
  const body = jsonObject(d.rawBody);
  const eventId = text(body?.id);
  if (!body || !eventId) return undefined;
  const type = text(body.type);
  const object = obj(obj(body.data).object);
  const customer = typeof object.customer === 'string' ? object.customer : text(obj(object.customer).id);
  const created = typeof body.created === 'number' ? new Date(body.created * 1000) : new Date(nowMs);
  return { eventId, type, customerId: customer, status: STRIPE_STATUS[type], at: created };
}

// ---- Mercado Pago (gateway_c) -----------------------------------------------------------------

/** What the x-signature proves: the notified resource's id (the payment is read from the API). */
export interface MercadoPagoNotice {
  dataId: string;
  requestId: string;
  /** The query's or body's `type`/`topic` (unsigned: used only to skip non-payment notices). */
  topic: string;
}

/**
 * `x-signature: ts=<ts>,v1=<hex>`: HMAC-SHA256 of the manifest
 * `id:<data.id>;request-id:<x-request-id>;ts:<ts>;` (data.id from the query string, lower-cased
 * when alphanumeric; a part whose value is absent is left out), `ts` within 300 s (seconds or
 * milliseconds). The body is not signed: only `data.id` is taken from the delivery.
 */
export function mercadoPagoNotice(secret: string, d: Delivery, nowMs: number): MercadoPagoNotice | undefined {
  const items = headerItems(d.headers['x-signature']);
  const ts = items.find(([k]) => k === 'ts')?.[1] ?? '';
  const v1 = items.find(([k]) => k === 'v1')?.[1] ?? '';
  if (!/^\d{1,16}$/.test(ts) || !v1) return undefined;
  const tsNum = Number(ts);
  if (!fresh(tsNum > 1e11 ? tsNum / 1000 : tsNum, nowMs)) return undefined;
  const query = new URLSearchParams(d.query);
  let dataId = query.get('data.id') ?? query.get('id') ?? '';
  if (!dataId || dataId.length > 64) return undefined;
  if (/^[a-z0-9]+$/i.test(dataId)) dataId = dataId.toLowerCase();
  const requestId = d.headers['x-request-id'] ?? '';
  const manifest = `id:${dataId};${requestId ? `request-id:${requestId};` : ''}ts:${ts};`;
  if (!hexEquals(v1, hmacHex(secret, manifest))) return undefined;
  const body = jsonObject(d.rawBody) ?? {};
  const topic = query.get('type') ?? query.get('topic') ?? text(body.type);
  return { dataId, requestId, topic };
}

const MERCADO_PAGO_STATUS: Record<string, PaymentStatus> = {
  approved: 'paid',
  pending: 'pending',
  in_process: 'pending',
  authorized: 'pending',
  rejected: 'canceled',
  cancelled: 'canceled',
  refunded: 'refunded',
  charged_back: 'refunded',
};

/** A payment as `GET /v1/payments/{id}` answers it → the event it stands for. */
export function mercadoPagoPaymentEvent(payment: Record<string, unknown>, now: Date): GatewayEvent & { externalReference: string } {
  const status = text(payment.status);
  const updated = text(payment.date_last_updated) || text(payment.date_created);
  const at = updated ? new Date(updated) : now;
  return {
    // One payment in one state at one time is one event: a repeat of the notice applies nothing.
    eventId: `${text(payment.id)}:${status}:${updated}`,
    type: `payment.${status || 'unknown'}`,
    customerId: text(obj(payment.payer).id),
    externalReference: text(payment.external_reference),
    status: MERCADO_PAGO_STATUS[status],
    at: Number.isNaN(at.getTime()) ? now : at,
  };
}

export const mercadoPagoStatus = (status: string): PaymentStatus | undefined => MERCADO_PAGO_STATUS[status];

// ---- Efí / Gerencianet (gateway_d) ------------------------------------------------------------

/**
 * Efí's post carries only `notification=<token>` (form-encoded). The platform registers its
 * notification URL with `?hmac=<PAYMENT_WEBHOOK_SECRET_GATEWAY_D>`, checked first; the token is
 * then read back from Efí's API, which is what proves the notification.
 */
export function efiNotificationToken(secret: string, d: Delivery): string | undefined {
  const query = new URLSearchParams(d.query);
  if (!secretEquals(query.get('hmac') ?? '', secret)) return undefined;
  const raw = d.rawBody.toString('utf8');
  const token = raw.trimStart().startsWith('{')
    ? text(jsonObject(d.rawBody)?.notification)
    : (new URLSearchParams(raw).get('notification') ?? '');
  return /^[A-Za-z0-9-]{1,100}$/.test(token) ? token : undefined;
}

const EFI_STATUS: Record<string, PaymentStatus> = {
  paid: 'paid',
  settled: 'paid',
  unpaid: 'overdue',
  refunded: 'refunded',
  contested: 'refunded',
  canceled: 'canceled',
  new: 'pending',
  waiting: 'pending',
};

export const efiStatus = (status: string): PaymentStatus | undefined => EFI_STATUS[status];

/**
 * `GET /v1/notification/{token}` answers the charge's history, oldest first; its last entry is
 * the change this notification reports.
 */
export function efiNotificationEvent(token: string, history: unknown[], now: Date): GatewayEvent | undefined {
  const last = obj(history.at(-1));
  const entryId = text(last.id);
  if (!entryId) return undefined;
  const current = text(obj(last.status).current);
  return {
    eventId: `${token}:${entryId}`,
    type: `charge.${current || 'unknown'}`,
    customerId: text(last.custom_id),
    status: EFI_STATUS[current],
    at: brazilTime(last.created_at, now),
  };
}

export type { PaymentGateway };
