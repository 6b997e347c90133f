/**
 * Exponential backoff with full jitter (a uniformly random wait between 0 and the exponential
 * ceiling): replicas and receivers recovering together are not hit by synchronised retries.
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * `Retry-After` as RFC 9110 gives it: delay-seconds or an HTTP date. Null when absent or unreadable
 * (the caller falls back to its backoff); never negative.
 */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
