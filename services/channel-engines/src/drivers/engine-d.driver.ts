import { providerFailed } from '@convo/kit';
import { baileysSpelling } from './baileys-changes';
import { wuzapiChange } from './engine-changes';
import { baileysMessage } from './baileys-inbound';
import type { Change, Delivered, NumberCheck, Outbound, Presence } from './driver';
import { RestEngineDriver, type Part, type Status } from './rest-engine';
import { type Json, obj, str, strings } from '../json';
import { connectionEvent, engineAddress, type InboundEvent, statusEvent, tokenHeader, webhookBody } from './wa-engine';

/**
 * engine_d: WuzAPI (github.com/asternic/wuzapi), a REST server over whatsmeow. One server holds
 * many users; the user's token (header `Token`) picks the WhatsApp number, so the engine URL is
 * the server itself. Media go by link: WuzAPI fetches an http(s) URL given in place of a data URL.
 * `Phone` takes a number's digits or any JID, a LID's (`<digits>@lid`) included.
 */
export class EngineDDriver extends RestEngineDriver {
  readonly kind = 'engine_d';

  protected async deliver(msg: Outbound, part: Part): Promise<string> {
    const { path, body } = requestOf(part);
    const answer = await this.post(`${this.baseUrl(msg.channel)}${path}`, { Phone: msg.to, ...body }, this.headers(msg.channel));
    return this.idFrom(obj(obj(answer).data).Id, 'data.Id');
  }

  /** `POST /chat/presence { Phone, State, Media }`: whatsmeow's SendChatPresence, composing or paused. */
  async sendPresence({ channel, to, state }: Presence): Promise<boolean> {
    await this.post(
      `${this.baseUrl(channel)}/chat/presence`,
      { Phone: engineAddress(this.kind, to), State: state === 'typing' ? 'composing' : 'paused', Media: '' },
      this.headers(channel),
    );
    return true;
  }

  /** POST /user/check `{ Phone: [...] }` → `data.Users[{ IsInWhatsapp, JID }]`. */
  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    const answer = await this.post(`${this.baseUrl(channel)}/user/check`, { Phone: [number] }, this.headers(channel));
    const users = obj(obj(answer).data).Users;
    const user = obj(Array.isArray(users) ? users[0] : undefined);
    if (typeof user.IsInWhatsapp !== 'boolean')
      throw providerFailed('engine_d answered the number check without data.Users[0].IsInWhatsapp');
    return { exists: user.IsInWhatsapp, networkId: user.IsInWhatsapp ? str(user.JID) : '' };
  }

  /** React, edit or delete for everyone (engine-changes.ts); WuzAPI answers the target's own Id, no id of the change's. */
  async sendChange(c: Change): Promise<Delivered> {
    const { method, path, body } = wuzapiChange(this.kind, c);
    await this.request(`${this.baseUrl(c.channel)}${path}`, { method, body, headers: this.headers(c.channel) });
    return { providerMessageId: '' };
  }

  /**
   * With WEBHOOK_FORMAT=json WuzAPI posts `{ type, event, userID, instanceName, token, ... }`,
   * `event` being whatsmeow's event as Go marshals it (the default form format is no JSON).
   */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    const payload = webhookBody(this.kind, body);
    switch (payload.type) {
      case 'Message':
        return message(payload);
      case 'ReadReceipt':
        return receipts(payload);
      case 'Connected':
        return [connectionEvent('CONNECTED')];
      case 'Disconnected':
      case 'LoggedOut':
      case 'ConnectFailure':
        return [connectionEvent('DISCONNECTED', str(payload.type))];
      default:
        return [];
    }
  }

  private headers(channel: Outbound['channel']): Record<string, string> {
    return tokenHeader(this.settings, this.kind, channel, 'token', { required: true });
  }
}

function requestOf(part: Part): { path: string; body: Json } {
  const caption = part.kind === 'text' ? undefined : part.caption || undefined;
  switch (part.kind) {
    case 'text':
      return { path: '/chat/send/text', body: { Body: part.text } };
    case 'image':
      return { path: '/chat/send/image', body: { Image: part.url, Caption: caption, MimeType: part.mimeType || undefined } };
    case 'video':
      return { path: '/chat/send/video', body: { Video: part.url, Caption: caption, MimeType: part.mimeType || undefined } };
    case 'audio':
      // A voice note (the /voice route) or an Ogg/Opus file plays as one; anything else as an audio file.
      return {
        path: '/chat/send/audio',
        body: { Audio: part.url, mimetype: part.mimeType || undefined, ptt: !!part.voice || part.mimeType.startsWith('audio/ogg') },
      };
    case 'document':
      return {
        path: '/chat/send/document',
        body: { Document: part.url, FileName: part.fileName, MimeType: part.mimeType || undefined, Caption: caption },
      };
  }
}

/**
 * `event.Info` is whatsmeow's MessageInfo (Chat, Sender, SenderAlt, IsFromMe, ID, PushName,
 * Timestamp) and `event.Message` the WhatsApp message itself, which Baileys serialises the same
 * way: the event is read as Baileys' WAMessage. In a chat WhatsApp addresses by LID, Chat and
 * Sender are the LID and SenderAlt the number when known (`AddressingMode: "lid"`), the other way
 * round otherwise; they ride in the key's JID fields, which are read by form. A media file is
 * linked only when the WuzAPI user stores media in S3 (`s3.url`); the base64 copy and the token
 * are left out of raw_json.
 */
function message(payload: Json): InboundEvent[] {
  const event = obj(payload.event);
  const info = obj(event.Info);
  // On our own message Sender and SenderAlt are the business's own JIDs: the chat alone is the contact.
  const fromMe = info.IsFromMe === true;
  const read = baileysMessage({
    key: {
      remoteJid: str(info.Chat),
      remoteJidAlt: fromMe ? '' : str(info.SenderAlt),
      senderPn: fromMe ? '' : str(info.Sender),
      fromMe,
      id: str(info.ID),
    },
    pushName: str(info.PushName),
    message: { ...obj(baileysSpelling(event.Message)), mediaUrl: str(obj(payload.s3).url) },
  });
  if (!read) return [];
  return [
    {
      ...read,
      mimeType: read.mimeType || str(payload.mimeType),
      timestampMs: Date.parse(str(info.Timestamp)) || 0,
      // The user's token rides along in the body: it must not reach the customer's webhook.
      rawJson: JSON.stringify({ ...payload, base64: undefined, token: undefined }),
    },
  ];
}

const RECEIPT_STATES: Record<string, Status> = { Delivered: 'delivered', Read: 'read' };

/** A receipt names the messages it covers (MessageIDs); ReadSelf (read on our own device) is no status of ours. */
function receipts(payload: Json): InboundEvent[] {
  const status = RECEIPT_STATES[str(payload.state)];
  const event = obj(payload.event);
  const ids = strings(event.MessageIDs);
  if (!status) return [];
  const at = Date.parse(str(event.Timestamp)) || 0;
  return ids.map((id) => statusEvent(id, status, at));
}
