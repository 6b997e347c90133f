import { providerFailed } from '@convo/kit';

export type GraphMethod = 'GET' | 'POST' | 'DELETE';

/** Meta's error envelope: `{ error: { message, type, code, error_subcode, fbtrace_id } }`. */
interface GraphError {
  message?: unknown;
  code?: unknown;
  fbtrace_id?: unknown;
}

/**
 * The Graph API (META_GRAPH_URL) as the page sees it: every call carries the page token as a
 * bearer header (never in the URL, which ends up in logs), has a total timeout and follows no
 * redirect. A refusal or no answer becomes ERR_PROVIDER_FAILED with Meta's own error message.
 */
export class GraphClient {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  async call(method: GraphMethod, path: string, token: string, body?: unknown): Promise<unknown> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // The timeout covers the body too: a server can stall after its headers.
      text = await res.text();
    } catch (err) {
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : (err as Error).message;
      throw providerFailed(`Meta Graph API is unreachable: ${reason}`);
    }
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Keep the raw text: it is Meta's (or a proxy's) reason.
    }
    if (res.status < 200 || res.status >= 300) {
      const error = (parsed as { error?: GraphError } | null)?.error;
      const message = typeof error?.message === 'string' ? error.message : String(text).slice(0, 300) || 'no reason given';
      throw providerFailed(`Meta refused ${method} ${path.split('?')[0]} (HTTP ${res.status}): ${message}`, [
        { provider: 'meta', status: res.status, code: error?.code ?? null, fbtraceId: error?.fbtrace_id ?? null },
      ]);
    }
    return parsed;
  }
}
