import { reactionProblem, validation } from '@convo/kit';
import type { Change } from './driver';
import { type Json, obj, str } from '../json';
import { chatJid, engineAddress } from './wa-engine';

/**
 * The requests of a change to a message sent before (a reaction, an edit, a deletion for everyone),
 * per provider family; each driver sends them with its own credentials. docs/channels/README.md
 * ("The whole conversation") lists them with the provider pages they follow.
 */
export interface ChangeRequest {
  method: 'POST' | 'PUT' | 'DELETE';
  /** Below the engine's base (engine_a, engine_c) or between the server and the instance (Evolution). */
  path: string;
  /** Absent where the engine takes the change in the query (Z-API's DELETE /messages). */
  body?: Json;
}

/** The message key Baileys-based engines name a message by: its chat, its id, and whether it is ours. */
export const keyOf = (kind: string, c: Change) => ({ remoteJid: chatJid(kind, c.to), fromMe: c.targetFromMe, id: c.targetId });

/** The text of an edit: never empty (the providers refuse an empty edit; a deletion is the way to remove it). */
export function editText(kind: string, c: Change): string {
  if (!c.text) throw validation(`${kind}: an edit needs its new text`, [{ field: 'text', message: 'is required' }]);
  return c.text;
}

/**
 * engine_a: Baileys' `sendMessage(jid, content)` again (docs/channels/engines-abc.md), with Baileys'
 * own change contents: `{ react: { text, key } }` (text "" removes), `{ edit: key, text }`,
 * `{ delete: key }` (a revoke for everyone).
 */
export function baileysChangeRequest(kind: string, c: Change): ChangeRequest {
  const jid = chatJid(kind, c.to);
  const key = keyOf(kind, c);
  const content =
    c.change === 'react'
      ? { react: { text: c.emoji, key } }
      : c.change === 'edit'
        ? { edit: key, text: editText(kind, c) }
        : { delete: key };
  return { method: 'POST', path: '/messages', body: { jid, content, options: { messageId: c.reference } } };
}

/**
 * Evolution API v2 (engine_b): `POST /message/sendReaction { key, reaction }`, `POST /chat/updateMessage
 * { number, key, text }`, `DELETE /chat/deleteMessageForEveryone { id, remoteJid, fromMe }`
 * (src/validate/message.schema.ts and chat.schema.ts of evolution-api 2.3.6). v1 (engine_h) has the
 * same paths (an edit is a PUT there); its reaction nests in `reactionMessage` (validate.schema.ts of 1.8.2).
 */
export function evolutionChange(kind: string, c: Change, version: 1 | 2): ChangeRequest {
  const key = keyOf(kind, c);
  switch (c.change) {
    case 'react':
      return {
        method: 'POST',
        path: '/message/sendReaction',
        body: version === 2 ? { key, reaction: c.emoji } : { reactionMessage: { key, reaction: c.emoji } },
      };
    case 'edit':
      // v1's chat router takes it as PUT (1.8.2), v2's as POST.
      return {
        method: version === 2 ? 'POST' : 'PUT',
        path: '/chat/updateMessage',
        body: { number: engineAddress(kind, c.to), key, text: editText(kind, c) },
      };
    default:
      return { method: 'DELETE', path: '/chat/deleteMessageForEveryone', body: key };
  }
}

/**
 * uazapi (engine_c): `POST /message/react { number, text, id }` (text "" removes), `POST
 * /message/edit { id, text }`, `POST /message/delete { id }` (uazapiGO 2.0.1's OpenAPI).
 */
export function uazapiChange(kind: string, c: Change): ChangeRequest {
  switch (c.change) {
    case 'react':
      return { method: 'POST', path: '/message/react', body: { number: engineAddress(kind, c.to), text: c.emoji, id: c.targetId } };
    case 'edit':
      return { method: 'POST', path: '/message/edit', body: { id: c.targetId, text: editText(kind, c) } };
    default:
      return { method: 'POST', path: '/message/delete', body: { id: c.targetId } };
  }
}

/**
 * Instagram takes one reaction, the heart (`reaction: "love"`); Messenger any emoji. Unreact names
 * the message alone (Meta's "Sender Actions" page of the Messenger Platform, and Instagram
 * Messaging's "Send a Message").
 */
export function socialReaction(kind: 'social_a' | 'social_b', c: Change): Json {
  if (!c.emoji) return { sender_action: 'unreact', payload: { message_id: c.targetId } };
  const reaction = kind === 'social_a' ? instagramReaction(c.emoji) : c.emoji;
  return { sender_action: 'react', payload: { message_id: c.targetId, reaction } };
}

function instagramReaction(emoji: string): string {
  const problem = reactionProblem('social_a', emoji);
  if (problem) throw validation('Instagram reacts with a heart only', [{ field: 'emoji', message: problem }]);
  return 'love';
}

/** The id an engine gives a change, where it answers one (the reaction's or edit's own message key); '' otherwise. */
export function changeId(answer: unknown): string {
  const a = obj(answer);
  return str(obj(a.key).id) || str(a.messageid) || str(obj(obj(a.data).key).id) || '';
}
