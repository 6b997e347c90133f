import { DomainError, providerFailed } from '@convo/kit';
import type { DriverSettings } from './driver';
import { requestJson } from './http';

/** Meta's Graph error envelope: `{ error: { message, type, code, error_subcode, fbtrace_id, ... } }`. */
interface GraphError {
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
 * POST {META_GRAPH_URL}/{path} with a bearer token (the WhatsApp business token or the page token).
 * A Graph refusal keeps Meta's own reason and adds what support needs to trace it: code,
 * error_subcode (131047 is the closed 24-hour window) and fbtrace_id.
 */
export async function graphPost(settings: DriverSettings, provider: string, path: string, token: string, body: unknown): Promise<unknown> {
  try {
    const res = await requestJson(`${settings.metaGraphUrl}/${path}`, {
      body,
      headers: { authorization: `Bearer ${token}` },
      timeoutMs: settings.timeoutMs,
      provider,
    });
    return res.body;
  } catch (err) {
    throw graphRefusal(err, provider) ?? err;
  }
}

/** GET {META_GRAPH_URL}/{path} (with its query) with a bearer token; a refusal read as graphPost reads it. */
export async function graphGet(settings: DriverSettings, provider: string, path: string, token: string): Promise<unknown> {
  try {
    const res = await requestJson(`${settings.metaGraphUrl}/${path}`, {
      method: 'GET',
      headers: { authorization: `Bearer ${token}` },
      timeoutMs: settings.timeoutMs,
      provider,
    });
    return res.body;
  } catch (err) {
    throw graphRefusal(err, provider) ?? err;
  }
}

/** requestJson reports a refusal with the parsed answer in details[0].body; Graph's envelope is read from there. */
function graphRefusal(err: unknown, provider: string): DomainError | undefined {
  if (!(err instanceof DomainError)) return undefined;
  const answer = err.details?.[0] as { status?: number; body?: { error?: unknown }; transient?: boolean; retryAfter?: string } | undefined;
  const e = answer?.body?.error;
  if (!e || typeof e !== 'object') return undefined;
  const { message, type, code, error_subcode, error_user_title, error_user_msg, fbtrace_id, error_data } = e as GraphError;
  const codes = [code !== undefined && `code ${code}`, error_subcode !== undefined && `subcode ${error_subcode}`].filter(Boolean).join(', ');
  const known = code === undefined ? undefined : KNOWN_REFUSALS[code];
  // Meta answers its rate limits with HTTP 400 as often as 429: the code says they pass.
  const transient = RATE_LIMIT_CODES.has(code ?? -1) || (answer!.transient === true && !known);
  const reason = [known, message ?? 'no reason given', error_data?.details].filter(Boolean).join(': ');
  return providerFailed(`${provider} refused the message (HTTP ${answer!.status}): ${reason}${codes ? ` (${codes})` : ''}`, [
    { provider, status: answer!.status, message, type, code, error_subcode, error_user_title, error_user_msg, fbtrace_id, details: error_data?.details, transient: transient || undefined, retryAfter: transient ? answer!.retryAfter : undefined },
  ]);
}

/**
 * The Cloud API's rate limits (WhatsApp error codes): 4 too many calls by the app, 80007 the
 * WhatsApp Business Account's limit, 130429 the number's throughput, 131048 the spam limit,
 * 131056 too many messages to one contact in a short time. A later attempt may pass: retried with backoff.
 */
const RATE_LIMIT_CODES = new Set([4, 80007, 130429, 131048, 131056]);

/**
 * Refusals a retry cannot cure, said plainly before Meta's own words: the message fails at once.
 * (WhatsApp error codes of the Cloud API.)
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
