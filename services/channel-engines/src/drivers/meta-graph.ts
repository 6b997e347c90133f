import { providerFailed } from '@convo/kit';
import { type GraphPage, MetaGraphClient, MetaGraphError } from '@convo/kit/meta-graph';
import type { DriverSettings } from './driver';
import { linkLocalCause, reasonOf } from './http';
import { literalAddressProblem, providerAgent, refusedAddress } from './provider-address';

/** One kit client per settings (one META_GRAPH_URL and timeout), on the guarded provider pool. */
const clients = new WeakMap<DriverSettings, MetaGraphClient>();
function clientOf(settings: DriverSettings): MetaGraphClient {
  let client = clients.get(settings);
  if (!client) {
    client = new MetaGraphClient({ baseUrl: settings.metaGraphUrl, timeoutMs: settings.timeoutMs, dispatcher: providerAgent });
    clients.set(settings, client);
  }
  return client;
}

/**
 * POST {META_GRAPH_URL}/{path} with a bearer token (the WhatsApp business token or the page token),
 * through the kit's Meta Graph client. A Graph refusal keeps Meta's own reason and adds what support
 * needs to trace it: code, error_subcode (131047 is the closed 24-hour window) and fbtrace_id.
 */
export async function graphPost(settings: DriverSettings, provider: string, path: string, token: string, body: unknown): Promise<unknown> {
  const client = clientOf(settings);
  guard(client, provider, path);
  try {
    return await client.post(path, token, body);
  } catch (err) {
    throw asDomainError(err, provider);
  }
}

/** GET {META_GRAPH_URL}/{path} (with its query) with a bearer token; a refusal read as graphPost reads it. */
export async function graphGet(settings: DriverSettings, provider: string, path: string, token: string): Promise<unknown> {
  const client = clientOf(settings);
  guard(client, provider, path);
  try {
    return await client.get(path, token);
  } catch (err) {
    throw asDomainError(err, provider);
  }
}

/** The pages of an edge by Meta's `after` cursor (the kit's paging), refusals read as graphGet reads them. */
export async function* graphPages(
  settings: DriverSettings,
  provider: string,
  path: string,
  token: string,
  opts: { maxPages: number; query?: Record<string, string> },
): AsyncGenerator<GraphPage | null> {
  const client = clientOf(settings);
  guard(client, provider, path);
  try {
    yield* client.pages(path, token, opts);
  } catch (err) {
    throw asDomainError(err, provider);
  }
}

/** Trusted is not any address: never a link-local one (provider-address.ts), literal or resolved. */
function guard(client: MetaGraphClient, provider: string, path: string): void {
  const literal = literalAddressProblem(client.url(path));
  if (literal) throw refusedAddress(provider, literal);
}

/**
 * The kit's MetaGraphError as this service's provider failure: details[0].transient marks what the
 * dispatcher retries (no answer, throttling and downtime codes, 5xx, 429 with its Retry-After),
 * except a refusal that KNOWN_REFUSALS says no retry cures.
 */
function asDomainError(err: unknown, provider: string): unknown {
  if (!(err instanceof MetaGraphError)) return err;
  if (err.kind !== 'refused') {
    const refused = linkLocalCause(err.cause);
    if (refused) return refusedAddress(provider, refused.message);
    return providerFailed(`${provider} is unreachable: ${err.reason}`, [{ provider, transient: true }]);
  }
  const status = err.status!;
  const e = err.envelope;
  if (!e) {
    // No Graph envelope (a proxy's or load balancer's answer): the provider's reason as it came.
    const what = err.method === 'GET' ? 'request' : 'message';
    const transient = status >= 500 || status === 429;
    return providerFailed(`${provider} refused the ${what} (HTTP ${status}): ${reasonOf(err.body)}`, [
      {
        provider,
        status,
        body: err.body,
        ...(transient && { transient }),
        ...(transient && err.retryAfter && { retryAfter: err.retryAfter }),
      },
    ]);
  }
  const { message, type, code, error_subcode, error_user_title, error_user_msg, fbtrace_id, error_data } = e;
  const codes = [code !== undefined && `code ${code}`, error_subcode !== undefined && `subcode ${error_subcode}`]
    .filter(Boolean)
    .join(', ');
  const known = code === undefined ? undefined : KNOWN_REFUSALS[code];
  // Meta answers its rate limits with HTTP 400 as often as 429: the kit reads the code.
  const transient = err.rateLimited || (err.retryable && !known);
  const reason = [known, message ?? 'no reason given', error_data?.details].filter(Boolean).join(': ');
  return providerFailed(`${provider} refused the message (HTTP ${status}): ${reason}${codes ? ` (${codes})` : ''}`, [
    {
      provider,
      status,
      message,
      type,
      code,
      error_subcode,
      error_user_title,
      error_user_msg,
      fbtrace_id,
      details: error_data?.details,
      transient: transient || undefined,
      retryAfter: transient ? err.retryAfter : undefined,
    },
  ]);
}

/**
 * Refusals a retry cannot cure, said plainly before Meta's own words: the message fails at once.
 * (WhatsApp error codes of the Cloud API.) Throttling codes are the kit's (`@convo/kit/meta-graph`).
 */
const KNOWN_REFUSALS: Record<number, string> = {
  131047: 'outside the 24-hour window (re-engagement): only an approved template reaches this contact now',
  131026: 'the message cannot be delivered to this number (not on WhatsApp, old app version, or terms not accepted)',
  131051: 'unsupported message type',
  132000: 'the template parameters do not match the template (wrong number of parameters)',
  132001: 'the template does not exist in this language, or is not approved',
  132005: 'the template text with its parameters is too long',
  132007: "the template's content breaks WhatsApp's format policy",
  132012: 'a template parameter does not have the format the template declares',
  132015: 'the template is paused (low quality)',
  132016: 'the template is disabled (low quality)',
};

/** Graph path segments come from channel settings; encoded so a stray "/" cannot change the call. */
export const segment = (value: string) => encodeURIComponent(value);
