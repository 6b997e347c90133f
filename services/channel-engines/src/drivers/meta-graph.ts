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

/** requestJson reports a refusal with the parsed answer in details[0].body; Graph's envelope is read from there. */
function graphRefusal(err: unknown, provider: string): DomainError | undefined {
  if (!(err instanceof DomainError)) return undefined;
  const answer = err.details?.[0] as { status?: number; body?: { error?: unknown }; transient?: boolean; retryAfter?: string } | undefined;
  const e = answer?.body?.error;
  if (!e || typeof e !== 'object') return undefined;
  const { message, type, code, error_subcode, error_user_title, error_user_msg, fbtrace_id, error_data } = e as GraphError;
  const codes = [code !== undefined && `code ${code}`, error_subcode !== undefined && `subcode ${error_subcode}`].filter(Boolean).join(', ');
  return providerFailed(`${provider} refused the message (HTTP ${answer!.status}): ${message ?? 'no reason given'}${codes ? ` (${codes})` : ''}`, [
    { provider, status: answer!.status, message, type, code, error_subcode, error_user_title, error_user_msg, fbtrace_id, details: error_data?.details, transient: answer!.transient, retryAfter: answer!.retryAfter },
  ]);
}

/** Graph path segments come from channel settings; encoded so a stray "/" cannot change the call. */
export const segment = (value: string) => encodeURIComponent(value);
