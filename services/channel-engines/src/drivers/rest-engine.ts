import { mediaTypeExtension, providerFailed, validation } from '@convo/kit';
import { requestJson, type RequestOptions } from './http';
import { type Delivered, type Driver, type DriverSettings, type NumberCheck, type Outbound, sendInOrder } from './driver';
import { engineAddress, engineBaseUrl, type InboundEvent, mediaKindOf, requireContent, splitSession } from './wa-engine';
import { obj, str } from '../json';

type Channel = Outbound['channel'];

/** One request's worth of a message: a text, or one media file by its public link. */
export type Part =
  | { kind: 'text'; text: string }
  | { kind: 'image' | 'video' | 'audio' | 'document'; url: string; mimeType: string; fileName: string; caption: string; voice?: boolean };

/**
 * What the REST engines behind engine_d … engine_h and whatsapp share (docs/channels/engines-d-h.md): where
 * the server is, how a message becomes requests, and how an answer or a refusal is read. Each
 * driver only says which endpoint and body its engine wants for one part, and where the id is.
 */
export abstract class RestEngineDriver implements Driver {
  abstract readonly kind: string;

  constructor(protected readonly settings: DriverSettings) {}

  /** Sends one part and answers the engine's id of the message it created. */
  protected abstract deliver(msg: Outbound, part: Part): Promise<string>;

  abstract checkNumber(channel: Channel, number: string): Promise<NumberCheck>;

  abstract parseInbound(channel: Channel, body: unknown): InboundEvent[];

  /**
   * WhatsApp audio carries no caption: a text sent with one follows it as its own message. `to` is
   * a number, a group's JID or a LID's JID; a BSUID is refused before any call.
   */
  async send(msg: Outbound): Promise<Delivered> {
    const to = engineAddress(this.kind, msg.to);
    return sendInOrder(this.partsOf(msg), (part) => this.deliver({ ...msg, to }, part));
  }

  protected baseUrl(channel: Channel): string {
    return engineBaseUrl(this.settings, this.kind, channel);
  }

  /**
   * Engines that run many sessions (instances) on one server: the engine URL ends with the
   * session's name, e.g. http://waha:3000/default → server http://waha:3000, session "default".
   */
  protected sessionOf(channel: Channel): { server: string; session: string } {
    const base = this.baseUrl(channel);
    const { server, session } = splitSession(this.kind, base);
    if (!session) throw providerFailed(`${this.kind} engine URL must end with the session name (e.g. ${server}/default), got ${base}`);
    return { server, session };
  }

  /** `{server}{path}/{session}`: the route style of engines that name the session last (Evolution, whatsapp-web.js REST). */
  protected sessionRoute(channel: Channel, path: string): string {
    const { server, session } = this.sessionOf(channel);
    return `${server}${path}/${encodeURIComponent(session)}`;
  }

  protected post(url: string, payload: unknown, headers: Record<string, string>): Promise<unknown> {
    return this.request(url, { body: payload, headers });
  }

  /** The read endpoints (number checks) of engines that answer GET. */
  protected get(url: string, headers: Record<string, string>): Promise<unknown> {
    return this.request(url, { method: 'GET', headers });
  }

  /** An engine whose error envelope hides the reason where requestJson does not look says where it is. */
  protected refusalReason(_body: unknown): string | undefined {
    return undefined;
  }

  protected idFrom(value: unknown, where: string): string {
    if (typeof value === 'string' && value) return value;
    throw providerFailed(`${this.kind} answered without ${where}`);
  }

  private partsOf({ content }: Outbound): Part[] {
    if (content.interactiveType) {
      throw validation(`${content.interactiveType} cannot be sent through ${this.kind} channels: they take text and media only`, [
        { field: 'interactive_type', message: `is not available on ${this.kind} channels` },
      ]);
    }
    requireContent(content);
    const text = content.text;
    if (!content.mediaUrl) return [{ kind: 'text', text }];
    const kind = mediaKindOf(content.mimeType);
    const media = { url: content.mediaUrl, mimeType: content.mimeType, fileName: fileNameOf(content) };
    if (kind !== 'audio') return [{ kind, ...media, caption: text }];
    const audio: Part = { kind, ...media, caption: '', voice: content.voice };
    return text ? [audio, { kind: 'text', text }] : [audio];
  }

  protected async request(url: string, opts: Pick<RequestOptions, 'method' | 'body' | 'headers'>): Promise<unknown> {
    const res = await requestJson(url, {
      ...opts,
      timeoutMs: this.settings.timeoutMs,
      provider: this.kind,
      refusalReason: (body) => this.refusalReason(body),
    });
    return res.body;
  }
}

/** Engines show a document under a name; a link to our media store has none, so the type names it. */
function fileNameOf(content: Outbound['content']): string {
  if (content.fileName) return content.fileName;
  const ext = extensionOf('', content.mimeType);
  return ext ? `file.${ext}` : 'file';
}

/** A file's extension: from its name, else from its type ("" when neither tells). */
export function extensionOf(fileName: string, mimeType: string): string {
  const dot = fileName.lastIndexOf('.');
  if (dot > 0 && dot < fileName.length - 1) return fileName.slice(dot + 1).toLowerCase();
  const type = mimeType.split(';')[0].trim().toLowerCase();
  return mediaTypeExtension(type) ?? (/^[a-z]+\/([a-z0-9]+)$/.exec(type)?.[1] || '');
}

// ---- reading engine webhooks (wa-engine.ts has the rest) ------------------------------------

/** A whatsapp-web.js / WA-JS id: the serialised string ("true_5511…@c.us_3EB0…"), or the id object that carries it. */
export function serialised(id: unknown): string {
  return typeof id === 'string' ? id : str(obj(id)._serialized);
}

/** A location as "latitude,longitude" (engines send numbers or numeric strings); '' when either is missing. */
export function coordinates(latitude: unknown, longitude: unknown): string {
  const known = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && v !== '') ? String(v) : '');
  return known(latitude) && known(longitude) ? `${known(latitude)},${known(longitude)}` : '';
}

export type Status = 'sent' | 'delivered' | 'read' | 'failed';

const ACKS: Record<string, Status> = { '-1': 'failed', '1': 'sent', '2': 'delivered', '3': 'read', '4': 'read' };

/** whatsapp-web.js and WA-JS ack levels (WPPConnect, WAHA, whatsapp-web.js REST); PENDING (0) is no change. */
export function ackStatus(ack: unknown): Status | undefined {
  return ACKS[String(ack)];
}

/** A contact's message with the engine's own event kept as raw_json (the customer webhook's msg.raw). */
export function messageEvent(fields: Omit<InboundEvent, 'kind' | 'rawJson'>, raw: unknown): InboundEvent {
  return { kind: 'message', ...fields, rawJson: JSON.stringify(raw) };
}

const WEB_TYPES: Record<string, string> = {
  chat: 'text',
  image: 'image',
  video: 'video',
  audio: 'audio',
  ptt: 'audio',
  document: 'document',
  sticker: 'sticker',
  location: 'location',
  buttons_response: 'button',
  template_button_reply: 'button',
  list_response: 'interactive',
};

/** whatsapp-web.js / WA-JS message types (WPPConnect, whatsapp-web.js REST) in neutral terms; `ptt` is a voice note. */
export function webMessageType(type: unknown): string {
  return WEB_TYPES[str(type)] ?? 'unknown';
}
