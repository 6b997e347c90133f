import { providerFailed } from '@convo/kit';
import { zapiChange } from './engine-changes';
import type { Change, Delivered, NumberCheck, Outbound } from './driver';
import { coordinates, extensionOf, messageEvent, RestEngineDriver, type Part, type Status } from './rest-engine';
import { type Json, obj, str, strings } from '../json';
import { connectionEvent, contactIds, type InboundEvent, personJid, statusEvent, tokenHeader, webhookBody } from './wa-engine';

/**
 * engine_f: Z-API (developer.z-api.io, docs in github.com/Z-API/z-api-docs). The engine URL is the
 * instance's own base, `https://api.z-api.io/instances/{instance}/token/{token}`, and the channel's
 * engine token is the account's security token, sent as `Client-Token`. Media go by public link.
 * `phone` takes a number's digits or a LID's JID (`<digits>@lid`).
 */
export class EngineFDriver extends RestEngineDriver {
  readonly kind = 'engine_f';

  protected async deliver(msg: Outbound, part: Part): Promise<string> {
    const { path, body } = requestOf(part);
    const answer = await this.post(`${this.baseUrl(msg.channel)}${path}`, { phone: msg.to, ...body }, this.headers(msg.channel));
    // `{ zaapId, messageId, id }`: messageId is the WhatsApp id status callbacks name.
    return this.idFrom(obj(answer).messageId, 'messageId');
  }

  /** React, edit or delete for everyone (engine-changes.ts); a reaction or an edit answers its `messageId`, a deletion 204. */
  async sendChange(c: Change): Promise<Delivered> {
    const { method, path, body } = zapiChange(this.kind, c);
    const answer = await this.request(`${this.baseUrl(c.channel)}${path}`, { method, body, headers: this.headers(c.channel) });
    return { providerMessageId: str(obj(answer).messageId) };
  }

  /** GET /phone-exists/{phone} → `{ exists }` (older answers wrap it in a one-item list). */
  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    const answer = await this.get(`${this.baseUrl(channel)}/phone-exists/${encodeURIComponent(number)}`, this.headers(channel));
    const result = obj(Array.isArray(answer) ? answer[0] : answer);
    // Booleans, though the docs' example shows them as strings.
    const exists = BOOLEANS[String(result.exists)];
    if (exists === undefined) throw providerFailed('engine_f answered the number check without exists');
    return { exists, networkId: exists ? str(result.phone) || number : '' };
  }

  /** Every Z-API webhook names itself in `type`. */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    const payload = webhookBody(this.kind, body);
    switch (payload.type) {
      case 'ReceivedCallback':
        return received(payload);
      case 'MessageStatusCallback':
        return statuses(payload);
      case 'ConnectedCallback':
        return [connectionEvent('CONNECTED')];
      case 'DisconnectedCallback':
        return [connectionEvent('DISCONNECTED', str(payload.error))];
      default:
        return [];
    }
  }

  private headers(channel: Outbound['channel']): Record<string, string> {
    return tokenHeader(this.settings, this.kind, channel, 'client-token');
  }
}

const BOOLEANS: Record<string, boolean> = { true: true, false: false };

function requestOf(part: Part): { path: string; body: Json } {
  switch (part.kind) {
    case 'text':
      return { path: '/send-text', body: { message: part.text } };
    case 'image':
      return { path: '/send-image', body: { image: part.url, caption: part.caption || undefined } };
    case 'video':
      return { path: '/send-video', body: { video: part.url, caption: part.caption || undefined } };
    case 'audio':
      return { path: '/send-audio', body: { audio: part.url } };
    case 'document': {
      // The extension in the path sets the icon WhatsApp shows.
      const ext = extensionOf(part.fileName, part.mimeType) || 'bin';
      return {
        path: `/send-document/${encodeURIComponent(ext)}`,
        body: { document: part.url, fileName: part.fileName, caption: part.caption || undefined },
      };
    }
  }
}

/** The content objects of a ReceivedCallback, each with its link field; the first present wins. */
const MEDIA: [key: string, messageType: string, urlField: string][] = [
  ['image', 'image', 'imageUrl'],
  ['video', 'video', 'videoUrl'],
  ['audio', 'audio', 'audioUrl'],
  ['document', 'document', 'documentUrl'],
  ['sticker', 'sticker', 'stickerUrl'],
];

/**
 * ReceivedCallback (on-message-received): `phone` (the chat's contact, also on our own messages),
 * `senderName`, `messageId`, `momment` (ms), `referenceMessageId` for a reply, and one content
 * object (text, image, audio, ...). A message the business sent (from the phone, or through
 * Z-API) has `fromMe: true`; `reaction { value, referencedMessage: { messageId } }` reacts to
 * another message (`value: ""` removes it). Groups, channels and status replies are left out.
 */
function received(p: Json): InboundEvent[] {
  if (p.isGroup === true || p.isNewsletter === true || p.isStatusReply === true) return [];
  const ids = contactOf(p);
  if (!ids.from && !ids.lid) return [];
  const fromMe = p.fromMe === true;
  if (p.reaction) return reactionOf(p, ids, fromMe);
  const content = contentOf(p);
  if (!content) return [];
  return [
    messageEvent(
      {
        ...ids,
        ...(fromMe && { fromMe }),
        contactName: fromMe ? '' : str(p.senderName) || str(p.chatName),
        providerMessageId: str(p.messageId),
        replyTo: str(p.referenceMessageId),
        timestampMs: Number(p.momment) || 0,
        ...content,
      },
      p,
    ),
  ];
}

function reactionOf(p: Json, ids: { from: string; lid: string }, fromMe: boolean): InboundEvent[] {
  const reaction = obj(p.reaction);
  const target = str(obj(reaction.referencedMessage).messageId);
  if (!target) return [];
  const at = Number(reaction.time) || Number(p.momment) || 0;
  return [
    {
      kind: 'reaction',
      ...ids,
      fromMe,
      providerMessageId: str(p.messageId),
      targetId: target,
      body: str(reaction.value),
      timestampMs: at,
      rawJson: JSON.stringify(p),
    },
  ];
}

/**
 * Z-API's `phone` is the number's digits, or the LID itself (`"…@lid"`) when Z-API has no number
 * for the contact; `chatLid` and `senderLid` name the LID when known (either may be null).
 */
function contactOf(p: Json): { from: string; lid: string } {
  const phone = str(p.phone);
  return contactIds(phone.includes('@') ? phone : personJid(phone.replace(/\D/g, '')), p.chatLid, p.senderLid);
}

function contentOf(p: Json): Pick<InboundEvent, 'messageType' | 'body' | 'mediaUrl' | 'mimeType' | 'fileName'> | undefined {
  if (p.text) return { messageType: 'text', body: str(obj(p.text).message) };
  for (const [key, messageType, urlField] of MEDIA) {
    const media = obj(p[key]);
    if (p[key])
      return {
        messageType,
        body: str(media.caption),
        mediaUrl: str(media[urlField]),
        mimeType: str(media.mimeType),
        fileName: str(media.fileName),
      };
  }
  if (p.buttonsResponseMessage) return { messageType: 'button', body: str(obj(p.buttonsResponseMessage).buttonId) };
  if (p.listResponseMessage) return { messageType: 'interactive', body: str(obj(p.listResponseMessage).selectedRowId) };
  if (p.location) {
    const location = obj(p.location);
    return { messageType: 'location', body: str(location.name) || coordinates(location.latitude, location.longitude) };
  }
  return undefined;
}

/** SENT, RECEIVED (on the phone), READ, PLAYED; READ_BY_ME / READ-SELF are our own reads. */
const STATUSES: Record<string, Status> = {
  SENT: 'sent',
  RECEIVED: 'delivered',
  MESSAGE_RECEIVED: 'delivered',
  READ: 'read',
  PLAYED: 'read',
};

/** MessageStatusCallback names every message it covers in `ids`. */
function statuses(p: Json): InboundEvent[] {
  const status = STATUSES[str(p.status)];
  const ids = strings(p.ids);
  if (!status) return [];
  return ids.map((id) => statusEvent(id, status, Number(p.momment) || 0));
}
