import { providerFailed } from '@convo/kit';

export interface HttpResult {
  status: number;
  body: unknown;
}

export interface RequestOptions {
  /** POST (the default) sends `body` as JSON; GET reads (number checks). */
  method?: 'GET' | 'POST';
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
  let res: Response;
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
    res = await fetch(url, {
      method,
      headers: { ...(method === 'POST' && { 'content-type': 'application/json' }), accept: 'application/json', ...opts.headers },
      body: method === 'POST' ? JSON.stringify(opts.body) : undefined,
      redirect: 'manual',
      signal: timeout.signal,
    });
    // The timeout covers the body too: an engine can stall after its headers.
    text = await res.text();
  } catch (err) {
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
  if (res.status < 200 || res.status >= 300) {
    const what = method === 'GET' ? 'request' : 'message';
    // A server error or a rate limit may pass: the dispatcher retries those (after Retry-After).
    const transient = res.status >= 500 || res.status === 429;
    const retryAfter = res.headers.get('retry-after');
    throw providerFailed(`${opts.provider} refused the ${what} (HTTP ${res.status}): ${opts.refusalReason?.(parsed) ?? reasonOf(parsed)}`, [
      { provider: opts.provider, status: res.status, body: parsed, ...(transient && { transient }), ...(transient && retryAfter && { retryAfter }) },
    ]);
  }
  return { status: res.status, body: parsed };
}

function reasonOf(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300) || 'no reason given';
  const b = body as { message?: unknown; error?: unknown } | null;
  const msg = b?.message ?? (typeof b?.error === 'object' && b.error !== null ? (b.error as { message?: unknown }).message : b?.error);
  return typeof msg === 'string' ? msg : JSON.stringify(body).slice(0, 300);
}
