import type { Change, Delivered, NumberCheck, Outbound, Presence } from './driver';
import { changeId, evolutionChange } from './message-changes';
import { evolutionEvents, evolutionNumberCheck, evolutionPresence, evolutionReason, type EvolutionVersion } from './evolution';
import { RestEngineDriver, type Part } from './rest-engine';
import { type Json, str } from '../json';
import { engineAddress, type InboundEvent, tokenHeader, waMessageId } from './wa-engine';

/**
 * engine_h: Evolution API v1 (github.com/EvolutionAPI/evolution-api, the 1.x line that grew out of
 * CodeChat), a Baileys server. Routes are `/{group}/{action}/{instance}` with the key in `apikey`;
 * the engine URL is the server followed by the instance name. Media go by link in
 * `mediaMessage.media`. (engine_b speaks Evolution v2, whose bodies differ.) `number` takes a
 * number's digits or a JID, a LID's (`<digits>@lid`) included.
 */
export class EngineHDriver extends RestEngineDriver {
  readonly kind = 'engine_h';

  protected async deliver(msg: Outbound, part: Part): Promise<string> {
    const { path, body } = requestOf(part);
    const answer = await this.post(this.sessionRoute(msg.channel, path), { number: msg.to, ...body }, this.headers(msg.channel));
    // The answer is Baileys' WAMessage: `{ key: { remoteJid, fromMe, id }, message, status }`.
    return waMessageId(this.kind, answer);
  }

  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    return evolutionNumberCheck(
      this.kind,
      await this.post(this.sessionRoute(channel, '/chat/whatsappNumbers'), { numbers: [number] }, this.headers(channel)),
    );
  }

  /** sendReaction (its v1 body), updateMessage, deleteMessageForEveryone of the instance (message-changes.ts). */
  async sendChange(c: Change): Promise<Delivered> {
    const { method, path, body } = evolutionChange(this.kind, c, 1);
    return {
      providerMessageId: changeId(
        await this.request(this.sessionRoute(c.channel, path), { method, body, headers: this.headers(c.channel) }),
      ),
    };
  }

  /** `POST /chat/sendPresence/{instance} { number, options: { presence, delay } }` (v1 nests them). */
  async sendPresence({ channel, to, state }: Presence): Promise<boolean> {
    const { number, presence, delay } = evolutionPresence(engineAddress(this.kind, to), state);
    await this.post(this.sessionRoute(channel, '/chat/sendPresence'), { number, options: { presence, delay } }, this.headers(channel));
    return true;
  }

  /** `{ event, instance, data, destination, date_time, sender, server_url, apikey }`, the event dotted lower case. */
  parseInbound(_channel: Outbound['channel'], body: unknown): InboundEvent[] {
    return evolutionEvents(this.kind, body, V1);
  }

  protected override refusalReason(body: unknown): string | undefined {
    return evolutionReason(body);
  }

  private headers(channel: Outbound['channel']): Record<string, string> {
    return tokenHeader(this.settings, this.kind, channel, 'apikey', { required: true });
  }
}

/** v1 keeps a receipt's id in `data.id` (`{ ...key, status, datetime }`) and says why a session closed. */
const V1: EvolutionVersion = {
  receipt: (data) => ({ id: str(data.id) || str(data.keyId), timestampMs: Number(data.datetime) || 0 }),
  closeReason: (data) => `${data.statusReason ?? ''}`,
};

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
