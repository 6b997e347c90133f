import { providerFailed, validation } from '@convo/kit';
import { requestJson } from './http';
import { type Json, obj, optionalInteger, optionalText, requiredList, requiredNumber, requiredStrings, requiredText, str } from '../json';
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
  engineAddress,
  engineBaseUrl,
  type InboundEvent,
  interactiveFor,
  mediaKindOf,
  requireContent,
  requiredPixType,
  tokenHeader,
  unknownInteractive,
  webhookBody,
} from './wa-engine';
import { uazapiMessage, uazapiReceipts } from './uazapi-inbound';

/** One uazapi call: `POST {base}{path}` with this body. */
interface UazapiSend {
  path: string;
  body: Json;
}

const TYPES = ['button', 'list', 'poll', 'carousel', 'pixButton', 'locationButton', 'requestPayment'];

/** How long uazapi keeps showing "typing…" unless a message or a paused ends it first. */
export const UAZAPI_TYPING_MS = 30_000;

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
   * uazapi's webhook body, told apart by `EventType` (uazapi-inbound.ts reads each): messages `{ message }`, messages_update
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
        return uazapiReceipts(obj(envelope.event), str(envelope.state));
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
