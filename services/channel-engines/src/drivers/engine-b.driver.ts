import { DomainError, providerFailed } from '@convo/kit';
import { baileysMessage, baileysStatus } from './baileys-inbound';
import type { Delivered, Driver, DriverSettings, NumberCheck, Outbound } from './driver';
import { isObject, optionalText, requiredList, requiredText, sendInOrder, type Json } from './graph';
import { postJson } from './http';
import {
  connectionEvent,
  engineBaseUrl,
  interactiveFor,
  mediaKindOf,
  nestedText,
  obj,
  optionalInteger,
  requireContent,
  requiredNestedText,
  requiredObject,
  requiredPixType,
  requiredStrings,
  statusEvent,
  str,
  unknownInteractive,
  webhookBody,
  type InboundEvent,
  type PixType,
} from './wa-engine';

/** One Evolution call: `POST {api}/message/{endpoint}/{instance}` with this body. */
interface EvolutionSend {
  endpoint: 'sendText' | 'sendMedia' | 'sendButtons' | 'sendList' | 'sendPoll';
  body: Json;
}

const TYPES = ['quickReply', 'singleSelect', 'pixButton', 'ctaCopy', 'ctaUrl', 'ctaCall', 'poll'];

/** Evolution spells PIX key types its own way (it maps them back to CPF|CNPJ|PHONE|EMAIL|EVP itself). */
const EVOLUTION_KEY_TYPE: Record<PixType, string> = { CPF: 'cpf', CNPJ: 'cnpj', PHONE: 'phone', EMAIL: 'email', EVP: 'random' };

/**
 * engine_b: Evolution API v2 (docs/engines-abc.md). One Evolution server hosts many instances
 * (WhatsApp sessions), named in every path; a channel's instance is the last path segment of
 * its engine URL (`http://evolution:8080/acme-main` → server `http://evolution:8080`, instance
 * `acme-main`). The key goes in the `apikey` header (the global key or the instance's token).
 */
export class EngineBDriver implements Driver {
  readonly kind = 'engine_b';

  constructor(private readonly settings: DriverSettings) {}

  async send(msg: Outbound): Promise<Delivered> {
    return sendInOrder(sendsOf(this.kind, msg), async ({ endpoint, body }) => {
      const answer = await this.post(msg.channel, `message/${endpoint}`, body);
      const id = (answer as { key?: { id?: unknown } } | null)?.key?.id;
      if (typeof id !== 'string' || !id) throw providerFailed('engine_b answered without key.id');
      return id;
    });
  }

  /** Evolution's POST /chat/whatsappNumbers/{instance} `{ numbers }` → `[{ exists, jid, number }]`. */
  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    const body = await this.post(channel, 'chat/whatsappNumbers', { numbers: [number] });
    const first = Array.isArray(body) ? (body[0] as { exists?: unknown; jid?: unknown } | undefined) : undefined;
    if (!first || typeof first.exists !== 'boolean') throw providerFailed('engine_b answered the number check without exists');
    return { exists: first.exists, networkId: first.exists ? str(first.jid) : '' };
  }

  /**
   * Evolution's webhook body `{ event, instance, data, date_time, ... }`: messages.upsert carries
   * one WAMessage, messages.update one receipt `{ keyId, fromMe, status }`, connection.update
   * `{ state }`. Event names are read case- and separator-blind (MESSAGES_UPSERT = messages.upsert).
   */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    const envelope = webhookBody(this.kind, body);
    const data = obj(envelope.data);
    switch (str(envelope.event).toLowerCase().replace(/_/g, '.')) {
      case 'messages.upsert': {
        const message = baileysMessage(data);
        return message ? [message] : [];
      }
      case 'messages.update': {
        // Receipts of our own messages only; fromMe false is our device reading the contact's message.
        const status = baileysStatus(data.status);
        const id = str(data.keyId);
        return data.fromMe === true && status && id ? [statusEvent(id, status, Date.parse(str(envelope.date_time)) || 0)] : [];
      }
      case 'connection.update':
        if (data.state === 'open') return [connectionEvent('CONNECTED')];
        if (data.state === 'close') return [connectionEvent('DISCONNECTED')];
        return [];
      default:
        return [];
    }
  }

  private async post(channel: Outbound['channel'], path: string, payload: unknown): Promise<unknown> {
    const { api, instance } = evolutionTarget(engineBaseUrl(this.settings, this.kind, channel));
    try {
      const { body } = await postJson(`${api}/${path}/${encodeURIComponent(instance)}`, payload, {
        headers: channel.engineToken ? { apikey: channel.engineToken } : {},
        timeoutMs: this.settings.timeoutMs,
        provider: this.kind,
      });
      return body;
    } catch (err) {
      throw evolutionRefusal(err) ?? err;
    }
  }
}

/** Splits the engine URL into the Evolution server and the instance, its last path segment. */
function evolutionTarget(base: string): { api: string; instance: string } {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw providerFailed(`engine_b engine URL is not a URL: ${base}`);
  }
  const segments = url.pathname.split('/').filter(Boolean);
  const instance = segments.pop();
  if (!instance) throw providerFailed(`engine_b needs the Evolution instance as the last path segment of its engine URL (${base}/<instance>)`);
  return { api: `${url.origin}${segments.map((s) => `/${s}`).join('')}`, instance: decodeURIComponent(instance) };
}

/**
 * Evolution answers a refusal as `{ status, error: "Bad Request", response: { message: [...] } }`;
 * its reason is the `response.message` list (texts, or `{ exists: false, number }` for a number
 * that is not on WhatsApp), not the generic `error`.
 */
function evolutionRefusal(err: unknown): DomainError | undefined {
  if (!(err instanceof DomainError)) return undefined;
  const answer = err.details?.[0] as { status?: number; body?: unknown } | undefined;
  const message = obj(obj(answer?.body).response).message;
  if (message === undefined) return undefined;
  const reasons = (Array.isArray(message) ? message : [message]).map((m) =>
    isObject(m) && m.exists === false ? `${str(m.number) || str(m.jid)} is not on WhatsApp` : typeof m === 'string' ? m : JSON.stringify(m),
  );
  return providerFailed(`engine_b refused the message (HTTP ${answer!.status}): ${reasons.join('; ')}`, err.details);
}

/** The Evolution calls of one send, in order: an audio takes no caption, so its text follows as sendText. */
function sendsOf(kind: string, { content, to }: Outbound): EvolutionSend[] {
  if (content.interactiveType) {
    const { type, json } = interactiveFor(kind, content);
    return [interactive(kind, type, json, to)];
  }
  requireContent(content);
  const text: EvolutionSend = { endpoint: 'sendText', body: { number: to, text: content.text } };
  if (!content.mediaUrl) return [text];
  const mediatype = mediaKindOf(content.mimeType);
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
      return buttons(json, number, requiredList(json, 'buttons').map((b, i) => ({
        type: 'reply',
        displayText: requiredText(b, 'display_text', `buttons[${i}].display_text`),
        id: requiredText(b, 'id', `buttons[${i}].id`),
      })));
    case 'ctaCopy':
      return buttons(json, number, [{ type: 'copy', displayText: requiredText(json, 'displayText'), copyCode: requiredText(json, 'copyCode') }]);
    case 'ctaUrl':
      return buttons(json, number, [{ type: 'url', displayText: requiredText(json, 'displayText'), url: requiredText(json, 'url') }]);
    case 'ctaCall':
      return buttons(json, number, [{ type: 'call', displayText: requiredText(json, 'displayText'), phoneNumber: requiredText(json, 'phoneNumber') }]);
    case 'pixButton':
      // Evolution sends a PIX button alone, without body text; bodyText rides as the title it ignores today.
      return {
        endpoint: 'sendButtons',
        body: {
          number,
          title: optionalText(json, 'bodyText'),
          buttons: [{ type: 'pix', currency: 'BRL', name: requiredText(json, 'pixName'), keyType: EVOLUTION_KEY_TYPE[requiredPixType(json)], key: requiredText(json, 'pixKey') }],
        },
      };
    case 'singleSelect':
      return { endpoint: 'sendList', body: list(json, number) };
    case 'poll':
      return {
        endpoint: 'sendPoll',
        body: { number, name: requiredText(json, 'name'), selectableCount: optionalInteger(json, 'selectableCount') ?? 1, values: requiredStrings(json, 'options') },
      };
    default:
      throw unknownInteractive(kind, type, TYPES);
  }
}

/** Evolution writes a buttons message's body as `*title*`: the seed's body.text is the title. */
function buttons(json: Json, number: string, list: Json[]): EvolutionSend {
  return { endpoint: 'sendButtons', body: { number, title: requiredNestedText(json, 'body'), footer: nestedText(json, 'footer'), buttons: list } };
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
