import { providerFailed } from '@convo/kit';
import { request, type Dispatcher } from 'undici';
import { literalAddressProblem, LinkLocalRefused, providerAgent, refusedAddress } from './provider-address';

export interface HttpResult {
  status: number;
  body: unknown;
}

export interface RequestOptions {
  /** POST (the default), PUT and DELETE send `body` as JSON; GET reads (number checks). */
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
  provider: string;
  /** Where a provider's error envelope keeps its reason, when `message` / `error` do not hold it. */
  refusalReason?: (body: unknown) => string | undefined;
}

/**
 * A JSON request to a provider with a total timeout. Provider base URLs are set by the operator and
 * trusted; redirects are still not followed, so a provider cannot bounce a request elsewhere.
 * Unreachable, too slow and non-2xx all fail with ERR_PROVIDER_FAILED; a refusal keeps the parsed
 * answer in details[0].body, and details[0].transient marks what a retry may fix (unreachable, too
 * slow, 5xx, 429 with its Retry-After).
 */
export async function requestJson(url: string, opts: RequestOptions): Promise<HttpResult> {
  const method = opts.method ?? 'POST';
  // Trusted is not any address: never a link-local one (provider-address.ts), literal or resolved.
  const literal = literalAddressProblem(url);
  if (literal) throw refusedAddress(opts.provider, literal);
  let res: Dispatcher.ResponseData;
  let text: string;
  // A timer cleared on completion rather than AbortSignal.timeout, whose timer fires for every call
  // (and whose signal costs more to make): a measurable share of a send's CPU here.
  const timeout = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    timeout.abort();
  }, opts.timeoutMs);
  try {
    // undici's request rather than fetch: the same client without the WHATWG Request, Response and
    // stream objects fetch builds around every call (in `npm run bench` this service's CPU per send
    // fell by a third). It follows no redirect, and keeps connections to a provider open between calls.
    res = await request(url, {
      method,
      headers: { ...(method !== 'GET' && { 'content-type': 'application/json' }), accept: 'application/json', ...opts.headers },
      body: method === 'GET' ? undefined : JSON.stringify(opts.body),
      signal: timeout.signal,
      dispatcher: providerAgent,
    });
    // The timeout covers the body too: an engine can stall after its headers.
    text = await res.body.text();
  } catch (err) {
    const refused = linkLocalCause(err);
    if (refused) throw refusedAddress(opts.provider, refused.message);
    const reason = timedOut ? `no answer within ${opts.timeoutMs} ms` : (err as Error).message;
    throw providerFailed(`${opts.provider} is unreachable: ${reason}`, [{ provider: opts.provider, transient: true }]);
  } finally {
    clearTimeout(timer);
  }
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Keep the raw text: it is the provider's reason.
  }
  const status = res.statusCode;
  if (status < 200 || status >= 300) {
    const what = method === 'GET' ? 'request' : 'message';
    // A server error or a rate limit may pass: the dispatcher retries those (after Retry-After).
    const transient = status >= 500 || status === 429;
    const retryAfter = firstHeader(res.headers['retry-after']);
    throw providerFailed(`${opts.provider} refused the ${what} (HTTP ${status}): ${opts.refusalReason?.(parsed) ?? reasonOf(parsed)}`, [
      { provider: opts.provider, status, body: parsed, ...(transient && { transient }), ...(transient && retryAfter && { retryAfter }) },
    ]);
  }
  return { status, body: parsed };
}

/** The guarded lookup's refusal, however undici (or the Meta Graph client) wrapped it. */
export function linkLocalCause(err: unknown): LinkLocalRefused | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof LinkLocalRefused) return e;
  }
  return undefined;
}

const firstHeader = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

export function reasonOf(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300) || 'no reason given';
  const b = body as { message?: unknown; error?: unknown } | null;
  const msg = b?.message ?? (typeof b?.error === 'object' && b.error !== null ? (b.error as { message?: unknown }).message : b?.error);
  return typeof msg === 'string' ? msg : JSON.stringify(body).slice(0, 300);
}
