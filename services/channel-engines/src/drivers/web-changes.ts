import { type Json, obj, str } from '../json';
import { serialised } from './rest-engine';
import { contactIds, type InboundEvent, isDirectChat } from './wa-engine';

/**
 * What the engines built on WhatsApp Web (WPPConnect's WA-JS, WAHA's WEBJS, whatsapp-web.js)
 * report about another message rather than being one. They name messages by WhatsApp Web's
 * message key, `{ fromMe, remote, id, _serialized }`, or by its serialised form
 * `"<fromMe>_<chat>_<id>[_<participant>]"` ("true_5511987654321@c.us_3EB0…"): the id those
 * drivers store for every message, ours and the contact's, so a change names its message by it.
 */

export interface MessageKey {
  /** The serialised key ('' when the value names none). */
  serialized: string;
  /** Whether the business wrote that message (from the key, else from the serialised prefix). */
  fromMe: boolean;
  /** The chat's JID (`…@c.us`, `…@lid`, `…@g.us`), from `remote` or the serialised form. */
  chat: string;
}

/** A message key or its serialised string, read. */
export function messageKey(key: unknown): MessageKey {
  const serialized = serialised(key);
  const parts = serialized.split('_');
  const fromMe = typeof obj(key).fromMe === 'boolean' ? obj(key).fromMe === true : parts[0] === 'true';
  return { serialized, fromMe, chat: serialised(obj(key).remote) || str(parts[1]) };
}

/**
 * An epoch time in milliseconds from seconds (WhatsApp Web's `t`, WAHA's `timestamp`, possibly
 * fractional) or milliseconds (a reaction's sender time): values past 10^11 are milliseconds.
 */
export function epochMs(value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.round(n > 1e11 ? n : n * 1000);
}

type Fields = Partial<Omit<InboundEvent, 'kind' | 'targetId' | 'from' | 'lid'>>;

/**
 * A reaction (`emoji` '' removes it), an edit (`body` the new text) or a deletion for everyone of
 * the message `target` names, in the chat `chat`; undefined in a group, a broadcast or a channel
 * (their messages are left out), or when no message is named.
 */
export function webChange(
  kind: 'reaction' | 'edit' | 'delete',
  chat: string,
  target: string,
  fields: Fields & { fromMe: boolean; raw: Json },
): InboundEvent | undefined {
  if (!target || !isDirectChat(chat)) return undefined;
  const { raw, ...rest } = fields;
  return { kind, ...contactIds(chat), ...rest, targetId: target, rawJson: JSON.stringify(raw) };
}

/**
 * A WhatsApp Web reaction as WA-JS (WPPConnect) and whatsapp-web.js pass it on: `id` the reaction's
 * own message key (its `fromMe` says who reacted, `remote` the chat), `msgId` the key of the
 * message reacted to, the emoji in `emoji` ('' removes it), `timestamp` the sender's time.
 */
export function webReaction(r: Json, emoji: unknown, raw: Json): InboundEvent | undefined {
  const own = messageKey(r.id);
  const target = messageKey(r.msgId);
  return webChange('reaction', own.chat || target.chat, target.serialized, {
    fromMe: own.fromMe,
    providerMessageId: own.serialized,
    body: str(emoji),
    timestampMs: epochMs(r.timestamp),
    raw,
  });
}
