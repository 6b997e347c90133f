import { Issues, safeEqual } from '@convo/kit';
import { createHmac } from 'node:crypto';
import { isOneOf, PAYMENT_STATUSES, type PaymentGateway, type PaymentStatus } from './catalog';

export type Headers = Record<string, string>;
export type WebhookSecrets = Partial<Record<PaymentGateway, string>>;

/** How a gateway proves a delivery is its own. Secrets come from PAYMENT_WEBHOOK_SECRET_<GATEWAY>. */
type Verifier = (secret: string, rawBody: Buffer, headers: Headers, nowMs: number) => boolean;

const hmacHex = (secret: string, ...parts: Array<string | Buffer>): string => {
  const mac = createHmac('sha256', secret);
  for (const p of parts) mac.update(p);
  return mac.digest('hex');
};

/** A shared token sent verbatim in a header. */
const sharedToken =
  (header: string, prefix = ''): Verifier =>
  (secret, _body, headers) =>
    safeEqual(headers[header] ?? '', `${prefix}${secret}`);

/** `sha256=<hex HMAC-SHA256 of the raw body>`. */
const bodySignature =
  (header: string): Verifier =>
  (secret, body, headers) =>
    safeEqual(headers[header] ?? '', `sha256=${hmacHex(secret, body)}`);

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, at most `toleranceS` old: replays expire. */
const timestampedSignature =
  (header: string, toleranceS: number): Verifier =>
  (secret, body, headers, nowMs) => {
    const parts = Object.fromEntries((headers[header] ?? '').split(',').map((kv) => kv.trim().split('=', 2)));
    const t = Number(parts.t);
    if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > toleranceS || !parts.v1) return false;
    return safeEqual(parts.v1, hmacHex(secret, `${t}.`, body));
  };

export const SIGNATURE_TOLERANCE_S = 300;

/** Header names are lower case, as Node receives them. */
export const VERIFIERS: Record<PaymentGateway, Verifier> = {
  gateway_a: sharedToken('x-webhook-token'),
  gateway_b: bodySignature('x-webhook-signature'),
  gateway_c: sharedToken('authorization', 'Bearer '),
  gateway_d: timestampedSignature('x-webhook-signature', SIGNATURE_TOLERANCE_S),
};

export interface PaymentEvent {
  eventId: string;
  customerId: string;
  status: PaymentStatus;
}

/** Every gateway posts `{ eventId, customerId, status }` (docs/api/payments.md). */
export function parsePaymentEvent(rawBody: Buffer): { event?: PaymentEvent; issues: Issues } {
  const issues = new Issues();
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(rawBody.toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    else issues.add('(body)', 'must be a JSON object');
  } catch {
    issues.add('(body)', 'must be JSON');
    return { issues };
  }
  const text = (v: unknown) => (typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : undefined);
  const eventId = text(body.eventId);
  const customerId = text(body.customerId);
  const status = typeof body.status === 'string' && isOneOf(PAYMENT_STATUSES, body.status) ? body.status : undefined;
  issues.check(!!eventId, 'eventId', 'is required (1-200 characters)');
  issues.check(!!customerId, 'customerId', 'is required (1-200 characters)');
  issues.check(!!status, 'status', `must be one of ${PAYMENT_STATUSES.join(', ')}`);
  return { event: eventId && customerId && status ? { eventId, customerId, status } : undefined, issues };
}
