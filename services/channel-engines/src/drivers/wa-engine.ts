import { isBsuid, isLid, providerFailed, validation, type proto } from '@convo/kit';
import { type DriverSettings, interactiveOf, type Outbound } from './driver';
import { isObject, obj, type Json } from '../json';
import { wabaOnEngine } from './waba-on-engine';

/**
 * Pieces every unofficial WhatsApp engine driver shares: where the engine server is, WhatsApp ids
 * (JIDs), the kind of a media, the neutral inbound events, and readers of the interactive bodies
 * the REST routes validated (the gateway checks their shape; these refuse, with the field named,
 * only what would make a request the engine cannot read, before anything is sent).
 */

export type InboundEvent = proto.channelEngines.InboundEvent;

/** The engine server's base URL: the channel's own engineUrl, else ENGINE_URL_<KIND>, else ENGINE_URL. */
export function engineBaseUrl(settings: DriverSettings, kind: string, channel: Outbound['channel']): string {
  const base = (channel.engineUrl || settings.engineUrl(kind)).replace(/\/+$/, '');
  if (!base) throw providerFailed(`${kind} has no engine URL (channel engineUrl, ENGINE_URL_${kind.toUpperCase()} or ENGINE_URL)`);
  return base;
}

/**
 * An engine URL that ends with a session (instance) name, split: http://waha:3000/default →
 * server http://waha:3000, session "default" ('' when the URL has no path segment).
 */
export function splitSession(kind: string, base: string): { server: string; session: string } {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw providerFailed(`${kind} engine URL is not a URL: ${base}`);
  }
  const segments = url.pathname.split('/').filter(Boolean);
  const session = segments.pop();
  return { server: `${url.origin}${segments.map((s) => `/${s}`).join('')}`, session: session ? decodeURIComponent(session) : '' };
}

/**
 * The engine server's key: the channel's own engineToken, else ENGINE_TOKEN_<KIND>, else
 * ENGINE_TOKEN (an installation-wide key, such as Evolution's global apikey); '' when none is set.
 */
export function engineToken(settings: DriverSettings, kind: string, channel: Outbound['channel']): string {
  return channel.engineToken || settings.engineToken(kind);
}

export interface TokenHeaderOptions {
  /** How the key is written in the header: as it is, or after "Bearer ". */
  scheme?: 'Bearer';
  /**
   * The engine server refuses every call without a key (Evolution, uazapi, WuzAPI, WPPConnect):
   * without one the call is refused here, before anything is sent, naming where a key comes from.
   */
  required?: boolean;
}

/** The engine's header for its key (engineToken above); none when there is no key and the server takes calls without one. */
export function tokenHeader(
  settings: DriverSettings,
  kind: string,
  channel: Outbound['channel'],
  name: string,
  opts: TokenHeaderOptions = {},
): Record<string, string> {
  const token = engineToken(settings, kind, channel);
  if (token) return { [name]: opts.scheme ? `${opts.scheme} ${token}` : token };
  if (!opts.required) return {};
  const env = `ENGINE_TOKEN_${kind.toUpperCase()}`;
  throw providerFailed(
    `${kind} needs a key for its engine server and none is set (channel engineToken, ${env} or ENGINE_TOKEN); nothing was sent`,
    [{ field: 'engineToken', message: `is required by ${kind}'s engine server (or set ${env} or ENGINE_TOKEN)` }],
  );
}

// ---- WhatsApp ids ----------------------------------------------------------------------------

/** The id a Baileys engine (engine_a, Evolution) answers a send with: the WAMessage's `key.id`. */
export function waMessageId(kind: string, answer: unknown): string {
  const id = obj(obj(answer).key).id;
  if (typeof id !== 'string' || !id) throw providerFailed(`${kind} answered without key.id`);
  return id;
}

/** The JID of a person's number (digits, E.164 without +). */
export const personJid = (digits: string) => `${digits}@s.whatsapp.net`;

/**
 * A contact as an engine addresses it: a number's digits, a group's JID, or a LID's JID
 * (`<digits>@lid`), which every engine takes where it takes a number. A business-scoped user id
 * (BSUID) names a contact of Meta's Cloud API only: refused before any call.
 */
export function engineAddress(kind: string, to: string): string {
  if (isBsuid(to)) {
    const why = `${kind} channels cannot reach a business-scoped user id (${to}): it belongs to the official API`;
    throw validation(why, [{ field: 'to', message: `must be a phone number or a LID (<digits>@lid) on ${kind} channels` }]);
  }
  return to;
}

/**
 * The chat a message goes to as a JID: a group's (`…@g.us`, a group contact) or a LID's as it is,
 * else the number's on `server` (`c.us` for engines on WhatsApp Web's own ids).
 */
export function chatJid(kind: string, to: string, server = 's.whatsapp.net'): string {
  const address = engineAddress(kind, to);
  return address.endsWith('@g.us') || isLid(address) ? address : `${address}@${server}`;
}

/** A phone-number JID ("5511…@s.whatsapp.net", legacy "…@c.us"), not a LID, group or broadcast. */
export const isPhoneJid = (jid: string) => /@(s\.whatsapp\.net|c\.us)$/.test(jid);

/** A LID's JID ("123456789012345@lid", with or without a device suffix). */
export const isLidJid = (jid: string) => jid.endsWith('@lid');

/** A one-to-one chat: a phone-number JID or a LID ("…@lid"). Groups, status broadcasts and channels are not. */
export const isDirectChat = (jid: string) => isPhoneJid(jid) || isLidJid(jid);

/** The digits of a JID's user part: "5511987654321:12@s.whatsapp.net" → "5511987654321" (the device suffix dropped). */
export const digitsOf = (jid: string) => jid.split('@')[0].split(':')[0].replace(/\D/g, '');

/**
 * The contact's identities among the JIDs an event names, read by their form wherever they sit:
 * WhatsApp addresses some chats by LID and puts the number in an alternate field (Baileys 7
 * `remoteJidAlt`, older Evolution `senderPn`, whatsmeow `SenderAlt`), or the other way round.
 * `from` is the first phone-number JID's digits, '' when none is named: a LID's digits are no phone
 * number. `lid` is the first LID as its JID without a device suffix, '' when none is named.
 */
export function contactIds(...jids: unknown[]): { from: string; lid: string } {
  const named = jids.filter((j): j is string => typeof j === 'string' && j !== '');
  const phone = named.find(isPhoneJid);
  const lid = named.map((j) => (isLidJid(j) ? digitsOf(j) : '')).find(Boolean);
  return { from: phone ? digitsOf(phone) : '', lid: lid ? `${lid}@lid` : '' };
}

// ---- media -----------------------------------------------------------------------------------

export type MediaKind = 'image' | 'video' | 'audio' | 'document';

/** What WhatsApp sends a file as, from its MIME type: anything but image, video or audio is a document. */
export function mediaKindOf(mimeType: string): MediaKind {
  const kind = mimeType.split('/')[0];
  return kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'document';
}

/** A plain message needs something to send: a text, a media, or both. */
export function requireContent(content: Outbound['content']): void {
  if (!content.text && !content.mediaUrl)
    throw validation('A message needs a text or a media', [{ field: 'body', message: 'is required' }]);
}

// ---- inbound ---------------------------------------------------------------------------------

/** An engine's webhook body, which must be a JSON object; what it holds is each driver's business. */
export function webhookBody(kind: string, body: unknown): Json {
  if (!isObject(body))
    throw validation(`${kind} webhook body must be a JSON object`, [{ field: 'body', message: 'must be a JSON object' }]);
  return body;
}

/** Seconds since the epoch as a number, a numeric string or a protobuf Long ({ low, high }) → milliseconds; 0 when unknown. */
export function secondsToMs(value: unknown): number {
  if (isObject(value) && typeof value.low === 'number') return ((Number(value.high) || 0) * 2 ** 32 + (value.low >>> 0)) * 1000;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

export const connectionEvent = (connection: 'CONNECTED' | 'DISCONNECTED', error = ''): InboundEvent => ({
  kind: 'connection',
  connection,
  error,
});

export const statusEvent = (providerMessageId: string, status: string, timestampMs = 0): InboundEvent => ({
  kind: 'status',
  providerMessageId,
  status,
  timestampMs,
});

// ---- interactive bodies ----------------------------------------------------------------------

/**
 * The interactive type of a send, which must belong to this engine's route ("engine_b/poll" on an
 * engine_b channel), or be a waba button or list this engine carries for its waba channel; a type
 * of another route is refused before anything is sent.
 */
export function interactiveFor(kind: string, content: Outbound['content']): { type: string; json: Json } {
  const { route, type, json } = interactiveOf(content);
  // A waba channel's buttons or list, diverted to its linked engine (coexistence, routeVia auto).
  if (route === 'waba') return wabaOnEngine(kind, type, json);
  if (route !== kind) {
    throw validation(`${content.interactiveType} cannot be sent through ${kind} channels`, [
      { field: 'interactive_type', message: `is not a ${kind} type` },
    ]);
  }
  return { type, json };
}

export const unknownInteractive = (kind: string, type: string, known: string[]) =>
  validation(`${kind} has no interactive type ${type}`, [
    { field: 'interactive_type', message: `must be one of ${known.map((t) => `${kind}/${t}`).join(', ')}` },
  ]);

/** PIX key types as the seed (and the Central Bank's DICT, Baileys and uazapi) spell them. */
export const PIX_TYPES = ['CPF', 'CNPJ', 'PHONE', 'EMAIL', 'EVP'] as const;
export type PixType = (typeof PIX_TYPES)[number];

export function requiredPixType(json: Json): PixType {
  const value = json.pixType;
  if (!PIX_TYPES.includes(value as PixType))
    throw validation('pixType must be one of EVP, CPF, CNPJ, EMAIL, PHONE', [
      { field: 'pixType', message: `must be one of ${PIX_TYPES.join(', ')}` },
    ]);
  return value as PixType;
}
