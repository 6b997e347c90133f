import { providerFailed } from '@convo/kit';
import { evolutionEvents, evolutionNumberCheck, evolutionPresence, evolutionReason, type EvolutionVersion } from './evolution';
import { requestJson } from './http';
import {
  isObject,
  type Json,
  nestedText,
  optionalInteger,
  optionalText,
  requiredList,
  requiredNestedText,
  requiredObject,
  requiredStrings,
  requiredText,
  str,
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
import { changeId, evolutionChange } from './message-changes';
import {
  engineAddress,
  engineBaseUrl,
  type InboundEvent,
  interactiveFor,
  mediaKindOf,
  type PixType,
  requireContent,
  requiredPixType,
  splitSession,
  tokenHeader,
  unknownInteractive,
  waMessageId,
} from './wa-engine';

/** One Evolution call: `POST {server}/message/{endpoint}/{instance}` with this body. */
interface EvolutionSend {
  endpoint: 'sendText' | 'sendMedia' | 'sendWhatsAppAudio' | 'sendButtons' | 'sendList' | 'sendPoll';
  body: Json;
}

const TYPES = ['quickReply', 'singleSelect', 'pixButton', 'ctaCopy', 'ctaUrl', 'ctaCall', 'poll'];

/** Evolution spells PIX key types its own way (it maps them back to CPF|CNPJ|PHONE|EMAIL|EVP itself). */
const EVOLUTION_KEY_TYPE: Record<PixType, string> = { CPF: 'cpf', CNPJ: 'cnpj', PHONE: 'phone', EMAIL: 'email', EVP: 'random' };

/**
 * engine_b: Evolution API v2 (docs/channels/engines-abc.md). One Evolution server hosts many instances
 * (WhatsApp sessions), named in every path; a channel's instance is the last path segment of
 * its engine URL (`http://evolution:8080/acme-main` → server `http://evolution:8080`, instance
 * `acme-main`). The key goes in the `apikey` header (the global key or the instance's token).
 */
export class EngineBDriver implements Driver {
  readonly kind = 'engine_b';

  constructor(private readonly settings: DriverSettings) {}

  async send(msg: Outbound): Promise<Delivered> {
    return sendInOrder(sendsOf(this.kind, msg), async ({ endpoint, body }) =>
      waMessageId(this.kind, await this.post(msg.channel, `message/${endpoint}`, body)),
    );
  }

  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    return evolutionNumberCheck(this.kind, await this.post(channel, 'chat/whatsappNumbers', { numbers: [number] }));
  }

  /** sendReaction, updateMessage, deleteMessageForEveryone of the instance (message-changes.ts). */
  async sendChange(c: Change): Promise<Delivered> {
    const { method, path, body } = evolutionChange(this.kind, c, 2);
    return { providerMessageId: changeId(await this.post(c.channel, path.slice(1), body, method)) };
  }

  /** `POST /chat/sendPresence/{instance} { number, presence, delay }`: Evolution holds composing for `delay` ms, then pauses. */
  async sendPresence({ channel, to, state }: Presence): Promise<boolean> {
    await this.post(channel, 'chat/sendPresence', evolutionPresence(engineAddress(this.kind, to), state));
    return true;
  }

  /** `{ event, instance, data, date_time, ... }`; a receipt is `{ keyId, fromMe, status }`. */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    return evolutionEvents(this.kind, body, V2);
  }

  /** `POST {server}/{path}/{instance}`, the instance being the last path segment of the engine URL. */
  private async post(
    channel: Outbound['channel'],
    path: string,
    payload: unknown,
    method: 'POST' | 'PUT' | 'DELETE' = 'POST',
  ): Promise<unknown> {
    const base = engineBaseUrl(this.settings, this.kind, channel);
    const { server, session: instance } = splitSession(this.kind, base);
    if (!instance)
      throw providerFailed(`engine_b needs the Evolution instance as the last path segment of its engine URL (${base}/<instance>)`);
    const { body } = await requestJson(`${server}/${path}/${encodeURIComponent(instance)}`, {
      method,
      body: payload,
      headers: tokenHeader(this.settings, this.kind, channel, 'apikey', { required: true }),
      timeoutMs: this.settings.timeoutMs,
      provider: this.kind,
      refusalReason: (answer) => evolutionReason(answer, notOnWhatsapp),
    });
    return body;
  }
}

/** v2 keeps a receipt's id in `data.keyId` and its time in the envelope's `date_time`. */
const V2: EvolutionVersion = {
  receipt: (data, envelope) => ({ id: str(data.keyId), timestampMs: Date.parse(str(envelope.date_time)) || 0 }),
  closeReason: () => '',
};

/** v2 lists a number that is not on WhatsApp as `{ exists: false, jid, number }` among its refusal reasons. */
const notOnWhatsapp = (item: unknown) =>
  isObject(item) && item.exists === false ? `${str(item.number) || str(item.jid)} is not on WhatsApp` : JSON.stringify(item);

/** The Evolution calls of one send, in order: an audio takes no caption, so its text follows as sendText. */
function sendsOf(kind: string, { content, to: contact }: Outbound): EvolutionSend[] {
  // A LID goes as its JID, which Evolution's `number` takes as it is.
  const to = engineAddress(kind, contact);
  if (content.interactiveType) {
    const { type, json } = interactiveFor(kind, content);
    return [interactive(kind, type, json, to)];
  }
  requireContent(content);
  const text: EvolutionSend = { endpoint: 'sendText', body: { number: to, text: content.text } };
  if (!content.mediaUrl) return [text];
  const mediatype = mediaKindOf(content.mimeType);
  // A voice note is Evolution's "WhatsApp audio" (it encodes the file as one).
  if (mediatype === 'audio' && content.voice) {
    const voice: EvolutionSend = { endpoint: 'sendWhatsAppAudio', body: { number: to, audio: content.mediaUrl } };
    return content.text ? [voice, text] : [voice];
  }
  const caption = mediatype === 'audio' ? undefined : content.text || undefined;
  const media: EvolutionSend = {
    endpoint: 'sendMedia',
    body: { number: to, mediatype, mimetype: content.mimeType, caption, media: content.mediaUrl, fileName: content.fileName || undefined },
  };
  return mediatype === 'audio' && content.text ? [media, text] : [media];
}

function interactive(kind: string, type: string, json: Json, number: string): EvolutionSend {
  switch (type) {
    case 'quickReply':
      return buttons(
        json,
        number,
        requiredList(json, 'buttons').map((b, i) => ({
          type: 'reply',
          displayText: requiredText(b, 'display_text', `buttons[${i}].display_text`),
          id: requiredText(b, 'id', `buttons[${i}].id`),
        })),
      );
    case 'ctaCopy':
      return buttons(json, number, [
        { type: 'copy', displayText: requiredText(json, 'displayText'), copyCode: requiredText(json, 'copyCode') },
      ]);
    case 'ctaUrl':
      return buttons(json, number, [{ type: 'url', displayText: requiredText(json, 'displayText'), url: requiredText(json, 'url') }]);
    case 'ctaCall':
      return buttons(json, number, [
        { type: 'call', displayText: requiredText(json, 'displayText'), phoneNumber: requiredText(json, 'phoneNumber') },
      ]);
    case 'pixButton':
      // Evolution sends a PIX button alone, without body text; bodyText rides as the title it ignores today.
      return {
        endpoint: 'sendButtons',
        body: {
          number,
          title: optionalText(json, 'bodyText'),
          buttons: [
            {
              type: 'pix',
              currency: 'BRL',
              name: requiredText(json, 'pixName'),
              keyType: EVOLUTION_KEY_TYPE[requiredPixType(json)],
              key: requiredText(json, 'pixKey'),
            },
          ],
        },
      };
    case 'singleSelect':
      return { endpoint: 'sendList', body: list(json, number) };
    case 'poll':
      return {
        endpoint: 'sendPoll',
        body: {
          number,
          name: requiredText(json, 'name'),
          selectableCount: optionalInteger(json, 'selectableCount') ?? 1,
          values: requiredStrings(json, 'options'),
        },
      };
    default:
      throw unknownInteractive(kind, type, TYPES);
  }
}

/** Evolution writes a buttons message's body as `*title*`: the seed's body.text is the title. */
function buttons(json: Json, number: string, list: Json[]): EvolutionSend {
  return {
    endpoint: 'sendButtons',
    body: { number, title: requiredNestedText(json, 'body'), footer: nestedText(json, 'footer'), buttons: list },
  };
}

/**
 * A legacy listMessage: its description is the body, buttonText opens the list, rows answer with
 * their rowId. Evolution requires title and footerText to be present; both may be empty.
 */
function list(json: Json, number: string): Json {
  const seedList = requiredObject(json, 'list');
  return {
    number,
    title: '',
    description: requiredNestedText(json, 'body'),
    footerText: nestedText(json, 'footer') ?? '',
    buttonText: requiredText(seedList, 'title', 'list.title'),
    sections: requiredList(seedList, 'sections', 'list.sections').map((section, s) => ({
      title: optionalText(section, 'title') ?? '',
      rows: requiredList(section, 'rows', `list.sections[${s}].rows`).map((row, r) => ({
        title: requiredText(row, 'title', `list.sections[${s}].rows[${r}].title`),
        description: optionalText(row, 'description'),
        rowId: requiredText(row, 'id', `list.sections[${s}].rows[${r}].id`),
      })),
    })),
  };
}
