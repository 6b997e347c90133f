import { providerFailed, validation } from '@convo/kit';
import { requestJson } from './http';
import {
  type Json,
  obj,
  optionalInteger,
  optionalText,
  requiredList,
  requiredNumber,
  requiredStrings,
  requiredText,
  str,
  strings,
} from '../json';
import {
  type Change,
  type Delivered,
  type Driver,
  type DriverSettings,
  type NumberCheck,
  type Outbound,
  type Presence,
  sendInOrder,
} from './driver';
import { changeId, uazapiChange } from './message-changes';
import {
  connectionEvent,
  contactIds,
  engineAddress,
  engineBaseUrl,
  type InboundEvent,
  interactiveFor,
  isDirectChat,
  mediaKindOf,
  requireContent,
  requiredPixType,
  secondsToMs,
  statusEvent,
  tokenHeader,
  unknownInteractive,
  webhookBody,
} from './wa-engine';

/** One uazapi call: `POST {base}{path}` with this body. */
interface UazapiSend {
  path: string;
  body: Json;
}

const TYPES = ['button', 'list', 'poll', 'carousel', 'pixButton', 'locationButton', 'requestPayment'];

/** How long uazapi keeps showing "typing…" unless a message or a paused ends it first. */
export const UAZAPI_TYPING_MS = 30_000;

/** uazapi's mediaType of an inbound file → our message_type (ptt and myaudio are voice notes). */
const MEDIA_TYPES: Record<string, string> = {
  image: 'image',
  video: 'video',
  audio: 'audio',
  ptt: 'audio',
  myaudio: 'audio',
  document: 'document',
  sticker: 'sticker',
};

/** Receipt types (whatsmeow's, as uazapi names them) that are delivery states of our messages. */
const RECEIPTS: Record<string, string> = { sent: 'sent', delivered: 'delivered', read: 'read', played: 'read', servererror: 'failed' };

/**
 * engine_c: uazapi (uazapiGO v2, docs/channels/engines-abc.md). The instance's token goes in the `token`
 * header; sends answer the stored message, whose `messageid` is WhatsApp's id of it (the id
 * receipts and replies name; `id` is uazapi's own "owner:messageid").
 */
export class EngineCDriver implements Driver {
  readonly kind = 'engine_c';

  constructor(private readonly settings: DriverSettings) {}

  async send(msg: Outbound): Promise<Delivered> {
    return sendInOrder(sendsOf(this.kind, msg), async ({ path, body }) => {
      const answer = obj(await this.post(msg.channel, path, body));
      const id = str(answer.messageid) || str(answer.id).split(':').pop();
      if (!id) throw providerFailed('engine_c answered without messageid');
      return id;
    });
  }

  /**
   * `POST /message/presence { number, presence, delay }`: uazapi repeats composing (every 10 s) for
   * `delay` ms or until a message goes to that chat; paused ends it at once.
   */
  async sendPresence({ channel, to, state }: Presence): Promise<boolean> {
    const number = engineAddress(this.kind, to);
    const body = state === 'typing' ? { number, presence: 'composing', delay: UAZAPI_TYPING_MS } : { number, presence: 'paused' };
    await this.post(channel, '/message/presence', body);
    return true;
  }

  /** `/message/react`, `/message/edit`, `/message/delete` (message-changes.ts). */
  async sendChange(c: Change): Promise<Delivered> {
    const { path, body } = uazapiChange(this.kind, c);
    return { providerMessageId: changeId(await this.post(c.channel, path, body)) };
  }

  /** uazapi's POST /chat/check `{ numbers }` → `[{ query, isInWhatsapp, jid, verifiedName }]`. */
  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    const body = await this.post(channel, '/chat/check', { numbers: [number] });
    const first = Array.isArray(body) ? (body[0] as { isInWhatsapp?: unknown; jid?: unknown } | undefined) : undefined;
    if (!first || typeof first.isInWhatsapp !== 'boolean') throw providerFailed('engine_c answered the number check without isInWhatsapp');
    return { exists: first.isInWhatsapp, networkId: first.isInWhatsapp ? str(first.jid) : '' };
  }

  /**
   * uazapi's webhook body, told apart by `EventType`: messages `{ message }`, messages_update
   * `{ event: { MessageIDs, Type, IsFromMe, Timestamp } }`, connection `{ instance: { status } }`.
   */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    const envelope = webhookBody(this.kind, body);
    switch (envelope.EventType) {
      case 'messages': {
        const message = uazapiMessage(obj(envelope.message));
        return message ? [message] : [];
      }
      case 'messages_update':
        return receipts(obj(envelope.event), str(envelope.state));
      case 'connection': {
        const instance = obj(envelope.instance);
        if (instance.status === 'connected') return [connectionEvent('CONNECTED')];
        if (instance.status === 'disconnected') return [connectionEvent('DISCONNECTED', str(instance.lastDisconnectReason))];
        return [];
      }
      default:
        return [];
    }
  }

  private async post(channel: Outbound['channel'], path: string, payload: unknown): Promise<unknown> {
    const { body } = await requestJson(`${engineBaseUrl(this.settings, this.kind, channel)}${path}`, {
      body: payload,
      headers: tokenHeader(this.settings, this.kind, channel, 'token', { required: true }),
      timeoutMs: this.settings.timeoutMs,
      provider: this.kind,
    });
    return body;
  }
}

// ---- outbound --------------------------------------------------------------------------------

/** The uazapi calls of one send, in order: an audio takes no caption, so its text follows as /send/text. */
function sendsOf(kind: string, { content, to: contact }: Outbound): UazapiSend[] {
  // uazapi's `number` takes a LID's JID as it is.
  const to = engineAddress(kind, contact);
  if (content.interactiveType) {
    const { type, json } = interactiveFor(kind, content);
    return [interactive(kind, type, json, to)];
  }
  requireContent(content);
  const text: UazapiSend = { path: '/send/text', body: { number: to, text: content.text } };
  if (!content.mediaUrl) return [text];
  const type = mediaKindOf(content.mimeType);
  const media: UazapiSend = {
    path: '/send/media',
    body: {
      number: to,
      // ptt: uazapi's voice note (the /voice route).
      type: type === 'audio' && content.voice ? 'ptt' : type,
      file: content.mediaUrl,
      text: type === 'audio' ? undefined : content.text || undefined,
      docName: type === 'document' ? content.fileName || undefined : undefined,
    },
  };
  return type === 'audio' && content.text ? [media, text] : [media];
}

/**
 * The seed's engine_c types are uazapi's own payloads: choices keep uazapi's strings ("Label|id",
 * "[Section]", "title|id|description") and go out as written.
 */
function interactive(kind: string, type: string, json: Json, number: string): UazapiSend {
  switch (type) {
    case 'button':
      return menu(number, 'button', json, { footerText: optionalText(json, 'footerText'), imageButton: optionalText(json, 'imageButton') });
    case 'list':
      return menu(number, 'list', json, { listButton: requiredText(json, 'listButton'), footerText: optionalText(json, 'footerText') });
    case 'poll':
      return menu(number, 'poll', json, { selectableCount: optionalInteger(json, 'selectableCount') ?? 1 });
    case 'carousel':
      // uazapi's /send/carousel requires the message's own text above the cards (the gateway requires it too).
      return { path: '/send/carousel', body: { number, text: requiredText(json, 'text'), carousel: carousel(json) } };
    case 'pixButton':
      return { path: '/send/pix-button', body: { number, ...pix(json) } };
    case 'locationButton':
      return { path: '/send/location-button', body: { number, text: requiredText(json, 'text') } };
    case 'requestPayment':
      return {
        path: '/send/request-payment',
        body: {
          number,
          amount: requiredNumber(json, 'amount'),
          title: requiredText(json, 'title'),
          text: optionalText(json, 'text'),
          footer: optionalText(json, 'footer'),
          itemName: optionalText(json, 'itemName'),
          invoiceNumber: optionalText(json, 'invoiceNumber'),
          ...pix(json),
        },
      };
    default:
      throw unknownInteractive(kind, type, TYPES);
  }
}

function menu(number: string, type: string, json: Json, extra: Json): UazapiSend {
  return {
    path: '/send/menu',
    body: { number, type, text: requiredText(json, 'text'), choices: requiredStrings(json, 'choices'), ...extra },
  };
}

const pix = (json: Json) => ({
  pixType: requiredPixType(json),
  pixKey: requiredText(json, 'pixKey'),
  pixName: requiredText(json, 'pixName'),
});

/**
 * Carousel cards. uazapi puts a button's target in its `id`: the answer a REPLY button sends back
 * (the button's own `id`, else its text, as uazapi's menus do) and the link of a URL button, which
 * the seed does not name: we take it from the button's `url`.
 */
function carousel(json: Json): Json[] {
  return requiredList(json, 'carousel').map((card, c) => ({
    text: requiredText(card, 'text', `carousel[${c}].text`),
    image: requiredText(card, 'image', `carousel[${c}].image`),
    buttons: requiredList(card, 'buttons', `carousel[${c}].buttons`).map((b, i) => {
      const path = `carousel[${c}].buttons[${i}]`;
      const text = requiredText(b, 'text', `${path}.text`);
      if (b.type === 'REPLY') return { id: optionalText(b, 'id') ?? text, text, type: 'REPLY' };
      if (b.type === 'URL') return { id: requiredText(b, 'url', `${path}.url`), text, type: 'URL' };
      throw validation(`${path}.type must be REPLY or URL`, [{ field: `${path}.type`, message: 'must be REPLY or URL' }]);
    }),
  }));
}

// ---- inbound ---------------------------------------------------------------------------------

/**
 * A contact's message, or undefined for ours (fromMe), groups, and content we do not store
 * (reactions, edits, poll creations, a withdrawn vote). A choice's body is uazapi's
 * `buttonOrListid` (the tapped button's or row's id); a poll vote's is uazapi's `vote`, the
 * chosen option text(s) it decrypted. uazapi's `content.URL` is WhatsApp's encrypted file, so
 * media_url is uazapi's `fileURL` when the instance downloads media, else empty. The contact:
 * `chatid` is the number's JID when uazapi knows it, else the LID's; `sender_pn` and `sender_lid`
 * name the two (either may be empty), `sender` the one WhatsApp addressed.
 */
function uazapiMessage(m: Json): InboundEvent | undefined {
  const chat = str(m.chatid);
  if (m.fromMe === true || m.isGroup === true || !isDirectChat(chat)) return undefined;
  const content = obj(m.content);
  const fields = messageFields(m, content);
  if (!fields) return undefined;
  return {
    kind: 'message',
    ...contactIds(chat, m.sender_pn, m.sender_lid, m.sender),
    contactName: str(m.senderName),
    providerMessageId: str(m.messageid),
    replyTo: str(m.quoted),
    timestampMs: Number(m.messageTimestamp) || 0,
    rawJson: JSON.stringify(m),
    ...fields,
  };
}

function messageFields(
  m: Json,
  content: Json,
): Pick<InboundEvent, 'messageType' | 'body' | 'mediaUrl' | 'mimeType' | 'fileName'> | undefined {
  const messageType = str(m.messageType);
  if (messageType === 'PollUpdateMessage') return str(m.vote) ? { messageType: 'poll_vote', body: str(m.vote) } : undefined;
  if (str(m.buttonOrListid)) {
    const button = messageType === 'ButtonsResponseMessage' || messageType === 'TemplateButtonReplyMessage';
    return { messageType: button ? 'button' : 'interactive', body: str(m.buttonOrListid) };
  }
  const media = MEDIA_TYPES[str(m.mediaType)];
  if (media)
    return {
      messageType: media,
      body: str(m.text),
      mediaUrl: str(m.fileURL),
      mimeType: str(content.mimetype),
      fileName: str(content.fileName),
    };
  if (messageType === 'LocationMessage' && typeof content.degreesLatitude === 'number') {
    return { messageType: 'location', body: `${content.degreesLatitude},${content.degreesLongitude}` };
  }
  if (messageType === 'Conversation' || messageType === 'ExtendedTextMessage') return { messageType: 'text', body: str(m.text) };
  return undefined;
}

/**
 * One status per message id of a receipt for our messages. IsFromMe (a boolean, or "True" as a
 * string) marks our own device's receipts of the contact's messages, which are not ours to report.
 */
function receipts(event: Json, state: string): InboundEvent[] {
  if (String(event.IsFromMe).toLowerCase() === 'true') return [];
  const status = RECEIPTS[(str(event.Type) || state).toLowerCase()];
  const ids = strings(event.MessageIDs);
  return status ? ids.map((id) => statusEvent(id, status, secondsToMs(event.Timestamp))) : [];
}
