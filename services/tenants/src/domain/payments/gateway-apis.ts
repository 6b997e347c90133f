// The gateways' own APIs, read by the webhooks that carry no status (Mercado Pago, Efí) and by
// reconciliation. Base URLs come from PAYMENT_API_URL_GATEWAY_<X> (tests: fake servers on loopback).
import { DomainError } from '@convo/kit';
import pLimit from 'p-limit';
import type { PaymentGateway, PaymentStatus } from '../catalog';
import { brazilTime, efiStatus, mercadoPagoStatus, text } from './webhooks';

export interface GatewayApiConfig {
  urls: Record<PaymentGateway, string>;
  /** PAYMENT_API_TOKEN_GATEWAY_C: the platform's Mercado Pago access token. */
  mercadoPagoToken: string;
  /** PAYMENT_CLIENT_ID_GATEWAY_D / PAYMENT_CLIENT_SECRET_GATEWAY_D: the platform's Efí OAuth2 client. */
  efiClientId: string;
  efiClientSecret: string;
  /** PAYMENT_API_TIMEOUT_MS: below the gateway's RPC deadline, so a slow gateway API is a 503 the gateway retries. */
  timeoutMs: number;
  /** PAYMENT_API_CONCURRENCY: webhook read-backs in flight per gateway API (default 16). */
  maxConcurrent?: number;
  /** Read-backs allowed to wait for a slot, per gateway API (default 8 × maxConcurrent); beyond it 503 at once. */
  maxWaiting?: number;
  /** PAYMENT_RECONCILE_RATE_PER_SECOND: reconciliation reads per second, per gateway (0: unpaced). */
  readsPerSecond?: number;
}

export const DEFAULT_API_URLS: Record<PaymentGateway, string> = {
  gateway_a: 'https://api.asaas.com',
  gateway_b: 'https://api.stripe.com',
  gateway_c: 'https://api.mercadopago.com',
  gateway_d: 'https://cobrancas.api.efipay.com.br',
};

/** A gateway API that failed or timed out: 503, so a webhook is retried by its gateway. */
class GatewayApiError extends DomainError {
  constructor(
    gateway: PaymentGateway,
    what: string,
    readonly httpStatus = 0,
  ) {
    super('unavailable', 'ERR_GATEWAY_API_FAILED', `The ${gateway} API failed (${what}); the delivery will be retried`);
  }
}
const apiFailed = (gateway: PaymentGateway, what: string, httpStatus = 0) => new GatewayApiError(gateway, what, httpStatus);

/** The latest payment of a customer as its gateway reports it now. */
export interface LatestPayment {
  paymentId: string;
  status?: PaymentStatus;
  gatewayStatus: string;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Efí lists charges by type (`charge_type` is required): a customer's latest is the latest of all. */
const EFI_CHARGE_TYPES = ['billet', 'card', 'carnet', 'subscription'] as const;

export class GatewayApis {
  private efiToken?: { value: string; expiresAt: number };
  private efiTokenPending?: Promise<string>;
  /** Webhook read-backs per gateway API: bounded in flight and in waiting. */
  private readonly limits = new Map<PaymentGateway, ReturnType<typeof pLimit>>();
  /** Reconciliation: the time of each gateway's next allowed read. */
  private readonly nextRead = new Map<PaymentGateway, number>();

  constructor(
    private readonly config: GatewayApiConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A read-back a webhook waits on: at most `maxConcurrent` in flight per gateway API and
   * `maxWaiting` queued; past that 503 at once (the gateway retries) rather than a queue that
   * outgrows the gateway's timeout.
   */
  private bounded<T>(gateway: PaymentGateway, fn: () => Promise<T>): Promise<T> {
    const max = this.config.maxConcurrent ?? 16;
    let limit = this.limits.get(gateway);
    if (!limit) this.limits.set(gateway, (limit = pLimit(max)));
    if (limit.pendingCount >= (this.config.maxWaiting ?? max * 8)) return Promise.reject(apiFailed(gateway, 'too many reads waiting'));
    return limit(fn);
  }

  /** Spaces one gateway's reconciliation reads by 1/readsPerSecond; each gateway has its own pace. */
  private async paced(gateway: PaymentGateway): Promise<void> {
    const rate = this.config.readsPerSecond ?? 0;
    if (rate <= 0) return;
    const t = Date.now();
    const slot = Math.max(t, this.nextRead.get(gateway) ?? 0);
    this.nextRead.set(gateway, slot + 1000 / rate);
    if (slot > t) await new Promise((r) => setTimeout(r, slot - t));
  }

  configured(gateway: PaymentGateway): boolean {
    if (gateway === 'gateway_c') return !!this.config.mercadoPagoToken;
    if (gateway === 'gateway_d') return !!this.config.efiClientId && !!this.config.efiClientSecret;
    return true;
  }

  /** One JSON call; null on 404 (and on 400/401 where `missingOn` says so), throws on failures. */
  private async call(gateway: PaymentGateway, path: string, init: RequestInit, missingOn: number[] = [404]): Promise<Json | null> {
    let res: Response;
    try {
      res = await fetch(`${this.config.urls[gateway].replace(/\/$/, '')}${path}`, {
        ...init,
        headers: { accept: 'application/json', ...(init.headers as Record<string, string>) },
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
    } catch (err) {
      throw apiFailed(gateway, (err as Error).name === 'TimeoutError' ? 'timeout' : 'unreachable');
    }
    const body = await res.text().catch(() => '');
    if (missingOn.includes(res.status)) return null;
    if (!res.ok) throw apiFailed(gateway, `HTTP ${res.status}`, res.status);
    try {
      return obj(JSON.parse(body));
    } catch {
      throw apiFailed(gateway, 'not JSON');
    }
  }

  // ---- Mercado Pago

  /** `GET /v1/payments/{id}` with the platform's access token; null when there is no such payment. */
  mercadoPagoPayment(paymentId: string): Promise<Json | null> {
    return this.bounded('gateway_c', () =>
      this.call('gateway_c', `/v1/payments/${encodeURIComponent(paymentId)}`, {
        headers: { authorization: `Bearer ${this.config.mercadoPagoToken}` },
      }),
    );
  }

  // ---- Efí: OAuth2 client credentials, the token kept until shortly before it expires

  private async efiAccessToken(): Promise<string> {
    if (this.efiToken && this.efiToken.expiresAt > this.now()) return this.efiToken.value;
    // One authorization at a time: concurrent notifications share it.
    this.efiTokenPending ??= this.authorizeEfi().finally(() => (this.efiTokenPending = undefined));
    return this.efiTokenPending;
  }

  private async authorizeEfi(): Promise<string> {
    const basic = Buffer.from(`${this.config.efiClientId}:${this.config.efiClientSecret}`).toString('base64');
    const res = await this.call(
      'gateway_d',
      '/v1/authorize',
      {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials' }),
      },
      [],
    );
    const value = text(res?.access_token);
    if (!value) throw apiFailed('gateway_d', 'no access_token');
    const expiresIn = typeof res?.expires_in === 'number' && res.expires_in > 0 ? res.expires_in : 600;
    // 30 s early (or half the life of a short token), so a call never starts with a dying token.
    this.efiToken = { value, expiresAt: this.now() + Math.max(expiresIn * 1000 - 30_000, (expiresIn * 1000) / 2) };
    return value;
  }

  /** An Efí call with the cached token; a 401 drops it and tries once more with a new one. */
  private async efiCall(path: string, missingOn: number[]): Promise<Json | null> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.efiAccessToken();
      try {
        return await this.call('gateway_d', path, { headers: { authorization: `Bearer ${token}` } }, missingOn);
      } catch (err) {
        // A token Efí no longer takes (revoked before its expiry): one new authorization, once.
        if (!(err instanceof GatewayApiError) || err.httpStatus !== 401 || attempt > 0) throw err;
        this.efiToken = undefined;
      }
    }
  }

  /** `GET /v1/notification/{token}`: the charge's history; null when Efí does not know the token. */
  async efiNotification(token: string): Promise<unknown[] | null> {
    const res = await this.bounded('gateway_d', () => this.efiCall(`/v1/notification/${encodeURIComponent(token)}`, [400, 404]));
    return res === null ? null : list(res.data);
  }

  // ---- reconciliation: the latest payment of a customer, with the tenant's own credential

  async latestPayment(gateway: PaymentGateway, customerId: string, tenantToken: string): Promise<LatestPayment | null> {
    const q = encodeURIComponent(customerId);
    switch (gateway) {
      case 'gateway_a': {
        await this.paced(gateway);
        const res = await this.call(gateway, `/v3/payments?customer=${q}&limit=1&offset=0`, { headers: { access_token: tenantToken } });
        const p = obj(list(res?.data)[0]);
        if (!text(p.id)) return null;
        const s = text(p.status);
        return { paymentId: text(p.id), gatewayStatus: s, status: p.deleted === true ? 'canceled' : ASAAS_PAYMENT_STATUS[s] };
      }
      case 'gateway_b': {
        await this.paced(gateway);
        const res = await this.call(gateway, `/v1/invoices?customer=${q}&limit=1`, { headers: { authorization: `Bearer ${tenantToken}` } });
        const inv = obj(list(res?.data)[0]);
        if (!text(inv.id)) return null;
        const s = text(inv.status);
        const overdue = s === 'open' && typeof inv.due_date === 'number' && inv.due_date * 1000 < this.now();
        return { paymentId: text(inv.id), gatewayStatus: s, status: overdue ? 'overdue' : STRIPE_INVOICE_STATUS[s] };
      }
      case 'gateway_c': {
        await this.paced(gateway);
        const res = await this.call(gateway, `/v1/payments/search?payer.id=${q}&sort=date_created&criteria=desc&limit=1`, {
          headers: { authorization: `Bearer ${tenantToken || this.config.mercadoPagoToken}` },
        });
        const p = obj(list(res?.results)[0]);
        if (!text(p.id)) return null;
        return { paymentId: text(p.id), gatewayStatus: text(p.status), status: mercadoPagoStatus(text(p.status)) };
      }
      case 'gateway_d': {
        // Efí reads with the platform's OAuth2 client; charges are found by the custom_id the platform
        // set. `GET /v1/charges` requires begin_date, end_date (YYYY-MM-DD) and one charge_type, so
        // each type is one read (each paced).
        const end = new Date(this.now()).toISOString().slice(0, 10);
        const begin = new Date(this.now() - 366 * 86_400_000).toISOString().slice(0, 10);
        const charges: Json[] = [];
        for (const type of EFI_CHARGE_TYPES) {
          await this.paced(gateway);
          const res = await this.efiCall(
            `/v1/charges?begin_date=${begin}&end_date=${end}&charge_type=${type}&custom_id=${q}&limit=100`,
            [404],
          );
          charges.push(
            ...list(res?.data)
              .map(obj)
              .filter((c) => text(c.id)),
          );
        }
        if (!charges.length) return null;
        const latest = charges.reduce((a, b) => (brazilTime(b.created_at, new Date(0)) >= brazilTime(a.created_at, new Date(0)) ? b : a));
        return { paymentId: text(latest.id), gatewayStatus: text(latest.status), status: efiStatus(text(latest.status)) };
      }
    }
  }
}

const ASAAS_PAYMENT_STATUS: Record<string, PaymentStatus> = {
  PENDING: 'pending',
  AWAITING_RISK_ANALYSIS: 'pending',
  CONFIRMED: 'paid',
  RECEIVED: 'paid',
  RECEIVED_IN_CASH: 'paid',
  OVERDUE: 'overdue',
  DUNNING_REQUESTED: 'overdue',
  REFUNDED: 'refunded',
  REFUND_REQUESTED: 'refunded',
  CHARGEBACK_REQUESTED: 'refunded',
};

const STRIPE_INVOICE_STATUS: Record<string, PaymentStatus> = {
  paid: 'paid',
  open: 'pending',
  draft: 'pending',
  uncollectible: 'overdue',
  void: 'canceled',
};
