import { providerFailed } from '@convo/kit';
import type { NumberCheck, Outbound } from './driver';
import type { Json } from './graph';
import { baileysMessage, baileysStatus } from './baileys-inbound';
import { RestEngineDriver, type Part } from './rest-engine';
import { connectionEvent, obj, statusEvent, str, webhookBody, type InboundEvent } from './wa-engine';

/**
 * engine_h: Evolution API v1 (github.com/EvolutionAPI/evolution-api, the 1.x line that grew out of
 * CodeChat), a Baileys server. Routes are `/{group}/{action}/{instance}` with the key in `apikey`;
 * the engine URL is the server followed by the instance name. Media go by link in
 * `mediaMessage.media`. (engine_b speaks Evolution v2, whose bodies differ.)
 */
export class EngineHDriver extends RestEngineDriver {
  readonly kind = 'engine_h';

  protected async deliver(msg: Outbound, part: Part): Promise<string> {
    const { path, body } = requestOf(part);
    const answer = await this.post(this.sessionRoute(msg.channel, path), { number: msg.to, ...body }, this.headers(msg.channel));
    // The answer is Baileys' WAMessage: `{ key: { remoteJid, fromMe, id }, message, status }`.
    return this.idFrom(obj(obj(answer).key).id, 'key.id');
  }

  /** POST /chat/whatsappNumbers/{instance} `{ numbers: [...] }` → `[{ exists, jid, number }]`. */
  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    const answer = await this.post(this.sessionRoute(channel, '/chat/whatsappNumbers'), { numbers: [number] }, this.headers(channel));
    const first = obj(Array.isArray(answer) ? answer[0] : undefined);
    if (typeof first.exists !== 'boolean') throw providerFailed('engine_h answered the number check without exists');
    return { exists: first.exists, networkId: first.exists ? str(first.jid) : '' };
  }

  /**
   * `{ event, instance, data, destination, date_time, sender, server_url, apikey }`. The event is
   * dotted lower case ("messages.upsert"); the upper-case config spelling is accepted too.
   */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    const envelope = webhookBody(this.kind, body);
    const data = obj(envelope.data);
    switch (str(envelope.event).toLowerCase().replace(/_/g, '.')) {
      case 'messages.upsert': {
        // `data` is Baileys' WAMessage, as with engine_b; a media link is `message.mediaUrl` when the server stores media in S3/MinIO.
        const message = baileysMessage(data);
        return message ? [message] : [];
      }
      case 'messages.update': {
        // `{ ...key (remoteJid, fromMe, id), status, datetime }`; fromMe false is our own device reading the contact's message.
        const status = baileysStatus(data.status);
        const id = str(data.id) || str(data.keyId);
        return data.fromMe === true && status && id ? [statusEvent(id, status, Number(data.datetime) || 0)] : [];
      }
      case 'connection.update':
        if (data.state === 'open') return [connectionEvent('CONNECTED')];
        if (data.state === 'close') return [connectionEvent('DISCONNECTED', `${data.statusReason ?? ''}`)];
        return [];
      default:
        return [];
    }
  }

  /** Evolution's refusals are `{ status, error: "Bad Request", response: { message: [...] } }`: the reason is the list. */
  protected override refusalReason(body: unknown): string | undefined {
    const message = obj(obj(body).response).message;
    const reasons = (Array.isArray(message) ? message : [message]).map((m) => (typeof m === 'string' ? m : m === undefined ? '' : JSON.stringify(m))).filter(Boolean);
    return reasons.length ? reasons.join('; ') : undefined;
  }

  private headers(channel: Outbound['channel']): Record<string, string> {
    return this.tokenHeader(channel, 'apikey');
  }
}

function requestOf(part: Part): { path: string; body: Json } {
  switch (part.kind) {
    case 'text':
      return { path: '/message/sendText', body: { textMessage: { text: part.text } } };
    case 'audio':
      return { path: '/message/sendWhatsAppAudio', body: { audioMessage: { audio: part.url } } };
    default:
      return {
        path: '/message/sendMedia',
        body: {
          mediaMessage: {
            mediatype: part.kind,
            mimetype: part.mimeType || undefined,
            caption: part.caption || undefined,
            fileName: part.fileName,
            media: part.url,
          },
        },
      };
  }
}
