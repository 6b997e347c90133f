import { isLid, providerFailed } from '@convo/kit';
import { wppconnectChange } from './engine-changes';
import type { Change, Delivered, NumberCheck, Outbound, Presence } from './driver';
import { ackStatus, coordinates, messageEvent, RestEngineDriver, serialised, webMessageType, type Part } from './rest-engine';
import { type Json, obj, str } from '../json';
import {
  connectionEvent,
  contactIds,
  engineAddress,
  type InboundEvent,
  isDirectChat,
  secondsToMs,
  statusEvent,
  tokenHeader,
  webhookBody,
} from './wa-engine';
import { messageKey, webChange, webReaction } from './web-changes';

/**
 * engine_e: WPPConnect Server (github.com/wppconnect-team/wppconnect-server). Every route is
 * `/api/{session}/...` with the session's bearer token (from `generate-token`); the engine URL is
 * the server followed by the session name. Media go by link in `path`, which WPPConnect
 * downloads itself.
 */
export class EngineEDriver extends RestEngineDriver {
  readonly kind = 'engine_e';

  protected async deliver(msg: Outbound, part: Part): Promise<string> {
    const { path, body } = requestOf(part);
    const answer = await this.post(this.route(msg.channel, path), { ...recipient(msg.to), ...body }, this.headers(msg.channel));
    // `{ status: "success", response: [<message>] }`: one message per phone sent to.
    const response = obj(answer).response;
    const sent = obj(Array.isArray(response) ? response[0] : undefined);
    return this.idFrom(serialised(sent.id), 'response[0].id');
  }

  /** `POST /api/{session}/typing { phone, isGroup, value }`: startTyping (true) or stopTyping (false). */
  async sendPresence({ channel, to, state }: Presence): Promise<boolean> {
    const body = { ...recipient(engineAddress(this.kind, to)), value: state === 'typing' };
    await this.post(this.route(channel, '/typing'), body, this.headers(channel));
    return true;
  }

  /** React, edit or delete for everyone (engine-changes.ts); WPPConnect answers no id of the change's. */
  async sendChange(c: Change): Promise<Delivered> {
    const { method, path, body } = wppconnectChange(this.kind, c);
    await this.request(this.route(c.channel, path), { method, body, headers: this.headers(c.channel) });
    return { providerMessageId: '' };
  }

  /** GET /api/{session}/check-number-status/{phone} → `response: { numberExists, id: { _serialized } }`. */
  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    const answer = await this.get(this.route(channel, `/check-number-status/${encodeURIComponent(number)}`), this.headers(channel));
    const status = obj(obj(answer).response);
    if (typeof status.numberExists !== 'boolean') throw providerFailed('engine_e answered the number check without response.numberExists');
    return { exists: status.numberExists, networkId: status.numberExists ? serialised(status.id) : '' };
  }

  /**
   * The server posts `{ event, session, ...data }`: the event's own object spread beside its name.
   * onmessage is a contact's message, onselfmessage one the business sent (the server's
   * `webhook.onSelfMessage`), onreactionmessage and onrevokedmessage a reaction and a deletion
   * for everyone (createSessionUtil.ts of wppconnect-server).
   */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    const payload = webhookBody(this.kind, body);
    switch (payload.event) {
      case 'onmessage':
        return message(payload);
      case 'onselfmessage':
        return payload.fromMe === true ? message(payload) : [];
      case 'onreactionmessage':
        return reaction(payload);
      case 'onrevokedmessage':
        return revoked(payload);
      case 'onack':
        return ack(payload);
      case 'status-find': {
        const connection = SESSION_STATES[str(payload.status)];
        return connection ? [connectionEvent(connection, connection === 'DISCONNECTED' ? str(payload.status) : '')] : [];
      }
      default:
        return [];
    }
  }

  private route(channel: Outbound['channel'], path: string): string {
    const { server, session } = this.sessionOf(channel);
    return `${server}/api/${encodeURIComponent(session)}${path}`;
  }

  private headers(channel: Outbound['channel']): Record<string, string> {
    return tokenHeader(this.settings, this.kind, channel, 'authorization', { scheme: 'Bearer', required: true });
  }
}

/**
 * WPPConnect takes the contact's digits in `phone` and makes the chat id itself: `isLid` has it
 * make a LID's (`<digits>@lid`) instead of a number's.
 */
function recipient(to: string): Json {
  return isLid(to) ? { phone: to.split('@')[0], isGroup: false, isLid: true } : { phone: to, isGroup: false };
}

function requestOf(part: Part): { path: string; body: Json } {
  switch (part.kind) {
    case 'text':
      return { path: '/send-message', body: { message: part.text } };
    case 'image':
      return { path: '/send-image', body: { path: part.url, filename: part.fileName, caption: part.caption || undefined } };
    case 'audio':
      return { path: '/send-voice', body: { path: part.url } };
    case 'video':
    case 'document':
      return { path: '/send-file', body: { path: part.url, filename: part.fileName, caption: part.caption || undefined } };
  }
}

/** statusFind values (wppconnect's StatusFind) that mean the session came up or went away. */
const SESSION_STATES: Record<string, 'CONNECTED' | 'DISCONNECTED'> = {
  inChat: 'CONNECTED',
  isLogged: 'CONNECTED',
  desconnectedMobile: 'DISCONNECTED',
  browserClose: 'DISCONNECTED',
  autocloseCalled: 'DISCONNECTED',
  notLogged: 'DISCONNECTED',
  deleteToken: 'DISCONNECTED',
  serverClose: 'DISCONNECTED',
};

/**
 * A WA-JS message: `id`, `from`, `type`, `t` (seconds), `notifyName`/`sender.pushname`, and for
 * media `mimetype`, `filename`, `caption` (`body` then holds a thumbnail or the file, never
 * text). `fileUrl` is set when the server uploads media to S3 (webhook.uploadS3). In a chat
 * WhatsApp addresses by LID, `from` and `sender.id` are the LID; WhatsApp Web knows the number
 * only when it shares it, as the sender contact's `phoneNumber`. A message of ours (`fromMe`) is
 * the business's own, sent from the phone or WhatsApp Web.
 */
function message(m: Json): InboundEvent[] {
  // Our own message (onselfmessage) is addressed `to` the contact; its sender is the business.
  const fromMe = m.fromMe === true;
  const chat = fromMe ? serialised(m.to) : str(m.from);
  if (!isDirectChat(chat)) return [];
  const sender = fromMe ? {} : obj(m.sender);
  const messageType = webMessageType(m.type);
  return [
    messageEvent(
      {
        ...contactIds(chat, serialised(sender.id), serialised(sender.phoneNumber)),
        ...(fromMe && { fromMe }),
        contactName: fromMe ? '' : str(m.notifyName) || str(sender.pushname) || str(sender.name),
        providerMessageId: serialised(m.id),
        body: bodyOf(m, messageType),
        messageType,
        mediaUrl: str(m.fileUrl),
        mimeType: str(m.mimetype),
        fileName: str(m.filename),
        replyTo: str(m.quotedMsgId) || str(m.quotedStanzaID),
        timestampMs: secondsToMs(m.t),
      },
      m,
    ),
  ];
}

function bodyOf(m: Json, messageType: string): string {
  switch (messageType) {
    case 'text':
      return str(m.body);
    case 'button':
      return str(m.selectedButtonId);
    case 'interactive':
      return str(obj(obj(m.listResponse).singleSelectReply).selectedRowId);
    case 'location':
      return coordinates(m.lat, m.lng);
    default:
      return str(m.caption);
  }
}

/** onack: the message's `id` (serialised, or `{ fromMe, _serialized }`) and its `ack` level; acks of messages we received are not ours. */
function ack(payload: Json): InboundEvent[] {
  const id = serialised(payload.id);
  const fromMe = payload.fromMe ?? obj(payload.id).fromMe ?? id.startsWith('true_');
  const status = ackStatus(payload.ack);
  if (!id || fromMe !== true || !status) return [];
  return [statusEvent(id, status, secondsToMs(payload.t))];
}

/**
 * onreactionmessage: WA-JS's chat.new_reaction as wppconnect forwards it, `{ id, msgId,
 * reactionText, read, orphan, orphanReason, timestamp }`: `id` is the reaction's own message key
 * (its `fromMe` says who reacted, `remote` the chat), `msgId` the key of the message reacted to,
 * `reactionText` the emoji ('' removes it), `timestamp` the sender's time.
 */
function reaction(p: Json): InboundEvent[] {
  const event = webReaction(p, p.reactionText, p);
  return event ? [event] : [];
}

/**
 * onrevokedmessage: WA-JS's chat.msg_revoke as wppconnect forwards it, `{ author, from, to, id,
 * refId }`: `id` is the revoke's own serialised key, `refId` the deleted message's.
 */
function revoked(p: Json): InboundEvent[] {
  const own = messageKey(p.id);
  const target = messageKey(p.refId);
  const fromMe = own.serialized ? own.fromMe : target.fromMe;
  const chat = target.chat || serialised(fromMe ? p.to : p.from);
  const event = webChange('delete', chat, target.serialized, { fromMe, providerMessageId: own.serialized, raw: p });
  return event ? [event] : [];
}
