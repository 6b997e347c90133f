import { providerFailed } from '@convo/kit';
import { wwebjsChange } from './engine-changes';
import type { Change, Delivered, NumberCheck, Outbound, Presence } from './driver';
import { ackStatus, coordinates, messageEvent, RestEngineDriver, serialised, webMessageType, type Part } from './rest-engine';
import { type Json, obj, str } from '../json';
import {
  chatJid,
  connectionEvent,
  contactIds,
  type InboundEvent,
  isDirectChat,
  secondsToMs,
  statusEvent,
  tokenHeader,
  webhookBody,
} from './wa-engine';
import { epochMs, messageKey, webChange, webReaction } from './web-changes';

/**
 * whatsapp: the legacy whatsapp-web.js server, "WhatsApp REST API" (github.com/chrishubert/whatsapp-api,
 * continued as avoylenko/wwebjs-api). Routes are `/client/{action}/{sessionId}` with the key in
 * `x-api-key`; the engine URL is the server followed by the session id. Media go by link:
 * contentType `MessageMediaFromURL`. `chatId` is a number's `…@c.us` or a LID's `<digits>@lid`.
 */
export class WhatsappDriver extends RestEngineDriver {
  readonly kind = 'whatsapp';

  protected async deliver(msg: Outbound, part: Part): Promise<string> {
    const answer = obj(
      await this.post(
        this.sessionRoute(msg.channel, '/client/sendMessage'),
        { chatId: chatJid(this.kind, msg.to, 'c.us'), ...requestOf(part) },
        this.headers(msg.channel),
      ),
    );
    // `{ success: true, message: <whatsapp-web.js Message> }`; some builds refuse with HTTP 200 and success false.
    if (answer.success === false)
      throw providerFailed(`whatsapp refused the message: ${str(answer.message) || str(answer.error) || 'no reason given'}`, [
        { provider: this.kind, body: answer },
      ]);
    return this.idFrom(serialised(obj(answer.message).id), 'message.id._serialized');
  }

  /** `POST /chat/sendStateTyping/{sessionId}` or `/chat/clearState/{sessionId}` with `{ chatId }`. */
  async sendPresence({ channel, to, state }: Presence): Promise<boolean> {
    const path = state === 'typing' ? '/chat/sendStateTyping' : '/chat/clearState';
    const answer = obj(
      await this.post(this.sessionRoute(channel, path), { chatId: chatJid(this.kind, to, 'c.us') }, this.headers(channel)),
    );
    if (answer.success === false)
      throw providerFailed(`whatsapp refused the chat state: ${str(answer.message) || str(answer.error) || 'no reason given'}`, [
        { provider: this.kind, body: answer },
      ]);
    return true;
  }

  /** A reaction or a deletion for everyone (engine-changes.ts); the REST wrapper has no edit route. */
  async sendChange(c: Change): Promise<Delivered> {
    const { method, path, body } = wwebjsChange(this.kind, c);
    await this.request(this.sessionRoute(c.channel, path), { method, body, headers: this.headers(c.channel) });
    return { providerMessageId: '' };
  }

  /** POST /client/getNumberId/{sessionId} `{ number }` → `{ success, result: { _serialized } | null }`. */
  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    const answer = obj(await this.post(this.sessionRoute(channel, '/client/getNumberId'), { number }, this.headers(channel)));
    if (answer.success !== true || !('result' in answer))
      throw providerFailed('whatsapp answered the number check without success and result');
    const id = serialised(answer.result);
    return { exists: !!id, networkId: id };
  }

  /**
   * `{ dataType, data, sessionId }`, one dataType per whatsapp-web.js client event (the server's
   * src/sessions.js): message `{ message }` (a contact's), message_create `{ message }` (ours
   * too), message_reaction `{ reaction }`, message_edit `{ message, newBody, prevBody }`,
   * message_revoke_everyone `{ message }`, message_ack `{ message, ack }`, ready, disconnected.
   */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    const payload = webhookBody(this.kind, body);
    const data = obj(payload.data);
    switch (payload.dataType) {
      case 'message':
        return message(obj(data.message), payload);
      case 'message_create': {
        // Every message created, the contact's too: those arrive as `message`, so only ours are read here.
        const created = obj(data.message);
        return messageKey(created.id).fromMe ? message(created, payload) : [];
      }
      case 'message_reaction':
        return reaction(obj(data.reaction), payload);
      case 'message_edit':
        return edited(data, payload);
      case 'message_revoke_everyone':
        return revoked(obj(data.message), payload);
      case 'message_ack': {
        const sent = obj(data.message);
        const id = serialised(sent.id);
        const status = ackStatus(data.ack);
        const fromMe = sent.fromMe ?? obj(sent.id).fromMe;
        return status && fromMe === true && id ? [statusEvent(id, status, secondsToMs(sent.timestamp))] : [];
      }
      case 'ready':
        return [connectionEvent('CONNECTED')];
      case 'disconnected':
        return [connectionEvent('DISCONNECTED', str(data.reason))];
      default:
        return [];
    }
  }

  private headers(channel: Outbound['channel']): Record<string, string> {
    return tokenHeader(this.settings, this.kind, channel, 'x-api-key');
  }
}

function requestOf(part: Part): Json {
  if (part.kind === 'text') return { contentType: 'string', content: part.text };
  // whatsapp-web.js MessageSendOptions: a document is media sent "as document"; Ogg audio as a voice note.
  const options = {
    caption: part.caption || undefined,
    sendMediaAsDocument: part.kind === 'document' || undefined,
    sendAudioAsVoice: (part.kind === 'audio' && (part.voice || part.mimeType.startsWith('audio/ogg'))) || undefined,
  };
  return { contentType: 'MessageMediaFromURL', content: part.url, options };
}

/**
 * A whatsapp-web.js Message: `id._serialized`, `from`, `fromMe`, `type`, `body` (the caption for
 * media), `timestamp` (seconds), `_data.notifyName`, `_data.quotedStanzaID`. The server sends
 * media files only as base64 (its `media` event), so an incoming media has no link here. In a chat
 * WhatsApp addresses by LID, `from` is the LID and the message names no number at all. A message
 * of ours (`fromMe`, from message_create) is the business's own, sent from the phone or WhatsApp Web.
 */
function message(m: Json, payload: Json): InboundEvent[] {
  const data = obj(m._data);
  // Our own message (message_create) is `to` the contact.
  const fromMe = m.fromMe === true || messageKey(m.id).fromMe;
  const chat = str(fromMe ? m.to : m.from);
  if (!isDirectChat(chat)) return [];
  const messageType = webMessageType(m.type);
  return [
    messageEvent(
      {
        ...contactIds(chat),
        ...(fromMe && { fromMe }),
        contactName: fromMe ? '' : str(data.notifyName),
        providerMessageId: serialised(m.id),
        body: bodyOf(m, messageType),
        messageType,
        mimeType: str(data.mimetype),
        fileName: str(data.filename),
        replyTo: str(data.quotedStanzaID),
        timestampMs: secondsToMs(m.timestamp),
      },
      payload,
    ),
  ];
}

/** A choice's id for replies to buttons and lists; a location's place (its `body` is a thumbnail). */
function bodyOf(m: Json, messageType: string): string {
  if (messageType === 'button') return str(m.selectedButtonId);
  if (messageType === 'interactive') return str(m.selectedRowId);
  if (messageType === 'location') {
    const location = obj(m.location);
    return str(location.description) || coordinates(location.latitude, location.longitude);
  }
  return str(m.body);
}

/**
 * A whatsapp-web.js Reaction: `id` (the reaction's own message key: `fromMe` says who reacted,
 * `remote` the chat), `msgId` (the key of the message reacted to), `reaction` (the emoji, ''
 * removes it), `timestamp`, `senderId`.
 */
function reaction(r: Json, payload: Json): InboundEvent[] {
  const event = webReaction(r, r.reaction, payload);
  return event ? [event] : [];
}

/** message_edit: the edited Message (its id the original's; only its sender edits it) and `newBody`. */
function edited(data: Json, payload: Json): InboundEvent[] {
  const m = obj(data.message);
  const key = messageKey(m.id);
  const event = webChange('edit', str(key.fromMe ? m.to : m.from), key.serialized, {
    fromMe: key.fromMe,
    body: str(data.newBody),
    timestampMs: epochMs(obj(m._data).latestEditSenderTimestampMs),
    raw: payload,
  });
  return event ? [event] : [];
}

/** message_revoke_everyone: the Message as it is now (type "revoked"), under the deleted message's id. */
function revoked(m: Json, payload: Json): InboundEvent[] {
  const key = messageKey(m.id);
  const event = webChange('delete', str(key.fromMe ? m.to : m.from), key.serialized, {
    fromMe: key.fromMe,
    timestampMs: epochMs(obj(m._data).revokeTimestamp),
    raw: payload,
  });
  return event ? [event] : [];
}
