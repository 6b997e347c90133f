import type { Change } from './driver';
import { type ChangeRequest, editText } from './message-changes';
import { isLid } from '@convo/kit';
import { chatJid, engineAddress } from './wa-engine';

/**
 * The changes to a message sent before on the engines of engine-d … whatsapp, each from the engine's
 * own source (docs/channels/README.md "The whole conversation, out" names them). Paths are below
 * what each driver already sends to: WuzAPI's server, WPPConnect's `/api/{session}`, Z-API's
 * instance, WAHA's server (the session goes in the path or body), whatsapp-web.js REST's server
 * (the session last).
 */

/**
 * WuzAPI (asternic/wuzapi handlers.go: React, SendEditMessage, DeleteMessage; routes.go):
 * `POST /chat/react { Phone, Body, Id }` — our own message's Id prefixed `me:`, and `Body: "remove"`
 * removes (an empty Body is refused); `POST /chat/send/edit { Phone, Body, Id }`; `POST /chat/delete
 * { Phone, Id }` (whatsmeow's BuildRevoke: for everyone).
 */
export function wuzapiChange(kind: string, c: Change): ChangeRequest {
  const Phone = engineAddress(kind, c.to);
  switch (c.change) {
    case 'react':
      return {
        method: 'POST',
        path: '/chat/react',
        body: { Phone, Body: c.emoji || 'remove', Id: c.targetFromMe ? `me:${c.targetId}` : c.targetId },
      };
    case 'edit':
      return { method: 'POST', path: '/chat/send/edit', body: { Phone, Body: editText(kind, c), Id: c.targetId } };
    default:
      return { method: 'POST', path: '/chat/delete', body: { Phone, Id: c.targetId } };
  }
}

/**
 * WPPConnect Server (src/routes/index.ts; deviceController.ts reactMessage, deleteMessage;
 * messageController.ts editMessage): `POST /react-message { msgId, reaction }` (`false` removes:
 * wppconnect's sendReactionToMessage), `POST /edit-message { id, newText }`, `POST /delete-message
 * { phone, isGroup, messageId }` (onlyLocal absent: for everyone). The ids are WA-JS's serialised ones.
 */
export function wppconnectChange(kind: string, c: Change): ChangeRequest {
  switch (c.change) {
    case 'react':
      return { method: 'POST', path: '/react-message', body: { msgId: c.targetId, reaction: c.emoji || false } };
    case 'edit':
      return { method: 'POST', path: '/edit-message', body: { id: c.targetId, newText: editText(kind, c) } };
    default: {
      const to = engineAddress(kind, c.to);
      const phone = isLid(to) ? to : to.split('@')[0];
      return { method: 'POST', path: '/delete-message', body: { phone, isGroup: false, messageId: c.targetId } };
    }
  }
}

/**
 * Z-API (Z-API/z-api-docs docs/message/send-message-reaction.md, send-remove-reaction.md,
 * send-message-text.md `editMessageId`, delete-message.md): `POST /send-reaction { phone, reaction,
 * messageId }`, `POST /send-remove-reaction { phone, messageId }`, `POST /send-text { phone, message,
 * editMessageId }`, `DELETE /messages?messageId&phone&owner` (owner: the message is ours).
 */
export function zapiChange(kind: string, c: Change): ChangeRequest {
  const phone = engineAddress(kind, c.to);
  switch (c.change) {
    case 'react':
      return c.emoji
        ? { method: 'POST', path: '/send-reaction', body: { phone, reaction: c.emoji, messageId: c.targetId } }
        : { method: 'POST', path: '/send-remove-reaction', body: { phone, messageId: c.targetId } };
    case 'edit':
      return { method: 'POST', path: '/send-text', body: { phone, message: editText(kind, c), editMessageId: c.targetId } };
    default: {
      const query = new URLSearchParams({ messageId: c.targetId, phone, owner: String(c.targetFromMe) });
      return { method: 'DELETE', path: `/messages?${query}` };
    }
  }
}

/**
 * WAHA (devlikeapro/waha src/api/chatting.controller.ts `PUT /api/reaction`, chats.controller.ts,
 * structures/chatting.dto.ts): `PUT /api/reaction { session, messageId, reaction }` ("" removes),
 * `PUT /api/{session}/chats/{chatId}/messages/{messageId} { text }`, `DELETE` the same path.
 */
export function wahaChange(kind: string, c: Change, session: string): ChangeRequest {
  if (c.change === 'react') return { method: 'PUT', path: '/api/reaction', body: { session, messageId: c.targetId, reaction: c.emoji } };
  const chatId = chatJid(kind, c.to, 'c.us');
  const path = `/api/${encodeURIComponent(session)}/chats/${encodeURIComponent(chatId)}/messages/${encodeURIComponent(c.targetId)}`;
  return c.change === 'edit' ? { method: 'PUT', path, body: { text: editText(kind, c) } } : { method: 'DELETE', path };
}

/**
 * whatsapp-web.js REST (chrishubert/whatsapp-api src/routes.js, controllers/messageController.js):
 * `POST /message/react/{session} { chatId, messageId, reaction }` ("" removes: Message.react) and
 * `POST /message/delete/{session} { chatId, messageId, everyone: true }`. It finds the message by its
 * short id (`message.id.id`) among the chat's last 100, so the serialised id's last part is sent.
 * It has no edit route.
 */
export function wwebjsChange(kind: string, c: Change): ChangeRequest {
  const chatId = chatJid(kind, c.to, 'c.us');
  const messageId = c.targetId.split('_').pop() ?? c.targetId;
  return c.change === 'react'
    ? { method: 'POST', path: '/message/react', body: { chatId, messageId, reaction: c.emoji } }
    : { method: 'POST', path: '/message/delete', body: { chatId, messageId, everyone: true } };
}
