import { providerFailed } from '@convo/kit';
import { wahaChange } from './engine-changes';
import type { Change, Delivered, NumberCheck, Outbound, Presence } from './driver';
import { ackStatus, coordinates, messageEvent, RestEngineDriver, serialised, type Part } from './rest-engine';
import { type Json, obj, str } from '../json';
import {
  chatJid,
  connectionEvent,
  contactIds,
  type InboundEvent,
  isDirectChat,
  mediaKindOf,
  secondsToMs,
  statusEvent,
  tokenHeader,
  webhookBody,
} from './wa-engine';
import { epochMs, webChange } from './web-changes';

/**
 * engine_g: WAHA, WhatsApp HTTP API (waha.devlike.pro, github.com/devlikeapro/waha). Routes are
 * `/api/send*` with the session in the body and the key in `X-Api-Key`; the engine URL is the
 * server followed by the session name. Media go by link: `file: { url, mimetype, filename }`.
 * `chatId` is a number's `…@c.us`, or a LID's own JID (`<digits>@lid`).
 */
export class EngineGDriver extends RestEngineDriver {
  readonly kind = 'engine_g';

  protected async deliver(msg: Outbound, part: Part): Promise<string> {
    const { server, session } = this.sessionOf(msg.channel);
    const { path, body } = requestOf(part);
    const answer = await this.post(
      `${server}${path}`,
      { session, chatId: chatJid(this.kind, msg.to, 'c.us'), ...body },
      this.headers(msg.channel),
    );
    return this.idFrom(messageIdOf(obj(answer)), 'the message id (id, _data.id._serialized or key.id)');
  }

  /** `POST /api/startTyping` or `/api/stopTyping` with `{ session, chatId }`. */
  async sendPresence({ channel, to, state }: Presence): Promise<boolean> {
    const { server, session } = this.sessionOf(channel);
    await this.post(
      `${server}/api/${state === 'typing' ? 'startTyping' : 'stopTyping'}`,
      { session, chatId: chatJid(this.kind, to, 'c.us') },
      this.headers(channel),
    );
    return true;
  }

  /** React, edit or delete for everyone (engine-changes.ts); the session rides in the reaction's body, in the others' path. */
  async sendChange(c: Change): Promise<Delivered> {
    const { server, session } = this.sessionOf(c.channel);
    const { method, path, body } = wahaChange(this.kind, c, session);
    await this.request(`${server}${path}`, { method, body, headers: this.headers(c.channel) });
    return { providerMessageId: '' };
  }

  /** GET /api/contacts/check-exists?phone=&session= → `{ numberExists, chatId }`. */
  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    const { server, session } = this.sessionOf(channel);
    const query = new URLSearchParams({ phone: number, session });
    const answer = obj(await this.get(`${server}/api/contacts/check-exists?${query}`, this.headers(channel)));
    if (typeof answer.numberExists !== 'boolean') throw providerFailed('engine_g answered the number check without numberExists');
    return { exists: answer.numberExists, networkId: answer.numberExists ? str(answer.chatId) : '' };
  }

  /**
   * `{ id, timestamp, event, session, me, payload, engine }`; the payload is the same for every
   * engine (WAHA's structures/webhooks.dto.ts and responses.dto.ts): message (a contact's),
   * message.any (ours too), message.reaction, message.revoked, message.ack, session.status.
   */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    const envelope = webhookBody(this.kind, body);
    const payload = obj(envelope.payload);
    switch (envelope.event) {
      case 'message':
        return message(payload, envelope);
      case 'message.any':
        // Every message, the contact's too: those arrive as `message`, so only ours are read here.
        return payload.fromMe === true ? message(payload, envelope) : [];
      case 'message.reaction':
        return reaction(payload, envelope);
      case 'message.revoked':
        return revoked(payload, envelope);
      case 'message.ack': {
        const status = ackStatus(payload.ack);
        const id = str(payload.id);
        return status && id && payload.fromMe === true ? [statusEvent(id, status, Number(envelope.timestamp) || 0)] : [];
      }
      case 'session.status': {
        const connection = SESSION_STATES[str(payload.status)];
        return connection ? [connectionEvent(connection, connection === 'DISCONNECTED' ? str(payload.status) : '')] : [];
      }
      default:
        return [];
    }
  }

  private headers(channel: Outbound['channel']): Record<string, string> {
    return tokenHeader(this.settings, this.kind, channel, 'x-api-key');
  }
}

function requestOf(part: Part): { path: string; body: Json } {
  if (part.kind === 'text') return { path: '/api/sendText', body: { text: part.text } };
  const file = { mimetype: part.mimeType || undefined, url: part.url, filename: part.fileName };
  const caption = part.caption || undefined;
  switch (part.kind) {
    case 'image':
      return { path: '/api/sendImage', body: { file, caption } };
    case 'video':
      return { path: '/api/sendVideo', body: { file, caption } };
    case 'audio':
      // sendVoice wants Ogg/Opus (`convert` has WAHA encode another file as one, for a voice note the
      // caller asked for); other audio travels as a file the contact can play.
      if (part.mimeType.startsWith('audio/ogg')) return { path: '/api/sendVoice', body: { file } };
      return part.voice ? { path: '/api/sendVoice', body: { file, convert: true } } : { path: '/api/sendFile', body: { file } };
    case 'document':
      return { path: '/api/sendFile', body: { file, caption } };
  }
}

/**
 * The send APIs answer each engine's own message: WEBJS `{ id: { _serialized }, _data }`, NOWEB
 * Baileys' `{ key: { remoteJid, fromMe, id } }`, older versions `{ id: "true_<chat>_<id>" }`.
 * Acks name messages in the serialised form, so a Baileys key is turned into it.
 */
function messageIdOf(answer: Json): string {
  const id = serialised(answer.id) || serialised(obj(answer._data).id);
  if (id) return id;
  const key = obj(answer.key);
  return str(key.id)
    ? `${key.fromMe === false ? 'false' : 'true'}_${str(key.remoteJid).replace('@s.whatsapp.net', '@c.us')}_${str(key.id)}`
    : '';
}

/** WORKING is connected; STOPPED and FAILED need the operator. STARTING and SCAN_QR_CODE are steps, not changes. */
const SESSION_STATES: Record<string, 'CONNECTED' | 'DISCONNECTED'> = {
  WORKING: 'CONNECTED',
  STOPPED: 'DISCONNECTED',
  FAILED: 'DISCONNECTED',
};

/**
 * `payload`: `id` (serialised), `timestamp` (seconds), `from`, `fromMe`, `body`, `hasMedia`,
 * `media: { url, mimetype, filename }`, `replyTo: { id }`, `location`; the sender's name is in the
 * engine's `_data` (WEBJS notifyName, NOWEB pushName, GOWS Info.PushName). In a chat WhatsApp
 * addresses by LID, `from` is the LID (`…@lid`) and the number, when known, is only in `_data`:
 * NOWEB's Baileys key (`remoteJidAlt`, older `senderPn`), GOWS's whatsmeow `Info.SenderAlt`.
 * A message of ours (`fromMe`, from message.any) is the business's own, addressed `to` the contact.
 */
function message(p: Json, envelope: Json): InboundEvent[] {
  // Our own message (message.any) is `to` the contact, and the engine's sender fields name the business.
  const fromMe = p.fromMe === true;
  const chat = str(fromMe ? p.to : p.from);
  if (!isDirectChat(chat)) return [];
  const data = obj(p._data);
  const key = fromMe ? { remoteJid: obj(data.key).remoteJid, remoteJidAlt: obj(data.key).remoteJidAlt } : obj(data.key);
  const info = fromMe ? {} : obj(data.Info);
  const media = obj(p.media);
  const location = obj(p.location);
  const mimeType = str(media.mimetype);
  const messageType = p.hasMedia === true ? mediaType(mimeType) : p.location ? 'location' : 'text';
  return [
    messageEvent(
      {
        ...contactIds(chat, key.remoteJid, key.remoteJidAlt, key.senderPn, key.senderLid, info.Sender, info.SenderAlt),
        ...(fromMe && { fromMe }),
        contactName: fromMe ? '' : str(data.notifyName) || str(data.pushName) || str(info.PushName),
        providerMessageId: str(p.id),
        body: messageType === 'location' ? str(location.description) || coordinates(location.latitude, location.longitude) : str(p.body),
        messageType,
        mediaUrl: str(media.url),
        mimeType,
        fileName: str(media.filename),
        replyTo: str(obj(p.replyTo).id),
        timestampMs: secondsToMs(p.timestamp),
      },
      envelope,
    ),
  ];
}

/** WhatsApp stickers are WebP images; every other file is what its type says. */
function mediaType(mimeType: string): string {
  return mimeType === 'image/webp' ? 'sticker' : mediaKindOf(mimeType);
}

/**
 * message.reaction (WAMessageReaction): `id`, `timestamp`, `from`, `to`, `fromMe` of the reaction
 * itself (the chat is `from`, or `to` for ours) and `reaction { text, messageId }`: the emoji ('' removes
 * it) and the serialised id of the message reacted to.
 */
function reaction(p: Json, envelope: Json): InboundEvent[] {
  const fromMe = p.fromMe === true;
  const { text, messageId } = obj(p.reaction);
  const event = webChange('reaction', str(fromMe ? p.to : p.from), str(messageId), {
    fromMe,
    providerMessageId: str(p.id),
    body: str(text),
    timestampMs: epochMs(p.timestamp),
    raw: envelope,
  });
  return event ? [event] : [];
}

/**
 * message.revoked (WAMessageRevokedBody `{ before?, after? }`): the message as it was and as it is
 * now, the same message id; only its sender deletes a message for everyone, so its `fromMe` says
 * who did.
 */
function revoked(p: Json, envelope: Json): InboundEvent[] {
  const gone = obj(p.before ?? p.after);
  const fromMe = gone.fromMe === true;
  const event = webChange('delete', str(fromMe ? gone.to : gone.from), str(gone.id), {
    fromMe,
    timestampMs: epochMs(obj(p.after).timestamp),
    raw: envelope,
  });
  return event ? [event] : [];
}
