import { request, type Dispatcher } from 'undici';

/**
 * The one client of Meta's Graph API (WhatsApp Cloud API, Messenger, Instagram): every call carries
 * the access token as a bearer header (never in the URL, which ends up in logs), has a total timeout
 * (headers and body) and follows no redirect. A refusal or no answer is a MetaGraphError, which each
 * service maps into its own domain error; the client itself knows no service's wording.
 */

export type GraphMethod = 'GET' | 'POST' | 'DELETE';

/**
 * The Graph API version every service calls Meta with unless META_GRAPH_URL says otherwise: the one
 * place it is set. v25.0 (released 2026-02-18) is supported until 2028-07-29 by Meta's version
 * table (developers.facebook.com/docs/graph-api/changelog/versions); move it on before then.
 */
export const META_GRAPH_VERSION = 'v25.0';

/** META_GRAPH_URL's default: Meta's Graph host with META_GRAPH_VERSION. */
export const DEFAULT_META_GRAPH_URL = `https://graph.facebook.com/${META_GRAPH_VERSION}`;

export interface MetaGraphOptions {
  /** META_GRAPH_URL, e.g. DEFAULT_META_GRAPH_URL (a trailing `/` is dropped). */
  baseUrl: string;
  /** Appended to baseUrl when given (e.g. META_GRAPH_VERSION), for a base URL without its version. */
  version?: string;
  /** The total time of one call: connection, headers and body. */
  timeoutMs: number;
  /** undici's connection pool to use (a service's guarded agent); undici's global one by default. */
  dispatcher?: Dispatcher;
}

/** Meta's error envelope: `{ error: { message, type, code, error_subcode, error_user_*, fbtrace_id, error_data } }`. */
export interface GraphErrorEnvelope {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_user_title?: string;
  error_user_msg?: string;
  fbtrace_id?: string;
  error_data?: { details?: string };
}

/**
 * Throttling (Meta's "temporary issue due to throttling, wait and retry"): Graph 4 (app), 17 (user),
 * 32 (page), 341 (application limit), 613 (custom rate limit), 80001–80014 (business use case);
 * WhatsApp Cloud API 130429 (throughput), 131048 (spam rate limit), 131056 (pair rate limit).
 * Meta answers these with HTTP 400 as often as with 429: the code decides.
 */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 341, 613, 130429, 131048, 131056]);
const isBusinessUseCaseLimit = (code: number) => code >= 80001 && code <= 80014;
/** Downtime: Graph 1 (unknown, possibly temporary) and 2 (service); WhatsApp 131016 (service unavailable). */
const TEMPORARY_CODES = new Set([1, 2, 131016]);

export const isRateLimitCode = (code: number | undefined) =>
  code !== undefined && (RATE_LIMIT_CODES.has(code) || isBusinessUseCaseLimit(code));

export type MetaGraphFailure = 'timeout' | 'unreachable' | 'refused';

/** A call that failed: no answer (timeout, unreachable) or a non-2xx answer, Meta's envelope read. */
export class MetaGraphError extends Error {
  override readonly name = 'MetaGraphError';
  /** Meta's own message, or for an answer without an envelope the raw text (≤ 300 characters). */
  readonly reason: string;
  readonly status?: number;
  readonly code?: number;
  readonly subcode?: number;
  readonly type?: string;
  readonly fbtraceId?: string;
  readonly userTitle?: string;
  readonly userMessage?: string;
  /** `error_data.details`: the WhatsApp Cloud API's longer explanation. */
  readonly details?: string;
  /** The envelope as Meta sent it, when there was one. */
  readonly envelope?: GraphErrorEnvelope;
  /** The answer's body: parsed JSON, or the text when it was not JSON. */
  readonly body?: unknown;
  readonly retryAfter?: string;
  /** A throttling code (see RATE_LIMIT_CODES), whatever the HTTP status. */
  readonly rateLimited: boolean;
  /** What a later attempt may fix: no answer, throttling, downtime codes, HTTP 5xx or 429. */
  readonly retryable: boolean;

  constructor(
    readonly kind: MetaGraphFailure,
    readonly method: GraphMethod,
    readonly path: string,
    init: { reason: string; status?: number; body?: unknown; envelope?: GraphErrorEnvelope; retryAfter?: string; cause?: unknown },
  ) {
    super(`Meta Graph ${method} ${path.split('?')[0]}: ${kind === 'refused' ? `HTTP ${init.status}: ` : ''}${init.reason}`, {
      cause: init.cause,
    });
    const e = init.envelope;
    this.reason = init.reason;
    this.status = init.status;
    this.body = init.body;
    this.envelope = e;
    this.code = typeof e?.code === 'number' ? e.code : undefined;
    this.subcode = typeof e?.error_subcode === 'number' ? e.error_subcode : undefined;
    this.type = e?.type;
    this.fbtraceId = e?.fbtrace_id;
    this.userTitle = e?.error_user_title;
    this.userMessage = e?.error_user_msg;
    this.details = e?.error_data?.details;
    this.retryAfter = init.retryAfter;
    this.rateLimited = isRateLimitCode(this.code);
    const status = init.status ?? 0;
    this.retryable =
      kind !== 'refused' ||
      this.rateLimited ||
      (this.code !== undefined && TEMPORARY_CODES.has(this.code)) ||
      status >= 500 ||
      status === 429;
  }
}

/** A page of a Graph edge: `{ data: [...], paging: { cursors: { after }, next } }`. */
export interface GraphPage {
  data?: unknown;
  paging?: { next?: unknown; cursors?: { after?: unknown } };
}

export class MetaGraphClient {
  readonly base: string;

  constructor(private readonly options: MetaGraphOptions) {
    const base = options.baseUrl.replace(/\/+$/, '');
    this.base = options.version ? `${base}/${options.version.replace(/^\/+|\/+$/g, '')}` : base;
  }

  /** The full URL of a Graph path (`/{id}/messages` or `{id}/messages`, with its query). */
  url(path: string): string {
    return `${this.base}${path.startsWith('/') ? '' : '/'}${path}`;
  }

  get(path: string, token: string): Promise<unknown> {
    return this.call('GET', path, token);
  }

  post(path: string, token: string, body: unknown): Promise<unknown> {
    return this.call('POST', path, token, body);
  }

  delete(path: string, token: string, body?: unknown): Promise<unknown> {
    return this.call('DELETE', path, token, body);
  }

  /** One call; the answer's JSON (or its text when not JSON, null when empty). */
  async call(method: GraphMethod, path: string, token: string, body?: unknown): Promise<unknown> {
    const { timeoutMs } = this.options;
    let res: Dispatcher.ResponseData;
    let text: string;
    // A timer cleared on completion rather than AbortSignal.timeout, whose timer fires for every
    // call (and whose signal costs more to make): a measurable share of a send's CPU.
    const timeout = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      timeout.abort();
    }, timeoutMs);
    try {
      // undici's request rather than fetch: no WHATWG Request/Response around every call; it
      // follows no redirect, and keeps connections to Meta open between calls.
      res = await request(this.url(path), {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: timeout.signal,
        ...(this.options.dispatcher && { dispatcher: this.options.dispatcher }),
      });
      // The timeout covers the body too: a server can stall after its headers.
      text = await res.body.text();
    } catch (err) {
      if (timedOut) throw new MetaGraphError('timeout', method, path, { reason: `no answer within ${timeoutMs} ms`, cause: err });
      throw new MetaGraphError('unreachable', method, path, { reason: (err as Error).message, cause: err });
    } finally {
      clearTimeout(timer);
    }
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Keep the raw text: it is Meta's (or a proxy's) reason.
    }
    const status = res.statusCode;
    if (status >= 200 && status < 300) return parsed;
    const error = (parsed as { error?: unknown } | null)?.error;
    const envelope = error && typeof error === 'object' ? (error as GraphErrorEnvelope) : undefined;
    const reason = typeof envelope?.message === 'string' ? envelope.message : text.slice(0, 300) || 'no reason given';
    const retryAfter = res.headers['retry-after'];
    throw new MetaGraphError('refused', method, path, {
      reason,
      status,
      body: parsed,
      envelope,
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
    });
  }

  /**
   * The pages of an edge, first to last, by Meta's `after` cursor: another page is read only when
   * Meta sent `paging.next` and a new cursor, and at most `maxPages` are read. The cursor is used on
   * our own base URL (never Meta's `next` URL, which carries the token).
   */
  async *pages(path: string, token: string, opts: { maxPages: number; query?: Record<string, string> }): AsyncGenerator<GraphPage | null> {
    let after = '';
    for (let page = 0; page < opts.maxPages; page++) {
      const query = new URLSearchParams(opts.query);
      if (after) query.set('after', after);
      const qs = query.toString();
      const body = (await this.call('GET', qs ? `${path}?${qs}` : path, token)) as GraphPage | null;
      yield body;
      const next = body?.paging?.cursors?.after;
      if (!body?.paging?.next || typeof next !== 'string' || !next || next === after) return;
      after = next;
    }
  }
}
