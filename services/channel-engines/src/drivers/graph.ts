import { DomainError, providerFailed, validation } from '@convo/kit';
import type { Delivered, DriverSettings, Outbound } from './driver';
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

/**
 * One message as one or more Send API calls: a text that cannot ride as a caption (Messenger
 * attachments, WhatsApp audio and stickers) follows its media as a second message. The answer is
 * the first message's id; a refused follow-up is still a failure, and says the media arrived.
 */
export async function sendInOrder<T>(requests: T[], post: (request: T) => Promise<string>): Promise<Delivered> {
  const first = await post(requests[0]);
  for (const request of requests.slice(1)) {
    try {
      await post(request);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // Not retried: a retry would deliver the media a second time.
      const details = err.details?.map((d) => ({ ...(d as object), transient: undefined, retryAfter: undefined }));
      throw providerFailed(`${err.message} (the media before it was delivered as ${first})`, details);
    }
  }
  return { providerMessageId: first };
}

/** The interactive body the REST route validated, as the fields of one object. */
export type Json = Record<string, unknown>;

/** Splits `interactive_type` ("<route>/<type>") and parses `interactive_json`. */
export function interactiveOf(content: Outbound['content']): { route: string; type: string; json: Json } {
  const [route, type = ''] = content.interactiveType.split('/', 2);
  let json: unknown;
  try {
    json = JSON.parse(content.interactiveJson || '{}');
  } catch {
    throw validation(`${content.interactiveType}: interactive_json is not JSON`, [{ field: 'interactive_json', message: 'must be JSON' }]);
  }
  if (!isObject(json)) throw validation(`${content.interactiveType}: interactive_json must be an object`, [{ field: 'interactive_json', message: 'must be an object' }]);
  return { route, type, json };
}

/**
 * Readers of the validated body. The gateway checks the REST shape; these only refuse what would
 * make a request Meta cannot read, with the field named, before anything is sent.
 */
export function requiredText(json: Json, field: string, path = field): string {
  const value = json[field];
  if (typeof value !== 'string' || !value) throw validation(`${path} is required`, [{ field: path, message: 'is required' }]);
  return value;
}

export function optionalText(json: Json, field: string): string | undefined {
  const value = json[field];
  return typeof value === 'string' && value ? value : undefined;
}

export function requiredList(json: Json, field: string, path = field): Json[] {
  const value = json[field];
  if (!Array.isArray(value) || value.length === 0 || !value.every(isObject)) {
    throw validation(`${path} must be a non-empty list of objects`, [{ field: path, message: 'must be a non-empty list of objects' }]);
  }
  return value;
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Graph path segments come from channel settings; encoded so a stray "/" cannot change the call. */
export const segment = (value: string) => encodeURIComponent(value);
